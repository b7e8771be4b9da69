//! google-adk 2.13's web-server routes (`cli/dev_server.py`'s evaluation section under
//! `/dev/apps/{app}`; the apps and their graphs are in `adk_apps`), with ADK's request and
//! response shapes: camelCase answers (`by_alias`, `exclude_none`), `null` bodies where ADK
//! returns nothing, its wrapper objects beside the deprecated snake_case paths' bare lists, and
//! errors as `{"detail": ...}` with ADK's statuses. The same services as the 1.x routes under
//! `/apps`; only the shapes differ.

use super::adk_events::eval_case_session;
use super::body::{JsonBody, TextBody};
use super::error::ApiError;
use super::eval_runs::{finished_results, run_request, RunEvalBody};
use crate::access::Role::{Editor, Viewer};
use crate::agent::ToolExecutionMode;
use crate::api::access::Routes;
use crate::api::AppState;
use crate::eval::result::{camel_case_result, EvalCaseResult};
use crate::evalset::{parse_eval_case, Camel, EvalSet};
use crate::service::add_session::{add_session_to_eval_set, AddSession, AddSessionError};
use crate::service::eval_sets::EvalSetError;
use crate::service::runs::error::EvalRunError;
use crate::service::runs::plan::parse_tool_mode;
use crate::service::runs::{lifecycle, stored};
use crate::service::{cases, eval_sets, metric_offer};
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};

/// An error as ADK's FastAPI server answers it: `{"detail": "..."}`.
pub struct DevError(pub StatusCode, pub String);

impl IntoResponse for DevError {
    fn into_response(self) -> Response {
        (self.0, Json(json!({ "detail": self.1 }))).into_response()
    }
}

impl<E: Into<ApiError>> From<E> for DevError {
    fn from(err: E) -> Self {
        let err: ApiError = err.into();
        let detail = match err.detail.get("id").and_then(Value::as_str) {
            Some(id) => format!("{} (id {id})", err.error),
            None => err.error,
        };
        DevError(err.status, detail)
    }
}

pub type DevResult = Result<Response, DevError>;

/// ADK's answer for routes that return nothing: 200 with `null`.
fn null() -> DevResult {
    Ok(Json(Value::Null).into_response())
}

/// Routes under `/dev/apps`.
pub fn routes() -> Routes {
    const CASE: &str = "/{app}/eval-sets/{eval_set_id}/eval-cases/{eval_id}";
    const CASE_BARE: &str = "/{app}/eval_sets/{eval_set_id}/evals/{eval_id}";
    Routes::new()
        .post("/{app}/eval-sets", Editor, create_eval_set)
        .get("/{app}/eval-sets", Viewer, list_eval_sets)
        .get("/{app}/eval_sets", Viewer, list_eval_sets_bare)
        .post("/{app}/eval_sets/{eval_set_id}", Editor, create_eval_set_bare)
        .post("/{app}/eval-sets/{eval_set_id}/add-session", Editor, add_session)
        .post("/{app}/eval_sets/{eval_set_id}/add_session", Editor, add_session)
        .get("/{app}/eval_sets/{eval_set_id}/evals", Viewer, list_eval_ids)
        .get(CASE, Viewer, get_eval_case)
        .put(CASE, Editor, put_eval_case)
        .delete(CASE, Editor, delete_eval_case)
        .get(CASE_BARE, Viewer, get_eval_case)
        .put(CASE_BARE, Editor, put_eval_case)
        .delete(CASE_BARE, Editor, delete_eval_case)
        .post("/{app}/eval-sets/{eval_set_id}/run", Editor, run_eval)
        .post("/{app}/eval_sets/{eval_set_id}/run_eval", Editor, run_eval_bare)
        .get("/{app}/eval-results", Viewer, list_eval_results)
        .get("/{app}/eval_results", Viewer, list_eval_results_bare)
        .get("/{app}/eval-results/{result_id}", Viewer, get_eval_result)
        .get("/{app}/eval_results/{result_id}", Viewer, get_eval_result)
        .get("/{app}/metrics-info", Viewer, metrics_info)
        // ADK answers a session's spans; Evalstudio records none yet, so there are none.
        .get("/{app}/debug/trace/session/{session_id}", Viewer, || async {
            Json(json!([]))
        })
        .merge(super::adk_apps::graph_routes())
}

