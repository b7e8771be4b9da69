//! The `adk` agent: a running ADK `api_server` (`adk api_server` or `adk web`). The agent, its
//! tools and its session live there; we create the session, send each user message to
//! `/run_sse` and turn the events it streams back (text, `functionCall` and `functionResponse`
//! parts, authors, token usage) into ours.
//!
//! The remote session has the same user and session id as ours, so an ADK developer can open it
//! in `adk web` too.

use std::collections::HashMap;
use std::time::Duration;

use futures::stream::{BoxStream, StreamExt};
use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::adk_event::{AdkEvent, FunctionCall, FunctionResponse};
use super::{turn_stream, Agent, AgentEvent, Emitter, SessionContext, Turn};
use crate::llm_http::{causes, server_message, sse_data, SseLines};
use crate::outbound::{read_capped, AGENT_BODY_CAP};
use crate::redact::redacted_url;

/// How to reach the api_server.
#[derive(Debug, Clone, PartialEq)]
pub struct AdkConfig {
    /// Where the api_server listens, e.g. `http://127.0.0.1:8000`.
    pub base_url: String,
    /// The ADK app (agent folder) to run.
    pub app_name: String,
    /// Ask for token-by-token text (`"streaming": true`); the server sends partial events.
    pub streaming: bool,
    /// Limit on waiting for the response headers and on any silence while events stream.
    pub request_timeout: Duration,
    /// Sent with every request (folder mode's ADK server wants its secret).
    pub headers: ServerHeaders,
}

/// Headers every request to a server carries; shown by name only, as a value may be a secret.
#[derive(Clone, Default, PartialEq)]
pub struct ServerHeaders(pub Vec<(String, String)>);

impl std::fmt::Debug for ServerHeaders {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.0.iter().map(|(name, _)| name))
            .finish()
    }
}

impl ServerHeaders {
    /// `request` with every header added.
    fn added_to(&self, mut request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        for (name, value) in &self.0 {
            request = request.header(name, value);
        }
        request
    }
}

impl AdkConfig {
    pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(120);

    pub fn new(base_url: impl Into<String>, app_name: impl Into<String>) -> Self {
        Self {
            base_url: base_url.into(),
            app_name: app_name.into(),
            streaming: true,
            request_timeout: Self::DEFAULT_REQUEST_TIMEOUT,
            headers: ServerHeaders::default(),
        }
    }

    /// The server's address with `segments` appended, each escaped as one path segment: an id
    /// holding `/`, `..`, `?` or `#` stays inside its own segment.
    pub fn url(&self, segments: &[&str]) -> Result<reqwest::Url, String> {
        // The url crate drops `.` and `..` segments, which would shift the others.
        if let Some(bad) = segments.iter().find(|s| matches!(**s, "" | "." | "..")) {
            return Err(format!(
                "`{bad}` cannot name a user, a session or an app on an ADK server"
            ));
        }
        let mut url = reqwest::Url::parse(&self.base_url)
            .map_err(|e| format!("the ADK server's base_url `{}` is not a URL: {e}", self.base_url))?;
        url.path_segments_mut()
            .map_err(|()| format!("the ADK server's base_url `{}` cannot take a path", self.base_url))?
            .pop_if_empty()
            .extend(segments);
        Ok(url)
    }
}

#[derive(Debug)]
pub struct AdkAgent {
    config: AdkConfig,
    client: reqwest::Client,
}

impl AdkAgent {
    pub fn new(config: AdkConfig) -> Self {
        let client = crate::outbound::client(config.request_timeout);
        Self { config, client }
    }

    pub fn config(&self) -> &AdkConfig {
        &self.config
    }

    async fn run(
        &self,
        session: SessionContext<'_>,
        history: &[Turn],
        message: &str,
        out: &Emitter,
    ) -> Result<(), String> {
        // The first turn creates the remote session; later turns expect it to be there still.
        if history.is_empty() {
            self.create_session(session).await?;
        }
        let url = self.config.url(&["run_sse"])?;
        let shown = redacted_url(url.as_str());
        let body = json!({
            "app_name": self.config.app_name,
            "user_id": session.user_id,
            "session_id": session.session_id,
            "new_message": {"role": "user", "parts": [{"text": message}]},
            "streaming": self.config.streaming,
        });
        let timeout = self.config.request_timeout;
        let response = match tokio::time::timeout(
            timeout,
            self.config
                .headers
                .added_to(self.client.post(url.clone()))
                .json(&body)
                .send(),
        )
        .await
        {
            Err(_) => {
                return Err(format!(
                    "the ADK server at {shown} did not answer within {timeout:?}"
                ))
            }
            Ok(Err(e)) => return Err(unreachable(&url, &e)),
            Ok(Ok(response)) => response,
        };
        let status = response.status();
        if !status.is_success() {
            let text = error_body(response).await;
            return Err(match status.as_u16() {
                404 => format!(
                    "the ADK server has no session `{}` of app `{}` for user `{}` ({status}: {}); an \
                     api_server keeps sessions in memory unless started with --session_service_uri, \
                     so it may have restarted: start a new chat",
                    session.session_id,
                    self.config.app_name,
                    session.user_id,
                    server_message(&text)
                ),
                _ => format!(
                    "the ADK server at {shown} failed ({status}): {}",
                    server_message(&text)
                ),
            });
        }

        let mut mapper = EventMapper::default();
        let mut lines = SseLines::default();
        let mut bytes = response.bytes_stream();
        let emit = |events: Vec<AgentEvent>| events.into_iter().for_each(|event| out.emit(event));
        loop {
            let chunk = match tokio::time::timeout(timeout, bytes.next()).await {
                Err(_) => return Err(format!("the ADK server at {shown} sent nothing for {timeout:?}")),
                Ok(None) => break,
                Ok(Some(Err(e))) => return Err(format!("the connection to {shown} broke: {}", causes(&e))),
                Ok(Some(Ok(chunk))) => chunk,
            };
            for line in lines.push(&chunk) {
                if let Some(data) = sse_data(&line) {
                    emit(mapper.data(data)?);
                }
            }
        }
        if let Some(data) = lines.finish().as_deref().and_then(sse_data) {
            emit(mapper.data(data)?);
        }
        emit(mapper.finish());
        Ok(())
    }

