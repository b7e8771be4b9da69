//! Eval runs over REST, shaped like ADK's web server: run_eval, eval_results, eval_metrics,
//! plus Evalstudio's cancel and resume.

use super::body::JsonBody;
use super::error::ApiError;
use crate::access::Role::{Editor, Viewer};
use crate::api::access::Routes;
use crate::api::AppState;
use crate::eval::run_stats::Change;
use crate::records::runs::{RunComparison, RunScope};
use crate::service::metric_offer;
use crate::service::runs::label::set_run_label;
use crate::service::runs::plan::{tool_execution, RunEvalSet, RunMetrics, RunRequest};
use crate::service::runs::progress::{self, ProgressEvent};
use crate::service::runs::stored::{self, StoredEvalSetResult};
use crate::service::runs::{export, lifecycle, views};
use axum::body::{Body, Bytes};
use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::Json;
use futures::StreamExt;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::convert::Infallible;
use std::time::Duration;

/// Routes under `/apps`.
pub fn routes() -> Routes {
    const RESULT: &str = "/{app}/eval_results/{result_id}";
    Routes::new()
        .post("/{app}/eval_sets/{eval_set_id}/run_eval", Editor, run_eval)
        .get("/{app}/eval_results", Viewer, list_eval_results)
        .get(RESULT, Viewer, get_eval_result)
        .patch(RESULT, Editor, label_eval_result)
        .get(&format!("{RESULT}/export"), Viewer, export_eval_result)
        .get(
            &format!("{RESULT}/compare/{{before_id}}"),
            Viewer,
            compare_eval_results,
        )
        .get(&format!("{RESULT}/progress"), Viewer, eval_result_progress)
        .post(&format!("{RESULT}/cancel"), Editor, cancel_eval_result)
        .post(&format!("{RESULT}/resume"), Editor, resume_eval_result)
        .get("/{app}/eval_metrics", Viewer, list_eval_metrics)
}

/// ADK's RunEvalRequest (1.x `eval_ids` and 2.x `eval_case_ids`), plus Evalstudio's `agent`,
/// `num_runs`, and `wait` (false: answer 202 with the result id at once).
#[derive(Deserialize)]
pub(super) struct RunEvalBody {
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
    /// ADK's: how the simulated user plays the scenario cases.
    #[serde(default, alias = "userSimulatorConfig")]
    user_simulator_config: Option<Value>,
    /// Evalstudio's: what to call the run.
    #[serde(default)]
    label: Option<String>,
    /// adk-web's name: `live` (default) or `replay` (tool calls answered from each case's recording).
    #[serde(default, alias = "toolExecutionMode")]
    tool_execution_mode: Option<String>,
    /// Under replay, what an unrecorded call gets: `live` (default) or `error`.
    #[serde(default, alias = "replayMiss")]
    replay_miss: Option<String>,
}

fn one() -> usize {
    1
}

fn yes() -> bool {
    true
}

/// The answer to a run started without waiting, or resumed.
#[derive(Serialize)]
struct StartedRun {
    eval_set_result_id: String,
}

async fn run_eval(
    State(state): State<AppState>,
    Path((app, eval_set_id)): Path<(String, String)>,
    JsonBody(body): JsonBody<RunEvalBody>,
) -> Result<Response, ApiError> {
    let body = body.ok_or_else(|| ApiError::bad_request("the body must be a RunEvalRequest"))?;
    let wait = body.wait;
    let (record, handle) =
        lifecycle::start_eval_run(&state.services, run_request(app.clone(), eval_set_id, body)?).await?;
    let result_id = record.summary.result_id;
    if !wait {
        let started = StartedRun {
            eval_set_result_id: result_id,
        };
        return Ok((StatusCode::ACCEPTED, Json(started)).into_response());
    }
    let _ = handle.await;
    // ADK answers with the case results (its RunEvalResult list).
    Ok(Json(finished_results(&state, &app, &result_id).await?).into_response())
}

/// A run as ADK's RunEvalRequest asks for it (with Evalstudio's additions).
pub(super) fn run_request(
    app: String,
    eval_set_id: String,
    body: RunEvalBody,
) -> Result<RunRequest, ApiError> {
    let tools = tool_execution(body.tool_execution_mode.as_deref(), body.replay_miss.as_deref())?;
    Ok(RunRequest {
        app_name: app.clone(),
        eval_set: RunEvalSet::Stored(eval_set_id),
        scope: if body.eval_ids.is_empty() {
            RunScope::All
        } else {
            RunScope::Selected(body.eval_ids)
        },
        metrics: if body.eval_metrics.is_empty() {
            RunMetrics::Default
        } else {
            RunMetrics::EvalMetrics(body.eval_metrics)
        },
        simulator: body.user_simulator_config,
        agent: body.agent,
        num_runs: body.num_runs,
        label: body.label,
        tools,
    })
}

