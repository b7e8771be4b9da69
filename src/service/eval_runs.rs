//! Evaluation runs, for the CLI, the REST API and the browser alike: a run is recorded first,
//! then each case run is stored as it finishes, so a crash loses only the cases in flight and
//! an interrupted or cancelled run resumes where it stopped.

use super::run_summaries::{backfill, save_case_runs, summarise};
use super::Services;
use crate::agent::Agent;
use crate::clock::now_seconds;
use crate::eval::{
    adk_case_result, run_and_score, CaseRunScores, CaseSchedule, CaseSummary, EvalConfig, FinishedCase,
    RunOptions, ScoringServices,
};
use crate::evalset::{to_adk_json, EvalSet};
use crate::records::{EvalRunCase, RunStatus};
use crate::store::{EvalRunRecord, NewEvalRun, Store, StoreError};
use futures::{FutureExt, StreamExt};
use serde::Serialize;
use serde_json::Value;
use std::collections::HashSet;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use tokio::sync::{mpsc, watch, Semaphore};

/// Most finished case runs stored in one transaction.
const WRITE_BATCH: usize = 256;

/// What to run: the eval set (only the selected cases), how to score it, with which agent.
pub struct EvalRunPlan<'a> {
    pub app_name: &'a str,
    pub expected: &'a EvalSet,
    pub config: &'a EvalConfig,
    /// The agent profile's name, recorded with the run.
    pub agent_name: &'a str,
    pub num_runs: usize,
}

/// Records a new run (status `running`) before any case starts.
pub async fn create_eval_run(store: &Store, plan: &EvalRunPlan<'_>) -> Result<EvalRunRecord, StoreError> {
    store
        .create_eval_run(&NewEvalRun {
            app_name: plan.app_name,
            eval_set_id: &plan.expected.eval_set_id,
            agent: plan.agent_name,
            expected_json: &to_adk_json(plan.expected),
            config_json: &plan.config.to_json().to_string(),
            num_runs: plan.num_runs,
            total: plan.expected.eval_cases.len() * plan.num_runs.max(1),
            created_at: now_seconds(),
        })
        .await
}

/// The eval set and config a stored run was started with.
pub fn stored_plan(record: &EvalRunRecord) -> Result<(EvalSet, EvalConfig), String> {
    // Stored eval sets are always ADK's own form, which the model reads directly.
    let expected: EvalSet = serde_json::from_str(&record.expected_json).map_err(|e| {
        format!(
            "the stored eval set of `{}` is unreadable: {e}",
            record.summary.result_id
        )
    })?;
    let config = stored_config(&record.summary.result_id, &record.config_json)?;
    Ok((expected, config))
}

/// The eval config a stored run was started with (`config_json` as stored for `result_id`).
pub fn stored_config(result_id: &str, config_json: &str) -> Result<EvalConfig, String> {
    EvalConfig::parse(config_json)
        .map_err(|e| format!("the stored eval config of `{result_id}` is unreadable: {e}"))
}

/// Runs the case runs of `record` not stored yet, storing them as they finish (what finished
/// during one write goes in the next), until all are done (`finished`) or `cancel` turns true
/// (`cancelled`; the cases under way are dropped, the finished ones are still stored). A failed
/// write ends the run with the error; the run stays resumable.
pub async fn execute_eval_run(
    store: &Store,
    record: &EvalRunRecord,
    agent: Arc<dyn Agent>,
    services: &ScoringServices,
    options: &RunOptions,
    mut cancel: watch::Receiver<bool>,
    mut on_case: impl FnMut(&FinishedCase),
) -> Result<RunStatus, String> {
    let (expected, config) = stored_plan(record)?;
    let options = RunOptions {
        num_runs: record.summary.num_runs.max(1) as usize,
        ..options.clone()
    };
    // A run stored before case summaries were kept gets them now, before its writer starts.
    let mut head = store
        .eval_run_head(&record.summary.app_name, &record.summary.result_id)
        .await
        .map_err(|e| e.to_string())?;
    backfill(store, &mut head, &config)
        .await
        .map_err(|e| e.to_string())?;
    let skip: HashSet<(usize, usize)> = store
        .finished_eval_run_cases(record.row)
        .await
        .map_err(|e| e.to_string())?
        .into_iter()
        .collect();
    store
        .set_eval_run_status(record.row, RunStatus::Running, now_seconds())
        .await
        .map_err(|e| e.to_string())?;
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
            save_case_runs(store, record.row, &rows, config)
                .await
                .map_err(|e| e.to_string())?;
            admission.add_permits(rows.len());
            batch.drain(..).for_each(|finished| on_case(&finished));
        }
        Ok::<(), String>(())
    };
    // A failed write ends the run at once (the case runs under way are dropped); the cases
    // stored so far stay. The caller marks the run interrupted (or its process is gone when
    // the run is next read), and it can be resumed once the store is writable.
    let written = tokio::try_join!(async { Ok(run_cases.await) }, write_cases);
    let (status, ()) = written?;
    store
        .set_eval_run_status(record.row, status, now_seconds())
        .await
        .map_err(|e| e.to_string())?;
    Ok(status)
}

