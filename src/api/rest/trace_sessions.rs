//! Sessions recorded as OpenTelemetry spans (the `[otlp]` receiver) over REST: listed, read back
//! as ADK invocations, and saved as eval cases as Add current session saves a chat.

use super::body::JsonBody;
use super::cases::VersionedCase;
use super::error::ApiError;
use crate::access::Role::{Editor, Viewer};
use crate::api::access::Routes;
use crate::api::AppState;
use crate::records::{TraceSessionFilter, TraceSessionSummary};
use crate::service::add_session::{add_trace_session_to_eval_set, AddSession};
use crate::service::traces::{list_trace_sessions, recorded_session_view, RecordedSession};
use axum::extract::{Path, Query, State};
use axum::Json;
use serde::Deserialize;

/// Routes under `/apps`.
pub fn routes() -> Routes {
    Routes::new()
        .get("/{app}/trace_sessions", Viewer, list)
        .get("/{app}/trace_sessions/{session_id}", Viewer, get)
        .post("/{app}/eval_sets/{eval_set_id}/add_trace_session", Editor, add)
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
}

fn default_limit() -> i64 {
    50
}

async fn list(
    State(state): State<AppState>,
    Path(app): Path<String>,
    Query(page): Query<Page>,
) -> Result<Json<Vec<TraceSessionSummary>>, ApiError> {
    let filter = TraceSessionFilter {
        app: Some(app),
        errors_only: page.errors,
    };
    Ok(Json(
        list_trace_sessions(&state.services.store, &filter, page.offset, page.limit).await?,
    ))
}

async fn get(
    State(state): State<AppState>,
    Path((app, session_id)): Path<(String, String)>,
) -> Result<Json<RecordedSession>, ApiError> {
    Ok(Json(
        recorded_session_view(&state.services.store, &app, &session_id).await?,
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
        &state.services.store,
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
