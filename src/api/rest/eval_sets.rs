//! The JSON REST API for scripts and tools, shaped like ADK's web server (1.x paths).
//! Errors are `{"error": ..., "detail": ...}` with 400, 404, 409 or 413.

use super::error::ApiError;
use super::{import_file, now_seconds, validate_app_name, AppState};
use crate::evalset::{parse_eval_case, validate_eval_set_id};
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, Query, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{json, Value};

/// Routes under `/apps`.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/{app}/eval_sets", get(list_eval_sets))
        .route(
            "/{app}/eval_sets/{eval_set_id}",
            post(create_eval_set).delete(delete_eval_set),
        )
        .route("/{app}/eval_sets/{eval_set_id}/evals", get(list_eval_ids))
        .route(
            "/{app}/eval_sets/{eval_set_id}/evals/{eval_id}",
            get(get_eval_case).put(put_eval_case).delete(delete_eval_case),
        )
        .route("/{app}/eval_sets/{eval_set_id}/export", get(export_eval_set))
        .route("/{app}/import", post(import))
        .fallback(|| async { ApiError::not_found("no such API route") })
}

type ApiResult<T> = Result<T, ApiError>;

async fn list_eval_sets(
    State(state): State<AppState>,
    Path(app): Path<String>,
) -> ApiResult<Json<Vec<String>>> {
    validate_app_name(&app).map_err(ApiError::bad_request)?;
    let sets = state.store.list_eval_sets(&app).await?;
    Ok(Json(sets.into_iter().map(|s| s.eval_set_id).collect()))
}

async fn create_eval_set(
    State(state): State<AppState>,
    Path((app, eval_set_id)): Path<(String, String)>,
) -> ApiResult<Response> {
    validate_app_name(&app).map_err(ApiError::bad_request)?;
    validate_eval_set_id(&eval_set_id).map_err(ApiError::bad_request)?;
    // ADK answers an existing id with 400 here; import (below) uses 409.
    state
        .store
        .create_eval_set(&app, &eval_set_id, now_seconds())
        .await
        .map_err(|err| match err {
            crate::store::StoreError::Conflict(message) => ApiError::bad_request(message),
            other => other.into(),
        })?;
    let created = state.store.export_adk_json(&app, &eval_set_id).await?;
    Ok(adk_json_response(StatusCode::CREATED, created))
}

async fn delete_eval_set(
    State(state): State<AppState>,
    Path((app, eval_set_id)): Path<(String, String)>,
) -> ApiResult<StatusCode> {
    state.store.delete_eval_set(&app, &eval_set_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn list_eval_ids(
    State(state): State<AppState>,
    Path((app, eval_set_id)): Path<(String, String)>,
) -> ApiResult<Json<Vec<String>>> {
    Ok(Json(state.store.case_ids(&app, &eval_set_id).await?))
}

async fn get_eval_case(
    State(state): State<AppState>,
    Path((app, eval_set_id, eval_id)): Path<(String, String, String)>,
) -> ApiResult<Json<Value>> {
    let stored = state.store.get_case(&app, &eval_set_id, &eval_id).await?;
    let mut body = serde_json::to_value(&stored.case).expect("an EvalCase serializes");
    body["version"] = json!(stored.version);
    Ok(Json(body))
}

/// Replaces a case. The body is the case (snake_case or camelCase) plus the `version` it was
/// read at; a stale version is refused with 409 and nothing changes.
async fn put_eval_case(
    State(state): State<AppState>,
    Path((app, eval_set_id, eval_id)): Path<(String, String, String)>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<Json<Value>> {
    let text = body_text(body)?;
    let mut case = parse_eval_case(&text)?;
    // `version` is not part of ADK's case, so the parser kept it as an unknown field.
    let version = match case.extra.shift_remove("version") {
        Some(Value::Number(n)) if n.is_i64() => n.as_i64().unwrap_or_default(),
        Some(_) => return Err(ApiError::bad_request("`version` must be an integer")),
        None => {
            return Err(ApiError::bad_request(
                "`version` is required: send the version you read with GET, so a concurrent edit is not overwritten",
            ))
        }
    };
    if case.eval_id != eval_id {
        return Err(ApiError::bad_request(format!(
            "the body's eval_id `{}` does not match the eval_id `{eval_id}` in the URL",
            case.eval_id
        )));
    }
    let stored = state
        .store
        .update_case(&app, &eval_set_id, &eval_id, &case, version)
        .await?;
    let mut body = serde_json::to_value(&stored.case).expect("an EvalCase serializes");
    body["version"] = json!(stored.version);
    Ok(Json(body))
}

async fn delete_eval_case(
    State(state): State<AppState>,
    Path((app, eval_set_id, eval_id)): Path<(String, String, String)>,
) -> ApiResult<StatusCode> {
    state.store.delete_case(&app, &eval_set_id, &eval_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn export_eval_set(
    State(state): State<AppState>,
    Path((app, eval_set_id)): Path<(String, String)>,
) -> ApiResult<Response> {
    let file = state.store.export_adk_json(&app, &eval_set_id).await?;
    let mut response = adk_json_response(StatusCode::OK, file);
    let disposition = format!("attachment; filename=\"{eval_set_id}.evalset.json\"");
    response.headers_mut().insert(
        header::CONTENT_DISPOSITION,
        disposition.parse().expect("ids are header-safe"),
    );
    Ok(response)
}

#[derive(Deserialize)]
struct ImportQuery {
    /// Replace an existing evalset of the same id instead of answering 409.
    #[serde(default)]
    replace: bool,
    /// The uploaded file's name; legacy lists take their id from it.
    file_name: Option<String>,
    /// Overrides the id (for legacy lists, which carry none).
    eval_set_id: Option<String>,
}

async fn import(
    State(state): State<AppState>,
    Path(app): Path<String>,
    Query(query): Query<ImportQuery>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<Response> {
    validate_app_name(&app).map_err(ApiError::bad_request)?;
    let text = body_text(body)?;
    let file_name = query.file_name.as_deref().unwrap_or("imported.json");
    let summary = import_file(
        &state.store,
        &app,
        file_name,
        query.eval_set_id.as_deref(),
        &text,
        query.replace,
    )
    .await?;
    Ok((StatusCode::CREATED, Json(summary)).into_response())
}

fn body_text(body: Result<Bytes, BytesRejection>) -> ApiResult<String> {
    let bytes = body.map_err(|rejection| {
        let status = rejection.status();
        if status == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::too_large()
        } else {
            ApiError::new(
                status,
                "could not read the request body",
                json!(rejection.body_text()),
            )
        }
    })?;
    String::from_utf8(bytes.into()).map_err(|e| {
        ApiError::bad_request(format!(
            "the body is not UTF-8 text (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        ))
    })
}

fn adk_json_response(status: StatusCode, file: String) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], file).into_response()
}
