//! Evaluation runs, shared by the CLI, the REST API and the browser: a run is recorded first,
//! then each case run is stored as it finishes, so a crash loses only the cases in flight and
//! an interrupted or cancelled run resumes where it stopped.

use super::{now_seconds, ApiError, AppState};
use crate::agent::Agent;
use crate::eval::{
    metric_infos, run_and_score, summarize_cases, CaseRunScores, CaseSchedule, CaseSummary, EvalConfig,
    EvalStatus, FinishedCase, RunOptions, ScoringServices,
};
use crate::evalset::{to_adk_json, EvalSet};
use crate::store::{EvalRunCase, EvalRunRecord, NewEvalRun, RunStatus, Store, StoreError};
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use futures::StreamExt;
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
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
    let config = EvalConfig::parse(&record.config_json).map_err(|e| {
        format!(
            "the stored eval config of `{}` is unreadable: {e}",
            record.summary.result_id
        )
    })?;
    Ok((expected, config))
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
            store
                .save_eval_run_cases(record.row, &rows)
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
    let runs = cases.iter().map(|case| {
        let scores = CaseRunScores {
            final_eval_status: EvalStatus::from_number(case.status),
            error: case.error.is_some(),
            metric_scores: case.metric_scores.clone(),
        };
        (case.case_index as usize, scores)
    });
    summarize_cases(expected, runs, config)
}

/// A stored run as ADK's EvalSetResult (its case results run after run), plus Evalstudio's
/// `case_summaries` (pooled over runs, with pass@k) and the run's status.
pub async fn eval_set_result_json(store: &Store, record: &EvalRunRecord) -> Result<Value, String> {
    let (expected, config) = stored_plan(record)?;
    let cases = store
        .eval_run_cases(record.row, true)
        .await
        .map_err(|e| e.to_string())?;
    let summaries = case_summaries(&expected, &config, &cases);
    let summary = &record.summary;
    Ok(json!({
        "eval_set_result_id": summary.result_id,
        "eval_set_result_name": summary.result_id.replace('/', "_"),
        "eval_set_id": summary.eval_set_id,
        "eval_case_results": cases.into_iter().map(|c| c.result).collect::<Vec<Value>>(),
        "creation_timestamp": summary.created_at,
        "case_summaries": summaries,
        "status": summary.status,
        "agent": summary.agent,
        "num_runs": summary.num_runs,
    }))
}

/// Runs under way in this process, by result id: how to cancel each.
#[derive(Clone, Default)]
pub struct RunningEvals {
    runs: Arc<Mutex<HashMap<String, watch::Sender<bool>>>>,
}

impl RunningEvals {
    /// Registers a run; None when it is already running here.
    pub fn register(&self, result_id: &str) -> Option<watch::Receiver<bool>> {
        let mut runs = self.runs.lock().expect("running evals lock");
        if runs.contains_key(result_id) {
            return None;
        }
        let (sender, receiver) = watch::channel(false);
        runs.insert(result_id.to_string(), sender);
        Some(receiver)
    }

    pub fn finish(&self, result_id: &str) {
        self.runs.lock().expect("running evals lock").remove(result_id);
    }

    /// Asks a run to stop; false when it is not running here.
    pub fn cancel(&self, result_id: &str) -> bool {
        match self.runs.lock().expect("running evals lock").get(result_id) {
            Some(sender) => {
                let _ = sender.send(true);
                true
            }
            None => false,
        }
    }
}