/// A finished run's case results.
pub(super) async fn finished_results(
    state: &AppState,
    app: &str,
    result_id: &str,
) -> Result<Vec<Value>, ApiError> {
    let store = &state.services.store;
    let result = stored::eval_set_result(store, &stored::eval_run(store, app, result_id).await?).await?;
    Ok(result.eval_case_results)
}

async fn list_eval_results(
    State(state): State<AppState>,
    Path(app): Path<String>,
) -> Result<Json<Vec<String>>, ApiError> {
    let runs = stored::list_eval_runs(&state.services.store, &app, None).await?;
    let mut ids: Vec<String> = runs.into_iter().map(|r| r.result_id).collect();
    ids.sort();
    Ok(Json(ids))
}

/// Evalstudio's: `{"label": "..."}` names the run (an empty label takes the name away).
#[derive(Deserialize)]
struct LabelBody {
    label: Option<String>,
}

async fn label_eval_result(
    State(state): State<AppState>,
    Path((app, result_id)): Path<(String, String)>,
    JsonBody(body): JsonBody<LabelBody>,
) -> Result<Json<Value>, ApiError> {
    let body = body.ok_or_else(|| ApiError::bad_request("the body must be {\"label\": \"...\"}"))?;
    let label = set_run_label(&state.services.store, &app, &result_id, body.label.as_deref()).await?;
    Ok(Json(json!({ "label": label })))
}

async fn get_eval_result(
    State(state): State<AppState>,
    Path((app, result_id)): Path<(String, String)>,
) -> Result<Json<StoredEvalSetResult>, ApiError> {
    let store = &state.services.store;
    let record = stored::eval_run(store, &app, &result_id).await?;
    Ok(Json(stored::eval_set_result(store, &record).await?))
}

/// `?format=adk` (default): ADK's EvalSetResult file; `?format=junit`: JUnit XML.
#[derive(Deserialize)]
struct ExportQuery {
    format: Option<String>,
}

async fn export_eval_result(
    State(state): State<AppState>,
    Path((app, result_id)): Path<(String, String)>,
    Query(query): Query<ExportQuery>,
) -> Result<Response, ApiError> {
    let store = &state.services.store;
    let (file_name, body, content_type) = match query.format.as_deref().unwrap_or("adk") {
        // Streamed a page of cases at a time: a large run is never whole in memory.
        "adk" => {
            let file = export::adk_result_chunks(store, &app, &result_id, 0).await?;
            let chunks = file.chunks.map(|chunk| {
                chunk
                    .map(Bytes::from)
                    .map_err(|err| std::io::Error::other(err.to_string()))
            });
            (file.file_name, Body::from_stream(chunks), "application/json")
        }
        "junit" => {
            let file = export::junit_file(store, &app, &result_id).await?;
            (file.file_name, Body::from(file.text), "application/xml")
        }
        other => {
            return Err(ApiError::bad_request(format!(
                "format `{other}` is not one of adk, junit"
            )))
        }
    };
    let disposition = format!("attachment; filename=\"{}\"", file_name.replace(['"', '\\'], "_"));
    let mut response = (StatusCode::OK, body).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    if let Ok(value) = HeaderValue::from_str(&disposition) {
        headers.insert(header::CONTENT_DISPOSITION, value);
    }
    Ok(response)
}

/// `?change=regressed|improved|still_failing|still_passing|added|removed&page=N`.
#[derive(Deserialize)]
struct CompareQuery {
    change: Option<String>,
    #[serde(default = "first_page")]
    page: i64,
}

fn first_page() -> i64 {
    1
}

/// Run `result_id` against the earlier run `before_id` of the same evalset, as the browser's
/// compare view shows it: counts per change, per-metric statistics, a page of the cases.
async fn compare_eval_results(
    State(state): State<AppState>,
    Path((app, result_id, before_id)): Path<(String, String, String)>,
    Query(query): Query<CompareQuery>,
) -> Result<Json<RunComparison>, ApiError> {
    let change = match query.change.as_deref() {
        None => None,
        Some(name) => Some(Change::parse(name).ok_or_else(|| {
            let known: Vec<&str> = Change::ALL.iter().map(|c| c.as_str()).collect();
            ApiError::bad_request(format!("change `{name}` is not one of {}", known.join(", ")))
        })?),
    };
    let store = &state.services.store;
    Ok(Json(
        views::compare(store, &app, &before_id, &result_id, change, query.page).await?,
    ))
}

