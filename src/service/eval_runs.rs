//! Evaluation runs, for the CLI, the REST API and the browser alike: a run is recorded first,
//! then each case run is stored as it finishes, so a crash loses only the cases in flight and
//! an interrupted or cancelled run resumes where it stopped.

use super::errors::{store_refusals, DomainError, ErrorKind};
use super::run_plan::{claim_run, plan_run, record_run, resumable_run, RunRequest, MAX_RUNS_PER_CASE};
use super::run_summaries::{backfill, save_case_runs, summarise};
use super::running::Claim;
use super::Services;
use crate::agent::Agent;
use crate::clock::now_seconds;
use crate::eval::{
    run_and_score, CaseRunScores, CaseSchedule, CaseSummary, ConfigError, EvalCaseResult, EvalConfig,
    FinishedCase, RunOptions, ScoringServices,
};
use crate::evalset::CompactEvalSet;
use crate::records::{EvalRunCase, RunStatus};
use crate::store::{EvalRunRecord, Store, StoreError, RENEW_EVERY};
use futures::{FutureExt, StreamExt};
use serde::Serialize;
use serde_json::Value;
use std::collections::HashSet;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use tokio::sync::{mpsc, watch, Semaphore};

/// Most finished case runs stored in one transaction.
const WRITE_BATCH: usize = 256;

/// Something stored for a run that no longer parses: a bug, or a damaged database.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UnreadableRun(pub String);