    /// Creates the remote session with our session's id and state. One that already exists (the
    /// same chat resumed against the same server) is used as it is.
    async fn create_session(&self, session: SessionContext<'_>) -> Result<(), String> {
        let (app, user) = (self.config.app_name.as_str(), session.user_id);
        let url = self
            .config
            .url(&["apps", app, "users", user, "sessions", session.session_id])?;
        let shown = redacted_url(url.as_str());
        // The body is the state itself (ADK's create_session_with_id takes `state` as the body).
        let request = self
            .config
            .headers
            .added_to(self.client.post(url.clone()))
            .json(session.state);
        let response = tokio::time::timeout(self.config.request_timeout, request.send())
            .await
            .map_err(|_| format!("the ADK server at {shown} did not answer"))?
            .map_err(|e| unreachable(&url, &e))?;
        let status = response.status();
        if status.is_success() {
            return Ok(());
        }
        let text = error_body(response).await;
        if text.contains("already exists") {
            return Ok(());
        }
        Err(match status.as_u16() {
            404 => format!(
                "the ADK server at {} has no app `{}` ({status}); check adk_app in the profile",
                self.config.base_url, self.config.app_name
            ),
            _ => format!(
                "the ADK server could not create the session ({status}): {}",
                server_message(&text)
            ),
        })
    }
}

impl Agent for AdkAgent {
    fn run_turn<'a>(
        &'a self,
        session: SessionContext<'a>,
        history: &'a [Turn],
        message: &'a str,
    ) -> BoxStream<'a, AgentEvent> {
        turn_stream(move |out| async move { self.run(session, history, message, &out).await })
    }
}

/// What an ADK server answered to a GET: its status, content type and body.
pub struct ServerAnswer {
    pub status: u16,
    pub content_type: Option<String>,
    pub body: Vec<u8>,
}

/// How long a GET of an ADK server's app list or graph may take.
const READ_TIMEOUT: Duration = Duration::from_secs(30);

/// GETs `path_and_query` (a path the router matched, with its query) from the ADK server at
/// `base_url`: on its origin only, under a timeout and the body cap.
pub async fn get_from_server(
    base_url: &str,
    headers: &ServerHeaders,
    path_and_query: &str,
) -> Result<ServerAnswer, String> {
    let url = format!("{}{path_and_query}", base_url.trim_end_matches('/'));
    let shown = redacted_url(&url);
    let client = crate::outbound::client(READ_TIMEOUT);
    let response = tokio::time::timeout(READ_TIMEOUT, headers.added_to(client.get(&url)).send())
        .await
        .map_err(|_| format!("the ADK server at {shown} did not answer within {READ_TIMEOUT:?}"))?
        .map_err(|e| format!("could not reach the ADK server at {shown}: {}", causes(&e)))?;
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let body = tokio::time::timeout(READ_TIMEOUT, read_capped(response, AGENT_BODY_CAP))
        .await
        .map_err(|_| format!("the ADK server at {shown} did not finish its answer within {READ_TIMEOUT:?}"))?
        .map_err(|e| format!("the ADK server at {shown} {e}"))?;
    Ok(ServerAnswer {
        status,
        content_type,
        body: body.into_bytes(),
    })
}

/// An error answer's body, read up to the cap (what does not arrive is left out).
async fn error_body(response: reqwest::Response) -> String {
    read_capped(response, AGENT_BODY_CAP).await.unwrap_or_default()
}

fn unreachable(url: &reqwest::Url, e: &reqwest::Error) -> String {
    let url = redacted_url(url.as_str());
    format!(
        "could not reach the ADK server at {url}: {} (is `adk api_server` running?)",
        causes(e)
    )
}

