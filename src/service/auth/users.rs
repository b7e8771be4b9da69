//! Users: added with a role and (unless they only come through the proxy header) a password.

use super::secrets::{hash_password, MIN_PASSWORD_CHARS};
use super::{check_name, AuthError};
use crate::access::{Role, SignedIn, UserSummary};
use crate::store::Store;

/// Adds a user. `password` is `None` for a user who signs in only through a trusted proxy.
pub async fn add_user(
    store: &Store,
    name: &str,
    role: Role,
    password: Option<String>,
) -> Result<(), AuthError> {
    check_name("user name", name)?;
    let hash = match password {
        Some(password) => Some(hash_password(checked(password)?).await),
        None => None,
    };
    Ok(store.add_user(name, role, hash.as_deref()).await?)
}

pub async fn set_password(store: &Store, name: &str, password: String) -> Result<(), AuthError> {
    let hash = hash_password(checked(password)?).await;
    if store.set_user_password(name, &hash).await? {
        Ok(())
    } else {
        Err(no_user(name))
    }
}

pub async fn list_users(store: &Store) -> Result<Vec<UserSummary>, AuthError> {
    Ok(store.list_users().await?)
}

/// Removes a user with their tokens and sessions. The cases they saved keep their name.
pub async fn remove_user(store: &Store, name: &str) -> Result<(), AuthError> {
    if store.remove_user(name).await? {
        Ok(())
    } else {
        Err(no_user(name))
    }
}

/// The user a trusted proxy names, if this server has them.
pub async fn proxy_user(store: &Store, name: &str) -> Result<Option<SignedIn>, AuthError> {
    Ok(store.stored_user(name).await?.map(|user| user.signed_in))
}

fn checked(password: String) -> Result<String, AuthError> {
    if password.chars().count() < MIN_PASSWORD_CHARS {
        return Err(AuthError::Invalid(format!(
            "the password is too short: use at least {MIN_PASSWORD_CHARS} characters"
        )));
    }
    Ok(password)
}

fn no_user(name: &str) -> AuthError {
    AuthError::NotFound(format!("no user `{name}`"))
}
