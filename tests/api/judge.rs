//! Judged metrics (relevancy, answer correctness): scored by the `[judge]` model of the config,
//! keeping what it said as evidence.

use crate::common;
use crate::helpers::{serve, spawn_app, spawn_app_with_config};
use evalstudio::evalset::to_adk_json;
use serde_json::{json, Value};

#[tokio::test]
async fn judged_metrics_use_the_configured_judge_and_keep_its_evidence() {
    use axum::routing::post;
    // A judge that answers YES to relevancy prompts and rambles (no verdict) otherwise.
    let judge = axum::Router::new().route(
        "/v1/chat/completions",
        post(|axum::Json(body): axum::Json<Value>| async move {
            let prompt = body["messages"][0]["content"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            let reply = if prompt.contains("Paris") && !prompt.contains("reference") {
                "**YES**"
            } else {
                "I would rather not say."
            };
            axum::Json(
                json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": reply},
                "finish_reason": "stop"}]}),
            )
        }),
    );
    let base_url = format!("{}/v1", serve(judge).await);
    let config = format!("[judge]\nbase_url = \"{base_url}\"\nmodel = \"judge-model\"\n");
    let app = spawn_app_with_config(&config).await;
    let set = common::recorded_eval_set(&[("paris", &["weather in Paris"][..])]).await;
    app.import("demo", to_adk_json(&set)).await;

    let body = json!({"evalMetrics": [
        {"metricName": "relevancy", "threshold": 1.0},
        {"metricName": "answer_correctness", "threshold": 1.0}
    ]});
    let results = app.run_eval("demo", "regression", &body).await;
    let metrics = &results[0]["eval_metric_result_per_invocation"][0]["eval_metric_results"];
    assert_eq!(metrics[0]["score"], 1.0, "{metrics}");
    assert!(
        metrics[0]["details"]["evidence"].to_string().contains("**YES**"),
        "{metrics}"
    );
    // An answer with no verdict is not a silent 0: NOT_EVALUATED, with why and what was said.
    assert_eq!(metrics[1]["score"], Value::Null, "{metrics}");
    assert_eq!(metrics[1]["eval_status"], 3);
    assert!(
        metrics[1]["details"]["reason"].as_str().unwrap().len() > 10,
        "{metrics}"
    );
    assert!(
        metrics[1]["details"]["evidence"]
            .to_string()
            .contains("I would rather not say."),
        "{metrics}"
    );
    assert_eq!(
        results[0]["final_eval_status"], 1,
        "relevancy passed, correctness not evaluated"
    );

    // Without a [judge] table the metric says what to configure.
    let app = spawn_app().await;
    app.import("demo", to_adk_json(&set)).await;
    let results = app
        .run_eval(
            "demo",
            "regression",
            &json!({"evalMetrics": [{"metricName": "relevancy", "threshold": 1.0}]}),
        )
        .await;
    let reason =
        &results[0]["eval_metric_result_per_invocation"][0]["eval_metric_results"][0]["details"]["reason"];
    assert!(reason.as_str().unwrap().contains("[judge]"), "{reason}");
}

#[tokio::test]
async fn g_eval_from_a_run_request_writes_its_steps_once_and_keeps_them() {
    use crate::common::fake_openai::{Reply, Server};
    let judge = Server::start_with(
        vec![Reply::completion(
            r#"{"steps": ["Does it name the city?", "Is the weather stated?"]}"#,
        )],
        Some(Reply::completion(
            r#"{"score": 10, "reason": "Names Paris and the sky."}"#,
        )),
    )
    .await;
    let config = format!(
        "[judge]\nbase_url = \"{}\"\nmodel = \"judge-model\"\n",
        judge.base_url
    );
    let app = spawn_app_with_config(&config).await;
    let set = common::recorded_eval_set(&[
        ("paris", &["weather in Paris"][..]),
        ("rome", &["weather in Rome"][..]),
    ])
    .await;
    app.import("demo", to_adk_json(&set)).await;

    let body = json!({"evalMetrics": [{"metricName": "weather_answer", "criterion": {
        "threshold": 0.8, "criteria": "The answer gives the weather of the city asked about.",
        "evaluation_params": ["input", "actual_output", "tool_calls"]
    }}]});
    let results = app.run_eval("demo", "regression", &body).await;
    for result in &results {
        let metric = &result["eval_metric_result_per_invocation"][0]["eval_metric_results"][0];
        assert_eq!(metric["score"], 1.0, "{metric}");
        assert_eq!(
            metric["details"]["evidence"]["steps"],
            json!(["Does it name the city?", "Is the weather stated?"])
        );
    }
    // One steps request for both cases, then one scoring request per case.
    let prompts: Vec<String> = judge
        .bodies()
        .iter()
        .map(|b| b["messages"][0]["content"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(prompts.len(), 3, "{prompts:?}");
    assert_eq!(
        prompts
            .iter()
            .filter(|p| p.contains("Write 3 or 4 short evaluation steps"))
            .count(),
        1
    );
    assert!(
        prompts
            .iter()
            .any(|p| p.contains("Tool Calls:\n") && p.contains("get_weather")),
        "{prompts:?}"
    );
}
