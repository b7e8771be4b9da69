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
mod otlp;
mod run;
mod sessions;
mod trace_sessions;

pub use body::BodyLimit;
pub use error::ApiError;

use crate::api::access::Routes;

/// Every REST route, each with its role: `/apps` (Evalstudio's API, in ADK 1.x's paths),
/// `/dev/apps` (google-adk 2.13's evaluation routes), `/run`, `/run_sse`, `/list-apps` at the
/// root as ADK has them, and OTLP's `/v1/traces` (with `/v1/logs`, `/v1/metrics`).
pub fn routes() -> Routes {
    Routes::new()
        .nest("/apps", app_routes(), || async {
            ApiError::not_found("no such API route")
        })
        .nest("/dev/apps", adk_dev::routes(), adk_dev::not_found)
        .merge(run::routes())
        .merge(adk_apps::list_apps_route())
        .merge(otlp::routes())
}

fn app_routes() -> Routes {
    Routes::new()
        .merge(eval_sets::routes())
        .merge(cases::routes())
        .merge(sessions::routes())
        .merge(add_session::routes())
        .merge(eval_runs::routes())
        .merge(trace_sessions::routes())
}
