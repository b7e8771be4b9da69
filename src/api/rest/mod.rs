//! The JSON REST API for scripts and tools, shaped like ADK's web server (1.x paths). Handlers
//! only adapt: a typed body in ([`body`]), a service call, a typed answer or an [`ApiError`]
//! (`{"error", "detail"}` with 400, 404, 409 or 413) out.

mod add_session;
mod adk_apps;
mod adk_dev;
mod adk_events;
mod body;
mod cases;
mod error;
mod eval_runs;
mod eval_sets;
mod run;
mod sessions;

pub use body::BodyLimit;
pub use error::ApiError;

use super::AppState;
use axum::Router;

/// Everything under `/apps`.
pub fn app_routes() -> Router<AppState> {
    Router::new()
        .merge(eval_sets::routes())
        .merge(cases::routes())
        .merge(sessions::routes())
        .merge(add_session::routes())
        .merge(eval_runs::routes())
        .fallback(|| async { ApiError::not_found("no such API route") })
}

/// `/run` and `/run_sse`, at the root as ADK has them, and ADK 2.13's `/list-apps`.
pub fn run_routes() -> Router<AppState> {
    run::routes().merge(adk_apps::list_apps_route())
}

/// google-adk 2.13's evaluation routes, for `/dev/apps`.
pub fn dev_routes() -> Router<AppState> {
    adk_dev::routes()
}
