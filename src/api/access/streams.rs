//! Open event streams, counted: each holds a connection and a task for as long as the browser
//! keeps it, so one user (16 by default) and everyone (256) may hold only so many at once. Past
//! either, a new stream is answered 429 with a sentence; ordinary requests are not counted.

use super::Caller;
use crate::api::chat;
use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use leptos::server_fn::ServerFn;
use serde_json::json;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// How many event streams may be open, per user and in all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamLimits {
    pub per_user: usize,
    pub total: usize,
}

impl Default for StreamLimits {
    fn default() -> StreamLimits {
        StreamLimits {
            per_user: 16,
            total: 256,
        }
    }
}

/// The streams open now, by who holds them.
#[derive(Debug, Default)]
struct Open {
    by_holder: HashMap<String, usize>,
    total: usize,
}

/// The limits and the count, shared by every request.
#[derive(Debug, Clone, Default)]
pub struct StreamCounter {
    limits: StreamLimits,
    open: Arc<Mutex<Open>>,
}

/// One open stream; dropping it (the stream ended or the client left) frees its place.
#[derive(Debug)]
struct Permit {
    holder: String,
    open: Arc<Mutex<Open>>,
}

impl Drop for Permit {
    fn drop(&mut self) {
        let mut open = self.open.lock().expect("stream count");
        open.total -= 1;
        if let Some(count) = open.by_holder.get_mut(&self.holder) {
            *count -= 1;
            if *count == 0 {
                open.by_holder.remove(&self.holder);
            }
        }
    }
}

impl StreamCounter {
    pub fn new(limits: StreamLimits) -> StreamCounter {
        StreamCounter {
            limits,
            open: Arc::default(),
        }
    }

    /// A place for `holder`'s new stream, or the sentence saying why there is none.
    fn take(&self, holder: String) -> Result<Permit, String> {
        let mut open = self.open.lock().expect("stream count");
        let held = open.by_holder.get(&holder).copied().unwrap_or(0);
        if held >= self.limits.per_user {
            return Err(format!(
                "you have {held} live views open (progress, chat or file changes), the most one user may: close some tabs and try again"
            ));
        }
        if open.total >= self.limits.total {
            return Err(format!(
                "this server has {} live views open, the most it serves at once: try again shortly",
                open.total
            ));
        }
        open.total += 1;
        *open.by_holder.entry(holder.clone()).or_default() += 1;
        Ok(Permit {
            holder,
            open: Arc::clone(&self.open),
        })
    }
}

/// Whether a request opens an event stream: a run's progress, an evalset's file changes, a
/// chat turn streamed (ADK's `/run_sse`, the chat page's server functions).
fn opens_stream(path: &str) -> bool {
    path == "/run_sse"
        || (path.starts_with("/apps/") && (path.ends_with("/progress") || path.ends_with("/changes")))
        || path == chat::StreamChatMessage::PATH
        || path == chat::FollowChatTurn::PATH
}

/// Counts the streams a request opens, holding its place until its answer's body is dropped.
pub async fn limit_streams(State(counter): State<StreamCounter>, request: Request, next: Next) -> Response {
    if !opens_stream(request.uri().path()) {
        return next.run(request).await;
    }
    let holder = match request.extensions().get::<Caller>() {
        Some(Caller::User { user, .. }) => format!("user:{}", user.name),
        _ => request.extensions().get::<super::Client>().map_or_else(
            || "unknown".to_string(),
            |client| format!("address:{}", client.address),
        ),
    };
    let permit = match counter.take(holder) {
        Ok(permit) => permit,
        Err(sentence) => return too_many(sentence),
    };
    let response = next.run(request).await;
    response.map(|body| {
        let stream = body.into_data_stream().map(move |chunk| {
            let _held = &permit;
            chunk
        });
        axum::body::Body::from_stream(stream)
    })
}

fn too_many(sentence: String) -> Response {
    let mut response = (
        StatusCode::TOO_MANY_REQUESTS,
        axum::Json(json!({"error": sentence, "detail": null})),
    )
        .into_response();
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_user_and_the_server_hold_only_so_many_streams_and_places_come_back() {
        let counter = StreamCounter::new(StreamLimits {
            per_user: 2,
            total: 3,
        });
        let a1 = counter.take("a".into()).unwrap();
        let _a2 = counter.take("a".into()).unwrap();
        assert!(counter
            .take("a".into())
            .unwrap_err()
            .contains("the most one user may"));
        let _b1 = counter.take("b".into()).unwrap();
        assert!(counter
            .take("c".into())
            .unwrap_err()
            .contains("the most it serves at once"));
        drop(a1);
        assert!(
            counter.take("a".into()).is_ok(),
            "a closed stream frees its place"
        );
    }

    #[test]
    fn only_streams_are_counted() {
        assert!(opens_stream("/apps/demo/eval_results/x/progress"));
        assert!(opens_stream("/apps/demo/eval_sets/s/changes"));
        assert!(opens_stream("/run_sse"));
        assert!(!opens_stream("/apps/demo/eval_sets/s"));
        assert!(!opens_stream("/run"));
    }
}
