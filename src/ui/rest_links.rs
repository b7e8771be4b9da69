//! The REST URLs the pages point the browser at, for what a server function cannot serve: a
//! file download (a link) and a run's progress (an `EventSource`). Everything else the pages
//! read goes through server functions; tests/architecture.rs holds REST paths to this file.

use super::encode_query_value;

/// The eval set as ADK's `.evalset.json`, downloaded.
pub fn eval_set_export(app: &str, eval_set_id: &str) -> String {
    format!("/apps/{app}/eval_sets/{eval_set_id}/export")
}

/// A run as ADK's EvalSetResult file (or JUnit XML with `?format=junit`), downloaded.
pub fn run_export(app: &str, result_id: &str) -> String {
    format!(
        "/apps/{app}/eval_results/{}/export",
        encode_query_value(result_id)
    )
}

/// A run's progress as server-sent events.
pub fn run_progress(app: &str, result_id: &str) -> String {
    format!(
        "/apps/{app}/eval_results/{}/progress",
        encode_query_value(result_id)
    )
}

/// Folder mode: an evalset's file changed on disk, as server-sent events.
pub fn eval_set_changes(app: &str, eval_set_id: &str) -> String {
    format!("/apps/{app}/eval_sets/{eval_set_id}/changes")
}
