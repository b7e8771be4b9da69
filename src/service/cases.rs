//! Eval cases one at a time: list a page, read, replace at a known version, delete.

use super::errors::{store_refusals, DomainError, ErrorKind};
use crate::agent::AgentProfiles;
use crate::eval::simulator::resolve_persona;
use crate::evalset::{
    case_changes, validate_case, validate_new_eval_id, ConversationScenario, EvalCase, SessionInput,
};
use crate::records::cases::{CaseListPage, CaseListQuery, CaseVersionSummary, DeletedCase, StoredCase};
use crate::service::auth::actor::current_user;
use crate::store::{CaseVersion, Store, StoreError};

/// Cases per page of an evalset's case list.
pub const CASES_PER_PAGE: i64 = 50;

#[derive(Debug, thiserror::Error)]
pub enum CaseError {
    #[error("eval case `{eval_id}` has no version {version}")]
    NoSuchVersion { eval_id: String, version: i64 },
    #[error("{0}")]
    InvalidId(String),
    #[error("{0}")]
    InvalidCase(String),
    #[error("name at least one eval case")]
    NoneNamed,
    #[error("{0}")]
    NotFound(String),
    /// An id already taken.
    #[error("{0}")]
    Conflict(String),
    /// Changed since the version the caller read.
    #[error("{message}")]
    Stale { message: String, current: i64 },
    #[error(transparent)]
    Fault(StoreError),
}

impl DomainError for CaseError {
    fn kind(&self) -> ErrorKind {
        match self {
            CaseError::InvalidId(_) | CaseError::InvalidCase(_) | CaseError::NoneNamed => ErrorKind::Invalid,
            CaseError::NoSuchVersion { .. } | CaseError::NotFound(_) => ErrorKind::NotFound,
            CaseError::Conflict(_) | CaseError::Stale { .. } => ErrorKind::Conflict,
            CaseError::Fault(_) => ErrorKind::Fault,
        }
    }
}

store_refusals!(CaseError, Stale);

pub async fn list_cases(
    store: &Store,
    app: &str,
    eval_set_id: &str,
    query: &CaseListQuery,
    page: i64,
) -> Result<CaseListPage, CaseError> {
    let mut page = store
        .list_cases(app, eval_set_id, query, page, CASES_PER_PAGE)
        .await?;
    super::runs::last_run::add_last_run(store, &mut page).await?;
    Ok(page)
}

pub async fn case_ids(store: &Store, app: &str, eval_set_id: &str) -> Result<Vec<String>, CaseError> {
    Ok(store.case_ids(app, eval_set_id).await?)
}

pub async fn get_case(
    store: &Store,
    app: &str,
    eval_set_id: &str,
    eval_id: &str,
) -> Result<StoredCase, CaseError> {
    Ok(store.get_case(app, eval_set_id, eval_id).await?)
}

/// Replaces the case stored as `eval_id` if that is still at `version` (a stale version changes
/// nothing: `StoreError::Stale`); a new eval_id in `case` renames it in the same write (the id
/// must be free). The editor's save and REST's PUT.
pub async fn save_case(
    store: &Store,
    app: &str,
    eval_set_id: &str,
    eval_id: &str,
    case: &EvalCase,
    version: i64,
) -> Result<StoredCase, CaseError> {
    validate_case(case).map_err(CaseError::InvalidCase)?;
    if case.eval_id != eval_id {
        validate_new_eval_id(&case.eval_id).map_err(CaseError::InvalidId)?;
    }
    Ok(store
        .update_case(
            app,
            eval_set_id,
            eval_id,
            case,
            version,
            current_user().as_deref(),
        )
        .await?)
}

/// The tool names the editor suggests: those of the configured agents and those the
/// evalset's cases already call, sorted, each once.
pub async fn tool_suggestions(
    store: &Store,
    profiles: &AgentProfiles,
    app: &str,
    eval_set_id: &str,
) -> Result<Vec<String>, CaseError> {
    let mut names = store.case_tool_names(app, eval_set_id).await?;
    names.extend(profiles.iter().flat_map(|profile| profile.tool_names()));
    names.sort();
    names.dedup();
    Ok(names)
}

