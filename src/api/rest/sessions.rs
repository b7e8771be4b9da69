//! Sessions and agent runs over REST, shaped like ADK's api_server, and "Add current session"
//! (`POST /apps/{app}/eval_sets/{id}/add_session`).

use super::error::ApiError;
use super::{now_seconds, validate_app_name, AppState};
use crate::agent::to_eval_case::{session_to_eval_case, RecordedTurn, SessionOrigin};
use crate::agent::{AgentEvent, SessionContext, Turn, STOPPED_MESSAGE};
use crate::evalset::Content;
use crate::store::{SessionRecord, SessionTurn, Store, StoreError, StoredCase};
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::sse::{Event as SseEvent, Sse};
use axum::routing::{get, post};
use axum::{Json, Router};
use futures::StreamExt;
use serde::Deserialize;
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Instant;
use tokio::sync::{mpsc, oneshot};

/// Routes under `/apps` (sessions, add_session) and at the root (`/run`).
pub fn app_routes() -> Router<AppState> {
    Router::new()
        .route(
            "/{app}/users/{user}/sessions",
            get(list_sessions).post(create_session),
        )
        .route(
            "/{app}/users/{user}/sessions/{session_id}",
            get(get_session)
                .post(create_session_with_id)
                .delete(delete_session),
        )
        .route("/{app}/eval_sets/{eval_set_id}/add_session", post(add_session))
}

pub fn run_routes() -> Router<AppState> {
    Router::new()
        .route("/run", post(run))
        .route("/run_sse", post(run_sse))
}

/// A turn under way: its events as the agent produces them, then the recorded turn.
pub struct TurnHandle {
    pub invocation_id: String,
    pub events: mpsc::Receiver<AgentEvent>,
    pub done: oneshot::Receiver<Result<SessionTurn, ApiError>>,
}

/// Turns under way, by session id: a session runs one turn at a time, and a running turn can
/// be stopped.
#[derive(Clone, Default)]
pub struct RunningTurns(Arc<Mutex<HashMap<String, oneshot::Sender<()>>>>);

impl RunningTurns {
    /// Claims the session for a turn; the returned receiver fires when someone stops it.
    fn begin(&self, session_id: &str) -> Result<(oneshot::Receiver<()>, RunningGuard), ApiError> {
        let mut running = self.0.lock().expect("running-turns lock");
        if running.contains_key(session_id) {
            return Err(ApiError::new(
                StatusCode::CONFLICT,
                format!("session `{session_id}` is already running a turn; wait for it or stop it"),
                Value::Null,
            ));
        }
        let (stop_tx, stop_rx) = oneshot::channel();
        running.insert(session_id.to_string(), stop_tx);
        let guard = RunningGuard {
            turns: self.clone(),
            session_id: session_id.to_string(),
        };
        Ok((stop_rx, guard))
    }

    /// Stops the session's running turn; false if none was running.
    pub fn stop(&self, session_id: &str) -> bool {
        let stop = self.0.lock().expect("running-turns lock").remove(session_id);
        stop.is_some_and(|stop| stop.send(()).is_ok())
    }
}

/// Releases the session when its turn ends, however it ends.
struct RunningGuard {
    turns: RunningTurns,
    session_id: String,
}

impl Drop for RunningGuard {
    fn drop(&mut self) {
        self.turns
            .0
            .lock()
            .expect("running-turns lock")
            .remove(&self.session_id);
    }
}