/// The agent of a profile, or a 400 naming the profiles there are.
fn profile_agent(state: &AppState, name: &str) -> Result<Arc<dyn Agent>, ApiError> {
    state.profiles.agent_or_error(name).map_err(ApiError::bad_request)
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

/// Records a run and starts it in the background. The task stores each case as it finishes;
/// await the handle to wait for the whole run.
pub async fn start_eval_run(
    state: &AppState,
    start: StartEvalRun<'_>,
) -> Result<(EvalRunRecord, tokio::task::JoinHandle<()>), ApiError> {
    if start.config.metrics.is_empty() {
        return Err(ApiError::bad_request("choose at least one metric to score"));
    }
    if !(1..=100).contains(&start.num_runs) {
        return Err(ApiError::bad_request("num_runs: expected 1 to 100"));
    }
    let agent_name = start.agent.unwrap_or(start.app_name);
    let agent = profile_agent(state, agent_name)?;
    let json = state
        .store
        .export_adk_json(start.app_name, start.eval_set_id)
        .await?;
    let mut expected: EvalSet = serde_json::from_str(&json).map_err(|e| {
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("eval set `{}` could not be read back: {e}", start.eval_set_id),
            Value::Null,
        )
    })?;
    if !start.eval_ids.is_empty() {
        if let Some(missing) = start
            .eval_ids
            .iter()
            .find(|id| !expected.eval_cases.iter().any(|c| &c.eval_id == *id))
        {
            return Err(ApiError::bad_request(format!(
                "eval case `{missing}` is not in eval set `{}`",
                start.eval_set_id
            )));
        }
        expected
            .eval_cases
            .retain(|c| start.eval_ids.contains(&c.eval_id));
    }
    if expected.eval_cases.is_empty() {
        return Err(ApiError::bad_request(format!(
            "eval set `{}` has no cases to run",
            start.eval_set_id
        )));
    }
    let record = create_eval_run(
        &state.store,
        &EvalRunPlan {
            app_name: start.app_name,
            expected: &expected,
            config: &start.config,
            agent_name,
            num_runs: start.num_runs,
        },
    )
    .await?;
    let handle = spawn_eval_run(state, record.clone(), agent)?;
    Ok((record, handle))
}

/// Resumes an interrupted or cancelled run: only the case runs not stored yet run.
pub async fn resume_eval_run(
    state: &AppState,
    app: &str,
    result_id: &str,
) -> Result<(EvalRunRecord, tokio::task::JoinHandle<()>), ApiError> {
    state.store.mark_interrupted_eval_runs().await?;
    let record = state.store.eval_run(app, result_id).await?;
    record
        .summary
        .check_resumable()
        .map_err(|message| ApiError::new(StatusCode::CONFLICT, message, Value::Null))?;
    let agent = profile_agent(state, &record.summary.agent)?;
    // Running from now on, not once the task gets to it: whoever reads the run right after
    // the resume (the browser's next poll) sees it running. Set before the task starts, which
    // may finish the run at once; if a second resume wins the race, the run is running anyway.
    state
        .store
        .set_eval_run_status(record.row, RunStatus::Running, now_seconds())
        .await?;
    let mut record = record;
    record.summary.status = RunStatus::Running;
    let handle = spawn_eval_run(state, record.clone(), agent)?;
    Ok((record, handle))
}

/// Asks a run of this process to stop; what finished stays stored and it can be resumed.
pub fn cancel_eval_run(state: &AppState, result_id: &str) -> Result<(), ApiError> {
    if state.evals.cancel(result_id) {
        Ok(())
    } else {
        Err(ApiError::new(
            StatusCode::CONFLICT,
            format!("eval result `{result_id}` is not running"),
            Value::Null,
        ))
    }
}

fn spawn_eval_run(
    state: &AppState,
    record: EvalRunRecord,
    agent: Arc<dyn Agent>,
) -> Result<tokio::task::JoinHandle<()>, ApiError> {
    let result_id = record.summary.result_id.clone();
    let cancel = state.evals.register(&result_id).ok_or_else(|| {
        ApiError::new(
            StatusCode::CONFLICT,
            format!("eval result `{result_id}` is already running"),
            Value::Null,
        )
    })?;
    let state = state.clone();
    Ok(tokio::spawn(async move {
        let outcome = execute_eval_run(
            &state.store,
            &record,
            agent,
            &state.scoring,
            &RunOptions::default(),
            cancel,
            |_| {},
        )
        .await;
        if let Err(message) = outcome {
            tracing::error!(result_id, "eval run failed: {message}");
            // Left `running`, it would look alive for as long as this process lives.
            let _ = state
                .store
                .set_eval_run_status(record.row, RunStatus::Interrupted, now_seconds())
                .await;
        }
        state.evals.finish(&result_id);
    }))
}

// ---- REST, shaped like ADK's web server ----

/// Routes under `/apps`.
pub fn app_routes() -> Router<AppState> {
    Router::new()
        .route("/{app}/eval_sets/{eval_set_id}/run_eval", post(run_eval))
        .route("/{app}/eval_results", get(list_eval_results))
        .route("/{app}/eval_results/{result_id}", get(get_eval_result))
        .route("/{app}/eval_results/{result_id}/cancel", post(cancel_eval_result))
        .route("/{app}/eval_results/{result_id}/resume", post(resume_eval_result))
        .route("/{app}/eval_metrics", get(list_eval_metrics))
}