/// How long a deleted case can be brought back: the server purges older deletes at start-up.
pub const UNDO_DAYS: u32 = 1;

/// Deletes a case; it can be brought back with [`undo_delete`] for [`UNDO_DAYS`].
pub async fn delete_case(
    store: &Store,
    app: &str,
    eval_set_id: &str,
    eval_id: &str,
) -> Result<(), CaseError> {
    Ok(store
        .delete_cases(app, eval_set_id, &[eval_id.to_string()])
        .await?)
}

/// Deletes several cases at once: all of them, or none if one is unknown.
pub async fn delete_cases(
    store: &Store,
    app: &str,
    eval_set_id: &str,
    eval_ids: &[String],
) -> Result<(), CaseError> {
    named(eval_ids)?;
    Ok(store.delete_cases(app, eval_set_id, eval_ids).await?)
}

/// Brings deleted cases back, history included (all, or none if one cannot be).
pub async fn undo_delete(
    store: &Store,
    app: &str,
    eval_set_id: &str,
    eval_ids: &[String],
) -> Result<(), CaseError> {
    named(eval_ids)?;
    Ok(store.undo_delete(app, eval_set_id, eval_ids).await?)
}

/// A bulk action names at least one case.
fn named(eval_ids: &[String]) -> Result<(), CaseError> {
    if eval_ids.is_empty() {
        Err(CaseError::NoneNamed)
    } else {
        Ok(())
    }
}

/// The deleted cases that can still be brought back, newest first.
pub async fn deleted_cases(
    store: &Store,
    app: &str,
    eval_set_id: &str,
) -> Result<Vec<DeletedCase>, CaseError> {
    Ok(store.deleted_cases(app, eval_set_id).await?)
}

/// The case's history, newest first: each version with what it changed from the one before.
pub async fn case_history(
    store: &Store,
    app: &str,
    eval_set_id: &str,
    eval_id: &str,
) -> Result<Vec<CaseVersionSummary>, CaseError> {
    let versions = store.case_versions(app, eval_set_id, eval_id).await?;
    let last = versions.len().saturating_sub(1);
    let mut history: Vec<CaseVersionSummary> = versions
        .iter()
        .enumerate()
        .map(|(index, version)| CaseVersionSummary {
            version: version.version,
            saved_at: version.saved_at.clone(),
            saved_by: version.saved_by.clone(),
            changes: match index.checked_sub(1) {
                Some(before) => case_changes(&versions[before].case, &version.case),
                None => Vec::new(),
            },
            current: index == last,
        })
        .collect();
    history.reverse();
    Ok(history)
}

/// The case as it was at `version` (the current version included).
pub async fn case_version(
    store: &Store,
    app: &str,
    eval_set_id: &str,
    eval_id: &str,
    version: i64,
) -> Result<CaseVersion, CaseError> {
    store
        .case_version(app, eval_set_id, eval_id, version)
        .await?
        .ok_or_else(|| CaseError::NoSuchVersion {
            eval_id: eval_id.to_string(),
            version,
        })
}

/// Makes `version` the case's content again, as a new version (the history keeps every
/// version); `expected_version` is the current version the caller read.
pub async fn restore_version(
    store: &Store,
    app: &str,
    eval_set_id: &str,
    eval_id: &str,
    version: i64,
    expected_version: i64,
) -> Result<StoredCase, CaseError> {
    let mut case = case_version(store, app, eval_set_id, eval_id, version)
        .await?
        .case;
    // The case keeps its current id: a restore brings back content, not an old name.
    case.eval_id = eval_id.to_string();
    Ok(store
        .update_case(
            app,
            eval_set_id,
            eval_id,
            &case,
            expected_version,
            current_user().as_deref(),
        )
        .await?)
}

/// Copies a case under `new_eval_id`, or under `<eval_id>_copy` (`_copy_2`, ... when taken),
/// at the end of the evalset.
pub async fn duplicate_case(
    store: &Store,
    app: &str,
    eval_set_id: &str,
    eval_id: &str,
    new_eval_id: Option<&str>,
) -> Result<StoredCase, CaseError> {
    let mut case = store.get_case(app, eval_set_id, eval_id).await?.case;
    case.eval_id = match new_eval_id {
        Some(id) => {
            validate_new_eval_id(id).map_err(CaseError::InvalidId)?;
            id.to_string()
        }
        None => free_copy_id(&store.case_ids(app, eval_set_id).await?, eval_id),
    };
    Ok(store
        .add_case(app, eval_set_id, &case, current_user().as_deref())
        .await?)
}