/// `?after=N`: resume after stream position N (a `cases` event's id); `Last-Event-ID` wins.
#[derive(Deserialize)]
struct ProgressQuery {
    #[serde(default)]
    after: i64,
}

/// How often the progress stream reads the store.
const PROGRESS_POLL: Duration = Duration::from_millis(200);

/// A run's progress as server-sent events: `progress` (counts, time left) when they change,
/// `cases` (id: the stream position) as case runs are stored, `end` when the run stops.
async fn eval_result_progress(
    State(state): State<AppState>,
    Path((app, result_id)): Path<(String, String)>,
    Query(query): Query<ProgressQuery>,
    headers: HeaderMap,
) -> Result<Sse<impl futures::Stream<Item = Result<SseEvent, Infallible>>>, ApiError> {
    let store = state.services.store.clone();
    // Unknown runs are a 404 before the stream starts.
    stored::eval_run(&store, &app, &result_id).await?;
    let after = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(query.after);
    let events = progress::progress_stream(store, app, result_id, after, PROGRESS_POLL).map(|event| {
        Ok(match event {
            Ok(ProgressEvent::Progress(progress)) => SseEvent::default()
                .event("progress")
                .data(serde_json::to_string(&progress).expect("progress serialises")),
            Ok(ProgressEvent::Cases { position, cases }) => {
                let rows: Vec<Value> = cases
                    .into_iter()
                    .map(|c| {
                        json!({"eval_id": c.eval_id, "run_index": c.run_index, "case_index": c.case_index,
                               "status": c.status, "error": c.error, "metric_scores": c.metric_scores})
                    })
                    .collect();
                SseEvent::default()
                    .event("cases")
                    .id(position.to_string())
                    .data(json!({"cases": rows}).to_string())
            }
            Ok(ProgressEvent::End(status)) => SseEvent::default()
                .event("end")
                .data(json!({"status": status}).to_string()),
            Err(err) => {
                // As a REST error body: a fault says only "internal error" and its id.
                let error = ApiError::from(err);
                SseEvent::default()
                    .event("error")
                    .data(json!({"error": error.error, "detail": error.detail}).to_string())
            }
        })
    });
    Ok(Sse::new(events).keep_alive(KeepAlive::default()))
}

async fn cancel_eval_result(
    State(state): State<AppState>,
    Path((app, result_id)): Path<(String, String)>,
) -> Result<StatusCode, ApiError> {
    lifecycle::cancel_eval_run(&state.services, &app, &result_id).await?;
    Ok(StatusCode::ACCEPTED)
}

async fn resume_eval_result(
    State(state): State<AppState>,
    Path((app, result_id)): Path<(String, String)>,
) -> Result<(StatusCode, Json<StartedRun>), ApiError> {
    let (record, _) = lifecycle::resume_eval_run(&state.services, &app, &result_id).await?;
    let started = StartedRun {
        eval_set_result_id: record.summary.result_id,
    };
    Ok((StatusCode::ACCEPTED, Json(started)))
}

/// ADK's MetricInfo: name, description and the value interval.
#[derive(Serialize)]
struct AdkMetricInfo {
    metric_name: String,
    description: String,
    metric_value_info: MetricValueInfo,
}

#[derive(Serialize)]
struct MetricValueInfo {
    interval: Interval,
}

#[derive(Serialize)]
struct Interval {
    min_value: f64,
    max_value: f64,
    open_at_min: bool,
    open_at_max: bool,
}

async fn list_eval_metrics(
    State(state): State<AppState>,
    Path(_app): Path<String>,
) -> Json<Vec<AdkMetricInfo>> {
    let interval = || Interval {
        min_value: 0.0,
        max_value: 1.0,
        open_at_min: false,
        open_at_max: false,
    };
    Json(
        metric_offer::offered_metrics(&state.services.scoring)
            .into_iter()
            .map(|m| AdkMetricInfo {
                metric_name: m.metric_name,
                description: m.description,
                metric_value_info: MetricValueInfo { interval: interval() },
            })
            .collect(),
    )
}
