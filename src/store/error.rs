//! What the store answers when it cannot do what was asked.

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{0}")]
    NotFound(String),
    /// An id that already exists.
    #[error("{0}")]
    Conflict(String),
    /// An edit based on a version that is no longer the stored one.
    #[error("{message}")]
    Stale { message: String, current: i64 },
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    #[error("could not prepare the database: {0}")]
    Migration(#[from] sqlx::migrate::MigrateError),
    /// The database could not be opened (reached, or brought to this build's schema).
    #[error("cannot open the database {location}: {source}")]
    Open {
        /// Without its password.
        location: String,
        source: Box<StoreError>,
    },
    /// An evalset's file (folder mode) could not be written.
    #[error("cannot write the evalset's file: {0}")]
    File(String),
}

pub type StoreResult<T> = Result<T, StoreError>;

/// Stored JSON is written only by the store; failing to read it back means the database was damaged.
pub(crate) fn corrupt(err: serde_json::Error) -> StoreError {
    StoreError::Database(sqlx::Error::Decode(Box::new(err)))
}

/// A stored value this build cannot read (a role it does not know, say).
pub(crate) fn corrupt_text(message: String) -> StoreError {
    StoreError::Database(sqlx::Error::Decode(message.into()))
}

impl From<std::io::Error> for StoreError {
    fn from(err: std::io::Error) -> StoreError {
        StoreError::File(err.to_string())
    }
}
