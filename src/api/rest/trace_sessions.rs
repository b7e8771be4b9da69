//! Sessions recorded as OpenTelemetry spans (the `[otlp]` receiver) over REST: listed, read back
//! as ADK invocations, and saved as eval cases as Add current session saves a chat.

use super::body::JsonBody;
use super::cases::VersionedCase;
use super::error::ApiError;
use crate::access::Role::{Editor, Viewer};
use crate::api::access::Routes;
use crate::api::AppState;
use crate::records::traces::{TraceSessionFilter, TraceSessionSummary};
use crate::service::add_session::{add_trace_session_to_eval_set, AddSession};
use crate::service::runs::plan::RunMetrics;
use crate::service::runs::recorded::{
    score_recorded_sessions, RecordedRun, RecordedRunRequest, RecordedSessions,
};
use crate::service::traces::{list_trace_sessions, recorded_session_view, RecordedSession};
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::Json;
use serde::Deserialize;
use serde_json::Value;

/// Routes under `/apps`.
pub fn routes() -> Routes {
    Routes::new()
        .get("/{app}/trace_sessions", Viewer, list)
        .get("/{app}/trace_sessions/{session_id}", Viewer, get)
        .post("/{app}/eval_sets/{eval_set_id}/add_trace_session", Editor, add)
        .post(
            "/{app}/eval_sets/{eval_set_id}/score_trace_sessions",
            Editor,
            score,
        )
}

#[derive(Deserialize)]
struct Page {
    #[serde(default)]
    offset: i64,
    #[serde(default = "default_limit")]
    limit: i64,
    /// Only sessions with a span in error.
    #[serde(default)]
    errors: bool,
    /// Only sessions that started at or after, and before (Unix seconds).
    since: Option<f64>,
    until: Option<f64>,
    /// Only sessions that called this tool.
    tool: Option<String>,
    /// Only sessions with this text (any case) in a message, a tool's arguments or response.
    text: Option<String>,
}

fn default_limit() -> i64 {
    50
}

async fn list(
    State(state): State<AppState>,
    Path(app): Path<String>,
    Query(page): Query<Page>,
) -> Result<Json<Vec<TraceSessionSummary>>, ApiError> {
    let (offset, limit) = (page.offset, page.limit);
    let filter = filter_of(app, page);
    Ok(Json(
        list_trace_sessions(&state.services.store, &filter, offset, limit).await?,
    ))
}

/// The app's sessions the query's filters keep.
fn filter_of(app: String, page: Page) -> TraceSessionFilter {
    let nanos = |seconds: f64| (seconds * 1e9) as i64;
    TraceSessionFilter {
        app: Some(app),
        errors_only: page.errors,
        started_from: page.since.map(nanos),
        started_before: page.until.map(nanos),
        tool: page.tool.filter(|tool| !tool.is_empty()),
        text: page.text.filter(|text| !text.is_empty()),
    }
}

async fn get(
    State(state): State<AppState>,
    Path((app, session_id)): Path<(String, String)>,
) -> Result<Json<RecordedSession>, ApiError> {
    Ok(Json(
        recorded_session_view(&state.services, &app, &session_id).await?,
    ))
}

/// `{sessionId, evalId}`, plus `overwrite` to replace a case of the same id.
#[derive(Deserialize)]
struct AddTraceSessionRequest {
    #[serde(alias = "eval_id", rename = "evalId")]
    eval_id: String,
    #[serde(alias = "session_id", rename = "sessionId")]
    session_id: String,
    #[serde(default)]
    overwrite: bool,
}

async fn add(
    State(state): State<AppState>,
    Path((app, eval_set_id)): Path<(String, String)>,
    JsonBody(request): JsonBody<AddTraceSessionRequest>,
) -> Result<Json<VersionedCase>, ApiError> {
    let request = request.ok_or_else(|| ApiError::bad_request("the body must be {sessionId, evalId}"))?;
    let stored = add_trace_session_to_eval_set(
        &state.services,
        AddSession {
            app: &app,
            eval_set_id: &eval_set_id,
            eval_id: &request.eval_id,
            user: "",
            session_id: &request.session_id,
            overwrite: request.overwrite,
            create_eval_set: false,
        },
    )
    .await?;
    Ok(Json(stored.into()))
}

/// `{sessionIds, evalMetrics}` (ADK's EvalMetric list, as run_eval takes it), or `filter`
/// instead of `sessionIds` (the list's filters: `errors`, `since`, `until`, `tool`, `text`),
/// plus `label`.
#[derive(Deserialize)]
struct ScoreTraceSessionsRequest {
    #[serde(default, alias = "session_ids", rename = "sessionIds")]
    session_ids: Option<Vec<String>>,
    #[serde(default)]
    filter: Option<Page>,
    #[serde(alias = "eval_metrics", rename = "evalMetrics")]
    eval_metrics: Vec<Value>,
    #[serde(default)]
    label: Option<String>,
}

/// Scores the sessions without running the agent: 201 with the run, finished, of origin
/// `recorded`, and `left_out`: the sessions a filter kept that could not be scored, with why.
async fn score(
    State(state): State<AppState>,
    Path((app, eval_set_id)): Path<(String, String)>,
    JsonBody(request): JsonBody<ScoreTraceSessionsRequest>,
) -> Result<(StatusCode, Json<RecordedRun>), ApiError> {
    let request =
        request.ok_or_else(|| ApiError::bad_request("the body must be {sessionIds, evalMetrics}"))?;
    let sessions = match (request.session_ids, request.filter) {
        (Some(ids), None) => RecordedSessions::Chosen(ids),
        (None, Some(page)) => RecordedSessions::Filtered(filter_of(app.clone(), page)),
        _ => return Err(ApiError::bad_request("send either sessionIds or filter")),
    };
    let run = score_recorded_sessions(
        &state.services,
        RecordedRunRequest {
            app_name: app,
            eval_set_id,
            sessions,
            metrics: RunMetrics::EvalMetrics(request.eval_metrics),
            label: request.label,
        },
    )
    .await?;
    Ok((StatusCode::CREATED, Json(run)))
}
