//! A real HTTP server on 127.0.0.1 (random port) that speaks the OpenAI chat-completions
//! protocol from a script: one canned reply per request, every request recorded so tests can
//! check what was sent. Used by the tests of the `openai` agent and of the judge client.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::Response;
use axum::Router;
use serde_json::{json, Value};

#[derive(Clone)]
pub(super) struct Reply {
    pub status: u16,
    pub headers: Vec<(&'static str, String)>,
    /// Written as separate body chunks.
    pub chunks: Vec<String>,
    pub delay: Duration,
}

impl Reply {
    pub(super) fn sse(events: Vec<Value>) -> Self {
        let mut chunks: Vec<String> = events.iter().map(|e| format!("data: {e}\n\n")).collect();
        chunks.push("data: [DONE]\n\n".into());
        Self::raw(chunks)
    }

    pub(super) fn raw(chunks: Vec<String>) -> Self {
        Reply {
            status: 200,
            headers: vec![("content-type", "text/event-stream".into())],
            chunks,
            delay: Duration::ZERO,
        }
    }

    pub(super) fn status(status: u16, body: Value) -> Self {
        Reply {
            status,
            headers: vec![("content-type", "application/json".into())],
            chunks: vec![body.to_string()],
            delay: Duration::ZERO,
        }
    }

    pub(super) fn header(mut self, name: &'static str, value: &str) -> Self {
        self.headers.push((name, value.into()));
        self
    }
}

pub(super) struct Recorded {
    pub path: String,
    pub authorization: Option<String>,
    pub body: Value,
}

pub(super) struct Script {
    replies: Mutex<VecDeque<Reply>>,
    /// Served once the script runs out; without one the server answers 500.
    fallback: Option<Reply>,
    pub requests: Mutex<Vec<Recorded>>,
}

pub(super) struct Server {
    pub base_url: String,
    pub script: Arc<Script>,
}

impl Server {
    pub(super) async fn start(replies: Vec<Reply>) -> Self {
        Self::start_with(replies, None).await
    }

    pub(super) async fn start_with(replies: Vec<Reply>, fallback: Option<Reply>) -> Self {
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

    pub(super) fn bodies(&self) -> Vec<Value> {
        self.script
            .requests
            .lock()
            .unwrap()
            .iter()
            .map(|r| r.body.clone())
            .collect()
    }

    pub(super) fn request_count(&self) -> usize {
        self.script.requests.lock().unwrap().len()
    }
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
    let chunks = reply
        .chunks
        .into_iter()
        .map(|c| Ok::<_, Infallible>(Bytes::from(c)));
    response
        .body(Body::from_stream(futures::stream::iter(chunks)))
        .unwrap()
}
