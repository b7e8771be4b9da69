//! Server functions of signing in and out, and of the Settings page's users and tokens. The
//! session's cookie is set and cleared here, with the gate's flags (`access::AuthGate`).

use leptos::prelude::*;

use crate::access::{Account, TokenSummary, UserSummary};
#[cfg(feature = "ssr")]
use crate::{
    access::Role,
    api::access::{require, session_cookie, Caller, Client},
    api::{server_error, services, AppState},
    service::auth,
};

/// Who is signed in, and whether this server asks anyone to.
#[server(endpoint = "who_am_i")]
pub async fn who_am_i() -> Result<Account, ServerFnError> {
    let caller = request_part::<Caller>().unwrap_or(Caller::AuthOff);
    Ok(Account {
        auth_on: !matches!(caller, Caller::AuthOff),
        user: caller.user().cloned(),
    })
}

/// Checks the password and starts a session: its cookie set, the browser sent on to `next`
/// (a path of this server; anything else goes to the home page). Too many failures: 429 with
/// `Retry-After` in seconds.
#[server(endpoint = "log_in")]
pub async fn log_in(name: String, password: String, next: Option<String>) -> Result<(), ServerFnError> {
    let state = expect_context::<AppState>();
    let Some(gate) = state.auth.clone() else {
        return Err(ServerFnError::new("this server has no login: auth is off"));
    };
    let client = request_part::<Client>().ok_or_else(|| ServerFnError::new("no client address"))?;
    let (secret, _) = auth::log_in(
        &state.services.store,
        &gate.policy,
        name.trim(),
        password,
        &client.address,
    )
    .await
    .map_err(|err| {
        // Throttled: 429, with when to try again (the attempt is answered at once, never held).
        if let auth::AuthError::Throttled { retry_after_seconds } = &err {
            expect_context::<leptos_axum::ResponseOptions>().insert_header(
                axum::http::header::RETRY_AFTER,
                axum::http::HeaderValue::from(*retry_after_seconds),
            );
        }
        server_error(err)
    })?;
    let response = expect_context::<leptos_axum::ResponseOptions>();
    response.insert_header(
        axum::http::header::SET_COOKIE,
        gate.session_cookie(&secret, client.tls),
    );
    leptos_axum::redirect(&local_path(next.as_deref()));
    Ok(())
}

/// Ends the session and clears its cookie; the browser goes to the login page.
#[server(endpoint = "log_out")]
pub async fn log_out() -> Result<(), ServerFnError> {
    let state = expect_context::<AppState>();
    let Some(gate) = state.auth.clone() else {
        return Ok(());
    };
    let parts = expect_context::<axum::http::request::Parts>();
    let tls = request_part::<Client>().is_some_and(|client| client.tls);
    if let Some(secret) = session_cookie(&parts.headers, tls) {
        auth::log_out(&state.services.store, secret)
            .await
            .map_err(server_error)?;
    }
    let response = expect_context::<leptos_axum::ResponseOptions>();
    response.insert_header(axum::http::header::SET_COOKIE, gate.cleared_cookie(tls));
    leptos_axum::redirect("/login");
    Ok(())
}

#[server]
pub async fn list_users() -> Result<Vec<UserSummary>, ServerFnError> {
    require(Role::Admin)?;
    auth::list_users(&services().store).await.map_err(server_error)
}

#[server]
pub async fn list_tokens() -> Result<Vec<TokenSummary>, ServerFnError> {
    require(Role::Admin)?;
    auth::list_tokens(&services().store).await.map_err(server_error)
}

/// Makes a token for `user`; the answer is its secret, shown this once.
#[server]
pub async fn create_token(name: String, user: String) -> Result<String, ServerFnError> {
    require(Role::Admin)?;
    auth::create_token(&services().store, user.trim(), name.trim())
        .await
        .map_err(server_error)
}

#[server]
pub async fn revoke_token(name: String) -> Result<(), ServerFnError> {
    require(Role::Admin)?;
    auth::revoke_token(&services().store, &name)
        .await
        .map_err(server_error)
}

/// What the gate put on the request.
#[cfg(feature = "ssr")]
fn request_part<T: Clone + Send + Sync + 'static>() -> Option<T> {
    use_context::<axum::http::request::Parts>()?
        .extensions
        .get::<T>()
        .cloned()
}

/// `next` when it is a path on this server; an absolute or protocol-relative URL would send a
/// user who just signed in to another site.
#[cfg(feature = "ssr")]
fn local_path(next: Option<&str>) -> String {
    // Visible ASCII only: browsers drop tabs and newlines from a URL, so `/\t/evil.example`
    // would become `//evil.example`.
    let local = |path: &str| {
        path.starts_with('/')
            && !path.starts_with("//")
            && path.bytes().all(|b| (0x21..=0x7e).contains(&b) && b != b'\\')
    };
    match next {
        Some(path) if local(path) => path.to_string(),
        _ => "/".to_string(),
    }
}

#[cfg(all(test, feature = "ssr"))]
mod tests {
    use super::local_path;

    #[test]
    fn only_local_paths_are_followed_after_login() {
        assert_eq!(local_path(Some("/runs?x=1")), "/runs?x=1");
        for away in [
            "https://evil.example",
            "//evil.example",
            "/\\evil.example",
            "/\t/evil.example",
            "/é",
            "runs",
        ] {
            assert_eq!(local_path(Some(away)), "/", "{away}");
        }
        assert_eq!(local_path(None), "/");
    }
}
