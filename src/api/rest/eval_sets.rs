//! Eval sets over REST, shaped like ADK's web server: list, create, delete, import, export.

use super::body::TextBody;
use super::error::ApiError;
use crate::access::Role::{Editor, Viewer};
use crate::api::access::Routes;
use crate::api::AppState;
use crate::service::eval_sets::{self, ImportError, ImportMode};
use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use serde_json::json;
use std::convert::Infallible;
use tokio::sync::broadcast::error::RecvError;

/// Routes under `/apps`.
pub fn routes() -> Routes {
    Routes::new()
        .get("/{app}/eval_sets", Viewer, list_eval_sets)
        .post("/{app}/eval_sets/{eval_set_id}", Editor, create_eval_set)
        .delete("/{app}/eval_sets/{eval_set_id}", Editor, delete_eval_set)
        .get("/{app}/eval_sets/{eval_set_id}/export", Viewer, export_eval_set)
        .get("/{app}/eval_sets/{eval_set_id}/changes", Viewer, eval_set_changes)
        .post("/{app}/import", Editor, import)
}

async fn list_eval_sets(
    State(state): State<AppState>,
    Path(app): Path<String>,
) -> Result<Json<Vec<String>>, ApiError> {
    let sets = eval_sets::list_eval_sets(&state.services.store, &app).await?;
    Ok(Json(sets.into_iter().map(|s| s.eval_set_id).collect()))
}

async fn create_eval_set(
    State(state): State<AppState>,
    Path((app, eval_set_id)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    let store = &state.services.store;
    eval_sets::create_eval_set(store, &app, &eval_set_id).await?;
    let created = eval_sets::export_eval_set(store, &app, eval_set_id.trim()).await?;
    Ok(adk_json_response(StatusCode::CREATED, created))
}

async fn delete_eval_set(
    State(state): State<AppState>,
    Path((app, eval_set_id)): Path<(String, String)>,
) -> Result<StatusCode, ApiError> {
    eval_sets::delete_eval_set(&state.services.store, &app, &eval_set_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn export_eval_set(
    State(state): State<AppState>,
    Path((app, eval_set_id)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    let (file, tag) = eval_sets::export_tagged(&state.services.store, &app, &eval_set_id).await?;
    let mut response = adk_json_response(StatusCode::OK, file);
    response.headers_mut().insert(header::ETAG, etag(&tag));
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

/// Imports a file. With `If-Match: "<tag>"` it replaces the stored evalset only while it still
/// has that tag (412 otherwise: a push of a copy pulled before someone else's change); with
/// `If-None-Match: *` only when the id is new (412 otherwise). The answer's ETag is the new tag.
async fn import(
    State(state): State<AppState>,
    Path(app): Path<String>,
    Query(query): Query<ImportQuery>,
    headers: HeaderMap,
    TextBody(text): TextBody,
) -> Result<Response, ApiError> {
    let file_name = query.file_name.as_deref().unwrap_or("imported.json");
    let mode = import_mode(&headers, query.replace)?;
    let only_new = mode == ImportMode::New && headers.contains_key(header::IF_NONE_MATCH);
    let imported = eval_sets::import_file(
        &state.services.store,
        &app,
        file_name,
        query.eval_set_id.as_deref(),
        text,
        mode,
    )
    .await;
    let summary = match imported {
        Err(ImportError::Exists(id)) if only_new => {
            return Err(ApiError::new(
                StatusCode::PRECONDITION_FAILED,
                format!("eval set `{id}` already exists here"),
                json!("pull it first, or replace it (push --force)"),
            ))
        }
        other => other?,
    };
    let tag = etag(&summary.tag);
    Ok((StatusCode::CREATED, [(header::ETAG, tag)], Json(summary)).into_response())
}

/// What the request's preconditions make of an import: `If-Match` a replace of that tag only,
/// `If-None-Match: *` a new id only, neither what `replace` says.
fn import_mode(headers: &HeaderMap, replace: bool) -> Result<ImportMode, ApiError> {
    if let Some(value) = headers.get(header::IF_MATCH) {
        let tag = value
            .to_str()
            .ok()
            .map(|v| v.trim().trim_matches('"'))
            .filter(|v| !v.is_empty() && *v != "*")
            .ok_or_else(|| ApiError::bad_request("If-Match: give the ETag your copy was exported with"))?;
        return Ok(ImportMode::ReplaceIfTag(tag.to_string()));
    }
    if headers
        .get(header::IF_NONE_MATCH)
        .is_some_and(|v| v.as_bytes() == b"*")
    {
        return Ok(ImportMode::New);
    }
    Ok(ImportMode::replacing(replace))
}

/// An evalset's tag as a strong ETag.
fn etag(tag: &str) -> HeaderValue {
    HeaderValue::from_str(&format!("\"{tag}\"")).expect("tags are hex digits")
}

/// An ADK file as written by the exporter (already JSON text).
fn adk_json_response(status: StatusCode, file: String) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], file).into_response()
}

/// Folder mode: a `changed` event each time the evalset's file changes on disk (git, an editor,
/// `adk web`), so its page reads it again. Outside folder mode, a 404.
async fn eval_set_changes(
    State(state): State<AppState>,
    Path((app, eval_set_id)): Path<(String, String)>,
) -> Result<Sse<impl futures::Stream<Item = Result<SseEvent, Infallible>>>, ApiError> {
    let folder = state.services.folder.as_ref().ok_or_else(|| {
        ApiError::not_found("no agents folder is open (start with `evalstudio web AGENTS_DIR`)")
    })?;
    let changes = folder.changes();
    let key = (app, eval_set_id);
    let events = futures::stream::unfold((changes, key), |(mut changes, key)| async move {
        loop {
            match changes.recv().await {
                Ok(changed) if changed == key => break,
                Ok(_) => continue,
                // Missed some: one of them may have been ours.
                Err(RecvError::Lagged(_)) => break,
                Err(RecvError::Closed) => return None,
            }
        }
        // An event without data is never dispatched by the browser.
        Some((
            Ok(SseEvent::default().event("changed").data(&key.1)),
            (changes, key),
        ))
    });
    Ok(Sse::new(events).keep_alive(KeepAlive::default()))
}
