//! The one way REST handlers read a request body, so every route answers a body it cannot read
//! the same way: 413 when it is over the limit, 400 when it is not UTF-8 or not the JSON the
//! route takes (with the line and column), always as `{"error", "detail"}`.

use super::error::ApiError;
use axum::extract::{FromRequest, Request};
use axum::http::header;
use axum::http::StatusCode;
use axum::RequestExt;
use futures::StreamExt;
use serde::de::DeserializeOwned;
use serde_json::json;

/// The largest request body the server takes, as the router was built with it (axum's own
/// limit is not readable from a request): the room a body may reserve before it arrives.
#[derive(Clone, Copy, Debug)]
pub struct BodyLimit(pub usize);

/// The body as UTF-8 text (an evalset file, a case).
pub struct TextBody(pub String);

/// The body as JSON of type `T`; `None` when the body is empty or only whitespace.
pub struct JsonBody<T>(pub Option<T>);

impl<S: Send + Sync> FromRequest<S> for TextBody {
    type Rejection = ApiError;

    /// Read into one buffer sized by Content-Length, so an import of a large file holds it once
    /// (collecting chunks and then joining them holds it twice).
    async fn from_request(request: Request, _: &S) -> Result<Self, Self::Rejection> {
        let declared = request
            .headers()
            .get(header::CONTENT_LENGTH)
            .and_then(|length| length.to_str().ok()?.parse::<usize>().ok())
            .unwrap_or(0);
        let limit = request.extensions().get::<BodyLimit>().map(|limit| limit.0);
        // Over the limit by its own account: refused before a byte is read.
        if limit.is_some_and(|limit| declared > limit) {
            return Err(ApiError::too_large());
        }
        let mut chunks = request.into_limited_body().into_data_stream();
        // The length is a claim until the bytes arrive: the limit still applies as they do.
        let mut bytes = Vec::with_capacity(declared.min(limit.unwrap_or(PREALLOCATE_WITHOUT_LIMIT)));
        loop {
            let chunk = tokio::time::timeout(BODY_IDLE_TIMEOUT, chunks.next())
                .await
                .map_err(|_| stalled_body())?;
            let Some(chunk) = chunk else { break };
            bytes.extend_from_slice(&chunk.map_err(unreadable_body)?);
        }
        String::from_utf8(bytes).map(TextBody).map_err(|e| {
            ApiError::bad_request(format!(
                "the body is not UTF-8 text (invalid byte at offset {})",
                e.utf8_error().valid_up_to()
            ))
        })
    }
}

/// How long a body may pause between two pieces: a client that stops sending holds a
/// connection and a buffer, so it is let go.
const BODY_IDLE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

fn stalled_body() -> ApiError {
    ApiError::new(
        StatusCode::REQUEST_TIMEOUT,
        format!(
            "the request body stopped arriving: nothing came for {} s",
            BODY_IDLE_TIMEOUT.as_secs()
        ),
        serde_json::Value::Null,
    )
}

/// The room a body may reserve up front on a router built without a [`BodyLimit`] (axum's
/// default limit).
const PREALLOCATE_WITHOUT_LIMIT: usize = 2 << 20;

fn unreadable_body(err: axum::Error) -> ApiError {
    let inner = err.into_inner();
    if inner.is::<http_body_util::LengthLimitError>() {
        return ApiError::too_large();
    }
    ApiError::new(
        StatusCode::BAD_REQUEST,
        "could not read the request body",
        json!(inner.to_string()),
    )
}

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, Self::Rejection> {
        let TextBody(text) = TextBody::from_request(request, state).await?;
        if text.trim().is_empty() {
            return Ok(JsonBody(None));
        }
        serde_json::from_str(&text)
            .map(|value| JsonBody(Some(value)))
            .map_err(|err| {
                ApiError::new(
                    StatusCode::BAD_REQUEST,
                    format!("invalid request body: {err}"),
                    json!({"line": err.line(), "column": err.column()}),
                )
            })
    }
}
