//! A fake OpenAI-compatible model server for tests: a real HTTP server on 127.0.0.1 (random
//! port) that answers chat-completions requests from a script, one canned reply per request (or
//! the same reply to every request), and records every request so tests can check what was sent.
//!
//! The one fake model of the Rust tests: the unit tests reach it as `crate::testing::fake_openai`,
//! the integration tests and benches include this file with `#[path]`. So it uses only external
//! crates, never `crate::`.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::Response;
use axum::Router;
use serde_json::{json, Value};

/// One answer: status, headers, the body as separate chunks, and how long to wait first.
#[derive(Clone)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(&'static str, String)>,
    /// Written as separate body chunks.
    pub chunks: Vec<String>,
    /// Waited before anything (headers included) is sent.
    pub delay: Duration,
    /// An answer made from the request instead of `chunks`.
    pub from_request: Option<FromRequest>,
}

/// Answers that depend on what the model was sent.
#[derive(Clone)]
pub enum FromRequest {
    /// "The tool said: …" with the text of the request's last tool result (a model whose
    /// answer depends on what its tool returned).
    EchoToolResult,
    /// A call of this tool with these arguments when the last message is the user's; else as
    /// `EchoToolResult` (one tool round per turn, for any number of turns).
    CallThenEcho(String, Value),
}

impl Reply {
    /// A streamed answer: one `data:` event per value, then `data: [DONE]`.
    pub fn sse(events: Vec<Value>) -> Self {
        let mut chunks: Vec<String> = events.iter().map(|e| format!("data: {e}\n\n")).collect();
        chunks.push("data: [DONE]\n\n".into());
        Self::raw(chunks)
    }

    /// An event stream written exactly as given.
    pub fn raw(chunks: Vec<String>) -> Self {
        Reply {
            status: 200,
            headers: vec![("content-type", "text/event-stream".into())],
            chunks,
            delay: Duration::ZERO,
            from_request: None,
        }
    }

    /// A streamed answer quoting the last tool result's text: "The tool said: …".
    pub fn echo_tool_result() -> Self {
        Reply {
            from_request: Some(FromRequest::EchoToolResult),
            ..Self::raw(Vec::new())
        }
    }

    /// A call of `name` with `args` after each user message, and after the tool's result an
    /// answer quoting it.
    pub fn call_then_echo(name: &str, args: Value) -> Self {
        Reply {
            from_request: Some(FromRequest::CallThenEcho(name.to_string(), args)),
            ..Self::raw(Vec::new())
        }
    }

    /// A non-streamed chat completion answering `text` (as a judge or the simulator reads it).
    pub fn completion(text: &str) -> Self {
        Self::status(
            200,
            json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}]}),
        )
    }

    /// A JSON body with this status (an error, or a non-streamed completion).
    pub fn status(status: u16, body: Value) -> Self {
        Reply {
            status,
            headers: vec![("content-type", "application/json".into())],
            chunks: vec![body.to_string()],
            delay: Duration::ZERO,
            from_request: None,
        }
    }

    pub fn header(mut self, name: &'static str, value: &str) -> Self {
        self.headers.push((name, value.into()));
        self
    }
}

/// A request as the server received it.
pub struct Recorded {
    pub path: String,
    pub authorization: Option<String>,
    /// The JSON body, or the text if it was not JSON.
    pub body: Value,
}

struct Script {
    replies: Mutex<VecDeque<Reply>>,
    /// Served once the script runs out; without one the server answers 500.
    fallback: Option<Reply>,
    requests: Mutex<Vec<Recorded>>,
}

/// A running fake model server. It serves until the test's runtime ends.
pub struct Server {
    /// Ends in `/v1`, as a profile's or the judge's `base_url` does.
    pub base_url: String,
    script: Arc<Script>,
}

impl Server {
    /// Answers the requests with `replies` in order, then with 500s.
    pub async fn start(replies: Vec<Reply>) -> Self {
        Self::start_with(replies, None).await
    }

    /// Answers every request with `reply`.
    pub async fn always(reply: Reply) -> Self {
        Self::start_with(Vec::new(), Some(reply)).await
    }

