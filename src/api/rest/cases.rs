//! Eval cases over REST: ids, read, replace at a version, delete, duplicate, and each case's
//! history (list its versions, read one, restore one as a new version).

use super::body::{JsonBody, TextBody};
use super::error::ApiError;
use crate::access::Role::{Editor, Viewer};
use crate::api::access::Routes;
use crate::api::AppState;
use crate::evalset::{parse_eval_case, EvalCase};
use crate::records::cases::{
    CaseListPage, CaseListQuery, CaseSort, CaseVersionSummary, DeletedCase, StoredCase,
};
use crate::service::cases;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::Json;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Routes under `/apps`.
pub fn routes() -> Routes {
    const SET: &str = "/{app}/eval_sets/{eval_set_id}";
    const CASE: &str = "/{app}/eval_sets/{eval_set_id}/evals/{eval_id}";
    Routes::new()
        .get(&format!("{SET}/evals"), Viewer, list_eval_ids)
        .get(&format!("{SET}/cases"), Viewer, list_case_page)
        .get(CASE, Viewer, get_eval_case)
        .put(CASE, Editor, put_eval_case)
        .delete(CASE, Editor, delete_eval_case)
        .post(&format!("{SET}/delete_evals"), Editor, delete_eval_cases)
        .post(&format!("{SET}/undo_delete"), Editor, undo_delete)
        .get(&format!("{SET}/deleted_evals"), Viewer, list_deleted)
        .post(&format!("{CASE}/rename"), Editor, rename_eval_case)
        .post(&format!("{CASE}/duplicate"), Editor, duplicate_eval_case)
        .get(&format!("{CASE}/versions"), Viewer, list_versions)
        .get(&format!("{CASE}/versions/{{version}}"), Viewer, get_version)
        .post(
            &format!("{CASE}/versions/{{version}}/restore"),
            Editor,
            restore_version,
        )
}

/// An ADK eval case plus the `version` a later PUT must send back.
#[derive(Serialize)]
pub struct VersionedCase {
    #[serde(flatten)]
    pub case: EvalCase,
    pub version: i64,
}

impl From<StoredCase> for VersionedCase {
    fn from(stored: StoredCase) -> Self {
        VersionedCase {
            case: stored.case,
            version: stored.version,
        }
    }
}

async fn list_eval_ids(
    State(state): State<AppState>,
    Path((app, eval_set_id)): Path<(String, String)>,
) -> Result<Json<Vec<String>>, ApiError> {
    Ok(Json(
        cases::case_ids(&state.services.store, &app, &eval_set_id).await?,
    ))
}

async fn get_eval_case(
    State(state): State<AppState>,
    Path((app, eval_set_id, eval_id)): Path<(String, String, String)>,
) -> Result<Json<VersionedCase>, ApiError> {
    let stored = cases::get_case(&state.services.store, &app, &eval_set_id, &eval_id).await?;
    Ok(Json(stored.into()))
}

/// Replaces a case. The body is the case (snake_case or camelCase) plus the `version` it was
/// read at; a stale version is refused with 409 and nothing changes. A new eval_id in the body
/// renames the case in the same write, as the editor's save does.
async fn put_eval_case(
    State(state): State<AppState>,
    Path((app, eval_set_id, eval_id)): Path<(String, String, String)>,
    TextBody(text): TextBody,
) -> Result<Json<VersionedCase>, ApiError> {
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
    let stored = cases::save_case(
        &state.services.store,
        &app,
        &eval_set_id,
        &eval_id,
        &case,
        version,
    )
    .await?;
    Ok(Json(stored.into()))
}

