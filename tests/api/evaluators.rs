//! Evaluators users write: a command declared in evalstudio.toml (the documented Python example)
//! and an HTTP endpoint named in the criterion score a run next to the built-in metrics; a
//! command in a request is refused.

use crate::helpers::{assert_error, serve, spawn_app_with_config};
use evalstudio::evalset::to_adk_json;
use reqwest::StatusCode;
use serde_json::{json, Value};

#[tokio::test]
async fn a_configured_command_and_an_http_evaluator_score_the_run() {
    use axum::routing::post;
    // The team's scoring service: reads the actual invocations, keeps what it saw in details.
    let service = axum::Router::new().route(
        "/score",
        post(|axum::Json(request): axum::Json<Value>| async move {
            let turns = request["actual_invocations"].as_array().map_or(0, Vec::len);
            axum::Json(json!({"score": 0.25, "passed": true, "reason": "house style ok", "details": {"turns": turns, "metric": request["metric_name"]}}))
        }),
    );
    let url = format!("{}/score", serve(service).await);
    let example = &format!(
        "{}/examples/evaluators/must_mention.py",
        std::env::var("CARGO_MANIFEST_DIR").expect("cargo test sets CARGO_MANIFEST_DIR")
    );
    let config = format!(
        "[[evaluators]]\nname = \"must_mention\"\ncommand = [\"python3\", \"{example}\"]\ntimeout_secs = 20\n"
    );
    let app = spawn_app_with_config(&config).await;
    let set = crate::common::recorded_eval_set(&[("paris", &["weather in Paris"][..])]).await;
    app.import("demo", to_adk_json(&set)).await;

    let body = json!({"evalMetrics": [
        {"metricName": "mentions", "criterion": {"threshold": 1, "evaluator": "must_mention", "must_mention": ["Paris", "umbrella"]}},
        {"metricName": "house_style", "criterion": {"threshold": 0.9, "url": url}},
        {"metricName": "unknown", "criterion": {"threshold": 1, "evaluator": "db_check"}}
    ]});
    let results = app.run_eval("demo", "regression", &body).await;
    let overall = &results[0]["overall_eval_metric_results"];
    assert_eq!(overall[0]["score"], 0.5, "{overall}");
    assert_eq!(overall[0]["details"]["reason"], "missing: umbrella");
    assert_eq!(overall[0]["eval_status"], 2);
    // `passed` from the evaluator decides, whatever the threshold; its details are kept.
    assert_eq!(overall[1]["score"], 0.25);
    assert_eq!(overall[1]["eval_status"], 1);
    assert_eq!(
        overall[1]["details"]["evidence"],
        json!({"turns": 1, "metric": "house_style"})
    );
    // An evaluator that is not declared is NOT_EVALUATED, saying how to declare it.
    assert_eq!(overall[2]["eval_status"], 3);
    assert!(overall[2]["details"]["reason"]
        .as_str()
        .unwrap()
        .contains("declare it in evalstudio.toml as [[evaluators]] name = \"db_check\""));
    let turn = &results[0]["eval_metric_result_per_invocation"][0]["eval_metric_results"];
    assert_eq!(turn[0]["score"], 0.5, "each turn shows the conversation's score");

    // A command in a request never runs.
    let response = app
        .post_json(
            "/apps/demo/eval_sets/regression/run_eval",
            &json!({"evalMetrics": [{"metricName": "rm", "criterion": {"threshold": 1, "command": ["rm", "-rf", "/"]}}]}),
        )
        .await;
    let error = assert_error(response, StatusCode::BAD_REQUEST).await;
    assert!(error["error"]
        .as_str()
        .unwrap()
        .starts_with("criteria.rm.command: commands run only from evalstudio.toml"));
}
