//! Server functions behind the evalset pages: the list of evalsets, import, one evalset's cases,
//! one case.

use crate::evalset::FormatError;
use crate::records::cases::{CaseListPage, CaseListQuery, StoredCase};
use crate::records::evalsets::{EvalSetSummary, ImportSummary};
use leptos::prelude::*;
use leptos::server_fn::codec::Json;
use serde::{Deserialize, Serialize};

#[cfg(feature = "ssr")]
use super::server_error;
#[cfg(feature = "ssr")]
use crate::service::eval_sets::ImportMode;
#[cfg(feature = "ssr")]
use crate::service::{cases, eval_sets};
#[cfg(feature = "ssr")]
use crate::{access::Role, api::access::require};

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
    eval_sets::list_apps(&super::services().store)
        .await
        .map_err(server_error)
}

/// The evalset, or None when there is none of that id (its page is then a 404).
#[server]
pub async fn get_eval_set(app: String, eval_set_id: String) -> Result<Option<EvalSetSummary>, ServerFnError> {
    super::found(eval_sets::eval_set(&super::services().store, &app, &eval_set_id).await)
}

#[server]
pub async fn list_eval_sets(app: String) -> Result<Vec<EvalSetSummary>, ServerFnError> {
    eval_sets::list_eval_sets(&super::services().store, &app)
        .await
        .map_err(server_error)
}

#[server]
pub async fn create_eval_set(app: String, eval_set_id: String) -> Result<(), ServerFnError> {
    require(Role::Editor)?;
    eval_sets::create_eval_set(&super::services().store, &app, &eval_set_id)
        .await
        .map_err(server_error)
}

#[server]
pub async fn delete_eval_set(app: String, eval_set_id: String) -> Result<(), ServerFnError> {
    require(Role::Editor)?;
    eval_sets::delete_eval_set(&super::services().store, &app, &eval_set_id)
        .await
        .map_err(server_error)
}

/// Imports an uploaded file, under `import_as` when given (else the file's own id, or its
/// name's stem for a legacy list). JSON-encoded because a file can be large and non-ASCII.
#[server(input = Json)]
pub async fn import_eval_set(
    app: String,
    file_name: String,
    content: String,
    replace: bool,
    import_as: Option<String>,
) -> Result<ImportOutcome, ServerFnError> {
    require(Role::Editor)?;
    use eval_sets::ImportError;
    let store = &super::services().store;
    let import_as = import_as.as_deref().map(str::trim).filter(|id| !id.is_empty());
    match eval_sets::import_file(
        store,
        &app,
        &file_name,
        import_as,
        content,
        ImportMode::replacing(replace),
    )
    .await
    {
        Ok(summary) => Ok(ImportOutcome::Imported(summary)),
        Err(ImportError::Format(err)) => Ok(ImportOutcome::Invalid(err)),
        Err(ImportError::Exists(eval_set_id)) => Ok(ImportOutcome::AlreadyExists { eval_set_id }),
        Err(other) => Err(server_error(other)),
    }
}

#[server(input = Json)]
pub async fn list_cases(
    app: String,
    eval_set_id: String,
    query: CaseListQuery,
    page: i64,
) -> Result<Option<CaseListPage>, ServerFnError> {
    super::found(cases::list_cases(&super::services().store, &app, &eval_set_id, &query, page).await)
}

#[server]
pub async fn get_case(
    app: String,
    eval_set_id: String,
    eval_id: String,
) -> Result<Option<StoredCase>, ServerFnError> {
    super::found(cases::get_case(&super::services().store, &app, &eval_set_id, &eval_id).await)
}
