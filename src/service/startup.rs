//! What a server does to its store before it serves: forget the cases deleted more than a day
//! ago (their undo has expired). (Runs need nothing: a dead worker's cases are claimed by
//! another once its leases end.)

use super::cases::UNDO_DAYS;
use crate::store::{Store, StoreError};

/// How much start-up tidied.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Tidied {
    pub forgotten_cases: u64,
}

pub async fn tidy(store: &Store) -> Result<Tidied, StoreError> {
    Ok(Tidied {
        forgotten_cases: store.purge_deleted_cases(UNDO_DAYS).await?,
    })
}
