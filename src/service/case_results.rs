//! One case's results in a run, and what can be done from them: accept what the agent did as
//! the new expectation (a versioned save, as the editor's), and run the case again with the
//! run's metrics and agent.

use super::cases::{save_case, CaseError};
use super::errors::{store_refusals, DomainError, ErrorKind};
use super::runs::error::{EvalRunError, UnreadableRun};
use super::runs::lifecycle::start_eval_run;
use super::runs::plan::{RunEvalSet, RunMetrics, RunRequest};
use super::runs::stored::{config_of, stored_config};
use super::runs::summaries::backfill;
use super::Services;
use crate::eval::result::EvalCaseResult;
use crate::records::cases::StoredCase;
use crate::records::runs::{CaseInRun, EvalRunCase, RunScope};
use crate::store::{EvalRunHead, EvalRunRecord, Store, StoreError};
use serde::Deserialize;

#[derive(Debug, thiserror::Error)]
pub enum CaseResultError {
    #[error("eval result `{result_id}` has no run {run} of eval case `{eval_id}`")]
    NoSuchRun {
        result_id: String,
        eval_id: String,
        run: i64,
    },
    #[error("run {run} of eval case `{eval_id}` has no turn {turn}")]
    NoSuchTurn { eval_id: String, run: i64, turn: usize },
    #[error("the agent did not finish this run of `{0}`: there is no actual to accept")]
    NothingToAccept(String),
    #[error(transparent)]
    Unreadable(#[from] UnreadableRun),
    #[error(transparent)]
    Case(#[from] CaseError),
    #[error(transparent)]
    Run(#[from] EvalRunError),
    #[error("{0}")]
    NotFound(String),
    /// An id already taken.
    #[error("{0}")]
    Conflict(String),
    #[error(transparent)]
    Fault(StoreError),
}

impl DomainError for CaseResultError {
    fn kind(&self) -> ErrorKind {
        match self {
            CaseResultError::NoSuchRun { .. }
            | CaseResultError::NoSuchTurn { .. }
            | CaseResultError::NotFound(_) => ErrorKind::NotFound,
            CaseResultError::NothingToAccept(_) => ErrorKind::Invalid,
            CaseResultError::Conflict(_) => ErrorKind::Conflict,
            CaseResultError::Unreadable(_) | CaseResultError::Fault(_) => ErrorKind::Fault,
            CaseResultError::Case(err) => err.kind(),
            CaseResultError::Run(err) => err.kind(),
        }
    }
}

store_refusals!(CaseResultError);

/// A case's stored runs in a run, with the run's record.
pub async fn case_runs(
    store: &Store,
    app: &str,
    result_id: &str,
    eval_id: &str,
) -> Result<(EvalRunHead, Vec<EvalRunCase>), CaseResultError> {
    let record = store.eval_run_head(app, result_id).await?;
    let runs = store.eval_run_case_runs(record.row, eval_id).await?;
    Ok((record, runs))
}

/// Most runs a case's history across runs shows.
pub const HISTORY_RUNS: usize = 20;

/// The case in the evalset's newest runs that reached it (at most [`HISTORY_RUNS`]), oldest
/// first: what its sparklines and flaky badges are drawn from.
pub async fn case_across_runs(
    store: &Store,
    app: &str,
    eval_set_id: &str,
    eval_id: &str,
) -> Result<Vec<CaseInRun>, CaseResultError> {
    // Runs stored before case summaries were kept get theirs first (once); one whose config
    // this build cannot read is left out.
    for mut head in store.list_eval_run_heads(app, Some(eval_set_id)).await? {
        if let (false, Ok(config)) = (head.summarised, config_of(&head)) {
            backfill(store, &mut head, &config).await?;
        }
    }
    let mut runs = store
        .case_across_runs(app, eval_set_id, eval_id, HISTORY_RUNS as i64)
        .await?;
    runs.reverse();
    Ok(runs)
}

/// Replaces the expectation of one turn (or, without `turn`, of every turn) with what the agent
/// did in run `run` of the result; `version` is the case version the caller read (a stale one
/// is refused and nothing changes). Answers the case as saved.
pub async fn accept_actual(
    store: &Store,
    app: &str,
    result_id: &str,
    eval_id: &str,
    run: i64,
    turn: Option<usize>,
    version: i64,
) -> Result<StoredCase, CaseResultError> {
    let (record, runs) = case_runs(store, app, result_id, eval_id).await?;
    let stored_run =
        runs.into_iter()
            .find(|r| r.run_index == run)
            .ok_or_else(|| CaseResultError::NoSuchRun {
                result_id: result_id.to_string(),
                eval_id: eval_id.to_string(),
                run,
            })?;
    if stored_run.error.is_some() {
        return Err(CaseResultError::NothingToAccept(eval_id.to_string()));
    }
    let result = EvalCaseResult::deserialize(&stored_run.result).map_err(|e| {
        CaseResultError::Unreadable(UnreadableRun(format!(
            "the stored result of `{eval_id}` is unreadable: {e}"
        )))
    })?;
    let actual: Vec<_> = result
        .eval_metric_result_per_invocation
        .iter()
        .map(|per| &per.actual_invocation)
        .collect();
    let eval_set_id = &record.summary.eval_set_id;
    let mut case = store.get_case(app, eval_set_id, eval_id).await?.case;
    let turns = case.conversation.as_deref_mut().unwrap_or_default();
    let chosen: Vec<usize> = match turn {
        Some(t) => vec![t],
        None => (0..turns.len().min(actual.len())).collect(),
    };
    for t in chosen {
        let (Some(expected), Some(actual)) = (turns.get_mut(t), actual.get(t)) else {
            return Err(CaseResultError::NoSuchTurn {
                eval_id: eval_id.to_string(),
                run,
                turn: t,
            });
        };
        expected.accept_actual(actual);
    }
    Ok(save_case(store, app, eval_set_id, eval_id, &case, version).await?)
}

/// Runs one case of a run again, as it is stored now, with the run's metrics, agent and number
/// of runs. Answers the new run's record.
pub async fn rerun_case(
    services: &Services,
    app: &str,
    result_id: &str,
    eval_id: &str,
) -> Result<EvalRunRecord, CaseResultError> {
    // The case runs as it is stored now, so only the run's config is read, not its eval set.
    let record = services.store.eval_run_head(app, result_id).await?;
    let config = stored_config(result_id, &record.config_json)?;
    let request = RunRequest {
        app_name: app.to_string(),
        eval_set: RunEvalSet::Stored(record.summary.eval_set_id.clone()),
        scope: RunScope::Selected(vec![eval_id.to_string()]),
        metrics: RunMetrics::Config(config),
        simulator: None,
        agent: Some(record.summary.agent.clone()),
        num_runs: record.summary.num_runs.max(1) as usize,
        label: None,
        tools: record.summary.tools.into(),
    };
    let (started, _) = start_eval_run(services, request).await?;
    Ok(started)
}
