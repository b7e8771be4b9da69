//! Evalsets as a whole: list, create, delete, import a file in any accepted form, export.

use super::errors::{store_refusals, DomainError, ErrorKind};
use crate::agent::{ToolExecutionMode, DEFAULT_APP};
use crate::clock::now_seconds;
use crate::evalset::{
    eval_set_id_from_file_name, parse_evalset_file_streaming, validate_app_name, validate_eval_set_id,
    EvalSet, FormatError, LegacyDefaults,
};
use crate::records::evalsets::{EvalSetSummary, ImportSummary};
use crate::service::auth::actor::current_user;
pub use crate::store::ImportMode;
use crate::store::{CaseRow, Store, StoreError};
use serde_json::{Map, Value};

#[derive(Debug, thiserror::Error)]
pub enum EvalSetError {
    /// An app name or eval set id that cannot name a file or URL segment.
    #[error("{0}")]
    InvalidId(String),
    #[error("eval set `{0}` already exists")]
    Exists(String),
    #[error("{0}")]
    NotFound(String),
    /// An id already taken.
    #[error("{0}")]
    Conflict(String),
    #[error(transparent)]
    Fault(StoreError),
}

impl DomainError for EvalSetError {
    fn kind(&self) -> ErrorKind {
        match self {
            EvalSetError::InvalidId(_) => ErrorKind::Invalid,
            EvalSetError::NotFound(_) => ErrorKind::NotFound,
            EvalSetError::Exists(_) | EvalSetError::Conflict(_) => ErrorKind::Conflict,
            EvalSetError::Fault(_) => ErrorKind::Fault,
        }
    }
}

store_refusals!(EvalSetError);

#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error(transparent)]
    Format(#[from] FormatError),
    #[error("eval set `{0}` already exists; import with replace to overwrite it")]
    Exists(String),
    #[error("{0}")]
    InvalidId(String),
    /// A replace of a copy taken at a tag the stored evalset no longer has.
    #[error("{0}")]
    Changed(String),
    #[error(transparent)]
    Fault(StoreError),
}

impl DomainError for ImportError {
    fn kind(&self) -> ErrorKind {
        match self {
            ImportError::Format(_) | ImportError::InvalidId(_) => ErrorKind::Invalid,
            ImportError::Exists(_) | ImportError::Changed(_) => ErrorKind::Conflict,
            ImportError::Fault(_) => ErrorKind::Fault,
        }
    }
}

/// The apps that have evalsets or sessions, with the built-in one always first if absent.
pub async fn list_apps(store: &Store) -> Result<Vec<String>, EvalSetError> {
    let mut apps = store.list_apps().await?;
    if !apps.iter().any(|app| app == DEFAULT_APP) {
        apps.insert(0, DEFAULT_APP.to_string());
    }
    Ok(apps)
}

pub async fn list_eval_sets(store: &Store, app: &str) -> Result<Vec<EvalSetSummary>, EvalSetError> {
    validate_app_name(app).map_err(EvalSetError::InvalidId)?;
    Ok(store.list_eval_sets(app).await?)
}

/// Creates an empty evalset; the id is trimmed first.
/// One evalset's summary (its name, description and case count).
pub async fn eval_set(store: &Store, app: &str, eval_set_id: &str) -> Result<EvalSetSummary, EvalSetError> {
    Ok(store.eval_set_summary(app, eval_set_id).await?)
}

/// The key of an evalset file's own tool execution mode (not ADK's; ADK reads past it).
pub const EVAL_SET_TOOL_MODE_KEY: &str = "tool_execution_mode";

/// The tool execution mode an evalset names as its default, if a valid one.
pub fn eval_set_tool_mode(set: &EvalSet) -> Option<ToolExecutionMode> {
    tool_mode_in(&set.extra)
}

/// The mode named among an evalset file's keys that ADK does not define.
fn tool_mode_in(extra: &Map<String, Value>) -> Option<ToolExecutionMode> {
    extra
        .get(EVAL_SET_TOOL_MODE_KEY)
        .and_then(Value::as_str)
        .and_then(ToolExecutionMode::parse)
}

/// The tool execution mode a stored evalset names as its default, if any.
pub async fn stored_tool_mode(
    store: &Store,
    app: &str,
    eval_set_id: &str,
) -> Result<Option<ToolExecutionMode>, EvalSetError> {
    Ok(tool_mode_in(&store.eval_set_extra(app, eval_set_id).await?))
}

pub async fn create_eval_set(store: &Store, app: &str, eval_set_id: &str) -> Result<(), EvalSetError> {
    create_eval_set_with_tool_mode(store, app, eval_set_id, None).await
}

/// Creates an empty evalset whose runs replay or run their tools by default, as adk-web asks
/// when it creates one; the default is kept in the file (ADK reads past it).
pub async fn create_eval_set_with_tool_mode(
    store: &Store,
    app: &str,
    eval_set_id: &str,
    tool_mode: Option<ToolExecutionMode>,
) -> Result<(), EvalSetError> {
    validate_app_name(app).map_err(EvalSetError::InvalidId)?;
    let eval_set_id = eval_set_id.trim();
    validate_eval_set_id(eval_set_id).map_err(EvalSetError::InvalidId)?;
    let mut extra = Map::new();
    if let Some(mode) = tool_mode {
        extra.insert(EVAL_SET_TOOL_MODE_KEY.into(), Value::from(mode.as_str()));
    }
    store
        .create_eval_set_with(app, eval_set_id, now_seconds(), &extra)
        .await
        .map_err(|err| match err {
            StoreError::Conflict(_) => EvalSetError::Exists(eval_set_id.to_string()),
            other => other.into(),
        })
}

pub async fn delete_eval_set(store: &Store, app: &str, eval_set_id: &str) -> Result<(), EvalSetError> {
    Ok(store.delete_eval_set(app, eval_set_id).await?)
}

/// The evalset as ADK's file writer writes it.
pub async fn export_eval_set(store: &Store, app: &str, eval_set_id: &str) -> Result<String, EvalSetError> {
    Ok(store.export_adk_json(app, eval_set_id).await?)
}

/// The evalset as ADK's file writer writes it, and its tag (the ETag a push must match).
pub async fn export_tagged(
    store: &Store,
    app: &str,
    eval_set_id: &str,
) -> Result<(String, String), EvalSetError> {
    Ok(store.export_tagged(app, eval_set_id).await?)
}

/// Parses an evalset file in any accepted form and stores it in one transaction. A legacy
/// list takes its id from `id_override` or the file name; `id_override` also renames an
/// evalset.
pub async fn import_file(
    store: &Store,
    app: &str,
    file_name: &str,
    id_override: Option<&str>,
    text: String,
    mode: ImportMode,
) -> Result<ImportSummary, ImportError> {
    validate_app_name(app).map_err(ImportError::InvalidId)?;
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
    let saved_by = current_user();
    let (mut eval_set, format) = parse_evalset_file_streaming(&text, legacy, &mut |case| {
        rows.push(CaseRow::new(&case).saved_by(saved_by.as_deref()))
    })?;
    // The rows hold what is stored; the file's text goes before they are written.
    drop(text);
    if id_override.is_some() {
        eval_set.eval_set_id = name;
    }
    store
        .import_eval_set(app, &eval_set, &rows, &format.to_string(), &mode)
        .await
        .map_err(|err| match err {
            StoreError::Conflict(_) => ImportError::Exists(eval_set.eval_set_id.clone()),
            StoreError::Stale { message, .. } => ImportError::Changed(message),
            other => ImportError::Fault(other),
        })
}
