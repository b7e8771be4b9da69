//! API tokens for the CLI and scripts: random, shown once, kept as their SHA-256, named,
//! revocable, with the time each was last used.

use super::secrets::{digest, new_secret};
use super::{check_name, AuthError};
use crate::access::{SignedIn, TokenSummary};
use crate::store::Store;

/// What every token starts with, so a leaked one is recognisable.
pub const TOKEN_PREFIX: &str = "est_";

/// Makes a token for `user` and answers its secret: the only time anyone sees it.
pub async fn create_token(store: &Store, user: &str, name: &str) -> Result<String, AuthError> {
    check_name("token name", name)?;
    let secret = new_secret(TOKEN_PREFIX);
    store.create_token(user, name, &digest(&secret)).await?;
    Ok(secret)
}

pub async fn revoke_token(store: &Store, name: &str) -> Result<(), AuthError> {
    if store.revoke_token(name).await? {
        Ok(())
    } else {
        Err(AuthError::NotFound(format!("no live token named `{name}`")))
    }
}

pub async fn list_tokens(store: &Store) -> Result<Vec<TokenSummary>, AuthError> {
    Ok(store.list_tokens().await?)
}

/// The user a live token belongs to (`None`: unknown or revoked).
pub async fn token_user(store: &Store, secret: &str) -> Result<Option<SignedIn>, AuthError> {
    Ok(store.user_of_token(&digest(secret)).await?)
}
