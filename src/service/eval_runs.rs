//! Evaluation runs, for the CLI, the REST API and the browser alike: a run is recorded first
//! with its cases queued in batches, workers (`run_worker`) store each case run as it
//! finishes, so a crash loses only the cases in flight; a worker that dies leaves its batches
//! to another, and an interrupted or cancelled run resumes where it stopped.

use super::errors::{store_refusals, DomainError, ErrorKind};
use super::recorded_runs::MAX_RECORDED_SESSIONS;
use super::run_plan::{plan_run, record_run, requeue_run, RunRequest, MAX_RUNS_PER_CASE};
use super::run_summaries::summarise;
use super::run_worker::{execute_eval_run, POLL};
use super::running::Claim;
use super::Services;
use crate::agent::Agent;
use crate::clock::now_seconds;
use crate::eval::{CaseSummary, ConfigError, EvalCaseResult, EvalConfig, RunOptions};
use crate::records::{EvalRunCase, RunStatus};
use crate::store::{EvalRunRecord, Store, StoreError};
use crate::traces::recorded_cases::Unscorable;
use futures::FutureExt;
use serde::Serialize;
use serde_json::Value;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use tokio::sync::watch;

/// Something stored for a run that no longer parses: a bug, or a damaged database.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UnreadableRun(pub String);

/// The eval config a stored run was started with (`config_json` as stored for `result_id`).
pub fn stored_config(result_id: &str, config_json: &str) -> Result<EvalConfig, UnreadableRun> {
    EvalConfig::parse(config_json).map_err(|e| {
        UnreadableRun(format!(
            "the stored eval config of `{result_id}` is unreadable: {e}"
        ))
    })
}