/// What `/dev/apps` answers for a path that matches none of its routes, as ADK does.
pub async fn not_found() -> DevError {
    DevError(StatusCode::NOT_FOUND, "Not Found".into())
}

/// ADK's `CreateEvalSetRequest`: `{eval_set|evalSet: EvalSet}`, of which only the id is used.
#[derive(Deserialize)]
struct CreateEvalSetRequest {
    #[serde(alias = "evalSet")]
    eval_set: EvalSet,
}

async fn create_eval_set(
    State(state): State<AppState>,
    Path(app): Path<String>,
    JsonBody(request): JsonBody<CreateEvalSetRequest>,
) -> DevResult {
    let request = request.ok_or_else(|| {
        DevError(
            StatusCode::UNPROCESSABLE_ENTITY,
            "the body must be {\"eval_set\": {\"eval_set_id\": ...}}".into(),
        )
    })?;
    // adk-web sends the set's tool execution mode; runs that name none use it.
    let extra = &request.eval_set.extra;
    let tool_mode = match extra
        .get("tool_execution_mode")
        .or_else(|| extra.get("toolExecutionMode"))
    {
        Some(mode) => Some(parse_tool_mode(mode.as_str().unwrap_or_default()).map_err(ApiError::of_kind)?),
        None => None,
    };
    let id = request.eval_set.eval_set_id;
    create(&state, &app, &id, tool_mode).await?;
    let store = &state.services.store;
    let created: EvalSet = serde_json::from_str(&eval_sets::export_eval_set(store, &app, &id).await?)
        .map_err(ApiError::internal)?;
    // `EvalSet` has no aliases in ADK: its answer is snake_case, empty case list included.
    Ok(Json(json!({
        "eval_set_id": created.eval_set_id, "name": created.name,
        "eval_cases": [], "creation_timestamp": created.creation_timestamp,
    }))
    .into_response())
}

async fn create_eval_set_bare(
    State(state): State<AppState>,
    Path((app, id)): Path<(String, String)>,
) -> DevResult {
    create(&state, &app, &id, None).await?;
    null()
}

/// ADK answers an existing evalset with 400.
async fn create(
    state: &AppState,
    app: &str,
    id: &str,
    tool_mode: Option<ToolExecutionMode>,
) -> Result<(), DevError> {
    match eval_sets::create_eval_set_with_tool_mode(&state.services.store, app, id, tool_mode).await {
        Err(EvalSetError::Exists(_) | EvalSetError::Conflict(_)) => Err(DevError(
            StatusCode::BAD_REQUEST,
            format!("EvalSet {id} already exists for app {app}."),
        )),
        other => Ok(other?),
    }
}

async fn eval_set_ids(state: &AppState, app: &str) -> Result<Vec<String>, DevError> {
    let sets = eval_sets::list_eval_sets(&state.services.store, app).await?;
    Ok(sets.into_iter().map(|s| s.eval_set_id).collect())
}

async fn list_eval_sets(State(state): State<AppState>, Path(app): Path<String>) -> DevResult {
    Ok(Json(json!({ "evalSetIds": eval_set_ids(&state, &app).await? })).into_response())
}

async fn list_eval_sets_bare(State(state): State<AppState>, Path(app): Path<String>) -> DevResult {
    Ok(Json(eval_set_ids(&state, &app).await?).into_response())
}

