//! Eval cases one at a time: list a page, read, replace at a known version, delete.

use crate::evalset::EvalCase;
use crate::records::{CaseListPage, StoredCase};
use crate::store::{Store, StoreError};

/// Cases per page of an evalset's case list.
pub const CASES_PER_PAGE: i64 = 50;

#[derive(Debug, thiserror::Error)]
pub enum CaseError {
    /// The case's own eval_id differs from the one it is stored under.
    #[error("the body's eval_id `{given}` does not match the eval_id `{expected}` in the URL")]
    IdMismatch { given: String, expected: String },
    /// Not found, or changed since `version` was read (`StoreError::Conflict`).
    #[error(transparent)]
    Store(#[from] StoreError),
}

pub async fn list_cases(
    store: &Store,
    app: &str,
    eval_set_id: &str,
    page: i64,
) -> Result<CaseListPage, StoreError> {
    store.list_cases(app, eval_set_id, page, CASES_PER_PAGE).await
}

pub async fn case_ids(store: &Store, app: &str, eval_set_id: &str) -> Result<Vec<String>, StoreError> {
    store.case_ids(app, eval_set_id).await
}

pub async fn get_case(
    store: &Store,
    app: &str,
    eval_set_id: &str,
    eval_id: &str,
) -> Result<StoredCase, StoreError> {
    store.get_case(app, eval_set_id, eval_id).await
}

/// Replaces a case read at `version`; a stale version changes nothing (`StoreError::Conflict`).
pub async fn update_case(
    store: &Store,
    app: &str,
    eval_set_id: &str,
    eval_id: &str,
    case: &EvalCase,
    version: i64,
) -> Result<StoredCase, CaseError> {
    if case.eval_id != eval_id {
        return Err(CaseError::IdMismatch {
            given: case.eval_id.clone(),
            expected: eval_id.to_string(),
        });
    }
    Ok(store
        .update_case(app, eval_set_id, eval_id, case, version)
        .await?)
}

pub async fn delete_case(
    store: &Store,
    app: &str,
    eval_set_id: &str,
    eval_id: &str,
) -> Result<(), StoreError> {
    store.delete_case(app, eval_set_id, eval_id).await
}
