//! What google-adk 2.13's web server tells of its apps: `/list-apps` (with `?detailed=true`),
//! `/version`, and an app's agent graph (`/dev/apps/{app}/build_graph`, `build_graph_image`). An
//! Evalstudio profile's agent is outlined from its profile ([`AgentOutline`]); an `adk` profile's
//! agent only its own server knows, so those answers are read from it.

use super::adk_dev::{DevError, DevResult};
use crate::access::Role::Viewer;
use crate::agent::adk::{get_from_server, ServerHeaders};
use crate::agent::outline::AgentOutline;
use crate::agent::profiles::AgentProfile;
use crate::api::access::Routes;
use crate::api::AppState;
use crate::redact::redacted_url;
use axum::extract::{OriginalUri, Path, Query, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::IntoResponse;
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::HashMap;

/// `GET /list-apps` and `GET /version`, at the root as ADK has them.
pub fn list_apps_route() -> Routes {
    Routes::new()
        .get("/list-apps", Viewer, list_apps)
        .get("/version", Viewer, || async {
            Json(json!({"version": env!("CARGO_PKG_VERSION"), "language": "rust"}))
        })
}

/// The graph routes under `/dev/apps`.
pub fn graph_routes() -> Routes {
    Routes::new()
        .get("/{app}/build_graph", Viewer, build_graph)
        .get("/{app}/build_graph_image", Viewer, build_graph_image)
        .get("/{app}/builder", Viewer, builder)
}

#[derive(Deserialize)]
struct ListAppsQuery {
    #[serde(default)]
    detailed: bool,
}

/// The apps, sorted: the agent profiles, or in folder mode the folder's apps (as ADK lists them);
/// with `detailed=true`, ADK's `ListAppsResponse`.
async fn list_apps(
    State(state): State<AppState>,
    Query(query): Query<ListAppsQuery>,
) -> Result<Json<Value>, DevError> {
    let mut apps: Vec<String> = match &state.services.folder {
        Some(folder) => folder.apps().to_vec(),
        None => state.services.profiles.iter().map(|p| p.name.clone()).collect(),
    };
    apps.sort();
    if !query.detailed {
        return Ok(Json(json!(apps)));
    }
    // One ADK server lists every app of a folder: each server is asked once.
    let mut listed_by: HashMap<String, Value> = HashMap::new();
    let mut detailed = Vec::with_capacity(apps.len());
    for app in &apps {
        let Some(profile) = state.services.profiles.get(app) else {
            continue;
        };
        if let Some(outline) = profile.outline() {
            detailed.push(outline.list_entry());
            continue;
        }
        let base_url = adk_base_url(profile).unwrap_or_default();
        if !listed_by.contains_key(&base_url) {
            let listed = adk_detailed_list(&base_url, &profile.server_headers).await?;
            listed_by.insert(base_url.clone(), listed);
        }
        detailed.extend(adk_list_entry(profile, &listed_by[&base_url]));
    }
    Ok(Json(json!({ "apps": detailed })))
}

/// ADK's `ListAppsResponse` from its server.
async fn adk_detailed_list(base_url: &str, headers: &ServerHeaders) -> Result<Value, DevError> {
    let answer = get_from_server(base_url, headers, "/list-apps?detailed=true")
        .await
        .map_err(|message| bad_gateway(base_url, message))?;
    if answer.status != 200 {
        let message = format!(
            "the ADK server at {base_url} answered /list-apps with {}",
            answer.status
        );
        return Err(bad_gateway(base_url, message));
    }
    serde_json::from_slice(&answer.body).map_err(|e| {
        bad_gateway(
            base_url,
            format!("the ADK server at {base_url} answered /list-apps with no JSON: {e}"),
        )
    })
}

/// A 502 saying what went wrong with the ADK server at `base_url`, which its caller (any viewer)
/// reads: the URL there without userinfo, query or fragment.
fn bad_gateway(base_url: &str, message: String) -> DevError {
    let message = match base_url {
        "" => message,
        _ => message.replace(base_url, &redacted_url(base_url)),
    };
    DevError(StatusCode::BAD_GATEWAY, message)
}

/// An `adk` profile's app as its server listed it, named as the profile.
fn adk_list_entry(profile: &AgentProfile, listed: &Value) -> Option<Value> {
    let app = profile.adk_app.as_deref().unwrap_or(&profile.name);
    let mut entry = listed["apps"]
        .as_array()?
        .iter()
        .find(|entry| entry["name"] == app)?
        .clone();
    entry["name"] = json!(profile.name);
    Some(entry)
}

#[derive(Deserialize)]
struct GraphQuery {
    #[serde(default)]
    dark_mode: bool,
    node: Option<String>,
}

/// ADK's `serialize_app_info` of the app.
async fn build_graph(State(state): State<AppState>, Path(app): Path<String>, uri: OriginalUri) -> DevResult {
    match app_agent(&state, &app)? {
        AppAgent::Outlined(outline) => Ok(Json(outline.app_info()).into_response()),
        AppAgent::OnAdkServer(base_url, headers) => from_adk(&base_url, &headers, &uri).await,
    }
}

/// `{path: {dotSrc}}` for the app's graph: one agent and its tools, so only the root (`""` or
/// the agent's own name) is a node one can open.
async fn build_graph_image(
    State(state): State<AppState>,
    Path(app): Path<String>,
    Query(query): Query<GraphQuery>,
    uri: OriginalUri,
) -> DevResult {
    let outline = match app_agent(&state, &app)? {
        AppAgent::Outlined(outline) => outline,
        AppAgent::OnAdkServer(base_url, headers) => return from_adk(&base_url, &headers, &uri).await,
    };
    if let Some(node) = query.node.filter(|node| !node.is_empty() && *node != app) {
        return Err(DevError(StatusCode::NOT_FOUND, format!("Node not found: {node}")));
    }
    Ok(Json(json!({"": {"dotSrc": outline.dot(query.dark_mode)}})).into_response())
}

/// An agent's YAML file for adk-web's builder. A profile has none, which ADK answers with an
/// empty text, as for a Python agent.
async fn builder(State(state): State<AppState>, Path(app): Path<String>, uri: OriginalUri) -> DevResult {
    match app_agent(&state, &app)? {
        AppAgent::Outlined(_) => Ok("".into_response()),
        AppAgent::OnAdkServer(base_url, headers) => from_adk(&base_url, &headers, &uri).await,
    }
}

/// Who can tell what an app's agent is.
enum AppAgent {
    /// Its profile.
    Outlined(AgentOutline),
    /// Only its ADK server, at this address.
    OnAdkServer(String, ServerHeaders),
}

fn app_agent(state: &AppState, app: &str) -> Result<AppAgent, DevError> {
    let profile = state
        .services
        .profiles
        .get(app)
        .ok_or_else(|| DevError(StatusCode::NOT_FOUND, format!("App not found: {app}")))?;
    Ok(match profile.outline() {
        Some(outline) => AppAgent::Outlined(outline),
        None => AppAgent::OnAdkServer(
            adk_base_url(profile).unwrap_or_default(),
            profile.server_headers.clone(),
        ),
    })
}

fn adk_base_url(profile: &AgentProfile) -> Option<String> {
    profile
        .base_url
        .as_deref()
        .map(|url| url.trim_end_matches('/').to_string())
}

/// The same request, read-only, answered by the app's ADK server: status, body and type as
/// they come.
async fn from_adk(base_url: &str, headers: &ServerHeaders, uri: &OriginalUri) -> DevResult {
    let path = uri.path_and_query().map_or(uri.path(), |p| p.as_str());
    let answer = get_from_server(base_url, headers, path)
        .await
        .map_err(|message| bad_gateway(base_url, message))?;
    let status = StatusCode::from_u16(answer.status).unwrap_or(StatusCode::BAD_GATEWAY);
    let mut response = (status, answer.body).into_response();
    if let Some(value) = answer.content_type.and_then(|v| HeaderValue::from_str(&v).ok()) {
        response.headers_mut().insert(header::CONTENT_TYPE, value);
    }
    Ok(response)
}
