//! The server's faces, thin adapters over `crate::service`: Leptos server functions for the
//! browser (`evalsets`, `cases`, `chat`, `evaluate`; compiled on both sides, their bodies on the server
//! only) and the JSON REST API for scripts (`rest`). Each maps the service's domain errors to
//! what its caller understands: a `ServerFnError`, or a status with a JSON body.

#[cfg(feature = "ssr")]
pub mod access;
pub mod auth;
pub mod case_results;
pub mod cases;
pub mod chat;
pub mod evalsets;
pub mod evaluate;
pub mod folder;
pub mod mcp_servers;
#[cfg(feature = "ssr")]
pub mod rest;
pub mod runs;
#[cfg(feature = "ssr")]
mod state;
pub mod traces;

pub use crate::agent::DEFAULT_APP;
pub use evalsets::{
    create_eval_set, delete_eval_set, get_case, import_eval_set, list_apps, list_cases, list_eval_sets,
    CreateEvalSet, DeleteEvalSet, ImportOutcome,
};
#[cfg(feature = "ssr")]
pub use state::{services, AppState};

/// A use case's error as the browser sees it: the caller's mistake in the service's own words,
/// with its 4xx status; a fault of ours as "something went wrong (id …)", its cause logged under
/// that id and never shown (it may name tables, SQL or paths). During server rendering the
/// status is the page's (a route rendered whole before its first byte then answers with it).
#[cfg(feature = "ssr")]
pub(crate) fn server_error<E>(err: E) -> leptos::prelude::ServerFnError
where
    E: std::fmt::Display + crate::service::errors::DomainError,
{
    use crate::service::errors::ErrorKind;
    use leptos::prelude::ServerFnError;
    let message = match err.kind() {
        ErrorKind::Fault => format!("something went wrong (id {})", log_fault(&err)),
        _ => err.to_string(),
    };
    if let Some(response) = leptos::prelude::use_context::<leptos_axum::ResponseOptions>() {
        response.set_status(status_of(err.kind()));
    }
    ServerFnError::new(message)
}

/// The HTTP status of a kind of error, for server functions and REST alike.
#[cfg(feature = "ssr")]
pub(crate) fn status_of(kind: crate::service::errors::ErrorKind) -> axum::http::StatusCode {
    use crate::service::errors::ErrorKind;
    use axum::http::StatusCode;
    match kind {
        ErrorKind::Invalid => StatusCode::BAD_REQUEST,
        ErrorKind::NotFound => StatusCode::NOT_FOUND,
        ErrorKind::Conflict => StatusCode::CONFLICT,
        ErrorKind::Unauthenticated => StatusCode::UNAUTHORIZED,
        ErrorKind::Forbidden => StatusCode::FORBIDDEN,
        ErrorKind::Throttled => StatusCode::TOO_MANY_REQUESTS,
        ErrorKind::Fault => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

/// A page's read: what was asked for, `None` when it does not exist (the page then shows its
/// 404), or the error as [`server_error`] answers it.
#[cfg(feature = "ssr")]
pub(crate) fn found<T, E>(read: Result<T, E>) -> Result<Option<T>, leptos::prelude::ServerFnError>
where
    E: std::fmt::Display + crate::service::errors::DomainError,
{
    use crate::service::errors::ErrorKind;
    match read {
        Ok(value) => Ok(Some(value)),
        Err(err) if err.kind() == ErrorKind::NotFound => Ok(None),
        Err(err) => Err(server_error(err)),
    }
}

/// The role a server function's answer is shaped for: the caller's, as the gate found it
/// (Leptos hands the body the request's parts), an admin's where auth is off (the one local
/// user may do everything), and a viewer's when no caller is known, so what is hidden stays
/// hidden.
#[cfg(feature = "ssr")]
pub(crate) fn caller_role() -> crate::access::Role {
    use crate::access::Role;
    let parts = leptos::prelude::use_context::<axum::http::request::Parts>();
    let caller = parts
        .as_ref()
        .and_then(|parts| parts.extensions.get::<access::Caller>());
    match caller {
        Some(access::Caller::AuthOff) => Role::Admin,
        Some(access::Caller::User { user, .. }) => user.role,
        Some(access::Caller::Anonymous) | None => Role::Viewer,
    }
}

/// Logs a fault of ours with a new short id, which the answer carries instead of the cause.
#[cfg(feature = "ssr")]
pub(crate) fn log_fault(cause: &dyn std::fmt::Display) -> String {
    let id = uuid::Uuid::new_v4().simple().to_string()[..12].to_string();
    tracing::error!(error_id = %id, "internal error: {cause}");
    id
}

#[cfg(all(test, feature = "ssr"))]
mod tests;