fn stored_case(finished: &FinishedCase, config: &EvalConfig) -> EvalRunCase {
    EvalRunCase {
        metric_scores: CaseRunScores::of(&finished.result, config).metric_scores,
        run_index: finished.run_index as i64,
        case_index: finished.case_index as i64,
        eval_id: finished.result.eval_id.clone(),
        status: finished.result.final_eval_status as i64,
        error: finished.result.error.clone(),
        result: serde_json::to_value(&finished.result).expect("results serialise"),
    }
}

/// The case summaries of a stored run (pooled over runs, with pass@k), in the eval set's
/// order; cases with no stored run yet are left out.
pub fn case_summaries(expected: &EvalSet, config: &EvalConfig, cases: &[EvalRunCase]) -> Vec<CaseSummary> {
    let count = expected.eval_cases.len() as i64;
    summarise(cases, config)
        .into_iter()
        .filter(|row| row.case_index < count)
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
}

#[derive(Debug, thiserror::Error)]
pub enum EvalRunError {
    #[error("choose at least one metric to score")]
    NoMetrics,
    #[error("num_runs: expected 1 to 100")]
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
    /// Finished runs cannot be resumed; the message says why.
    #[error("{0}")]
    NotResumable(String),
    /// A stored eval set or config that no longer parses (a bug or a damaged database).
    #[error("{0}")]
    Unreadable(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl StoredEvalSetResult {
    /// The result as a file for ADK: its case results without what ADK's reader refuses.
    pub fn for_adk(mut self) -> Self {
        self.eval_case_results = self.eval_case_results.into_iter().map(adk_case_result).collect();
        self
    }
}

/// A stored run with its case results so far.
pub async fn eval_set_result(
    store: &Store,
    record: &EvalRunRecord,
) -> Result<StoredEvalSetResult, EvalRunError> {
    let (expected, config) = stored_plan(record).map_err(EvalRunError::Unreadable)?;
    let cases = store.eval_run_cases(record.row, true).await?;
    let summaries = case_summaries(&expected, &config, &cases);
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
    })
}

/// One stored run of an app; runs whose process died read as interrupted.
pub async fn eval_run(store: &Store, app: &str, result_id: &str) -> Result<EvalRunRecord, StoreError> {
    store.mark_interrupted_eval_runs().await?;
    store.eval_run(app, result_id).await
}

/// The runs of an app (of one eval set when given), newest first.
pub async fn list_eval_runs(
    store: &Store,
    app: &str,
    eval_set_id: Option<&str>,
) -> Result<Vec<crate::records::EvalRunSummary>, StoreError> {
    store.mark_interrupted_eval_runs().await?;
    store.list_eval_runs(app, eval_set_id).await
}

/// What starting a run needs to know; the agent defaults to the app's profile.
pub struct StartEvalRun<'a> {
    pub app_name: &'a str,
    pub eval_set_id: &'a str,
    /// Cases to run; all when empty.
    pub eval_ids: &'a [String],
    pub config: EvalConfig,
    pub agent: Option<&'a str>,
    pub num_runs: usize,
}

fn profile_agent(services: &Services, name: &str) -> Result<Arc<dyn Agent>, EvalRunError> {
    services
        .profiles
        .agent_or_error(name)
        .map_err(EvalRunError::UnknownAgent)
}