/// What the browser's "New scenario case" asks for.
#[derive(Debug, Clone)]
pub struct NewScenario<'a> {
    pub eval_id: &'a str,
    pub starting_prompt: &'a str,
    pub conversation_plan: &'a str,
    /// One of ADK's built-in personas' ids, or none.
    pub persona: Option<&'a str>,
}

/// Adds a `conversation_scenario` case at the end of the evalset, for the simulated user to
/// play; the id must be free.
pub async fn new_scenario_case(
    store: &Store,
    app: &str,
    eval_set_id: &str,
    new: NewScenario<'_>,
) -> Result<StoredCase, CaseError> {
    validate_new_eval_id(new.eval_id).map_err(CaseError::InvalidId)?;
    for (field, value) in [
        ("starting_prompt", new.starting_prompt),
        ("conversation_plan", new.conversation_plan),
    ] {
        if value.trim().is_empty() {
            return Err(CaseError::InvalidCase(format!(
                "conversation_scenario.{field}: write what the simulated user {}",
                if field == "starting_prompt" {
                    "says first"
                } else {
                    "wants, step by step"
                }
            )));
        }
    }
    let user_persona = match new.persona.filter(|p| !p.is_empty()) {
        Some(id) => {
            let id = serde_json::Value::String(id.to_string());
            resolve_persona(&id).map_err(CaseError::InvalidCase)?;
            Some(id)
        }
        None => None,
    };
    let case = EvalCase {
        eval_id: new.eval_id.to_string(),
        conversation_scenario: Some(ConversationScenario {
            starting_prompt: new.starting_prompt.to_string(),
            conversation_plan: new.conversation_plan.to_string(),
            user_persona,
            ..ConversationScenario::default()
        }),
        session_input: Some(SessionInput {
            app_name: app.to_string(),
            user_id: "user".to_string(),
            ..SessionInput::default()
        }),
        creation_timestamp: crate::clock::now_seconds(),
        ..EvalCase::default()
    };
    validate_case(&case).map_err(CaseError::InvalidCase)?;
    Ok(store
        .add_case(app, eval_set_id, &case, current_user().as_deref())
        .await?)
}

/// `<eval_id>_copy`, or the first `<eval_id>_copy_N` not in `taken`.
fn free_copy_id(taken: &[String], eval_id: &str) -> String {
    let base = format!("{eval_id}_copy");
    std::iter::once(base.clone())
        .chain((2..).map(|n| format!("{base}_{n}")))
        .find(|id| !taken.iter().any(|t| t == id))
        .expect("some copy id is free")
}

/// Renames a case read at `version`; the new id must be free in the evalset (409 otherwise).
/// One write: the case, its history and its place in the file stay.
pub async fn rename_case(
    store: &Store,
    app: &str,
    eval_set_id: &str,
    eval_id: &str,
    new_eval_id: &str,
    version: i64,
) -> Result<StoredCase, CaseError> {
    validate_new_eval_id(new_eval_id).map_err(CaseError::InvalidId)?;
    let mut case = store.get_case(app, eval_set_id, eval_id).await?.case;
    case.eval_id = new_eval_id.to_string();
    Ok(store
        .update_case(
            app,
            eval_set_id,
            eval_id,
            &case,
            version,
            current_user().as_deref(),
        )
        .await?)
}

#[cfg(test)]
mod tests {
    use super::free_copy_id;

    #[test]
    fn copies_get_the_first_free_id() {
        let taken = |ids: &[&str]| ids.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(free_copy_id(&taken(&["a"]), "a"), "a_copy");
        assert_eq!(free_copy_id(&taken(&["a", "a_copy"]), "a"), "a_copy_2");
        assert_eq!(
            free_copy_id(&taken(&["a", "a_copy", "a_copy_2"]), "a"),
            "a_copy_3"
        );
    }
}
