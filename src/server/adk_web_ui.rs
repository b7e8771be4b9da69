//! ADK's own web UI (adk-web, bundled in google-adk's wheel as `google/adk/cli/browser`) served
//! at `/dev-ui/` from the user's install, as `adk web` serves it, with a runtime config naming
//! this server as its backend. Never copied into this repository, never downloaded: the folder
//! comes from `--adk-web-ui DIR` or, in folder mode, from the `adk` environment.

use crate::access::Role::Viewer;
use crate::api::access::Routes;
use axum::response::Redirect;
use axum::Json;
use serde_json::json;
use std::path::{Path, PathBuf};
use tower_http::services::{ServeDir, ServeFile};

/// adk-web's folder in the Python environment of `adk` (`<venv>/bin/adk` →
/// `<venv>/lib/python3.*/site-packages/google/adk/cli/browser`), if it has one.
pub fn find_in_adk_environment(adk: &Path) -> Option<PathBuf> {
    let venv = adk.canonicalize().ok()?.parent()?.parent()?.to_path_buf();
    std::fs::read_dir(venv.join("lib"))
        .ok()?
        .flatten()
        .map(|python| python.path().join("site-packages/google/adk/cli/browser"))
        .find(|browser| browser.join("index.html").is_file())
}

/// `/dev-ui/` and what adk-web asks of its server besides the API: a viewer's.
pub fn routes(dir: &Path) -> Routes {
    // adk-web routes in the browser: any path it does not have a file for is its page.
    let files = ServeDir::new(dir).fallback(ServeFile::new(dir.join("index.html")));
    Routes::new()
        // The same origin answers its API: an empty backendUrl. No telemetry.
        .get("/dev-ui/assets/config/runtime-config.json", Viewer, || async {
            Json(json!({"backendUrl": "", "telemetry": false}))
        })
        .get("/config/telemetry", Viewer, || async {
            Json(json!({"telemetry": false}))
        })
        .get("/dev-ui", Viewer, || async { Redirect::permanent("/dev-ui/") })
        .nest_service("/dev-ui/", Viewer, files)
}
