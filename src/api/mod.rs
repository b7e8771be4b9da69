//! The server's two faces: Leptos server functions for the browser (this file) and the JSON
//! REST API for scripts (`rest`). Both go through the same store calls and the same import.

use crate::evalset::FormatError;
use crate::store::{CasePage, EvalSetSummary, ImportSummary, StoredCase};
use leptos::prelude::*;
use leptos::server_fn::codec::Json;
use serde::{Deserialize, Serialize};

pub mod chat;
#[cfg(feature = "ssr")]
mod error;
pub mod eval_runs;
#[cfg(feature = "ssr")]
pub mod evals;
#[cfg(feature = "ssr")]
pub mod rest;
#[cfg(feature = "ssr")]
mod server;
#[cfg(feature = "ssr")]
pub mod sessions;

#[cfg(feature = "ssr")]
pub use error::ApiError;
#[cfg(feature = "ssr")]
pub use server::{import_file, now_seconds, AppState, ImportError};

/// The app every fresh install has: the offline demo agent's.
pub const DEFAULT_APP: &str = "demo";

/// App names appear in URLs and file names, like eval set ids.
pub fn validate_app_name(app: &str) -> Result<(), String> {
    crate::evalset::validate_eval_set_id(app).map_err(|message| message.replace("eval_set_id", "app name"))
}

/// What the browser's import gets back: the new evalset, or why not.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum ImportOutcome {
    Imported(ImportSummary),
    /// The id is taken; the user may choose to replace it.
    AlreadyExists {
        eval_set_id: String,
    },
    Invalid(FormatError),
}

#[server]
pub async fn list_apps() -> Result<Vec<String>, ServerFnError> {
    let state = expect_context::<AppState>();
    let mut apps = state.store.list_apps().await?;
    if !apps.iter().any(|app| app == DEFAULT_APP) {
        apps.insert(0, DEFAULT_APP.to_string());
    }
    Ok(apps)
}

#[server]
pub async fn list_eval_sets(app: String) -> Result<Vec<EvalSetSummary>, ServerFnError> {
    validate_app_name(&app).map_err(ServerFnError::new)?;
    Ok(expect_context::<AppState>().store.list_eval_sets(&app).await?)
}

#[server]
pub async fn create_eval_set(app: String, eval_set_id: String) -> Result<(), ServerFnError> {
    validate_app_name(&app).map_err(ServerFnError::new)?;
    let eval_set_id = eval_set_id.trim().to_string();
    crate::evalset::validate_eval_set_id(&eval_set_id).map_err(ServerFnError::new)?;
    Ok(expect_context::<AppState>()
        .store
        .create_eval_set(&app, &eval_set_id, now_seconds())
        .await?)
}

#[server]
pub async fn delete_eval_set(app: String, eval_set_id: String) -> Result<(), ServerFnError> {
    Ok(expect_context::<AppState>()
        .store
        .delete_eval_set(&app, &eval_set_id)
        .await?)
}

/// Imports an uploaded file. JSON-encoded because a file can be large and non-ASCII.
#[server(input = Json)]
pub async fn import_eval_set(
    app: String,
    file_name: String,
    content: String,
    replace: bool,
) -> Result<ImportOutcome, ServerFnError> {
    validate_app_name(&app).map_err(ServerFnError::new)?;
    let state = expect_context::<AppState>();
    match import_file(&state.store, &app, &file_name, None, &content, replace).await {
        Ok(summary) => Ok(ImportOutcome::Imported(summary)),
        Err(ImportError::Format(err)) => Ok(ImportOutcome::Invalid(err)),
        Err(ImportError::Exists(eval_set_id)) => Ok(ImportOutcome::AlreadyExists { eval_set_id }),
        Err(other) => Err(ServerFnError::new(other)),
    }
}

#[server]
pub async fn list_cases(app: String, eval_set_id: String, page: i64) -> Result<CasePage, ServerFnError> {
    const PER_PAGE: i64 = 50;
    Ok(expect_context::<AppState>()
        .store
        .list_cases(&app, &eval_set_id, page, PER_PAGE)
        .await?)
}

#[server]
pub async fn get_case(
    app: String,
    eval_set_id: String,
    eval_id: String,
) -> Result<StoredCase, ServerFnError> {
    Ok(expect_context::<AppState>()
        .store
        .get_case(&app, &eval_set_id, &eval_id)
        .await?)
}
