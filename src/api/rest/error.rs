//! REST errors: `{"error": "...", "detail": ...}` with the matching status.

use crate::evalset::FormatError;
use crate::store::StoreError;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};

#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub error: String,
    pub detail: Value,
}

impl ApiError {
    pub fn new(status: StatusCode, error: impl Into<String>, detail: Value) -> Self {
        ApiError {
            status,
            error: error.into(),
            detail,
        }
    }

    pub fn bad_request(message: impl Into<String>) -> Self {
        ApiError::new(StatusCode::BAD_REQUEST, message, Value::Null)
    }

    pub fn not_found(message: impl Into<String>) -> Self {
        ApiError::new(StatusCode::NOT_FOUND, message, Value::Null)
    }

    pub fn too_large() -> Self {
        ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "request body too large",
            json!("raise the limit with --max-body-bytes (EVALSTUDIO_MAX_BODY_BYTES)"),
        )
    }
}

impl From<FormatError> for ApiError {
    fn from(err: FormatError) -> Self {
        ApiError::new(StatusCode::BAD_REQUEST, err.to_string(), json!(err))
    }
}

impl From<StoreError> for ApiError {
    fn from(err: StoreError) -> Self {
        match err {
            StoreError::NotFound(message) => ApiError::not_found(message),
            StoreError::Conflict(message) => ApiError::new(StatusCode::CONFLICT, message, Value::Null),
            other => {
                tracing::error!("store error: {other}");
                ApiError::new(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "internal error",
                    json!(other.to_string()),
                )
            }
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (
            self.status,
            Json(json!({"error": self.error, "detail": self.detail})),
        )
            .into_response()
    }
}
