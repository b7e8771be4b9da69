//! The one way REST handlers read a request body, so every route answers a body it cannot read
//! the same way: 413 when it is over the limit, 400 when it is not UTF-8 or not the JSON the
//! route takes (with the line and column), always as `{"error", "detail"}`.

use super::error::ApiError;
use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::StatusCode;
use serde::de::DeserializeOwned;
use serde_json::json;

/// The body as UTF-8 text (an evalset file, a case).
pub struct TextBody(pub String);

/// The body as JSON of type `T`; `None` when the body is empty or only whitespace.
pub struct JsonBody<T>(pub Option<T>);

impl<S: Send + Sync> FromRequest<S> for TextBody {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, Self::Rejection> {
        let bytes =
            Bytes::from_request(request, state)
                .await
                .map_err(|rejection| match rejection.status() {
                    StatusCode::PAYLOAD_TOO_LARGE => ApiError::too_large(),
                    status => ApiError::new(
                        status,
                        "could not read the request body",
                        json!(rejection.body_text()),
                    ),
                })?;
        String::from_utf8(bytes.into()).map(TextBody).map_err(|e| {
            ApiError::bad_request(format!(
                "the body is not UTF-8 text (invalid byte at offset {})",
                e.utf8_error().valid_up_to()
            ))
        })
    }
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
