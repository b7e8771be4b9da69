//! Eval sets over REST, shaped like ADK's web server: list, create, delete, import, export.

use super::body::TextBody;
use super::error::ApiError;
use crate::api::AppState;
use crate::records::ImportSummary;
use crate::service::eval_sets;
use axum::extract::{Path, Query, State};
use axum::http::{header, StatusCode};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use std::convert::Infallible;
use tokio::sync::broadcast::error::RecvError;

/// Routes under `/apps`.
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/{app}/eval_sets", get(list_eval_sets))
        .route(
            "/{app}/eval_sets/{eval_set_id}",
            post(create_eval_set).delete(delete_eval_set),
        )
        .route("/{app}/eval_sets/{eval_set_id}/export", get(export_eval_set))
        .route("/{app}/eval_sets/{eval_set_id}/changes", get(eval_set_changes))
        .route("/{app}/import", post(import))
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
    let file = eval_sets::export_eval_set(&state.services.store, &app, &eval_set_id).await?;
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
    TextBody(text): TextBody,
) -> Result<(StatusCode, Json<ImportSummary>), ApiError> {
    let file_name = query.file_name.as_deref().unwrap_or("imported.json");
    let summary = eval_sets::import_file(
        &state.services.store,
        &app,
        file_name,
        query.eval_set_id.as_deref(),
        text,
        query.replace,
    )
    .await?;
    Ok((StatusCode::CREATED, Json(summary)))
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