/// Starts one turn of a session through its app's agent. The turn runs to the end and is
/// recorded even if nobody reads the events any more (a closed browser tab loses nothing);
/// [`RunningTurns::stop`] ends it early, keeping what the agent did so far.
pub async fn start_session_turn(
    state: &AppState,
    app: String,
    user: String,
    session_id: String,
    message: String,
) -> Result<TurnHandle, ApiError> {
    let agent = state
        .profiles
        .agent(&app)
        .ok_or_else(|| ApiError::not_found(format!("no agent profile is named `{app}`")))?;
    let store = state.store.clone();
    let session = store.get_session(&app, &user, &session_id).await?;
    let (mut stop, running) = state.running.begin(&session_id)?;
    let history: Vec<Turn> = session
        .turns
        .iter()
        .map(|t| Turn {
            user: t.user_message.clone(),
            events: t.events.clone(),
        })
        .collect();
    let invocation_id = format!("e-{}", uuid::Uuid::new_v4());
    let (event_tx, events) = mpsc::channel(64);
    let (done_tx, done) = oneshot::channel();
    let handle = TurnHandle {
        invocation_id: invocation_id.clone(),
        events,
        done,
    };
    tokio::spawn(async move {
        let _running = running;
        let started_at = now_seconds();
        let clock = Instant::now();
        let mut recorded = Vec::new();
        let mut offsets = Vec::new();
        let context = SessionContext {
            user_id: &user,
            session_id: &session_id,
            state: &session.state,
        };
        let mut stream = agent.run_turn(context, &history, &message);
        loop {
            let event = tokio::select! {
                event = stream.next() => match event {
                    Some(event) => event,
                    None => break,
                },
                _ = &mut stop => {
                    let event = AgentEvent::Error { message: STOPPED_MESSAGE.into() };
                    offsets.push(clock.elapsed().as_millis() as u64);
                    let _ = event_tx.send(event.clone()).await;
                    recorded.push(event);
                    break;
                }
            };
            offsets.push(clock.elapsed().as_millis() as u64);
            // A listener that went away does not stop the turn.
            let _ = event_tx.send(event.clone()).await;
            recorded.push(event);
        }
        drop(stream);
        let turn = SessionTurn {
            invocation_id,
            author: app.clone(),
            user_message: message,
            events: recorded,
            event_offsets_ms: offsets,
            started_at,
            latency_ms: clock.elapsed().as_millis() as i64,
        };
        let result = store
            .append_turn(&app, &user, &session_id, &turn)
            .await
            .map(|()| turn);
        let _ = done_tx.send(result.map_err(ApiError::from));
    });
    Ok(handle)
}

/// Runs one turn of a session through its app's agent, records it and returns it.
pub async fn run_session_turn(
    state: &AppState,
    app: &str,
    user: &str,
    session_id: &str,
    message: &str,
) -> Result<SessionTurn, ApiError> {
    let mut handle =
        start_session_turn(state, app.into(), user.into(), session_id.into(), message.into()).await?;
    while handle.events.recv().await.is_some() {}
    handle.done.await.unwrap_or_else(|_| {
        Err(ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "the agent's turn was aborted",
            Value::Null,
        ))
    })
}

async fn list_sessions(
    State(state): State<AppState>,
    Path((app, user)): Path<(String, String)>,
) -> Result<Json<Value>, ApiError> {
    let sessions = state.store.list_sessions(&app, &user).await?;
    Ok(Json(json!(sessions
        .iter()
        .map(
            |s| json!({"id": s.id, "appName": s.app_name, "userId": s.user_id, "title": s.title,
                        "turnCount": s.turn_count, "lastUpdateTime": s.updated_at})
        )
        .collect::<Vec<_>>())))
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
    body: Result<Bytes, BytesRejection>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let request: CreateSessionRequest = json_body(body)?.unwrap_or_default();
    create(
        &state.store,
        &app,
        &user,
        request.session_id.as_deref(),
        &request.state,
    )
    .await
}

/// ADK 1.x: the body, if any, is the session's starting state.
async fn create_session_with_id(
    State(state): State<AppState>,
    Path((app, user, session_id)): Path<(String, String, String)>,
    body: Result<Bytes, BytesRejection>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let initial_state: Map<String, Value> = json_body(body)?.unwrap_or_default();
    create(&state.store, &app, &user, Some(&session_id), &initial_state).await
}

async fn create(
    store: &Store,
    app: &str,
    user: &str,
    session_id: Option<&str>,
    initial_state: &Map<String, Value>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    validate_app_name(app).map_err(ApiError::bad_request)?;
    if user.trim().is_empty() {
        return Err(ApiError::bad_request("user id is empty"));
    }
    let session = store
        .create_session(app, user, session_id, initial_state)
        .await
        .map_err(|err| match err {
            StoreError::Conflict(message) => ApiError::bad_request(message),
            other => other.into(),
        })?;
    Ok((StatusCode::OK, Json(adk_session(&session))))
}

async fn get_session(
    State(state): State<AppState>,
    Path((app, user, session_id)): Path<(String, String, String)>,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(adk_session(
        &state.store.get_session(&app, &user, &session_id).await?,
    )))
}

