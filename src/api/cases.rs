//! Server functions behind the case page's actions: duplicate, delete and undo, the history
//! and restoring a version. The work is `service::cases`, shared with the REST API.

use crate::records::CaseVersionSummary;
use leptos::prelude::*;

#[cfg(feature = "ssr")]
use super::services;
#[cfg(feature = "ssr")]
use crate::service::cases;

/// Copies the case under the first free `<eval_id>_copy` id; answers the copy's id.
#[server]
pub async fn duplicate_case(
    app: String,
    eval_set_id: String,
    eval_id: String,
) -> Result<String, ServerFnError> {
    let copy = cases::duplicate_case(&services().store, &app, &eval_set_id, &eval_id, None)
        .await
        .map_err(ServerFnError::new)?;
    Ok(copy.case.eval_id)
}

/// Deletes the case; [`undo_delete_case`] brings it back for a day.
#[server]
pub async fn delete_case(app: String, eval_set_id: String, eval_id: String) -> Result<(), ServerFnError> {
    Ok(cases::delete_case(&services().store, &app, &eval_set_id, &eval_id).await?)
}

#[server]
pub async fn undo_delete_case(
    app: String,
    eval_set_id: String,
    eval_id: String,
) -> Result<(), ServerFnError> {
    cases::undo_delete(&services().store, &app, &eval_set_id, &[eval_id])
        .await
        .map_err(ServerFnError::new)
}

/// The case's versions, newest first, with what each changed.
#[server]
pub async fn case_history(
    app: String,
    eval_set_id: String,
    eval_id: String,
) -> Result<Vec<CaseVersionSummary>, ServerFnError> {
    Ok(cases::case_history(&services().store, &app, &eval_set_id, &eval_id).await?)
}

/// Makes `version` current again as a new version; `current_version` is the one the page shows
/// (a stale one is refused, as any edit is).
#[server]
pub async fn restore_case_version(
    app: String,
    eval_set_id: String,
    eval_id: String,
    version: i64,
    current_version: i64,
) -> Result<i64, ServerFnError> {
    let store = &services().store;
    let restored = cases::restore_version(store, &app, &eval_set_id, &eval_id, version, current_version)
        .await
        .map_err(ServerFnError::new)?;
    Ok(restored.version)
}