/// ADK's RunEvalRequest (1.x `eval_ids` and 2.x `eval_case_ids`), plus Evalstudio's `agent`,
/// `num_runs`, and `wait` (false: answer 202 with the result id at once).
#[derive(Deserialize)]
struct RunEvalBody {
    #[serde(default, alias = "evalIds", alias = "eval_case_ids", alias = "evalCaseIds")]
    eval_ids: Vec<String>,
    #[serde(default, alias = "evalMetrics")]
    eval_metrics: Vec<Value>,
    #[serde(default)]
    agent: Option<String>,
    #[serde(default = "one", alias = "numRuns")]
    num_runs: usize,
    #[serde(default = "yes")]
    wait: bool,
}

fn one() -> usize {
    1
}

fn yes() -> bool {
    true
}

async fn run_eval(
    State(state): State<AppState>,
    Path((app, eval_set_id)): Path<(String, String)>,
    body: Bytes,
) -> Result<Response, ApiError> {
    let body: RunEvalBody = serde_json::from_slice(&body)
        .map_err(|e| ApiError::bad_request(format!("invalid request body: {e}")))?;
    let config = if body.eval_metrics.is_empty() {
        EvalConfig::default()
    } else {
        EvalConfig::from_eval_metrics(&body.eval_metrics).map_err(|e| ApiError::bad_request(e.to_string()))?
    };
    let (record, handle) = start_eval_run(
        &state,
        StartEvalRun {
            app_name: &app,
            eval_set_id: &eval_set_id,
            eval_ids: &body.eval_ids,
            config,
            agent: body.agent.as_deref(),
            num_runs: body.num_runs,
        },
    )
    .await?;
    if !body.wait {
        return Ok((
            StatusCode::ACCEPTED,
            Json(json!({"eval_set_result_id": record.summary.result_id})),
        )
            .into_response());
    }
    let _ = handle.await;
    let record = state.store.eval_run(&app, &record.summary.result_id).await?;
    let cases = state.store.eval_run_cases(record.row, true).await?;
    // ADK answers with the case results (its RunEvalResult list).
    Ok(Json(cases.into_iter().map(|c| c.result).collect::<Vec<Value>>()).into_response())
}

async fn list_eval_results(
    State(state): State<AppState>,
    Path(app): Path<String>,
) -> Result<Json<Vec<String>>, ApiError> {
    let mut ids: Vec<String> = state
        .store
        .list_eval_runs(&app, None)
        .await?
        .into_iter()
        .map(|r| r.result_id)
        .collect();
    ids.sort();
    Ok(Json(ids))
}

async fn get_eval_result(
    State(state): State<AppState>,
    Path((app, result_id)): Path<(String, String)>,
) -> Result<Json<Value>, ApiError> {
    state.store.mark_interrupted_eval_runs().await?;
    let record = state.store.eval_run(&app, &result_id).await?;
    eval_set_result_json(&state.store, &record)
        .await
        .map(Json)
        .map_err(|message| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, message, Value::Null))
}

async fn cancel_eval_result(
    State(state): State<AppState>,
    Path((app, result_id)): Path<(String, String)>,
) -> Result<StatusCode, ApiError> {
    state.store.eval_run(&app, &result_id).await?;
    cancel_eval_run(&state, &result_id)?;
    Ok(StatusCode::ACCEPTED)
}

async fn resume_eval_result(
    State(state): State<AppState>,
    Path((app, result_id)): Path<(String, String)>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let (record, _) = resume_eval_run(&state, &app, &result_id).await?;
    Ok((
        StatusCode::ACCEPTED,
        Json(json!({"eval_set_result_id": record.summary.result_id})),
    ))
}

/// ADK's MetricInfo list: name, description and the value interval.
async fn list_eval_metrics(Path(_app): Path<String>) -> Json<Vec<Value>> {
    Json(
        metric_infos()
            .into_iter()
            .map(|m| {
                json!({
                    "metric_name": m.metric_name,
                    "description": m.description,
                    "metric_value_info": {"interval": {
                        "min_value": 0.0, "max_value": 1.0, "open_at_min": false, "open_at_max": false
                    }},
                })
            })
            .collect(),
    )
}
