//! A stored run read back: its config, its eval set, its record, the app's runs, its case
//! results as ADK's EvalSetResult, the case run of a session, and the cases that failed in an
//! evalset's latest run.

use super::case_rows::summarise;
use super::error::{EvalRunError, UnreadableRun};
use crate::eval::config::EvalConfig;
use crate::eval::result::{CaseSummary, EvalCaseResult};
use crate::evalset::CompactEvalSet;
use crate::records::runs::{EvalRunCase, EvalRunSummary, RunStatus};
use crate::store::{EvalRunHead, EvalRunRecord, Store, StoreError};
use serde::Serialize;
use serde_json::Value;

/// The eval config a stored run was started with (`config_json` as stored for `result_id`).
pub fn stored_config(result_id: &str, config_json: &str) -> Result<EvalConfig, UnreadableRun> {
    EvalConfig::parse(config_json).map_err(|e| {
        UnreadableRun(format!(
            "the stored eval config of `{result_id}` is unreadable: {e}"
        ))
    })
}

/// The config a run was scored with.
pub fn config_of(head: &EvalRunHead) -> Result<EvalConfig, EvalRunError> {
    stored_config(&head.summary.result_id, &head.config_json).map_err(EvalRunError::from)
}

/// An eval set of the app as stored now, held as its cases' JSON.
pub(super) async fn stored_eval_set(
    store: &Store,
    app: &str,
    eval_set_id: &str,
) -> Result<CompactEvalSet, EvalRunError> {
    let json = store.export_adk_json(app, eval_set_id).await?;
    CompactEvalSet::from_adk_json(&json).map_err(|e| {
        EvalRunError::Unreadable(UnreadableRun(format!(
            "eval set `{eval_set_id}` could not be read back: {e}"
        )))
    })
}

/// One stored run of an app.
pub async fn eval_run(store: &Store, app: &str, result_id: &str) -> Result<EvalRunRecord, EvalRunError> {
    Ok(store.eval_run(app, result_id).await?)
}

/// The runs of an app (of one eval set when given), newest first.
pub async fn list_eval_runs(
    store: &Store,
    app: &str,
    eval_set_id: Option<&str>,
) -> Result<Vec<EvalRunSummary>, EvalRunError> {
    Ok(store.list_eval_runs(app, eval_set_id).await?)
}

/// The case summaries of a stored run (pooled over runs, with pass@k), in the eval set's
/// order; cases with no stored run yet are left out.
pub fn case_summaries(case_count: i64, config: &EvalConfig, cases: &[EvalRunCase]) -> Vec<CaseSummary> {
    summarise(cases, config)
        .into_iter()
        .filter(|row| row.case_index < case_count)
        .map(|row| row.summary)
        .collect()
}

/// A stored run as ADK's EvalSetResult (its case results run after run), plus Evalstudio's
/// `case_summaries` (pooled over runs, with pass@k) and the run's status.
#[derive(Debug, Serialize)]
pub struct StoredEvalSetResult {
    pub eval_set_result_id: String,
    pub eval_set_result_name: String,
    pub eval_set_id: String,
    pub eval_case_results: Vec<Value>,
    pub creation_timestamp: f64,
    pub case_summaries: Vec<CaseSummary>,
    pub status: RunStatus,
    pub agent: String,
    pub num_runs: i64,
    /// What the user calls the run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

/// A stored run with its case results so far.
pub async fn eval_set_result(
    store: &Store,
    record: &EvalRunRecord,
) -> Result<StoredEvalSetResult, EvalRunError> {
    let config = stored_config(&record.summary.result_id, &record.config_json)?;
    let cases = store.eval_run_cases(record.row, true).await?;
    let summaries = case_summaries(record.summary.case_count(), &config, &cases);
    let summary = &record.summary;
    Ok(StoredEvalSetResult {
        eval_set_result_id: summary.result_id.clone(),
        eval_set_result_name: summary.result_id.replace('/', "_"),
        eval_set_id: summary.eval_set_id.clone(),
        eval_case_results: cases.into_iter().map(|c| c.result).collect(),
        creation_timestamp: summary.created_at,
        case_summaries: summaries,
        status: summary.status,
        agent: summary.agent.clone(),
        num_runs: summary.num_runs,
        label: summary.label.clone(),
    })
}

/// The result of the case run whose inference ran in session `session_id` of `user`: ADK's web
/// server keeps an eval's sessions beside the chat sessions, and adk-web reads them so.
pub async fn eval_case_of_session(
    store: &Store,
    app: &str,
    user: &str,
    session_id: &str,
) -> Result<Option<EvalCaseResult>, EvalRunError> {
    let Some(case) = store.eval_run_case_of_session(app, session_id).await? else {
        return Ok(None);
    };
    let result: EvalCaseResult = serde_json::from_value(case.result).map_err(|e| {
        UnreadableRun(format!(
            "the stored result of session `{session_id}` is unreadable: {e}"
        ))
    })?;
    Ok(Some(result).filter(|r| r.user_id.as_deref().unwrap_or_default() == user))
}

/// The eval ids that failed or errored in the evalset's latest run, in its order.
pub async fn failed_in_latest_run(
    store: &Store,
    app: &str,
    eval_set_id: &str,
) -> Result<Vec<String>, StoreError> {
    let Some(record) = store.latest_eval_run(app, eval_set_id).await? else {
        return Ok(Vec::new());
    };
    let mut seen = std::collections::HashSet::new();
    Ok(store
        .eval_run_cases(record.row, false)
        .await?
        .into_iter()
        .filter(|row| row.failed())
        .filter(|row| seen.insert(row.eval_id.clone()))
        .map(|row| row.eval_id)
        .collect())
}
