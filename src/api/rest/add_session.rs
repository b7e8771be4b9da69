//! "Add current session" over REST: `POST /apps/{app}/eval_sets/{id}/add_session`.

use super::body::JsonBody;
use super::cases::VersionedCase;
use super::error::ApiError;
use crate::access::Role::Editor;
use crate::api::access::Routes;
use crate::api::AppState;
use crate::service::add_session::{add_session_to_eval_set, AddSession};
use axum::extract::{Path, State};
use axum::Json;
use serde::Deserialize;

/// Routes under `/apps`.
pub fn routes() -> Routes {
    Routes::new().post("/{app}/eval_sets/{eval_set_id}/add_session", Editor, add_session)
}

/// `{evalId, sessionId, userId}`, plus `overwrite` to replace a case of the same id.
#[derive(Deserialize)]
struct AddSessionRequest {
    #[serde(alias = "eval_id", rename = "evalId")]
    eval_id: String,
    #[serde(alias = "session_id", rename = "sessionId")]
    session_id: String,
    #[serde(alias = "user_id", rename = "userId")]
    user_id: String,
    #[serde(default)]
    overwrite: bool,
}

async fn add_session(
    State(state): State<AppState>,
    Path((app, eval_set_id)): Path<(String, String)>,
    JsonBody(request): JsonBody<AddSessionRequest>,
) -> Result<Json<VersionedCase>, ApiError> {
    let request =
        request.ok_or_else(|| ApiError::bad_request("the body must be {evalId, sessionId, userId}"))?;
    let stored = add_session_to_eval_set(
        &state.services.store,
        AddSession {
            app: &app,
            eval_set_id: &eval_set_id,
            eval_id: &request.eval_id,
            user: &request.user_id,
            session_id: &request.session_id,
            overwrite: request.overwrite,
            create_eval_set: false,
        },
    )
    .await?;
    Ok(Json(stored.into()))
}
