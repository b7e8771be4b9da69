//! Browser logins: a password checked (failures counted in the store, per user and per address,
//! so every process serving it shares the count), a session secret for the cookie.

use super::secrets::{digest, hash_password, new_secret, password_matches};
use super::AuthError;
use crate::access::SignedIn;
use crate::store::Store;

/// What every session secret starts with (the cookie's value).
const SESSION_PREFIX: &str = "ess_";

/// How long a session lasts and how many failures are allowed how often.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LoginPolicy {
    pub session_seconds: f64,
    /// Failed logins allowed per user, and per address, within `window_seconds`.
    pub failure_limit: i64,
    pub window_seconds: f64,
}

impl Default for LoginPolicy {
    fn default() -> LoginPolicy {
        LoginPolicy {
            session_seconds: 12.0 * 3600.0,
            failure_limit: 5,
            window_seconds: 15.0 * 60.0,
        }
    }
}

/// Checks `name`'s password, from `address`; answers the new session's secret and the user.
/// Past the limit of failures every attempt is refused, right or wrong, until the window passes.
pub async fn log_in(
    store: &Store,
    policy: &LoginPolicy,
    name: &str,
    password: String,
    address: &str,
) -> Result<(String, SignedIn), AuthError> {
    // Each attempt counts as failed before its password is checked (a right one clears the
    // user's count), so attempts sent at once cannot all slip under the limit.
    store
        .record_failed_login(name, address, policy.window_seconds)
        .await?;
    let (by_user, by_address) = store.failed_logins(name, address, policy.window_seconds).await?;
    if by_user > policy.failure_limit || by_address > policy.failure_limit {
        return Err(AuthError::Throttled {
            minutes: (policy.window_seconds / 60.0).ceil() as u64,
        });
    }
    let user = store.stored_user(name).await?;
    // A name without a password is checked against a stand-in hash all the same, so how long
    // the answer takes does not tell a guesser which names exist.
    let matched = match user.as_ref().and_then(|user| user.password_hash.clone()) {
        Some(hash) => password_matches(password, hash).await,
        None => {
            password_matches(password, stand_in_hash().await).await;
            false
        }
    };
    let Some(user) = user.filter(|_| matched) else {
        return Err(AuthError::WrongCredentials);
    };
    store.clear_failed_logins(name).await?;
    let secret = new_secret(SESSION_PREFIX);
    store
        .start_login_session(user.row, &digest(&secret), policy.session_seconds)
        .await?;
    Ok((secret, user.signed_in))
}

/// A hash no password matches (made once, of a random secret), as costly to check as a user's.
async fn stand_in_hash() -> String {
    static HASH: tokio::sync::OnceCell<String> = tokio::sync::OnceCell::const_new();
    HASH.get_or_init(|| hash_password(new_secret(""))).await.clone()
}

/// The user of a session that has not ended.
pub async fn session_user(store: &Store, secret: &str) -> Result<Option<SignedIn>, AuthError> {
    Ok(store.user_of_login_session(&digest(secret)).await?)
}

pub async fn log_out(store: &Store, secret: &str) -> Result<(), AuthError> {
    Ok(store.end_login_session(&digest(secret)).await?)
}
