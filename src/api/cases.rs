//! Server functions behind the case page and its editor: save, duplicate, delete and undo, the
//! history and restoring a version, tool-name suggestions. The work is `service::cases`,
//! shared with the REST API.

use crate::evalset::EvalCase;
use crate::records::cases::{CaseVersionSummary, StoredCase};
use leptos::prelude::*;
use leptos::server_fn::codec::Json;
use serde::{Deserialize, Serialize};

#[cfg(feature = "ssr")]
use super::server_error;
#[cfg(feature = "ssr")]
use super::services;
#[cfg(feature = "ssr")]
use crate::service::cases;
#[cfg(feature = "ssr")]
use crate::{access::Role, api::access::require};

/// Copies the case under the first free `<eval_id>_copy` id; answers the copy's id.
#[server]
pub async fn duplicate_case(
    app: String,
    eval_set_id: String,
    eval_id: String,
) -> Result<String, ServerFnError> {
    require(Role::Editor)?;
    let copy = cases::duplicate_case(&services().store, &app, &eval_set_id, &eval_id, None)
        .await
        .map_err(server_error)?;
    Ok(copy.case.eval_id)
}

/// Adds a `conversation_scenario` case for the simulated user to play: answers its id, or why
/// the form's input cannot make one (a bad or taken id, an empty field).
#[server]
pub async fn new_scenario_case(
    app: String,
    eval_set_id: String,
    eval_id: String,
    starting_prompt: String,
    conversation_plan: String,
    persona: String,
) -> Result<Result<String, String>, ServerFnError> {
    require(Role::Editor)?;
    let new = cases::NewScenario {
        eval_id: eval_id.trim(),
        starting_prompt: &starting_prompt,
        conversation_plan: &conversation_plan,
        persona: Some(persona.as_str()),
    };
    match cases::new_scenario_case(&services().store, &app, &eval_set_id, new).await {
        Ok(case) => Ok(Ok(case.case.eval_id)),
        Err(
            cases::CaseError::InvalidId(reason)
            | cases::CaseError::InvalidCase(reason)
            | cases::CaseError::Conflict(reason),
        ) => Ok(Err(reason)),
        Err(err) => Err(server_error(err)),
    }
}

/// Deletes the case; [`undo_delete_cases`] brings it back for a day.
#[server]
pub async fn delete_case(app: String, eval_set_id: String, eval_id: String) -> Result<(), ServerFnError> {
    require(Role::Editor)?;
    cases::delete_case(&services().store, &app, &eval_set_id, &eval_id)
        .await
        .map_err(server_error)
}

/// Deletes the cases selected in a list; [`undo_delete_cases`] brings them back for a day.
#[server(input = Json)]
pub async fn delete_cases(
    app: String,
    eval_set_id: String,
    eval_ids: Vec<String>,
) -> Result<(), ServerFnError> {
    require(Role::Editor)?;
    cases::delete_cases(&services().store, &app, &eval_set_id, &eval_ids)
        .await
        .map_err(server_error)
}

#[server(input = Json)]
pub async fn undo_delete_cases(
    app: String,
    eval_set_id: String,
    eval_ids: Vec<String>,
) -> Result<(), ServerFnError> {
    require(Role::Editor)?;
    cases::undo_delete(&services().store, &app, &eval_set_id, &eval_ids)
        .await
        .map_err(server_error)
}

/// The case's versions, newest first, with what each changed.
#[server]
pub async fn case_history(
    app: String,
    eval_set_id: String,
    eval_id: String,
) -> Result<Vec<CaseVersionSummary>, ServerFnError> {
    cases::case_history(&services().store, &app, &eval_set_id, &eval_id)
        .await
        .map_err(server_error)
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
    require(Role::Editor)?;
    let store = &services().store;
    let restored = cases::restore_version(store, &app, &eval_set_id, &eval_id, version, current_version)
        .await
        .map_err(server_error)?;
    Ok(restored.version)
}

/// What a save did: saved the case, or found that it changed since the editor opened it (the
/// stored case is sent so the editor can show the difference and offer reload or overwrite).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum SaveOutcome {
    Saved { eval_id: String, version: i64 },
    Changed(Box<StoredCase>),
}

/// The editor's save of the case opened as `eval_id` at `version`; a new eval_id renames it.
#[server(input = Json)]
pub async fn save_case(
    app: String,
    eval_set_id: String,
    eval_id: String,
    case: EvalCase,
    version: i64,
) -> Result<SaveOutcome, ServerFnError> {
    require(Role::Editor)?;
    let store = &services().store;
    match cases::save_case(store, &app, &eval_set_id, &eval_id, &case, version).await {
        Ok(saved) => Ok(SaveOutcome::Saved {
            eval_id: saved.case.eval_id,
            version: saved.version,
        }),
        Err(cases::CaseError::Stale { .. }) => Ok(SaveOutcome::Changed(Box::new(
            cases::get_case(store, &app, &eval_set_id, &eval_id)
                .await
                .map_err(server_error)?,
        ))),
        Err(err) => Err(server_error(err)),
    }
}

/// Tool names for the editor's name fields: the configured agents' and this evalset's.
#[server]
pub async fn tool_suggestions(app: String, eval_set_id: String) -> Result<Vec<String>, ServerFnError> {
    let services = services();
    cases::tool_suggestions(&services.store, &services.profiles, &app, &eval_set_id)
        .await
        .map_err(server_error)
}

/// The case as it was at `version`, for the history's diff.
#[server]
pub async fn case_version(
    app: String,
    eval_set_id: String,
    eval_id: String,
    version: i64,
) -> Result<EvalCase, ServerFnError> {
    cases::case_version(&services().store, &app, &eval_set_id, &eval_id, version)
        .await
        .map(|version| version.case)
        .map_err(server_error)
}
