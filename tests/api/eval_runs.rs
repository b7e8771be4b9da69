//! Running an eval set over REST (`run_eval`), ADK's way: scored, stored and listed results,
//! and the reasons a run request is refused.

use crate::common;
use crate::helpers::{assert_error, spawn_app};
use evalstudio::evalset::to_adk_json;
use reqwest::StatusCode;
use serde_json::{json, Value};

#[tokio::test]
async fn run_eval_scores_stores_and_lists_results_like_adk() {
    let app = spawn_app().await;
    let set = common::recorded_eval_set(&[
        ("paris", &["weather in Paris and 20 EUR in USD"][..]),
        ("order", &["Where is my order A1003?"][..]),
    ])
    .await;
    app.import("demo", to_adk_json(&set)).await;

    let body = json!({"evalIds": [], "numRuns": 2, "evalMetrics": [
        {"metricName": "tool_trajectory_avg_score", "threshold": 1.0},
        {"metricName": "tool_trajectory_f1", "criterion": {"threshold": 0.9}}
    ]});
    let results = app.run_eval("demo", "regression", &body).await;
    assert_eq!(results.len(), 4, "two cases × two runs");
    for result in &results {
        assert_eq!(result["final_eval_status"], 1, "{result}");
        assert_eq!(result["eval_set_id"], "regression");
        assert!(result["session_id"].as_str().unwrap().starts_with("eval-"));
        let names: Vec<&str> = result["overall_eval_metric_results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["metric_name"].as_str().unwrap())
            .collect();
        // ADK appends its informational metrics to every eval.
        assert_eq!(
            names,
            [
                "tool_trajectory_avg_score",
                "tool_trajectory_f1",
                "tool_call_count_v1",
                "inference_call_count_v1",
                "token_usage_v1",
                "invocation_duration_v1"
            ]
        );
        // The runner timed each turn; informational metrics never pass or fail.
        let duration = &result["overall_eval_metric_results"][5];
        assert_eq!(duration["eval_status"], 4, "{duration}");
        assert!(duration["score"].as_f64().unwrap() >= 0.0, "{duration}");
        assert_eq!(duration["threshold"], Value::Null);
        assert!(duration["details"]["duration_details"]["total_seconds"].is_number());
        // The demo agent times its model call, so the framework's share is known too.
        for part in ["model_seconds", "tool_seconds", "framework_seconds"] {
            assert!(
                duration["details"]["duration_details"][part].is_number(),
                "{part}: {duration}"
            );
        }
        // Runs are recorded as ADK's generator records them, so model calls and tokens count.
        let model_calls = &result["overall_eval_metric_results"][3];
        assert_eq!(model_calls["score"], 1.0, "{model_calls}");
        let tokens = &result["overall_eval_metric_results"][4];
        assert_eq!(tokens["eval_status"], 4, "{tokens}");
        assert!(tokens["score"].as_f64().unwrap() > 0.0, "{tokens}");
        assert!(
            tokens["details"]["token_usage_details"]["output_tokens"]
                .as_f64()
                .unwrap()
                > 0.0
        );
        let events = &result["eval_metric_result_per_invocation"][0]["actual_invocation"]
            ["intermediate_data"]["invocation_events"];
        assert!(events.as_array().is_some_and(|e| !e.is_empty()), "{events}");
    }

    let ids: Vec<String> = serde_json::from_value(app.get_json("/apps/demo/eval_results").await).unwrap();
    assert_eq!(ids.len(), 1);
    assert!(ids[0].starts_with("demo_regression_"), "{ids:?}");
    let stored = app.get_json(&format!("/apps/demo/eval_results/{}", ids[0])).await;
    assert_eq!(stored["eval_set_result_id"], ids[0].as_str());
    assert_eq!(stored["status"], "finished");
    assert_eq!(stored["eval_case_results"].as_array().unwrap().len(), 4);
    let summaries = stored["case_summaries"].as_array().unwrap();
    assert_eq!(summaries.len(), 2);
    assert_eq!(summaries[0]["eval_id"], "paris");
    assert_eq!(summaries[0]["passed_runs"], 2);
    assert_eq!(summaries[0]["pass_at_k"], json!([1.0, 1.0]));
    assert_eq!(summaries[0]["pass_hat_k"], json!([1.0, 1.0]));

    // One case only, ADK's 2.x field name.
    let one = json!({"eval_case_ids": ["order"], "eval_metrics": [{"metric_name": "tool_single_use",
        "criterion": {"threshold": 1, "tool_name": "get_order_status"}}]});
    let results = app.run_eval("demo", "regression", &one).await;
    assert_eq!(results.len(), 1);
    assert_eq!(results[0]["eval_id"], "order");
    assert_eq!(
        results[0]["overall_eval_metric_results"][0]["score"], 1.0,
        "{}",
        results[0]
    );

    let metrics = app.get_json("/apps/demo/eval_metrics").await;
    let names: Vec<&str> = metrics
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["metric_name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"response_match_score") && names.contains(&"tool_trajectory_recall"),
        "{names:?}"
    );
    assert_eq!(metrics[0]["metric_value_info"]["interval"]["max_value"], 1.0);
}

#[tokio::test]
async fn run_eval_rejects_bad_requests_with_the_reason() {
    let app = spawn_app().await;
    let set = common::recorded_eval_set(&[("hi", &["hello"])]).await;
    app.import("demo", to_adk_json(&set)).await;
    let url = app.url("/apps/demo/eval_sets/regression/run_eval");
    // The reason a run request is refused with 400.
    let refused = |body: Value| {
        let request = app.http.post(&url).json(&body).send();
        async move {
            let error = assert_error(request.await.unwrap(), StatusCode::BAD_REQUEST).await;
            error["error"].as_str().unwrap().to_string()
        }
    };

    assert_eq!(
        refused(json!({"evalIds": ["nope"]})).await,
        "eval case `nope` is not in eval set `regression`"
    );
    let error = refused(json!({"evalMetrics": [{"metricName": "bleu", "threshold": 1}]})).await;
    assert!(error.contains("criteria.bleu: unknown metric `bleu`"), "{error}");
    assert_eq!(
        refused(json!({"evalMetrics": [{"metricName": "response_match_score"}]})).await,
        "eval_metrics[0].threshold: missing"
    );
    assert_eq!(
        refused(json!({"evalMetrics": [{"metricName": "tool_trajectory_avg_score", "threshold": 5}]})).await,
        "tool_trajectory_avg_score threshold: 5 is outside the metric's scores (0–1); pick a threshold from 0 to 1"
    );
    let error = refused(json!({"agent": "ghost"})).await;
    assert!(error.contains("no agent profile is named `ghost`"), "{error}");
    assert_error(
        app.post_json("/apps/demo/eval_sets/missing/run_eval", &json!({}))
            .await,
        StatusCode::NOT_FOUND,
    )
    .await;
    assert_error(
        app.get("/apps/demo/eval_results/nope").await,
        StatusCode::NOT_FOUND,
    )
    .await;
    // Nothing was recorded by the rejected requests.
    assert_eq!(app.get_json("/apps/demo/eval_results").await, json!([]));
}

#[tokio::test]
async fn a_run_takes_a_label_at_start_and_is_renamed_later() {
    let app = spawn_app().await;
    let set = common::recorded_eval_set(&[("hi", &["hello"])]).await;
    app.import("demo", to_adk_json(&set)).await;
    app.run_eval("demo", "regression", &json!({"label": "  baseline  "}))
        .await;
    let ids = app.get_json("/apps/demo/eval_results").await;
    let id = ids[0].as_str().unwrap().to_string();
    let path = format!("/apps/demo/eval_results/{id}");
    assert_eq!(app.get_json(&path).await["label"], "baseline", "trimmed");

    let renamed = app
        .http
        .patch(app.url(&path))
        .json(&json!({"label": "first try"}))
        .send()
        .await
        .unwrap();
    assert_eq!(renamed.status(), StatusCode::OK);
    assert_eq!(app.get_json(&path).await["label"], "first try");
    let cleared = app
        .http
        .patch(app.url(&path))
        .json(&json!({"label": ""}))
        .send()
        .await
        .unwrap();
    assert_eq!(cleared.json::<Value>().await.unwrap(), json!({"label": null}));

    let too_long = app
        .http
        .patch(app.url(&path))
        .json(&json!({"label": "x".repeat(101)}))
        .send()
        .await
        .unwrap();
    let error = assert_error(too_long, StatusCode::BAD_REQUEST).await;
    assert_eq!(error["error"], "label: at most 100 characters, found 101");
    let missing = app
        .http
        .patch(app.url("/apps/demo/eval_results/nope"))
        .json(&json!({"label": "x"}))
        .send()
        .await
        .unwrap();
    assert_error(missing, StatusCode::NOT_FOUND).await;
}
