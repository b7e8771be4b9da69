//! Auth on a shared server: users and their roles, API tokens, browser logins with a
//! rate limit on failures, and who the current request acts as. The checks of each route's
//! role are the adapters' (`api::access`); this is what they ask.

pub mod actor;
mod logins;
mod secrets;
mod tokens;
mod users;

pub use logins::{log_in, log_out, session_user, LoginPolicy};
pub use secrets::{digest, MIN_PASSWORD_CHARS};
pub use tokens::{create_token, list_tokens, revoke_token, token_user, TOKEN_PREFIX};
pub use users::{add_user, list_users, proxy_user, remove_user, set_password};

use crate::service::errors::{store_refusals, DomainError, ErrorKind};
use crate::store::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    #[error("{0}")]
    Invalid(String),
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    Conflict(String),
    /// Said the same whether the user or the password is wrong, so a guesser learns neither.
    #[error("wrong user name or password")]
    WrongCredentials,
    /// Refused before the password was checked; may be tried again after `retry_after_seconds`
    /// (an answer's `Retry-After`).
    #[error(
        "too many failed logins for this user or from this address: try again in {} minute(s)",
        .retry_after_seconds.div_ceil(60)
    )]
    Throttled { retry_after_seconds: u64 },
    #[error(transparent)]
    Fault(StoreError),
}

store_refusals!(AuthError);

impl DomainError for AuthError {
    fn kind(&self) -> ErrorKind {
        match self {
            AuthError::Invalid(_) => ErrorKind::Invalid,
            AuthError::NotFound(_) => ErrorKind::NotFound,
            AuthError::Conflict(_) => ErrorKind::Conflict,
            AuthError::WrongCredentials => ErrorKind::Unauthenticated,
            AuthError::Throttled { .. } => ErrorKind::Throttled,
            AuthError::Fault(_) => ErrorKind::Fault,
        }
    }
}

/// A user's or a token's name: 1 to 64 of letters, digits and `_ - . @` (an email, for the
/// names a single sign-on proxy passes).
fn check_name(what: &str, name: &str) -> Result<(), AuthError> {
    let fits = (1..=64).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '@'));
    if fits {
        Ok(())
    } else {
        Err(AuthError::Invalid(format!(
            "{what} `{name}`: use 1 to 64 letters, digits, `_`, `-`, `.` or `@`"
        )))
    }
}