/// ADK's `AddSessionToEvalSetRequest`.
#[derive(Deserialize)]
struct AddSessionRequest {
    #[serde(alias = "evalId")]
    eval_id: String,
    #[serde(alias = "sessionId")]
    session_id: String,
    #[serde(alias = "userId")]
    user_id: String,
}

async fn add_session(
    State(state): State<AppState>,
    Path((app, eval_set_id)): Path<(String, String)>,
    JsonBody(request): JsonBody<AddSessionRequest>,
) -> DevResult {
    let request = request.ok_or_else(|| {
        DevError(
            StatusCode::UNPROCESSABLE_ENTITY,
            "the body must be {evalId, sessionId, userId}".into(),
        )
    })?;
    let add = AddSession {
        app: &app,
        eval_set_id: &eval_set_id,
        eval_id: &request.eval_id,
        user: &request.user_id,
        session_id: &request.session_id,
        overwrite: false,
        create_eval_set: false,
    };
    match add_session_to_eval_set(&state.services.store, add).await {
        Err(AddSessionError::EvalIdTaken { eval_set_id, eval_id }) => Err(DevError(
            StatusCode::BAD_REQUEST,
            format!("Eval id `{eval_id}` already exists in `{eval_set_id}` eval set."),
        )),
        other => {
            other?;
            null()
        }
    }
}

async fn list_eval_ids(
    State(state): State<AppState>,
    Path((app, eval_set_id)): Path<(String, String)>,
) -> DevResult {
    match cases::case_ids(&state.services.store, &app, &eval_set_id).await {
        // ADK answers a missing evalset here with 400.
        Err(cases::CaseError::NotFound(_)) => Err(DevError(
            StatusCode::BAD_REQUEST,
            format!("Eval set `{eval_set_id}` not found."),
        )),
        other => Ok(Json(other?).into_response()),
    }
}

async fn get_eval_case(
    State(state): State<AppState>,
    Path((app, eval_set_id, eval_id)): Path<(String, String, String)>,
) -> DevResult {
    match cases::get_case(&state.services.store, &app, &eval_set_id, &eval_id).await {
        Err(cases::CaseError::NotFound(_)) => Err(DevError(
            StatusCode::NOT_FOUND,
            format!("Eval set `{eval_set_id}` or Eval `{eval_id}` not found."),
        )),
        other => Ok(Json(Camel(&other?.case)).into_response()),
    }
}

/// ADK replaces the case whole, last write winning: there is no version to send.
async fn put_eval_case(
    State(state): State<AppState>,
    Path((app, eval_set_id, eval_id)): Path<(String, String, String)>,
    TextBody(text): TextBody,
) -> DevResult {
    let case = parse_eval_case(&text).map_err(ApiError::from)?;
    if case.eval_id != eval_id {
        return Err(DevError(
            StatusCode::BAD_REQUEST,
            "Eval id in EvalCase should match the eval id in the API route.".into(),
        ));
    }
    let store = &state.services.store;
    let current = cases::get_case(store, &app, &eval_set_id, &eval_id).await?;
    cases::save_case(store, &app, &eval_set_id, &eval_id, &case, current.version).await?;
    null()
}

async fn delete_eval_case(
    State(state): State<AppState>,
    Path((app, eval_set_id, eval_id)): Path<(String, String, String)>,
) -> DevResult {
    cases::delete_case(&state.services.store, &app, &eval_set_id, &eval_id).await?;
    null()
}

/// Runs the evalset and waits; its case results as ADK's RunEvalResult (the deprecated
/// `evalMetricResults` always empty, as ADK writes it).
async fn run_results(
    state: &AppState,
    app: &str,
    eval_set_id: &str,
    body: Option<RunEvalBody>,
) -> Result<Vec<Value>, DevError> {
    let body = body.ok_or_else(|| {
        DevError(
            StatusCode::UNPROCESSABLE_ENTITY,
            "the body must be a RunEvalRequest".into(),
        )
    })?;
    let request = run_request(app.to_string(), eval_set_id.to_string(), body)?;
    let (record, handle) = lifecycle::start_eval_run(&state.services, request).await?;
    let _ = handle.await;
    let results = finished_results(state, app, &record.summary.result_id).await?;
    results
        .into_iter()
        .map(|result| {
            // ADK's RunEvalResult has no session in it.
            let mut camel = camel_result(app, result)?;
            camel["evalMetricResults"] = json!([]);
            if let Some(fields) = camel.as_object_mut() {
                fields.remove("sessionDetails");
            }
            Ok(camel)
        })
        .collect::<Result<_, DevError>>()
}

