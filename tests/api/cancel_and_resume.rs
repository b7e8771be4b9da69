//! Runs started in the background (`"wait": false`) that stop part way, on a failed write or a
//! cancel, and resume where they stopped (`/apps/{app}/eval_results/{id}/cancel` and `/resume`).

use crate::common;
use crate::helpers::{assert_error, spawn_app_with_config, TestApp, SLOW_MODEL_LATENCY};
use crate::ok_eval_set::ok_eval_set;
use crate::wait::wait_until;
use reqwest::StatusCode;
use serde_json::Value;

/// An app whose `slow` agent answers "ok" after `SLOW_MODEL_LATENCY`, with the three-case eval
/// set `three` imported (each case expects "ok", which it gets); and the count of requests its
/// model received.
async fn app_with_three_slow_cases() -> (TestApp, common::fake_openai::Server) {
    let (base_url, model_requests) = common::spawn_slow_model("ok", SLOW_MODEL_LATENCY).await;
    let app = spawn_app_with_config(&common::slow_profile(&base_url)).await;
    app.import("slow", ok_eval_set("three", 3).to_string()).await;
    (app, model_requests)
}

/// Starts a run of `three` in the background; returns its result id.
async fn start_three(app: &TestApp) -> String {
    app.start_run("slow", "three").await
}

/// Waits until the stored run `id` has `status`; returns the run.
async fn wait_for_status(app: &TestApp, id: &str, status: &str) -> Value {
    let path = format!("/apps/slow/eval_results/{id}");
    wait_until(&format!("run {id} became {status}"), || async {
        let result = app.get_json(&path).await;
        (result["status"] == status).then_some(result)
    })
    .await
}

/// A run of `three` started while every case write fails, as on a full disk, and interrupted by
/// it; the app and the run's id.
async fn interrupted_run() -> (TestApp, String) {
    let (app, _) = app_with_three_slow_cases().await;
    // Behind the app's back, every case write now fails, as on a full disk.
    app.execute_sql(
        "CREATE TRIGGER refuse_case_writes BEFORE INSERT ON eval_run_cases \
         BEGIN SELECT RAISE(FAIL, 'disk is full'); END",
        "CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS \
         $$ BEGIN RAISE EXCEPTION 'disk is full'; END $$; \
         CREATE TRIGGER refuse_case_writes BEFORE INSERT ON eval_run_cases \
         FOR EACH ROW EXECUTE FUNCTION refuse()",
    )
    .await;
    let id = start_three(&app).await;
    wait_for_status(&app, &id, "interrupted").await;
    (app, id)
}

#[tokio::test]
async fn a_failed_write_interrupts_the_run() {
    let (app, id) = interrupted_run().await;
    let result = app.get_json(&format!("/apps/slow/eval_results/{id}")).await;
    assert_eq!(result["status"], "interrupted", "{result}");
    assert_eq!(result["eval_case_results"].as_array().unwrap().len(), 0);
}

#[tokio::test]
async fn an_interrupted_run_resumes_once_the_store_is_writable() {
    let (app, id) = interrupted_run().await;
    app.execute_sql(
        "DROP TRIGGER refuse_case_writes",
        "DROP TRIGGER refuse_case_writes ON eval_run_cases",
    )
    .await;
    assert_eq!(
        app.post(&format!("/apps/slow/eval_results/{id}/resume"), "")
            .await
            .status(),
        StatusCode::ACCEPTED
    );
    // Its cases wait on the slow model, so the resumed run cannot have finished yet.
    assert_eq!(
        app.get_json(&format!("/apps/slow/eval_results/{id}")).await["status"],
        "running"
    );
    let result = wait_for_status(&app, &id, "finished").await;
    assert_eq!(result["status"], "finished", "{result}");
    assert_eq!(common::case_statuses(&result), [1, 1, 1]);
}

#[tokio::test]
async fn a_running_eval_cannot_be_resumed() {
    let (app, _) = app_with_three_slow_cases().await;
    let id = start_three(&app).await;
    // Its cases wait on the slow model, so the run cannot have finished yet.
    let running = app.get_json(&format!("/apps/slow/eval_results/{id}")).await;
    assert_eq!(running["status"], "running");
    let error = assert_error(
        app.post(&format!("/apps/slow/eval_results/{id}/resume"), "")
            .await,
        StatusCode::CONFLICT,
    )
    .await;
    assert!(error["error"].as_str().unwrap().contains("is running"), "{error}");
}

/// A run of `three` cancelled while the model is still answering every case; the app and the
/// run's id.
async fn cancelled_run() -> (TestApp, String) {
    let (app, model_requests) = app_with_three_slow_cases().await;
    let id = start_three(&app).await;
    wait_until("the model was asked for all three cases", || async {
        (model_requests.request_count() >= 3).then_some(())
    })
    .await;
    assert_eq!(
        app.post(&format!("/apps/slow/eval_results/{id}/cancel"), "")
            .await
            .status(),
        StatusCode::ACCEPTED
    );
    wait_for_status(&app, &id, "cancelled").await;
    (app, id)
}

#[tokio::test]
async fn a_running_eval_can_be_cancelled() {
    let (app, id) = cancelled_run().await;
    let result = app.get_json(&format!("/apps/slow/eval_results/{id}")).await;
    assert_eq!(result["status"], "cancelled");
    // Cancelled while the model is still answering every case, so none can be stored.
    assert!(result["eval_case_results"].as_array().unwrap().len() < 3);
}

#[tokio::test]
async fn a_cancelled_run_resumes_to_the_end() {
    let (app, id) = cancelled_run().await;
    assert_eq!(
        app.post(&format!("/apps/slow/eval_results/{id}/resume"), "")
            .await
            .status(),
        StatusCode::ACCEPTED
    );
    let result = wait_for_status(&app, &id, "finished").await;
    assert_eq!(result["status"], "finished");
    assert_eq!(common::case_statuses(&result), [1, 1, 1]);
}
