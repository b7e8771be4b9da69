//! Evaluators users write: a command and an HTTP endpoint declared in evalstudio.toml (the
//! documented Python example) score a run next to the built-in metrics; a command or a url in a
//! request is refused, and a declared endpoint cannot send the server elsewhere or answer
//! without bound.

use crate::helpers::{assert_error, serve, spawn_app_with_config};
use evalstudio::evalset::to_adk_json;
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

#[tokio::test]
async fn a_configured_command_and_an_http_evaluator_score_the_run() {
    use axum::routing::post;
    // The team's scoring service: reads the actual invocations, keeps what it saw in details.
    let service = axum::Router::new().route(
        "/score",
        post(|headers: axum::http::HeaderMap, axum::Json(request): axum::Json<Value>| async move {
            let turns = request["actual_invocations"].as_array().map_or(0, Vec::len);
            let auth = headers.get("authorization").and_then(|v| v.to_str().ok()).map(str::to_string);
            axum::Json(json!({"score": 0.25, "passed": true, "reason": "house style ok", "details": {"turns": turns, "metric": request["metric_name"], "auth": auth}}))
        }),
    );
    let url = format!("{}/score", serve(service).await);
    let example = &format!(
        "{}/examples/evaluators/must_mention.py",
        std::env::var("CARGO_MANIFEST_DIR").expect("cargo test sets CARGO_MANIFEST_DIR")
    );
    let config = format!(
        "[[evaluators]]\nname = \"must_mention\"\ncommand = [\"python3\", \"{example}\"]\ntimeout_secs = 20\n\
         [[evaluators]]\nname = \"house\"\nurl = \"{url}\"\nheaders = {{ Authorization = \"Bearer team\" }}\n"
    );
    let app = spawn_app_with_config(&config).await;
    let set = crate::common::recorded_eval_set(&[("paris", &["weather in Paris"][..])]).await;
    app.import("demo", to_adk_json(&set)).await;

    let body = json!({"evalMetrics": [
        {"metricName": "mentions", "criterion": {"threshold": 1, "evaluator": "must_mention", "must_mention": ["Paris", "umbrella"]}},
        {"metricName": "house_style", "criterion": {"threshold": 0.9, "evaluator": "house"}},
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
        json!({"turns": 1, "metric": "house_style", "auth": "Bearer team"})
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

/// A service counting the requests it gets, whatever they are.
async fn counting_service() -> (String, Arc<AtomicUsize>) {
    let count = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&count);
    let service = axum::Router::new().fallback(move || {
        seen.fetch_add(1, Ordering::SeqCst);
        async { axum::Json(json!({"score": 1})) }
    });
    (serve(service).await, count)
}

#[tokio::test]
async fn a_url_in_a_run_request_is_refused_and_never_called() {
    let (url, count) = counting_service().await;
    let app = crate::helpers::spawn_app().await;
    let set = crate::common::recorded_eval_set(&[("paris", &["weather in Paris"][..])]).await;
    app.import("demo", to_adk_json(&set)).await;
    let response = app
        .post_json(
            "/apps/demo/eval_sets/regression/run_eval",
            &json!({"evalMetrics": [{"metricName": "peek", "criterion": {"threshold": 1, "url": format!("{url}/latest/meta-data")}}]}),
        )
        .await;
    let error = assert_error(response, StatusCode::BAD_REQUEST).await;
    assert_eq!(
        error["error"],
        "the criterion of `peek` names a url: a server calls only the evaluators its evalstudio.toml declares: declare [[evaluators]] with a name and this url there, then use {\"evaluator\": \"<name>\"} in the criterion"
    );
    assert_eq!(count.load(Ordering::SeqCst), 0, "nothing was sent");
    assert!(
        app.get_json("/apps/demo/eval_results")
            .await
            .as_array()
            .unwrap()
            .is_empty(),
        "no run stored"
    );
}

#[tokio::test]
async fn a_declared_evaluator_cannot_redirect_the_server_or_answer_without_bound() {
    use axum::routing::post;
    let (elsewhere, count) = counting_service().await;
    let target = format!("{elsewhere}/latest/meta-data");
    let service = axum::Router::new()
        .route(
            "/moved",
            post(move || async move { axum::response::Redirect::temporary(&target) }),
        )
        .route("/huge", post(|| async { "x".repeat(2 << 20) }));
    let base = serve(service).await;
    let config = format!(
        "[[evaluators]]\nname = \"moved\"\nurl = \"{base}/moved\"\nretries = 0\n\
         [[evaluators]]\nname = \"huge\"\nurl = \"{base}/huge\"\nretries = 0\n"
    );
    let app = spawn_app_with_config(&config).await;
    let set = crate::common::recorded_eval_set(&[("paris", &["weather in Paris"][..])]).await;
    app.import("demo", to_adk_json(&set)).await;
    let body = json!({"evalMetrics": [
        {"metricName": "moved", "criterion": {"threshold": 1, "evaluator": "moved"}},
        {"metricName": "huge", "criterion": {"threshold": 1, "evaluator": "huge"}}
    ]});
    let results = app.run_eval("demo", "regression", &body).await;
    let overall = &results[0]["overall_eval_metric_results"];
    let reason = |i: usize| overall[i]["details"]["reason"].as_str().unwrap().to_string();
    assert_eq!(overall[0]["eval_status"], 3, "{overall}");
    assert!(
        reason(0).contains("a redirect off its own address, which is not followed"),
        "{}",
        reason(0)
    );
    assert_eq!(
        count.load(Ordering::SeqCst),
        0,
        "the redirect's target got nothing"
    );
    assert_eq!(overall[1]["eval_status"], 3);
    assert!(reason(1).ends_with("answered more than 1 MiB"), "{}", reason(1));
}
