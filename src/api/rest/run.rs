//! `/run` and `/run_sse`: one turn through the app's agent, as ADK's api_server runs it.

use super::adk_events::{adk_agent_events, adk_event, adk_event_body};
use super::body::JsonBody;
use super::error::ApiError;
use crate::access::Role::Editor;
use crate::agent::AgentEvent;
use crate::api::access::Routes;
use crate::api::AppState;
use crate::clock::now_seconds;
use crate::evalset::Content;
use crate::service::turns::{self, NewTurn};
use axum::extract::State;
use axum::response::sse::{Event as SseEvent, Sse};
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};
use std::convert::Infallible;

/// Routes at the root.
pub fn routes() -> Routes {
    Routes::new()
        .post("/run", Editor, run)
        .post("/run_sse", Editor, run_sse)
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
    fn turn(request: Option<RunRequest>) -> Result<(NewTurn, bool), ApiError> {
        let request = request.ok_or_else(|| ApiError::bad_request("the body must be a RunAgentRequest"))?;
        let message = request.new_message.joined_text();
        if message.trim().is_empty() {
            return Err(ApiError::bad_request("new_message has no text"));
        }
        let turn = NewTurn {
            app: request.app_name,
            user: request.user_id,
            session_id: request.session_id,
            message,
        };
        Ok((turn, request.streaming))
    }
}

/// Runs a turn and answers with its events, as ADK's `/run` does.
async fn run(
    State(state): State<AppState>,
    JsonBody(request): JsonBody<RunRequest>,
) -> Result<Json<Vec<Value>>, ApiError> {
    let (turn, _) = RunRequest::turn(request)?;
    let turn = turns::run_turn(&state.services, turn).await?;
    Ok(Json(adk_agent_events(&turn)))
}

/// Runs a turn and streams its events as server-sent events, as ADK's `/run_sse` does.
async fn run_sse(
    State(state): State<AppState>,
    JsonBody(request): JsonBody<RunRequest>,
) -> Result<Sse<impl futures::Stream<Item = Result<SseEvent, Infallible>>>, ApiError> {
    let (turn, streaming) = RunRequest::turn(request)?;
    let app = turn.app.clone();
    let handle = turns::start_turn(&state.services, turn).await?;
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
