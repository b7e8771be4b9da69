//! Sessions over REST, shaped like ADK's api_server: list, create, read, delete.

use super::adk_events::{adk_session, eval_case_session};
use super::body::JsonBody;
use super::error::ApiError;
use crate::access::Role::{Editor, Viewer};
use crate::api::access::Routes;
use crate::api::AppState;
use crate::records::sessions::SessionSummary;
use crate::service::runs::stored;
use crate::service::sessions::{self, SessionError};
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::Json;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Routes under `/apps`.
pub fn routes() -> Routes {
    const SESSIONS: &str = "/{app}/users/{user}/sessions";
    const SESSION: &str = "/{app}/users/{user}/sessions/{session_id}";
    Routes::new()
        .get(SESSIONS, Viewer, list_sessions)
        .post(SESSIONS, Editor, create_session)
        .get(SESSION, Viewer, get_session)
        .post(SESSION, Editor, create_session_with_id)
        .delete(SESSION, Editor, delete_session)
}

/// One entry of the session list.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SessionListItem {
    id: String,
    app_name: String,
    user_id: String,
    title: String,
    turn_count: i64,
    /// Seconds since the epoch, as ADK's sessions have it.
    last_update_time: Option<f64>,
}

impl From<SessionSummary> for SessionListItem {
    fn from(s: SessionSummary) -> Self {
        SessionListItem {
            id: s.id,
            app_name: s.app_name,
            user_id: s.user_id,
            title: s.title,
            turn_count: s.turn_count,
            last_update_time: crate::clock::iso_seconds(&s.updated_at),
        }
    }
}

async fn list_sessions(
    State(state): State<AppState>,
    Path((app, user)): Path<(String, String)>,
) -> Result<Json<Vec<SessionListItem>>, ApiError> {
    let sessions = sessions::list_sessions(&state.services.store, &app, &user).await?;
    Ok(Json(sessions.into_iter().map(SessionListItem::from).collect()))
}

/// ADK's `CreateSessionRequest`: optional `sessionId` and `state`.
#[derive(Deserialize, Default)]
struct CreateSessionRequest {
    #[serde(alias = "session_id", rename = "sessionId")]
    session_id: Option<String>,
    #[serde(default)]
    state: Map<String, Value>,
}

async fn create_session(
    State(state): State<AppState>,
    Path((app, user)): Path<(String, String)>,
    JsonBody(request): JsonBody<CreateSessionRequest>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let request = request.unwrap_or_default();
    let session = sessions::create_session(
        &state.services.store,
        &app,
        &user,
        request.session_id.as_deref(),
        &request.state,
    )
    .await?;
    Ok((StatusCode::OK, Json(adk_session(&session))))
}

/// ADK 1.x: the body, if any, is the session's starting state.
async fn create_session_with_id(
    State(state): State<AppState>,
    Path((app, user, session_id)): Path<(String, String, String)>,
    JsonBody(initial_state): JsonBody<Map<String, Value>>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let initial_state = initial_state.unwrap_or_default();
    let session = sessions::create_session(
        &state.services.store,
        &app,
        &user,
        Some(&session_id),
        &initial_state,
    )
    .await?;
    Ok((StatusCode::OK, Json(adk_session(&session))))
}

async fn get_session(
    State(state): State<AppState>,
    Path((app, user, session_id)): Path<(String, String, String)>,
) -> Result<Json<Value>, ApiError> {
    let store = &state.services.store;
    match sessions::get_session(store, &app, &user, &session_id).await {
        Err(SessionError::NotFound(message)) => {
            match stored::eval_case_of_session(store, &app, &user, &session_id).await? {
                Some(result) => Ok(Json(eval_case_session(&app, &result))),
                None => Err(SessionError::NotFound(message).into()),
            }
        }
        found => Ok(Json(adk_session(&found?))),
    }
}

async fn delete_session(
    State(state): State<AppState>,
    Path((app, user, session_id)): Path<(String, String, String)>,
) -> Result<StatusCode, ApiError> {
    sessions::delete_session(&state.services.store, &app, &user, &session_id).await?;
    Ok(StatusCode::NO_CONTENT)
}
