//! Who may call what, checked before any handler runs. `identify` (around every request)
//! finds the caller — a bearer token, a session cookie or a trusted proxy's header — refuses
//! cross-site writes, and runs the request as that user. Then each route checks the role it
//! was declared with: REST routes in the one registry they are built from (`routes`), server
//! functions and pages in `server_fns`. Nothing without a declared role is served.

mod gate;
mod path_ids;
mod routes;
mod server_fns;
mod streams;

pub use gate::{identify, session_cookie, AuthGate, Caller, Client};
pub use routes::{Access, RouteEntry, Routes};
pub use server_fns::{guard_pages_and_server_fns, refuse_page, require, server_fn_access, PUBLIC_PAGES};
pub use streams::{limit_streams, StreamCounter, StreamLimits};

use crate::access::Role;
use axum::extract::Request;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use serde_json::json;

/// Lets the request through when its caller's role may do what `needed` asks.
fn check(needed: Access, request: &Request) -> Result<(), Refusal> {
    allows(needed, request.extensions().get::<Caller>())
}

/// Whether `caller` (`None`: the gate identified no one) may do what `needed` asks.
fn allows(needed: Access, caller: Option<&Caller>) -> Result<(), Refusal> {
    let Access::Role(needed) = needed else {
        return Ok(());
    };
    match caller {
        Some(Caller::AuthOff) => Ok(()),
        Some(Caller::User { user, .. }) if user.role.may(needed) => Ok(()),
        Some(Caller::User { user, .. }) => Err(Refusal::Forbidden {
            role: user.role,
            needed,
        }),
        Some(Caller::Anonymous) | None => Err(Refusal::SignIn),
    }
}

/// Why a request was refused before it reached its handler.
#[derive(Debug, Clone, PartialEq)]
pub enum Refusal {
    SignIn,
    /// A bearer token that is not one of the live ones.
    BadToken,
    /// A trusted proxy named a user this server does not have.
    UnknownProxyUser,
    Forbidden {
        role: Role,
        needed: Role,
    },
    CrossSite,
    /// A request to a loopback-only server by another host name (DNS rebinding).
    NotLoopbackHost,
    /// A request through a proxy (it carries this header) to a server without `[auth]`.
    Proxied(&'static str),
    /// A server function declared with no role: refused until it is.
    Undeclared,
    /// The store failed while checking: the id of the logged cause.
    Fault(String),
}

impl Refusal {
    fn fault(err: impl std::fmt::Display) -> Refusal {
        Refusal::Fault(crate::api::log_fault(&err))
    }

    fn message(&self) -> String {
        match self {
            Refusal::SignIn => {
                "sign in first: log in at /login, or send `Authorization: Bearer <token>`".into()
            }
            Refusal::BadToken => "this bearer token is unknown or revoked".into(),
            Refusal::UnknownProxyUser => "the user your sign-in proxy names has no account on this server: \
                an admin adds it with `evalstudio user add NAME --role ROLE --no-password`"
                .into(),
            Refusal::Forbidden { role, needed } => {
                format!("your role, {role}, may not do this: it needs {needed}")
            }
            Refusal::CrossSite => {
                "refused: this change came from another site (its Origin is not this server)".into()
            }
            Refusal::Undeclared => "this server function declares no role, so no one may call it".into(),
            Refusal::NotLoopbackHost => {
                "this server listens on loopback only: open it as localhost or 127.0.0.1".into()
            }
            Refusal::Proxied(header) => format!(
                "this request came through a proxy (it carries {header}), and a server without [auth] \
                 answers only what is asked on this machine: to publish Evalstudio, add [auth] to \
                 evalstudio.toml with the proxy in trusted_proxies"
            ),
            Refusal::Fault(_) => "internal error".into(),
        }
    }

    fn status(&self) -> StatusCode {
        match self {
            Refusal::SignIn | Refusal::BadToken => StatusCode::UNAUTHORIZED,
            Refusal::Forbidden { .. }
            | Refusal::CrossSite
            | Refusal::UnknownProxyUser
            | Refusal::Undeclared
            | Refusal::Proxied(_)
            | Refusal::NotLoopbackHost => StatusCode::FORBIDDEN,
            Refusal::Fault(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

impl IntoResponse for Refusal {
    /// As the REST API's errors are: `{"error", "detail"}`.
    fn into_response(self) -> Response {
        let detail = match &self {
            Refusal::Fault(id) => json!({ "id": id }),
            _ => serde_json::Value::Null,
        };
        let mut response = (
            self.status(),
            axum::Json(json!({"error": self.message(), "detail": detail})),
        )
            .into_response();
        if matches!(self, Refusal::SignIn | Refusal::BadToken) {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        response
    }
}

/// A page asked for without signing in goes to the login page, which comes back here after.
fn to_login(request: &Request) -> Response {
    let back = request.uri().path_and_query().map(|p| p.as_str()).unwrap_or("/");
    let mut query = String::from("/login?next=");
    query.extend(url_escaped(back));
    Redirect::to(&query).into_response()
}

/// Percent-escapes everything but unreserved characters and `/`.
fn url_escaped(text: &str) -> impl Iterator<Item = String> + '_ {
    text.bytes().map(|byte| match byte {
        b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' | b'/' => {
            (byte as char).to_string()
        }
        other => format!("%{other:02X}"),
    })
}

#[cfg(test)]
mod tests;
