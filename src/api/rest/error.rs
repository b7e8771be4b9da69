//! REST errors: `{"error": "...", "detail": ...}` with the matching status: the status of the
//! error's kind (`api::status_of`, as server functions answer), except where REST says more (a
//! stale version's current one, ADK's 400 for an existing evalset). Nothing below the adapters
//! knows HTTP.

use crate::evalset::FormatError;
use crate::service::add_session::AddSessionError;
use crate::service::cases::CaseError;
use crate::service::errors::{DomainError, ErrorKind};
use crate::service::eval_sets::{EvalSetError, ImportError};
use crate::service::runs::error::EvalRunError;
use crate::service::sessions::SessionError;
use crate::service::traces::TraceError;
use crate::service::turns::TurnError;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;
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

    pub fn conflict(message: impl Into<String>) -> Self {
        ApiError::new(StatusCode::CONFLICT, message, Value::Null)
    }

    /// A write based on a version that is no longer the stored one; the detail says which is.
    pub fn stale(message: impl Into<String>, current: i64) -> Self {
        ApiError::new(StatusCode::CONFLICT, message, json!({"currentVersion": current}))
    }

    /// A fault of ours, not the user's: the answer says only "internal error" and an id; the
    /// log line with the id holds what went wrong, which may name paths or SQL.
    pub fn internal(cause: impl std::fmt::Display) -> Self {
        let id = crate::api::log_fault(&cause);
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal error",
            json!({ "id": id }),
        )
    }

    /// The error with the status of its kind and its own words; a fault as [`ApiError::internal`].
    pub fn of_kind<E: std::fmt::Display + DomainError>(err: E) -> Self {
        match err.kind() {
            ErrorKind::Fault => ApiError::internal(err),
            kind => ApiError::new(crate::api::status_of(kind), err.to_string(), Value::Null),
        }
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

/// The body of every error answer.
#[derive(Serialize)]
struct ErrorBody {
    error: String,
    detail: Value,
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = ErrorBody {
            error: self.error,
            detail: self.detail,
        };
        (self.status, Json(body)).into_response()
    }
}

impl From<EvalSetError> for ApiError {
    fn from(err: EvalSetError) -> Self {
        match err {
            // ADK answers an existing id with 400 when creating; import (below) uses 409.
            EvalSetError::Exists(_) => ApiError::bad_request(err.to_string()),
            other => ApiError::of_kind(other),
        }
    }
}

impl From<ImportError> for ApiError {
    fn from(err: ImportError) -> Self {
        match err {
            ImportError::Format(err) => err.into(),
            // REST says more than a conflict: the precondition (If-Match) failed.
            ImportError::Changed(message) => ApiError::new(
                StatusCode::PRECONDITION_FAILED,
                message,
                json!("pull it again and reapply your change, or replace it without If-Match (push --force)"),
            ),
            other => ApiError::of_kind(other),
        }
    }
}

impl From<CaseError> for ApiError {
    fn from(err: CaseError) -> Self {
        match err {
            CaseError::Stale { message, current } => ApiError::stale(message, current),
            other => ApiError::of_kind(other),
        }
    }
}

impl From<SessionError> for ApiError {
    fn from(err: SessionError) -> Self {
        ApiError::of_kind(err)
    }
}

impl From<TurnError> for ApiError {
    fn from(err: TurnError) -> Self {
        ApiError::of_kind(err)
    }
}

impl From<TraceError> for ApiError {
    fn from(err: TraceError) -> Self {
        ApiError::of_kind(err)
    }
}

impl From<AddSessionError> for ApiError {
    fn from(err: AddSessionError) -> Self {
        match err {
            AddSessionError::EvalIdTaken { ref eval_id, .. } => {
                let detail = json!({"evalId": eval_id});
                ApiError::new(StatusCode::CONFLICT, err.to_string(), detail)
            }
            other => ApiError::of_kind(other),
        }
    }
}

impl From<EvalRunError> for ApiError {
    fn from(err: EvalRunError) -> Self {
        ApiError::of_kind(err)
    }
}
