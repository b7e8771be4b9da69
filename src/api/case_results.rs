//! Server functions behind a case's result page: the case's runs in a run (with the case as
//! stored now), accepting what the agent did as the expectation, running the case again. The
//! work is `service::case_results`.

use crate::records::cases::StoredCase;
use crate::records::runs::{CaseInRun, EvalRunCase, EvalRunSummary};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

#[cfg(feature = "ssr")]
use super::server_error;
#[cfg(feature = "ssr")]
use super::services;
#[cfg(feature = "ssr")]
use crate::service::{case_results, cases};
#[cfg(feature = "ssr")]
use crate::{access::Role, api::access::require};

/// One case in one run: each of its runs' results and the case as it is stored now.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaseResultView {
    pub run: EvalRunSummary,
    pub runs: Vec<EvalRunCase>,
    /// None when the case was deleted since; its version is what an accept sends back.
    pub current: Option<StoredCase>,
}

#[server]
pub async fn case_result(
    app: String,
    result_id: String,
    eval_id: String,
) -> Result<Option<CaseResultView>, ServerFnError> {
    let store = &services().store;
    let Some((record, runs)) =
        super::found(case_results::case_runs(store, &app, &result_id, &eval_id).await)?
    else {
        return Ok(None);
    };
    let current = cases::get_case(store, &app, &record.summary.eval_set_id, &eval_id)
        .await
        .ok();
    Ok(Some(CaseResultView {
        run: record.summary,
        runs,
        current,
    }))
}

/// Makes run `run`'s actual turn `turn` (every turn when None) the case's expectation, as a new
/// version of the case read at `version`. Answers the new version.
#[server]
pub async fn accept_actual(
    app: String,
    result_id: String,
    eval_id: String,
    run: i64,
    turn: Option<usize>,
    version: i64,
) -> Result<i64, ServerFnError> {
    require(Role::Editor)?;
    case_results::accept_actual(&services().store, &app, &result_id, &eval_id, run, turn, version)
        .await
        .map(|saved| saved.version)
        .map_err(server_error)
}

/// Runs the case again with the run's metrics and agent; answers the new run's result id.
#[server]
pub async fn rerun_case(app: String, result_id: String, eval_id: String) -> Result<String, ServerFnError> {
    require(Role::Editor)?;
    case_results::rerun_case(&services(), &app, &result_id, &eval_id)
        .await
        .map(|record| record.summary.result_id)
        .map_err(server_error)
}

/// The case in its evalset's newest runs, oldest first.
#[server]
pub async fn case_across_runs(
    app: String,
    eval_set_id: String,
    eval_id: String,
) -> Result<Vec<CaseInRun>, ServerFnError> {
    case_results::case_across_runs(&services().store, &app, &eval_set_id, &eval_id)
        .await
        .map_err(server_error)
}
