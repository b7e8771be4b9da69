//! What this database knows of evalsets pulled from another server: each one's tag as pulled,
//! which a push of it sends as its precondition (`If-Match`), so a copy the server changed since
//! is refused rather than overwritten. The HTTP itself is the CLI's (`cli/push_pull.rs`).

use super::errors::{store_refusals, DomainError, ErrorKind};
use crate::store::{Store, StoreError};

#[derive(Debug, thiserror::Error)]
pub enum RemoteCopyError {
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    Conflict(String),
    #[error(transparent)]
    Fault(StoreError),
}

store_refusals!(RemoteCopyError);

impl DomainError for RemoteCopyError {
    fn kind(&self) -> ErrorKind {
        match self {
            RemoteCopyError::NotFound(_) => ErrorKind::NotFound,
            RemoteCopyError::Conflict(_) => ErrorKind::Conflict,
            RemoteCopyError::Fault(_) => ErrorKind::Fault,
        }
    }
}

/// Notes that `server`'s evalset was pulled (or pushed) at `tag`.
pub async fn record_tag(
    store: &Store,
    server: &str,
    app: &str,
    eval_set_id: &str,
    tag: &str,
) -> Result<(), RemoteCopyError> {
    Ok(store.record_pull(server, app, eval_set_id, tag).await?)
}

/// The tag `server`'s evalset had when this database last pulled or pushed it.
pub async fn recorded_tag(
    store: &Store,
    server: &str,
    app: &str,
    eval_set_id: &str,
) -> Result<Option<String>, RemoteCopyError> {
    Ok(store.pulled_tag(server, app, eval_set_id).await?)
}