    /// Answers with `replies` in order, then with `fallback` (500s without one).
    pub async fn start_with(replies: Vec<Reply>, fallback: Option<Reply>) -> Self {
        let script = Arc::new(Script {
            replies: Mutex::new(replies.into()),
            fallback,
            requests: Mutex::new(Vec::new()),
        });
        let app = Router::new().fallback(handle).with_state(script.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        Server {
            base_url: format!("http://{addr}/v1"),
            script,
        }
    }

    /// Every request so far, in arrival order.
    pub fn requests(&self) -> MutexGuard<'_, Vec<Recorded>> {
        self.script.requests.lock().unwrap()
    }

    pub fn bodies(&self) -> Vec<Value> {
        self.requests().iter().map(|r| r.body.clone()).collect()
    }

    /// Requests so far, counted when they arrive (before any reply delay).
    pub fn request_count(&self) -> usize {
        self.requests().len()
    }
}

/// A `base_url` nothing listens on: a port that was free a moment ago.
pub fn unreachable_base_url() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    format!("http://{}/v1", listener.local_addr().unwrap())
}

fn answer_from(how: &FromRequest, sent: Option<&Value>) -> Reply {
    let last_role = sent
        .and_then(|b| b["messages"].as_array())
        .and_then(|m| m.last())
        .map(|m| m["role"].clone());
    match how {
        FromRequest::CallThenEcho(name, args) if last_role.as_ref().is_some_and(|r| r == "user") => {
            Reply::sse(vec![
                json!({"choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [
                {"index": 0, "id": "call_1", "type": "function",
                 "function": {"name": name, "arguments": args.to_string()}}
            ]}, "finish_reason": "tool_calls"}]}),
            ])
        }
        _ => Reply::sse(vec![
            json!({"choices": [{"index": 0, "delta": {"content": tool_said(sent)},
            "finish_reason": "stop"}]}),
        ]),
    }
}

/// "The tool said: " and the text parts (or the error) of the last tool message of `body`.
fn tool_said(body: Option<&Value>) -> String {
    let messages = body
        .and_then(|b| b["messages"].as_array())
        .cloned()
        .unwrap_or_default();
    let result = messages
        .iter()
        .rev()
        .find(|m| m["role"] == "tool")
        .and_then(|m| m["content"].as_str())
        .and_then(|text| serde_json::from_str::<Value>(text).ok())
        .unwrap_or(Value::Null);
    let texts: Vec<&str> = result["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["text"].as_str())
        .collect();
    let said = if texts.is_empty() {
        result["error"].as_str().unwrap_or_default().to_string()
    } else {
        texts.join(" ")
    };
    format!("The tool said: {said}")
}

async fn handle(State(script): State<Arc<Script>>, uri: Uri, headers: HeaderMap, body: String) -> Response {
    script.requests.lock().unwrap().push(Recorded {
        path: uri.path().to_string(),
        authorization: headers
            .get("authorization")
            .map(|v| v.to_str().unwrap().to_string()),
        body: serde_json::from_str(&body).unwrap_or(Value::String(body)),
    });
    let next = script.replies.lock().unwrap().pop_front();
    let reply = next
        .or_else(|| script.fallback.clone())
        .unwrap_or_else(|| Reply::status(500, json!({"error": {"message": "script exhausted"}})));
    if !reply.delay.is_zero() {
        tokio::time::sleep(reply.delay).await;
    }
    let mut response = Response::builder().status(StatusCode::from_u16(reply.status).unwrap());
    for (name, value) in &reply.headers {
        response = response.header(*name, value);
    }
    let chunks = match &reply.from_request {
        Some(how) => {
            let sent = script.requests.lock().unwrap().last().map(|r| r.body.clone());
            answer_from(how, sent.as_ref()).chunks
        }
        None => reply.chunks,
    };
    let chunks = chunks.into_iter().map(|c| Ok::<_, Infallible>(Bytes::from(c)));
    response
        .body(Body::from_stream(futures::stream::iter(chunks)))
        .unwrap()
}