/// The eval set and config a stored run was started with.
pub fn stored_plan(record: &EvalRunRecord) -> Result<(CompactEvalSet, EvalConfig), UnreadableRun> {
    // Stored eval sets are always ADK's own form, read a case at a time.
    let expected = CompactEvalSet::from_adk_json(&record.expected_json).map_err(|e| {
        UnreadableRun(format!(
            "the stored eval set of `{}` is unreadable: {e}",
            record.summary.result_id
        ))
    })?;
    let config = stored_config(&record.summary.result_id, &record.config_json)?;
    Ok((expected, config))
}

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
    #[error("eval result `{0}` is now held by another process (this one's lease ran out)")]
    LeaseLost(String),
    #[error("the run panicked: {0}")]
    Panicked(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Runs the case runs of `record` not stored yet, storing them as they finish (what finished
/// during one write goes in the next), until all are done (`finished`) or `cancel` turns true
/// (`cancelled`; the cases under way are dropped, the finished ones are still stored). The run
/// must be held by this process's lease (recorded or claimed by it), which is renewed while it
/// runs. A failed write ends the run with the error; the run stays resumable.
pub async fn execute_eval_run(
    store: &Store,
    record: &EvalRunRecord,
    agent: Arc<dyn Agent>,
    services: &ScoringServices,
    options: &RunOptions,
    mut cancel: watch::Receiver<bool>,
    mut on_case: impl FnMut(&FinishedCase),
) -> Result<RunStatus, RunFailure> {
    let result_id = &record.summary.result_id;
    if !store.renew_eval_run_lease(record.row).await? {
        return Err(RunFailure::LeaseLost(result_id.clone()));
    }
    let (expected, config) = stored_plan(record)?;
    let options = RunOptions {
        num_runs: record.summary.num_runs.max(1) as usize,
        tools: record.summary.tools,
        ..options.clone()
    };
    // A run stored before case summaries were kept gets them now, before its writer starts.
    let mut head = store.eval_run_head(&record.summary.app_name, result_id).await?;
    backfill(store, &mut head, &config).await?;
    let skip: HashSet<(usize, usize)> = store
        .finished_eval_run_cases(record.row)
        .await?
        .into_iter()
        .collect();
    let app_name = record.summary.app_name.as_str();
    let config = &config;
    // The writer runs beside the case runs rather than between them: while one write is under
    // way the agent calls go on, and the cases that finish meanwhile go in the next write, as
    // one transaction. Handing a case over never waits (that would pause the cases under way,
    // whose turn clocks and timeouts keep running); instead a new case starts only while fewer
    // than `concurrency + WRITE_BATCH` started ones are unstored, so if the disk falls behind,
    // finished cases wait in bounded numbers.
    let (finished_tx, mut finished_rx) = mpsc::unbounded_channel::<FinishedCase>();
    let admission = Semaphore::new(options.concurrency.max(1) + WRITE_BATCH);
    let admission = &admission;
    let run_cases = async move {
        // The case runs still under way are dropped (cancelled) when this block ends.
        let mut cases = std::pin::pin!(run_and_score(
            agent,
            app_name,
            &expected,
            config,
            services,
            &options,
            CaseSchedule {
                skip,
                admission: Some(admission),
            },
        ));
        // Once every sender is gone nobody can cancel, so stop listening (changed() would return
        // at once, forever).
        let mut cancellable = true;
        loop {
            tokio::select! {
                finished = cases.next() => match finished {
                    None => break RunStatus::Finished,
                    // Sending fails only once the writer has failed, and then try_join! below has
                    // already dropped this future.
                    Some(finished) => {
                        let _ = finished_tx.send(finished);
                    }
                },
                changed = cancel.changed(), if cancellable => match changed {
                    Ok(()) if *cancel.borrow() => break RunStatus::Cancelled,
                    Ok(()) => {}
                    Err(_) => cancellable = false,
                },
            }
        }
    };
    let write_cases = async move {
        let mut batch = Vec::with_capacity(WRITE_BATCH);
        while finished_rx.recv_many(&mut batch, WRITE_BATCH).await > 0 {
            let rows: Vec<EvalRunCase> = batch
                .iter()
                .map(|finished| stored_case(finished, config))
                .collect();
            save_case_runs(store, record.row, &rows, config).await?;
            admission.add_permits(rows.len());
            batch.drain(..).for_each(|finished| on_case(&finished));
        }
        Ok::<(), RunFailure>(())
    };
    // A failed write ends the run at once (the case runs under way are dropped); the cases
    // stored so far stay. The caller marks the run interrupted (or its lease runs out), and it
    // can be resumed once the store is writable. A lost lease ends it too: another process
    // runs it now.
    let status = tokio::select! {
        written = async { tokio::try_join!(async { Ok(run_cases.await) }, write_cases) } => written?.0,
        failure = keep_lease(store, record) => return Err(failure),
    };
    store.end_eval_run(record.row, status, now_seconds()).await?;
    Ok(status)
}

/// Renews the run's lease every [`RENEW_EVERY`] for as long as it is awaited; answers only
/// when it cannot (the lease was lost, or the store failed).
async fn keep_lease(store: &Store, record: &EvalRunRecord) -> RunFailure {
    let mut ticks = tokio::time::interval(RENEW_EVERY);
    ticks.tick().await;
    loop {
        ticks.tick().await;
        match store.renew_eval_run_lease(record.row).await {
            Ok(true) => {}
            Ok(false) => return RunFailure::LeaseLost(record.summary.result_id.clone()),
            Err(error) => return error.into(),
        }
    }
}

pub(crate) fn stored_case(finished: &FinishedCase, config: &EvalConfig) -> EvalRunCase {
    EvalRunCase {
        metric_scores: CaseRunScores::of(&finished.result, config).metric_scores,
        run_index: finished.run_index as i64,
        case_index: finished.case_index as i64,
        eval_id: finished.result.eval_id.clone(),
        status: finished.result.final_eval_status,
        error: finished.result.error.clone(),
        result: serde_json::to_value(&finished.result).expect("results serialise"),
    }
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
    #[error(transparent)]
    Unreadable(#[from] UnreadableRun),
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
            | EvalRunError::ReplayUnsupported(_) => ErrorKind::Invalid,
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

/// One stored run of an app; a run whose lease ran out reads as interrupted.
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

/// Plans and records a run and starts it in the background. The task stores each case as it
/// finishes; await the handle to wait for the whole run.
pub async fn start_eval_run(
    services: &Services,
    request: RunRequest,
) -> Result<(EvalRunRecord, tokio::task::JoinHandle<()>), EvalRunError> {
    let mut plan = plan_run(&services.store, &services.profiles, request).await?;
    if let Some(folder) = &services.folder {
        plan.commit = folder.commit_of(&plan.app_name).await;
    }
    let record = record_run(&services.store, &plan).await?;
    let claim = claim_here(services, &record.summary.result_id)?;
    let handle = spawn_eval_run(services, record.clone(), plan.agent, claim);
    Ok((record, handle))
}

/// Resumes an interrupted or cancelled run: only the case runs not stored yet run. The run
/// reads as running from the moment this answers.
pub async fn resume_eval_run(
    services: &Services,
    app: &str,
    result_id: &str,
) -> Result<(EvalRunRecord, tokio::task::JoinHandle<()>), EvalRunError> {
    let record = resumable_run(&services.store, app, result_id).await?;
    // Held here before the store's claim: a cancelled run of this process may still be
    // finishing, and must not be claimed from under it.
    let claim = claim_here(services, result_id)?;
    let (record, agent) = claim_run(&services.store, &services.profiles, record).await?;
    let handle = spawn_eval_run(services, record.clone(), agent, claim);
    Ok((record, handle))
}

/// Asks a run of this process to stop; what finished stays stored and it can be resumed.
pub async fn cancel_eval_run(services: &Services, app: &str, result_id: &str) -> Result<(), EvalRunError> {
    services.store.eval_run(app, result_id).await?;
    if services.eval_runs.stop(result_id) {
        Ok(())
    } else {
        Err(EvalRunError::NotRunning(result_id.to_string()))
    }
}

/// Registers the run as under way in this process, so it can be cancelled and is not started
/// twice here.
fn claim_here(services: &Services, result_id: &str) -> Result<(watch::Receiver<bool>, Claim), EvalRunError> {
    services
        .eval_runs
        .claim(result_id)
        .ok_or_else(|| EvalRunError::AlreadyRunning(result_id.to_string()))
}

fn spawn_eval_run(
    services: &Services,
    record: EvalRunRecord,
    agent: Arc<dyn Agent>,
    (cancel, claim): (watch::Receiver<bool>, Claim),
) -> tokio::task::JoinHandle<()> {
    let services = services.clone();
    tokio::spawn(async move {
        // Dropped when the task ends, however it ends: a panic does not leave the run
        // registered (and so cancellable and un-resumable) for as long as the process lives.
        let _claim = claim;
        let result_id = &record.summary.result_id;
        let options = RunOptions::default();
        let run = execute_eval_run(
            &services.store,
            &record,
            agent,
            &services.scoring,
            &options,
            cancel,
            |_| {},
        );
        // A panic (in an agent, a metric) ends the run like a failed write: interrupted, resumable.
        let outcome = match AssertUnwindSafe(run).catch_unwind().await {
            Ok(outcome) => outcome,
            Err(panic) => Err(RunFailure::Panicked(panic_message(panic.as_ref()))),
        };
        if let (Ok(RunStatus::Finished), Some(folder)) = (&outcome, &services.folder) {
            folder
                .write_run_history(&services.store, &record.summary.app_name, result_id)
                .await;
        }
        if let Err(failure) = outcome {
            tracing::error!(result_id, "eval run failed: {failure}");
            // Left `running`, it would look alive until its lease ran out.
            let _ = services
                .store
                .end_eval_run(record.row, RunStatus::Interrupted, now_seconds())
                .await;
        }
    })
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".into())
}

/// The case runs stored for a run so far; their full results only `with_results`.
pub async fn eval_run_cases(
    store: &Store,
    record: &EvalRunRecord,
    with_results: bool,
) -> Result<Vec<EvalRunCase>, EvalRunError> {
    Ok(store.eval_run_cases(record.row, with_results).await?)
}
