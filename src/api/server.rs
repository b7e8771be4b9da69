//! Server-side pieces shared by the REST routes and the server functions.

use super::error::ApiError;
use super::evals::RunningEvals;
use super::sessions::RunningTurns;
use crate::agent::AgentProfiles;
use crate::eval::ScoringServices;
use crate::evalset::{
    eval_set_id_from_file_name, parse_evalset_file_streaming, validate_eval_set_id, FormatError,
    LegacyDefaults,
};
use crate::store::{CaseRow, ImportSummary, Store, StoreError};
use axum::extract::FromRef;
use axum::http::StatusCode;
use leptos::config::LeptosOptions;
use serde_json::Value;
use std::sync::Arc;

/// What every handler and server function can reach.
#[derive(Clone)]
pub struct AppState {
    pub store: Store,
    pub leptos_options: LeptosOptions,
    pub profiles: Arc<AgentProfiles>,
    pub running: RunningTurns,
    pub evals: RunningEvals,
    /// The judge and embedding model metrics may use.
    pub scoring: ScoringServices,
}

impl FromRef<AppState> for LeptosOptions {
    fn from_ref(state: &AppState) -> Self {
        state.leptos_options.clone()
    }
}

pub fn now_seconds() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error(transparent)]
    Format(#[from] FormatError),
    #[error("eval set `{0}` already exists; import with replace to overwrite it")]
    Exists(String),
    #[error("{0}")]
    InvalidId(String),
    #[error(transparent)]
    Store(StoreError),
}

impl From<ImportError> for ApiError {
    fn from(err: ImportError) -> Self {
        match err {
            ImportError::Format(err) => err.into(),
            ImportError::Exists(_) => ApiError::new(StatusCode::CONFLICT, err.to_string(), Value::Null),
            ImportError::InvalidId(message) => ApiError::bad_request(message),
            ImportError::Store(err) => err.into(),
        }
    }
}

/// Parses an evalset file in any accepted form and stores it in one transaction. A legacy list
/// takes its id from `id_override` or the file name; `id_override` also renames an evalset.
pub async fn import_file(
    store: &Store,
    app: &str,
    file_name: &str,
    id_override: Option<&str>,
    text: &str,
    replace: bool,
) -> Result<ImportSummary, ImportError> {
    let name = match id_override {
        Some(id) => {
            validate_eval_set_id(id).map_err(ImportError::InvalidId)?;
            id.to_string()
        }
        None => eval_set_id_from_file_name(file_name),
    };
    let mut new_invocation_id = || uuid::Uuid::new_v4().to_string();
    let legacy = LegacyDefaults {
        name: &name,
        file_name,
        now: now_seconds(),
        new_invocation_id: &mut new_invocation_id,
    };
    // Cases go straight to their stored form, so a big file is never held parsed in full.
    let mut rows = Vec::new();
    let (mut eval_set, format) =
        parse_evalset_file_streaming(text, legacy, &mut |case| rows.push(CaseRow::new(&case)))?;
    if id_override.is_some() {
        eval_set.eval_set_id = name;
    }
    store
        .import_eval_set(app, &eval_set, &rows, &format.to_string(), replace)
        .await
        .map_err(|err| match err {
            StoreError::Conflict(_) => ImportError::Exists(eval_set.eval_set_id.clone()),
            other => ImportError::Store(other),
        })
}
