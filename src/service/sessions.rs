//! Chat sessions: create, list, read, rename, delete. Their turns are `turns`.

use super::errors::{store_refusals, DomainError, ErrorKind};
use crate::evalset::{validate_app_name, validate_session_key};
use crate::records::sessions::{SessionRecord, SessionSummary};
use crate::store::{Store, StoreError};
use serde_json::{Map, Value};

#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("{0}")]
    InvalidApp(String),
    /// A user or session id that cannot name a session; the message names the field.
    #[error("{0}")]
    InvalidId(String),
    /// The session id is taken.
    #[error("{0}")]
    Exists(String),
    #[error("{0}")]
    NotFound(String),
    /// An id already taken.
    #[error("{0}")]
    Conflict(String),
    #[error(transparent)]
    Fault(StoreError),
}

impl DomainError for SessionError {
    fn kind(&self) -> ErrorKind {
        match self {
            SessionError::InvalidApp(_) | SessionError::InvalidId(_) | SessionError::Exists(_) => {
                ErrorKind::Invalid
            }
            SessionError::NotFound(_) => ErrorKind::NotFound,
            SessionError::Conflict(_) => ErrorKind::Conflict,
            SessionError::Fault(_) => ErrorKind::Fault,
        }
    }
}

store_refusals!(SessionError);

/// Creates a session (a fresh id unless `session_id` is given) with its starting state.
pub async fn create_session(
    store: &Store,
    app: &str,
    user: &str,
    session_id: Option<&str>,
    initial_state: &Map<String, Value>,
) -> Result<SessionRecord, SessionError> {
    validate_app_name(app).map_err(SessionError::InvalidApp)?;
    validate_session_key("user id", user).map_err(SessionError::InvalidId)?;
    if let Some(id) = session_id {
        validate_session_key("session id", id).map_err(SessionError::InvalidId)?;
    }
    store
        .create_session(app, user, session_id, initial_state)
        .await
        .map_err(|err| match err {
            StoreError::Conflict(message) => SessionError::Exists(message),
            other => other.into(),
        })
}

pub async fn list_sessions(
    store: &Store,
    app: &str,
    user: &str,
) -> Result<Vec<SessionSummary>, SessionError> {
    Ok(store.list_sessions(app, user).await?)
}

pub async fn get_session(
    store: &Store,
    app: &str,
    user: &str,
    session_id: &str,
) -> Result<SessionRecord, SessionError> {
    Ok(store.get_session(app, user, session_id).await?)
}

pub async fn rename_session(
    store: &Store,
    app: &str,
    user: &str,
    session_id: &str,
    title: &str,
) -> Result<(), SessionError> {
    Ok(store.rename_session(app, user, session_id, title).await?)
}

pub async fn delete_session(
    store: &Store,
    app: &str,
    user: &str,
    session_id: &str,
) -> Result<(), SessionError> {
    Ok(store.delete_session(app, user, session_id).await?)
}