async fn run_eval(
    State(state): State<AppState>,
    Path((app, eval_set_id)): Path<(String, String)>,
    JsonBody(body): JsonBody<RunEvalBody>,
) -> DevResult {
    let results = run_results(&state, &app, &eval_set_id, body).await?;
    Ok(Json(json!({ "runEvalResults": results })).into_response())
}

async fn run_eval_bare(
    State(state): State<AppState>,
    Path((app, eval_set_id)): Path<(String, String)>,
    JsonBody(body): JsonBody<RunEvalBody>,
) -> DevResult {
    Ok(Json(run_results(&state, &app, &eval_set_id, body).await?).into_response())
}

/// A stored case result as ADK answers it, with the session its inference ran in.
fn camel_result(app: &str, stored: Value) -> Result<Value, DevError> {
    let mut result: EvalCaseResult = serde_json::from_value(stored).map_err(ApiError::internal)?;
    if !result.session_id.is_empty() {
        result.session_details = Some(eval_case_session(app, &result));
    }
    Ok(camel_case_result(&result))
}

async fn result_ids(state: &AppState, app: &str) -> Result<Vec<String>, DevError> {
    let runs = stored::list_eval_runs(&state.services.store, app, None).await?;
    Ok(runs.into_iter().map(|r| r.result_id).collect())
}

async fn list_eval_results(State(state): State<AppState>, Path(app): Path<String>) -> DevResult {
    Ok(Json(json!({ "evalResultIds": result_ids(&state, &app).await? })).into_response())
}

async fn list_eval_results_bare(State(state): State<AppState>, Path(app): Path<String>) -> DevResult {
    Ok(Json(result_ids(&state, &app).await?).into_response())
}

async fn get_eval_result(
    State(state): State<AppState>,
    Path((app, result_id)): Path<(String, String)>,
) -> DevResult {
    let store = &state.services.store;
    let record = match stored::eval_run(store, &app, &result_id).await {
        Err(EvalRunError::NotFound(_)) => {
            return Err(DevError(
                StatusCode::NOT_FOUND,
                format!("Eval set result `{result_id}` not found."),
            ))
        }
        other => other?,
    };
    let result = stored::eval_set_result(store, &record).await?;
    let cases = result
        .eval_case_results
        .into_iter()
        .map(|stored| camel_result(&app, stored))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Json(json!({
        "evalSetResultId": result.eval_set_result_id,
        "evalSetResultName": result.eval_set_result_name,
        "evalSetId": result.eval_set_id,
        "evalCaseResults": cases,
        "creationTimestamp": result.creation_timestamp,
    }))
    .into_response())
}

/// ADK's `ListMetricsInfoResponse`: every metric this server can score, with its score range.
async fn metrics_info(State(state): State<AppState>) -> Json<Value> {
    let infos: Vec<Value> = metric_offer::offered_metrics(&state.services.scoring)
        .into_iter()
        .filter(|m| m.unavailable.is_none())
        .map(|m| {
            json!({
                "metricName": m.metric_name,
                "description": m.description,
                "metricValueInfo": {"interval": {
                    "minValue": m.score_range.min, "openAtMin": false,
                    "maxValue": m.score_range.max, "openAtMax": false,
                }},
                "requiresThreshold": true,
            })
        })
        .collect();
    Json(json!({ "metricsInfo": infos }))
}
