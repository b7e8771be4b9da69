//! Running an eval set over REST (`run_eval`), ADK's way: scored, stored and listed results,
//! and the reasons a run request is refused.

use crate::common;
use crate::helpers::{assert_error, spawn_app, TestApp};
use evalstudio::evalset::to_adk_json;
use reqwest::StatusCode;
use serde_json::{json, Value};

/// An app with the recorded evalset `regression`: the cases `paris` and `order`.
async fn two_recorded_cases() -> TestApp {
    let app = spawn_app().await;
    let set = common::recorded_eval_set(&[
        ("paris", &["weather in Paris and 20 EUR in USD"][..]),
        ("order", &["Where is my order A1003?"][..]),
    ])
    .await;
    app.import("demo", to_adk_json(&set)).await;
    app
}

/// Both cases run twice, scored by trajectory (ADK's camelCase keys).
async fn run_twice(app: &TestApp) -> Vec<Value> {
    let body = json!({"evalIds": [], "numRuns": 2, "evalMetrics": [
        {"metricName": "tool_trajectory_avg_score", "threshold": 1.0},
        {"metricName": "tool_trajectory_f1", "criterion": {"threshold": 0.9}}
    ]});
    app.run_eval("demo", "regression", &body).await
}

#[tokio::test]
async fn run_eval_answers_a_passed_result_per_case_and_run_in_its_own_eval_session() {
    let app = two_recorded_cases().await;
    let results = run_twice(&app).await;
    assert_eq!(results.len(), 4, "two cases × two runs");
    for result in &results {
        assert_eq!(result["final_eval_status"], 1, "{result}");
        assert_eq!(result["eval_set_id"], "regression");
        assert!(result["session_id"].as_str().unwrap().starts_with("eval-"));
        let events = &result["eval_metric_result_per_invocation"][0]["actual_invocation"]
            ["intermediate_data"]["invocation_events"];
        assert!(events.as_array().is_some_and(|e| !e.is_empty()), "{events}");
    }
}

#[tokio::test]
async fn adks_informational_metrics_follow_the_asked_ones() {
    let app = two_recorded_cases().await;
    for result in run_twice(&app).await {
        let names: Vec<&str> = result["overall_eval_metric_results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["metric_name"].as_str().unwrap())
            .collect();
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
    }
}

#[tokio::test]
async fn each_turn_is_timed_with_the_model_tool_and_framework_shares_never_passing_or_failing() {
    let app = two_recorded_cases().await;
    for result in run_twice(&app).await {
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
    }
}

#[tokio::test]
async fn model_calls_and_tokens_are_counted_as_adks_generator_records_them() {
    let app = two_recorded_cases().await;
    for result in run_twice(&app).await {
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
    }
}

#[tokio::test]
async fn a_run_is_stored_under_adks_id_with_each_cases_pass_at_k() {
    let app = two_recorded_cases().await;
    run_twice(&app).await;
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
}

#[tokio::test]
async fn one_case_runs_alone_asked_with_adk_2s_field_names() {
    let app = two_recorded_cases().await;
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
}

#[tokio::test]
async fn eval_metrics_lists_what_this_server_scores_with_their_ranges() {
    let app = spawn_app().await;
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
async fn a_run_request_that_cannot_run_is_a_400_with_the_reason_and_records_nothing() {
    let app = spawn_app().await;
    let set = common::recorded_eval_set(&[("hi", &["hello"])]).await;
    app.import("demo", to_adk_json(&set)).await;
    // The whole reason, or (where it goes on to list what would do) how it starts.
    let refusals = [
        (json!({"evalIds": ["nope"]}), "eval case `nope` is not in eval set `regression`", true),
        (
            json!({"evalMetrics": [{"metricName": "bleu", "threshold": 1}]}),
            "criteria.bleu: unknown metric `bleu`",
            false,
        ),
        (
            json!({"evalMetrics": [{"metricName": "response_match_score"}]}),
            "eval_metrics[0].threshold: missing",
            true,
        ),
        (
            json!({"evalMetrics": [{"metricName": "tool_trajectory_avg_score", "threshold": 5}]}),
            "tool_trajectory_avg_score threshold: 5 is outside the metric's scores (0–1); pick a threshold from 0 to 1",
            true,
        ),
        (json!({"agent": "ghost"}), "no agent profile is named `ghost`", false),
    ];
    for (body, reason, whole) in refusals {
        let response = app
            .post_json("/apps/demo/eval_sets/regression/run_eval", &body)
            .await;
        let error = assert_error(response, StatusCode::BAD_REQUEST).await;
        let said = error["error"].as_str().unwrap();
        if whole {
            assert_eq!(said, reason, "{body}");
        } else {
            assert!(said.contains(reason), "{body}: {said}");
        }
    }
    assert_eq!(app.get_json("/apps/demo/eval_results").await, json!([]));
}

#[tokio::test]
async fn a_run_of_a_missing_eval_set_and_a_missing_result_are_404s() {
    let app = spawn_app().await;
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