/// Records a run and starts it in the background. The task stores each case as it finishes;
/// await the handle to wait for the whole run.
pub async fn start_eval_run(
    services: &Services,
    start: StartEvalRun<'_>,
) -> Result<(EvalRunRecord, tokio::task::JoinHandle<()>), EvalRunError> {
    if start.config.metrics.is_empty() {
        return Err(EvalRunError::NoMetrics);
    }
    if !(1..=100).contains(&start.num_runs) {
        return Err(EvalRunError::BadNumRuns);
    }
    let agent_name = start.agent.unwrap_or(start.app_name);
    let agent = profile_agent(services, agent_name)?;
    let json = services
        .store
        .export_adk_json(start.app_name, start.eval_set_id)
        .await?;
    let mut expected: EvalSet = serde_json::from_str(&json).map_err(|e| {
        EvalRunError::Unreadable(format!(
            "eval set `{}` could not be read back: {e}",
            start.eval_set_id
        ))
    })?;
    if !start.eval_ids.is_empty() {
        if let Some(missing) = start
            .eval_ids
            .iter()
            .find(|id| !expected.eval_cases.iter().any(|c| &c.eval_id == *id))
        {
            return Err(EvalRunError::UnknownCase {
                eval_set_id: start.eval_set_id.to_string(),
                eval_id: missing.clone(),
            });
        }
        expected
            .eval_cases
            .retain(|c| start.eval_ids.contains(&c.eval_id));
    }
    if expected.eval_cases.is_empty() {
        return Err(EvalRunError::NoCases(start.eval_set_id.to_string()));
    }
    let record = create_eval_run(
        &services.store,
        &EvalRunPlan {
            app_name: start.app_name,
            expected: &expected,
            config: &start.config,
            agent_name,
            num_runs: start.num_runs,
        },
    )
    .await?;
    let handle = spawn_eval_run(services, record.clone(), agent)?;
    Ok((record, handle))
}

/// Resumes an interrupted or cancelled run: only the case runs not stored yet run.
pub async fn resume_eval_run(
    services: &Services,
    app: &str,
    result_id: &str,
) -> Result<(EvalRunRecord, tokio::task::JoinHandle<()>), EvalRunError> {
    let record = eval_run(&services.store, app, result_id).await?;
    record
        .summary
        .check_resumable()
        .map_err(EvalRunError::NotResumable)?;
    let agent = profile_agent(services, &record.summary.agent)?;
    // Running from now on, not once the task gets to it: whoever reads the run right after
    // the resume (the browser's next poll) sees it running. Set before the task starts, which
    // may finish the run at once; if a second resume wins the race, the run is running anyway.
    services
        .store
        .set_eval_run_status(record.row, RunStatus::Running, now_seconds())
        .await?;
    let mut record = record;
    record.summary.status = RunStatus::Running;
    let handle = spawn_eval_run(services, record.clone(), agent)?;
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

fn spawn_eval_run(
    services: &Services,
    record: EvalRunRecord,
    agent: Arc<dyn Agent>,
) -> Result<tokio::task::JoinHandle<()>, EvalRunError> {
    let result_id = record.summary.result_id.clone();
    let (cancel, claim) = services
        .eval_runs
        .claim(&result_id)
        .ok_or_else(|| EvalRunError::AlreadyRunning(result_id.clone()))?;
    let services = services.clone();
    Ok(tokio::spawn(async move {
        // Dropped when the task ends, however it ends: a panic does not leave the run
        // registered (and so cancellable and un-resumable) for as long as the process lives.
        let _claim = claim;
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
            Err(panic) => Err(panic_message(panic.as_ref())),
        };
        if let Err(message) = outcome {
            tracing::error!(result_id, "eval run failed: {message}");
            // Left `running`, it would look alive for as long as this process lives.
            let _ = services
                .store
                .set_eval_run_status(record.row, RunStatus::Interrupted, now_seconds())
                .await;
        }
    }))
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    let text = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".into());
    format!("the run panicked: {text}")
}

/// The case runs stored for a run so far; their full results only `with_results`.
pub async fn eval_run_cases(
    store: &Store,
    record: &EvalRunRecord,
    with_results: bool,
) -> Result<Vec<EvalRunCase>, StoreError> {
    store.eval_run_cases(record.row, with_results).await
}