/// Why a run stopped before it ended; what was stored stays, and it can be resumed.
#[derive(Debug, thiserror::Error)]
pub enum RunFailure {
    #[error(transparent)]
    Unreadable(#[from] UnreadableRun),
    #[error("eval result `{0}`: another worker holds this one's cases now (its lease ran out)")]
    LeaseLost(String),
    #[error("the run panicked: {0}")]
    Panicked(String),
    #[error(transparent)]
    Store(#[from] StoreError),
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

/// The longest label a run may have.
pub const MAX_LABEL_CHARS: usize = 100;

/// A label as the user typed it: trimmed, `None` when empty.
pub fn clean_label(label: Option<&str>) -> Result<Option<String>, EvalRunError> {
    let label = label.map(str::trim).filter(|label| !label.is_empty());
    match label.map(|label| label.chars().count()) {
        Some(chars) if chars > MAX_LABEL_CHARS => Err(EvalRunError::LabelTooLong(chars)),
        _ => Ok(label.map(str::to_string)),
    }
}

/// Names a run, or takes its name away with an empty label.
pub async fn set_run_label(
    store: &Store,
    app: &str,
    result_id: &str,
    label: Option<&str>,
) -> Result<Option<String>, EvalRunError> {
    let label = clean_label(label)?;
    store.set_run_label(app, result_id, label.as_deref()).await?;
    Ok(label)
}

#[derive(Debug, thiserror::Error)]
pub enum EvalRunError {
    #[error("choose at least one metric to score")]
    NoMetrics,
    #[error("num_runs: expected 1 to {MAX_RUNS_PER_CASE}")]
    BadNumRuns,
    /// No profile of that name; the message names the profiles there are.
    #[error("{0}")]
    UnknownAgent(String),
    #[error("eval case `{eval_id}` is not in eval set `{eval_set_id}`")]
    UnknownCase { eval_set_id: String, eval_id: String },
    #[error("eval set `{0}` has no cases to run")]
    NoCases(String),
    #[error("eval result `{0}` is not running")]
    NotRunning(String),
    #[error("eval result `{0}` is already running")]
    AlreadyRunning(String),
    #[error("select the cases to run in the list first")]
    NothingSelected,
    #[error("label: at most {MAX_LABEL_CHARS} characters, found {0}")]
    LabelTooLong(usize),
    #[error("no case of eval set `{0}` failed in its latest run")]
    NoneFailed(String),
    /// The metrics or simulator settings asked for; the message names the field.
    #[error("{0}")]
    BadConfig(String),
    #[error(
        "tool replay answers tool calls inside Evalstudio, and the `{0}` profile's tools run on its \
         ADK api_server; run it with live tools"
    )]
    ReplayUnsupported(String),
    /// Finished runs cannot be resumed; the message says why.
    #[error("{0}")]
    NotResumable(String),
    /// A recorded session chosen to score whose spans cannot be (missing, without messages).
    #[error(transparent)]
    Unscorable(#[from] Unscorable),
    #[error("select the sessions to score first")]
    NoSessions,
    #[error("at most {MAX_RECORDED_SESSIONS} sessions are scored at once, {0} were chosen")]
    TooManySessions(usize),
    #[error(
        "the filters keep more than {MAX_RECORDED_SESSIONS} sessions: narrow them (a day, a tool, a text)"
    )]
    FilterTooWide,
    /// Every session the filters keep is still arriving, misses spans or carries no messages.
    #[error("none of the sessions the filters keep can be scored ({0} kept: still arriving, spans missing, or no messages)")]
    NothingScorable(usize),
    #[error(transparent)]
    Unreadable(#[from] UnreadableRun),
    /// A criterion naming its own `url` on a server, which calls only declared evaluators.
    #[error("the criterion of `{0}` names a url: {UNDECLARED_URL}", UNDECLARED_URL = crate::eval::evaluators::UNDECLARED_URL)]
    UndeclaredUrl(String),
    #[error("{0}")]
    NotFound(String),
    /// An id already taken.
    #[error("{0}")]
    Conflict(String),
    #[error(transparent)]
    Fault(StoreError),
}

impl DomainError for EvalRunError {
    fn kind(&self) -> ErrorKind {
        match self {
            EvalRunError::NoMetrics
            | EvalRunError::BadNumRuns
            | EvalRunError::UnknownAgent(_)
            | EvalRunError::UnknownCase { .. }
            | EvalRunError::NoCases(_)
            | EvalRunError::NothingSelected
            | EvalRunError::NoneFailed(_)
            | EvalRunError::LabelTooLong(_)
            | EvalRunError::BadConfig(_)
            | EvalRunError::ReplayUnsupported(_)
            | EvalRunError::Unscorable(_)
            | EvalRunError::NoSessions
            | EvalRunError::TooManySessions(_)
            | EvalRunError::FilterTooWide
            | EvalRunError::UndeclaredUrl(_)
            | EvalRunError::NothingScorable(_) => ErrorKind::Invalid,
            EvalRunError::NotFound(_) => ErrorKind::NotFound,
            EvalRunError::NotRunning(_)
            | EvalRunError::AlreadyRunning(_)
            | EvalRunError::NotResumable(_)
            | EvalRunError::Conflict(_) => ErrorKind::Conflict,
            EvalRunError::Unreadable(_) | EvalRunError::Fault(_) => ErrorKind::Fault,
        }
    }
}

store_refusals!(EvalRunError);

impl From<ConfigError> for EvalRunError {
    fn from(error: ConfigError) -> Self {
        EvalRunError::BadConfig(error.to_string())
    }
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

/// One stored run of an app.
pub async fn eval_run(store: &Store, app: &str, result_id: &str) -> Result<EvalRunRecord, EvalRunError> {
    Ok(store.eval_run(app, result_id).await?)
}

/// The runs of an app (of one eval set when given), newest first.
pub async fn list_eval_runs(
    store: &Store,
    app: &str,
    eval_set_id: Option<&str>,
) -> Result<Vec<crate::records::EvalRunSummary>, EvalRunError> {
    Ok(store.list_eval_runs(app, eval_set_id).await?)
}

/// Plans and records a run, its cases queued for workers, and starts working on it here (unless
/// this process runs no worker). Await the handle to wait for the whole run, wherever it runs.
pub async fn start_eval_run(
    services: &Services,
    request: RunRequest,
) -> Result<(EvalRunRecord, tokio::task::JoinHandle<()>), EvalRunError> {
    let evaluators = &services.scoring.evaluators;
    let mut plan = plan_run(&services.store, &services.profiles, evaluators, request).await?;
    if let Some(folder) = &services.folder {
        plan.commit = folder.commit_of(&plan.app_name).await;
    }
    let record = record_run(&services.store, &plan).await?;
    let handle = take_up(services, record.clone(), plan.agent);
    Ok((record, handle))
}

/// Resumes an interrupted or cancelled run, from any process: only the case runs not stored
/// yet run. The run reads as running from the moment this answers.
pub async fn resume_eval_run(
    services: &Services,
    app: &str,
    result_id: &str,
) -> Result<(EvalRunRecord, tokio::task::JoinHandle<()>), EvalRunError> {
    let evaluators = &services.scoring.evaluators;
    let (record, agent) =
        requeue_run(&services.store, &services.profiles, evaluators, app, result_id).await?;
    let handle = take_up(services, record.clone(), agent);
    Ok((record, handle))
}

/// Cancels a running run, from any process: its workers stop (at once here, at their next
/// lease renewal elsewhere); what was stored stays and it can be resumed.
pub async fn cancel_eval_run(services: &Services, app: &str, result_id: &str) -> Result<(), EvalRunError> {
    let record = services.store.eval_run(app, result_id).await?;
    if !services
        .store
        .stop_eval_run(record.row, RunStatus::Cancelled, now_seconds())
        .await?
    {
        return Err(EvalRunError::NotRunning(result_id.to_string()));
    }
    services.eval_runs.stop(result_id);
    Ok(())
}

/// What becomes of a run whose work here failed: interrupted (resumable once the cause is
/// fixed) if this process still held some of its cases; left to the workers that hold them if
/// not.
pub async fn settle_failure(store: &Store, record: &EvalRunRecord, failure: &RunFailure) {
    let result_id = &record.summary.result_id;
    if let RunFailure::LeaseLost(_) = failure {
        tracing::warn!(result_id, "{failure}");
        return;
    }
    tracing::error!(result_id, "eval run failed: {failure}");
    if let Err(error) = store.interrupt_held_eval_run(record.row, now_seconds()).await {
        tracing::error!(result_id, "could not mark the run interrupted: {error}");
    }
}

/// Works on the run here (when this process runs a worker and is not working on it already),
/// in a task that ends when the run is over wherever it ran.
pub(crate) fn take_up(
    services: &Services,
    record: EvalRunRecord,
    agent: Arc<dyn Agent>,
) -> tokio::task::JoinHandle<()> {
    let claim = services
        .worker
        .enabled
        .then(|| services.eval_runs.claim(&record.summary.result_id))
        .flatten();
    let services = services.clone();
    tokio::spawn(async move {
        match claim {
            Some(claim) => see_run_through(&services, &record, agent, claim).await,
            None => {
                wait_until_over(&services.store, &record).await;
            }
        }
    })
}

/// Works on the run until it is over; the claim (this process's registration of the work, by
/// which it is stopped here) is released however the work ends.
async fn see_run_through(
    services: &Services,
    record: &EvalRunRecord,
    agent: Arc<dyn Agent>,
    (cancel, claim): (watch::Receiver<bool>, Claim),
) {
    // Dropped when this ends, however it ends: a panic does not leave the run registered (and
    // so cancellable and un-resumable) for as long as the process lives.
    let _claim = claim;
    let options = RunOptions {
        concurrency: services.worker.concurrency,
        ..RunOptions::default()
    };
    let run = execute_eval_run(
        &services.store,
        record,
        agent,
        &services.scoring,
        &options,
        cancel,
        |_| {},
    );
    // A panic (in an agent, a metric) ends the work like a failed write.
    let outcome = match AssertUnwindSafe(run).catch_unwind().await {
        Ok(outcome) => outcome,
        Err(panic) => Err(RunFailure::Panicked(panic_message(panic.as_ref()))),
    };
    match outcome {
        Ok(RunStatus::Finished) => {
            if let Some(folder) = &services.folder {
                folder
                    .write_run_history(
                        &services.store,
                        &record.summary.app_name,
                        &record.summary.result_id,
                    )
                    .await;
            }
        }
        Ok(_) => {}
        Err(failure) => settle_failure(&services.store, record, &failure).await,
    }
}

/// Waits until the run is no longer running, wherever its workers are.
pub async fn wait_until_over(store: &Store, record: &EvalRunRecord) -> RunStatus {
    loop {
        match store
            .eval_run(&record.summary.app_name, &record.summary.result_id)
            .await
        {
            Ok(stored) if stored.summary.status == RunStatus::Running => {}
            Ok(stored) => return stored.summary.status,
            // Deleted while it ran.
            Err(StoreError::NotFound(_)) => return RunStatus::Cancelled,
            Err(error) => tracing::warn!("reading run `{}`: {error}", record.summary.result_id),
        }
        tokio::time::sleep(POLL).await;
    }
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".into())
}