async fn delete_session(
    State(state): State<AppState>,
    Path((app, user, session_id)): Path<(String, String, String)>,
) -> Result<StatusCode, ApiError> {
    state.store.delete_session(&app, &user, &session_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// ADK's `RunAgentRequest`.
#[derive(Deserialize)]
struct RunRequest {
    #[serde(alias = "app_name", rename = "appName")]
    app_name: String,
    #[serde(alias = "user_id", rename = "userId")]
    user_id: String,
    #[serde(alias = "session_id", rename = "sessionId")]
    session_id: String,
    #[serde(alias = "new_message", rename = "newMessage")]
    new_message: Content,
    /// For `/run_sse`: also send the answer's text as it is written (`partial` events).
    #[serde(default)]
    streaming: bool,
}

impl RunRequest {
    fn parse(body: Result<Bytes, BytesRejection>) -> Result<(RunRequest, String), ApiError> {
        let request: RunRequest =
            json_body(body)?.ok_or_else(|| ApiError::bad_request("the body must be a RunAgentRequest"))?;
        let message = request.new_message.joined_text();
        if message.trim().is_empty() {
            return Err(ApiError::bad_request("new_message has no text"));
        }
        Ok((request, message))
    }
}

/// Runs a turn and answers with its events, as ADK's `/run` does.
async fn run(
    State(state): State<AppState>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Vec<Value>>, ApiError> {
    let (request, message) = RunRequest::parse(body)?;
    let turn = run_session_turn(
        &state,
        &request.app_name,
        &request.user_id,
        &request.session_id,
        &message,
    )
    .await?;
    Ok(Json(adk_agent_events(&turn)))
}

/// Runs a turn and streams its events as server-sent events, as ADK's `/run_sse` does.
async fn run_sse(
    State(state): State<AppState>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Sse<impl futures::Stream<Item = Result<SseEvent, Infallible>>>, ApiError> {
    let (request, message) = RunRequest::parse(body)?;
    let (app, streaming) = (request.app_name.clone(), request.streaming);
    let handle = start_session_turn(
        &state,
        request.app_name,
        request.user_id,
        request.session_id,
        message,
    )
    .await?;
    let invocation_id = handle.invocation_id;
    let stream = futures::stream::unfold(
        (handle.events, app, 0usize),
        move |(mut events, mut author, n)| {
            let invocation_id = invocation_id.clone();
            async move {
                loop {
                    let event = events.recv().await?;
                    let body = match &event {
                        AgentEvent::Author { name } => {
                            author = name.clone();
                            None
                        }
                        AgentEvent::TextDelta { text } if streaming => Some(
                            json!({"partial": true, "content": {"role": "model", "parts": [{"text": text}]}}),
                        ),
                        other => adk_event_body(other, None),
                    };
                    if let Some(body) = body {
                        let data = adk_event(&invocation_id, &author, now_seconds(), n, body);
                        return Some((
                            Ok(SseEvent::default().data(data.to_string())),
                            (events, author, n + 1),
                        ));
                    }
                }
            }
        },
    );
    Ok(Sse::new(stream))
}

/// `{evalId, sessionId, userId}`, plus `overwrite` to replace a case of the same id.
#[derive(Deserialize)]
struct AddSessionRequest {
    #[serde(alias = "eval_id", rename = "evalId")]
    eval_id: String,
    #[serde(alias = "session_id", rename = "sessionId")]
    session_id: String,
    #[serde(alias = "user_id", rename = "userId")]
    user_id: String,
    #[serde(default)]
    overwrite: bool,
}

/// "Add current session" over REST.
async fn add_session(
    State(state): State<AppState>,
    Path((app, eval_set_id)): Path<(String, String)>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    let request: AddSessionRequest = json_body(body)?
        .ok_or_else(|| ApiError::bad_request("the body must be {evalId, sessionId, userId}"))?;
    let stored = add_session_to_eval_set(
        &state.store,
        &app,
        &eval_set_id,
        &request.eval_id,
        &request.user_id,
        &request.session_id,
        request.overwrite,
    )
    .await?;
    let mut body = serde_json::to_value(&stored.case).expect("an EvalCase serializes");
    body["version"] = json!(stored.version);
    Ok(Json(body))
}

/// "Add current session": the session becomes an eval case whose expected trajectory is what
/// the agent did. A taken eval id is a 409 unless `overwrite` is set.
pub async fn add_session_to_eval_set(
    store: &Store,
    app: &str,
    eval_set_id: &str,
    eval_id: &str,
    user: &str,
    session_id: &str,
    overwrite: bool,
) -> Result<StoredCase, ApiError> {
    let eval_id = eval_id.trim();
    if eval_id.is_empty() {
        return Err(ApiError::bad_request("the eval id is empty"));
    }
    let session = store.get_session(app, user, session_id).await?;
    if session.turns.is_empty() {
        return Err(ApiError::bad_request(format!(
            "session `{session_id}` has no turns yet"
        )));
    }
    let origin = SessionOrigin {
        app_name: app.to_string(),
        user_id: user.to_string(),
        state: session.state.clone(),
        agent_name: app.to_string(),
    };
    let turns: Vec<RecordedTurn> = session
        .turns
        .iter()
        .map(|t| RecordedTurn {
            invocation_id: t.invocation_id.clone(),
            timestamp: t.started_at,
            turn: Turn {
                user: t.user_message.clone(),
                events: t.events.clone(),
            },
        })
        .collect();
    let case = session_to_eval_case(eval_id, &origin, &turns, now_seconds());
    match store.add_case(app, eval_set_id, &case).await {
        Err(StoreError::Conflict(_)) if overwrite => {
            let current = store.get_case(app, eval_set_id, eval_id).await?;
            Ok(store
                .update_case(app, eval_set_id, eval_id, &case, current.version)
                .await?)
        }
        Err(StoreError::Conflict(_)) => Err(ApiError::new(
            StatusCode::CONFLICT,
            format!(
                "eval set `{eval_set_id}` already has a case `{eval_id}`; send overwrite: true to replace it"
            ),
            json!({"evalId": eval_id}),
        )),
        other => Ok(other?),
    }
}

/// Parses an optional JSON body (empty means `None`) with a 400 naming the line and column.
fn json_body<T: serde::de::DeserializeOwned>(
    body: Result<Bytes, BytesRejection>,
) -> Result<Option<T>, ApiError> {
    let bytes = body.map_err(|rejection| match rejection.status() {
        StatusCode::PAYLOAD_TOO_LARGE => ApiError::too_large(),
        status => ApiError::new(
            status,
            "could not read the request body",
            json!(rejection.body_text()),
        ),
    })?;
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    serde_json::from_slice(&bytes).map(Some).map_err(|err| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            format!("invalid request body: {err}"),
            json!({"line": err.line(), "column": err.column()}),
        )
    })
}

/// A session as ADK's api_server returns it, events included.
fn adk_session(session: &SessionRecord) -> Value {
    let events: Vec<Value> = session
        .turns
        .iter()
        .flat_map(|turn| {
            let user = json!({
                "id": format!("{}-user", turn.invocation_id), "invocationId": turn.invocation_id,
                "author": "user", "timestamp": turn.started_at,
                "content": {"role": "user", "parts": [{"text": turn.user_message}]},
            });
            std::iter::once(user).chain(adk_agent_events(turn))
        })
        .collect();
    json!({
        "id": session.summary.id,
        "appName": session.summary.app_name,
        "userId": session.summary.user_id,
        "title": session.summary.title,
        "state": session.state,
        "events": events,
        "lastUpdateTime": session.summary.updated_at,
    })
}

/// A turn's agent events in ADK's Event shape (camelCase, as its api_server writes them).
fn adk_agent_events(turn: &SessionTurn) -> Vec<Value> {
    let usage = turn.token_usage();
    let mut author = turn.author.as_str();
    let mut events = Vec::new();
    for (index, event) in turn.events.iter().enumerate() {
        if let AgentEvent::Author { name } = event {
            author = name;
        } else if let Some(body) = adk_event_body(event, Some(usage)) {
            let time = turn.event_time(index);
            events.push(adk_event(&turn.invocation_id, author, time, events.len(), body));
        }
    }
    events
}

fn adk_event(invocation_id: &str, author: &str, timestamp: f64, n: usize, body: Value) -> Value {
    let mut event = json!({
        "id": format!("{invocation_id}-{n}"),
        "invocationId": invocation_id,
        "author": author,
        "timestamp": timestamp,
    });
    if let (Some(event), Value::Object(body)) = (event.as_object_mut(), body) {
        event.extend(body);
    }
    event
}

/// What one agent event adds to an ADK event; `None` for what ADK has no event for.
fn adk_event_body(event: &AgentEvent, usage: Option<(u64, u64)>) -> Option<Value> {
    match event {
        AgentEvent::ToolCall { id, name, args } => Some(json!({"content": {"role": "model",
            "parts": [{"functionCall": {"id": id, "name": name, "args": args}}]}})),
        AgentEvent::ToolResult {
            id, name, response, ..
        } => Some(json!({"content": {"role": "user",
            "parts": [{"functionResponse": {"id": id, "name": name, "response": response}}]}})),
        AgentEvent::FinalResponse { text } => {
            let mut body = json!({"content": {"role": "model", "parts": [{"text": text}]}});
            if let Some((prompt, completion)) = usage {
                body["usageMetadata"] =
                    json!({"promptTokenCount": prompt, "candidatesTokenCount": completion});
            }
            Some(body)
        }
        AgentEvent::Error { message } => Some(json!({"errorCode": "AGENT_ERROR", "errorMessage": message})),
        AgentEvent::TextDelta { .. }
        | AgentEvent::Usage { .. }
        | AgentEvent::ModelCall { .. }
        | AgentEvent::Author { .. } => None,
    }
}