async fn delete_eval_case(
    State(state): State<AppState>,
    Path((app, eval_set_id, eval_id)): Path<(String, String, String)>,
) -> Result<StatusCode, ApiError> {
    cases::delete_case(&state.services.store, &app, &eval_set_id, &eval_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `{newEvalId?}`: the copy's id; `<eval_id>_copy` when absent.
#[derive(Deserialize, Default)]
struct DuplicateRequest {
    #[serde(alias = "new_eval_id", rename = "newEvalId")]
    new_eval_id: Option<String>,
}

async fn duplicate_eval_case(
    State(state): State<AppState>,
    Path((app, eval_set_id, eval_id)): Path<(String, String, String)>,
    JsonBody(request): JsonBody<DuplicateRequest>,
) -> Result<(StatusCode, Json<VersionedCase>), ApiError> {
    let request = request.unwrap_or_default();
    let store = &state.services.store;
    let copy = cases::duplicate_case(
        store,
        &app,
        &eval_set_id,
        &eval_id,
        request.new_eval_id.as_deref(),
    )
    .await?;
    Ok((StatusCode::CREATED, Json(copy.into())))
}

async fn list_versions(
    State(state): State<AppState>,
    Path((app, eval_set_id, eval_id)): Path<(String, String, String)>,
) -> Result<Json<Vec<CaseVersionSummary>>, ApiError> {
    Ok(Json(
        cases::case_history(&state.services.store, &app, &eval_set_id, &eval_id).await?,
    ))
}

async fn get_version(
    State(state): State<AppState>,
    Path((app, eval_set_id, eval_id, version)): Path<(String, String, String, String)>,
) -> Result<Json<VersionedCase>, ApiError> {
    let version = version_number(&version)?;
    let found = cases::case_version(&state.services.store, &app, &eval_set_id, &eval_id, version).await?;
    Ok(Json(VersionedCase {
        case: found.case,
        version: found.version,
    }))
}

/// `{version}`: the current version the caller read, as for PUT.
#[derive(Deserialize)]
struct RestoreRequest {
    version: i64,
}

async fn restore_version(
    State(state): State<AppState>,
    Path((app, eval_set_id, eval_id, version)): Path<(String, String, String, String)>,
    JsonBody(request): JsonBody<RestoreRequest>,
) -> Result<Json<VersionedCase>, ApiError> {
    let version = version_number(&version)?;
    let request = request.ok_or_else(|| {
        ApiError::bad_request("the body must be {\"version\": N}, the current version you read")
    })?;
    let store = &state.services.store;
    let restored =
        cases::restore_version(store, &app, &eval_set_id, &eval_id, version, request.version).await?;
    Ok(Json(restored.into()))
}

/// The `{version}` of a path, with the API's own 400 (axum's would be plain text).
fn version_number(text: &str) -> Result<i64, ApiError> {
    text.parse()
        .map_err(|_| ApiError::bad_request(format!("version `{text}` is not a whole number")))
}

/// `{evalIds}`: the cases a bulk delete or an undo names.
#[derive(Deserialize)]
struct EvalIdsRequest {
    #[serde(alias = "eval_ids", rename = "evalIds")]
    eval_ids: Vec<String>,
}

/// What a bulk delete or an undo did.
#[derive(Serialize)]
struct EvalIdsDone {
    eval_ids: Vec<String>,
}

fn eval_ids(request: Option<EvalIdsRequest>) -> Result<Vec<String>, ApiError> {
    request
        .map(|r| r.eval_ids)
        .ok_or_else(|| ApiError::bad_request("the body must be {\"evalIds\": [...]}"))
}

/// Deletes the named cases, all or none; each can be brought back with `undo_delete`.
async fn delete_eval_cases(
    State(state): State<AppState>,
    Path((app, eval_set_id)): Path<(String, String)>,
    JsonBody(request): JsonBody<EvalIdsRequest>,
) -> Result<Json<EvalIdsDone>, ApiError> {
    let eval_ids = eval_ids(request)?;
    cases::delete_cases(&state.services.store, &app, &eval_set_id, &eval_ids).await?;
    Ok(Json(EvalIdsDone { eval_ids }))
}

async fn undo_delete(
    State(state): State<AppState>,
    Path((app, eval_set_id)): Path<(String, String)>,
    JsonBody(request): JsonBody<EvalIdsRequest>,
) -> Result<Json<EvalIdsDone>, ApiError> {
    let eval_ids = eval_ids(request)?;
    cases::undo_delete(&state.services.store, &app, &eval_set_id, &eval_ids).await?;
    Ok(Json(EvalIdsDone { eval_ids }))
}

async fn list_deleted(
    State(state): State<AppState>,
    Path((app, eval_set_id)): Path<(String, String)>,
) -> Result<Json<Vec<DeletedCase>>, ApiError> {
    Ok(Json(
        cases::deleted_cases(&state.services.store, &app, &eval_set_id).await?,
    ))
}

/// `{newEvalId, version}`: the new id, and the version the caller read.
#[derive(Deserialize)]
struct RenameRequest {
    #[serde(alias = "new_eval_id", rename = "newEvalId")]
    new_eval_id: String,
    version: i64,
}

async fn rename_eval_case(
    State(state): State<AppState>,
    Path((app, eval_set_id, eval_id)): Path<(String, String, String)>,
    JsonBody(request): JsonBody<RenameRequest>,
) -> Result<Json<VersionedCase>, ApiError> {
    let request = request
        .ok_or_else(|| ApiError::bad_request("the body must be {\"newEvalId\": ..., \"version\": N}"))?;
    let store = &state.services.store;
    let renamed = cases::rename_case(
        store,
        &app,
        &eval_set_id,
        &eval_id,
        &request.new_eval_id,
        request.version,
    )
    .await?;
    Ok(Json(renamed.into()))
}

/// `?q=&sort=&desc=&failed=&page=` of the case list.
#[derive(Deserialize)]
struct CaseListParams {
    #[serde(default)]
    q: String,
    sort: Option<String>,
    #[serde(default)]
    desc: Option<String>,
    /// `1`: only the cases that failed in the latest run.
    #[serde(default)]
    failed: Option<String>,
    page: Option<i64>,
}

/// A page of the case list, filtered and sorted as the browser's is.
async fn list_case_page(
    State(state): State<AppState>,
    Path((app, eval_set_id)): Path<(String, String)>,
    Query(params): Query<CaseListParams>,
) -> Result<Json<CaseListPage>, ApiError> {
    let sort = match params.sort.as_deref() {
        None => CaseSort::File,
        Some(name) => CaseSort::parse(name).ok_or_else(|| {
            let known: Vec<&str> = CaseSort::ALL.iter().map(|s| s.as_str()).collect();
            ApiError::bad_request(format!("sort `{name}` is not one of {}", known.join(", ")))
        })?,
    };
    let query = CaseListQuery {
        text: params.q,
        sort,
        descending: params.desc.is_some_and(|d| d == "1" || d == "true"),
        failed_last_run: params.failed.is_some_and(|f| f == "1" || f == "true"),
    };
    let page = params.page.unwrap_or(1);
    Ok(Json(
        cases::list_cases(&state.services.store, &app, &eval_set_id, &query, page).await?,
    ))
}