/// Turns ADK events (as `/run_sse` sends them: camelCase JSON, one per `data:` line) into ours.
///
/// ADK sends text twice when streaming: as `partial` events while it is generated, then once
/// more in the finished event. Partial text is shown as it comes and the repeat is dropped.
#[derive(Debug, Default)]
pub(super) struct EventMapper {
    author: Option<String>,
    /// Partial text since the last finished event.
    streamed: String,
    /// Text of the last finished event that was a final answer (no calls, no responses).
    final_text: Option<String>,
    /// When each call was made (event timestamps, seconds), to time its response.
    call_times: HashMap<String, f64>,
    calls: usize,
    failed: bool,
}

impl EventMapper {
    /// The events for one `data:` payload. Err for a payload that is not an ADK event.
    pub(super) fn data(&mut self, data: &str) -> Result<Vec<AgentEvent>, String> {
        let event: Value = serde_json::from_str(data).map_err(|e| {
            format!(
                "the ADK server sent an event that is not JSON ({e}): {}",
                server_message(data)
            )
        })?;
        if !event.is_object() {
            return Err(format!(
                "the ADK server sent an event that is not an object: {}",
                server_message(data)
            ));
        }
        let event = AdkEvent::deserialize(event).map_err(|e| {
            format!(
                "the ADK server sent an event we cannot read ({e}): {}",
                server_message(data)
            )
        })?;
        Ok(self.event(event))
    }

    fn event(&mut self, event: AdkEvent) -> Vec<AgentEvent> {
        let mut out = Vec::new();
        // run_sse reports an exception in the agent as `{"error": "..."}`.
        // (after an error event that already said the same, when the agent itself failed).
        if let Some(error) = event.error.filter(|_| event.author.is_none()) {
            if !self.failed {
                self.failed = true;
                out.push(AgentEvent::Error {
                    message: format!("the ADK agent failed: {}", value_text(&error)),
                });
            }
            return out;
        }
        let author = event.author.unwrap_or_default();
        if author == "user" {
            return out;
        }
        if !author.is_empty() && self.author.as_deref() != Some(author.as_str()) {
            self.author = Some(author.clone());
            out.push(AgentEvent::Author { name: author });
        }
        if let Some(message) = event.error_message {
            let code = event
                .error_code
                .map(|code| format!(" ({})", value_text(&code)))
                .unwrap_or_default();
            self.failed = true;
            out.push(AgentEvent::Error {
                message: format!("the ADK agent failed{code}: {message}"),
            });
            return out;
        }
        let timestamp = event.timestamp.unwrap_or(0.0);
        let parts = event.content.map(|content| content.parts).unwrap_or_default();
        let text: String = parts
            .iter()
            .filter(|part| part.thought != Some(true))
            .filter_map(|part| part.text.as_deref())
            .collect();
        if event.partial == Some(true) {
            if !text.is_empty() {
                self.streamed.push_str(&text);
                out.push(AgentEvent::TextDelta { text });
            }
            return out;
        }
        if !text.is_empty() && self.streamed.is_empty() {
            out.push(AgentEvent::TextDelta { text: text.clone() });
        }
        self.streamed.clear();

        let mut acted = false;
        for part in parts {
            if let Some(call) = part.function_call {
                acted = true;
                out.push(self.tool_call(call, timestamp));
            }
            if let Some(response) = part.function_response {
                acted = true;
                out.push(self.tool_result(response, timestamp));
            }
        }
        // ADK's is_final_response: a finished event with no calls or responses in it.
        if acted {
            self.final_text = None;
        } else if !text.is_empty() {
            self.final_text = Some(text);
        }
        if let Some(usage) = event.usage_metadata {
            out.push(AgentEvent::Usage {
                prompt_tokens: usage.prompt_token_count.unwrap_or(0),
                completion_tokens: usage.candidates_token_count.unwrap_or(0),
            });
        }
        out
    }

    fn tool_call(&mut self, call: FunctionCall, timestamp: f64) -> AgentEvent {
        self.calls += 1;
        let id = match call.id {
            Some(id) if !id.is_empty() => id,
            _ => format!("adk-call-{}", self.calls),
        };
        self.call_times.insert(id.clone(), timestamp);
        AgentEvent::ToolCall {
            id,
            name: call.name.unwrap_or_default(),
            args: call.args.unwrap_or_default(),
        }
    }

    fn tool_result(&self, response: FunctionResponse, timestamp: f64) -> AgentEvent {
        let id = response.id.unwrap_or_default();
        let started = self.call_times.get(&id).copied().unwrap_or(timestamp);
        AgentEvent::ToolResult {
            name: response.name.unwrap_or_default(),
            response: match response.response {
                Some(Value::Object(map)) => map,
                Some(Value::Null) | None => Map::new(),
                Some(other) => Map::from_iter([("result".to_string(), other)]),
            },
            duration_ms: ((timestamp - started).max(0.0) * 1000.0).round() as u64,
            source: Default::default(),
            id,
        }
    }

    /// The final response once the stream has ended (unless the turn failed).
    pub(super) fn finish(self) -> Vec<AgentEvent> {
        if self.failed {
            return Vec::new();
        }
        vec![AgentEvent::FinalResponse {
            text: self.final_text.unwrap_or_default(),
        }]
    }
}

fn value_text(value: &Value) -> String {
    value.as_str().map_or_else(|| value.to_string(), str::to_string)
}
