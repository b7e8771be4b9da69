//! A run exported as ADK's EvalSetResult file and as JUnit XML; and the case list's statuses
//! from the latest run, with its failed filter.

use crate::common;
use crate::helpers::{assert_error, spawn_app, TestApp};
use evalstudio::evalset::to_adk_json;
use reqwest::{header, StatusCode};
use serde_json::{json, Value};

/// Scored by the trajectory alone.
fn trajectory_run() -> Value {
    json!({"evalMetrics": [{"metricName": "tool_trajectory_avg_score", "threshold": 1.0}]})
}

/// An app whose evalset `regression` was run once: `paris` passed, `order` (its expected
/// order id broken) failed. The run's id.
async fn one_passed_one_failed() -> (TestApp, String) {
    let app = spawn_app().await;
    let mut set = common::recorded_eval_set(&[
        ("paris", &["weather in Paris and 20 EUR in USD"][..]),
        ("order", &["Where is my order A1003?"][..]),
    ])
    .await;
    let order = &mut set.eval_cases[1].conversation.as_mut().unwrap()[0];
    let calls = &mut order.intermediate_data.as_mut().unwrap().tool_uses;
    calls[0]
        .args
        .as_mut()
        .unwrap()
        .insert("order_id".into(), json!("Z9999"));
    app.import("demo", to_adk_json(&set)).await;
    let response = app
        .post_json("/apps/demo/eval_sets/regression/run_eval", &trajectory_run())
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    let ids: Vec<String> = serde_json::from_value(app.get_json("/apps/demo/eval_results").await).unwrap();
    (app, ids[0].clone())
}

#[tokio::test]
async fn a_run_exports_as_adks_result_file_with_adks_keys_and_name() {
    let (app, id) = one_passed_one_failed().await;
    let adk = app.get(&format!("/apps/demo/eval_results/{id}/export")).await;
    assert_eq!(adk.status(), StatusCode::OK);
    let disposition = adk.headers()[header::CONTENT_DISPOSITION]
        .to_str()
        .unwrap()
        .to_string();
    assert_eq!(
        disposition,
        format!("attachment; filename=\"{id}.evalset_result.json\"")
    );
    let file: Value = adk.json().await.unwrap();
    let keys: Vec<&str> = file.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "eval_set_result_id",
            "eval_set_result_name",
            "eval_set_id",
            "eval_case_results",
            "creation_timestamp"
        ]
    );
    assert_eq!(file["eval_set_result_id"], id.as_str());
    let statuses: Vec<(&str, i64)> = file["eval_case_results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["eval_id"].as_str().unwrap(),
                r["final_eval_status"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(statuses, [("paris", 1), ("order", 2)]);
}

#[tokio::test]
async fn a_run_exports_as_junit_with_the_failed_case_failing() {
    let (app, id) = one_passed_one_failed().await;
    let junit = app
        .get(&format!("/apps/demo/eval_results/{id}/export?format=junit"))
        .await;
    assert_eq!(junit.status(), StatusCode::OK);
    let xml = junit.text().await.unwrap();
    assert!(xml.starts_with("<?xml"), "{xml}");
    assert!(
        xml.contains(r#"<testsuite name="regression" tests="2" failures="1" errors="0">"#),
        "{xml}"
    );
    assert!(
        xml.contains(r#"<testcase classname="regression" name="order"><failure"#),
        "{xml}"
    );
}

#[tokio::test]
async fn an_unknown_export_format_is_a_400_and_an_unknown_run_a_404() {
    let (app, id) = one_passed_one_failed().await;
    assert_error(
        app.get(&format!("/apps/demo/eval_results/{id}/export?format=csv"))
            .await,
        StatusCode::BAD_REQUEST,
    )
    .await;
    assert_error(
        app.get("/apps/demo/eval_results/nope/export").await,
        StatusCode::NOT_FOUND,
    )
    .await;
}

#[tokio::test]
async fn the_case_list_shows_the_latest_runs_outcome_and_keeps_only_the_failed_on_request() {
    let (app, id) = one_passed_one_failed().await;
    let page = app.get_json("/apps/demo/eval_sets/regression/cases").await;
    assert_eq!(page["last_run"]["result_id"], id.as_str());
    let outcome =
        |page: &Value, i: usize| page["cases"][i]["last_result"]["summary"]["final_eval_status"].clone();
    assert_eq!((outcome(&page, 0), outcome(&page, 1)), (json!(1), json!(2)));
    let failed = app
        .get_json("/apps/demo/eval_sets/regression/cases?failed=1")
        .await;
    assert_eq!(failed["total_cases"], 1);
    assert_eq!(failed["cases"][0]["eval_id"], "order");
}

#[tokio::test]
async fn a_fixed_case_run_again_compares_as_improved_against_the_first_run() {
    let (app, first) = one_passed_one_failed().await;
    let mut order = app.get_json("/apps/demo/eval_sets/regression/evals/order").await;
    order["conversation"][0]["intermediate_data"]["tool_uses"][0]["args"]["order_id"] = json!("A1003");
    let response = app
        .put_json("/apps/demo/eval_sets/regression/evals/order", &order)
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    let response = app
        .post_json("/apps/demo/eval_sets/regression/run_eval", &trajectory_run())
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    let runs = app.get_json("/apps/demo/eval_results").await;
    let newer = runs
        .as_array()
        .unwrap()
        .iter()
        .map(|id| id.as_str().unwrap())
        .find(|id| *id != first)
        .unwrap()
        .to_string();
    let compare = format!("/apps/demo/eval_results/{newer}/compare/{first}");
    let compared = app.get_json(&compare).await;
    // Counts per change: regressed, improved, still failing, still passing, added, removed.
    assert_eq!(compared["counts"], json!([0, 1, 0, 1, 0, 0]));
    let improved = app.get_json(&format!("{compare}?change=improved")).await;
    assert_eq!(improved["cases"].as_array().unwrap().len(), 1);
    assert_eq!(improved["cases"][0]["eval_id"], "order");
    assert_error(
        app.get(&format!("{compare}?change=worse")).await,
        StatusCode::BAD_REQUEST,
    )
    .await;
}

/// The events of a finished SSE body: (event, id, data).
fn sse_events(body: &str) -> Vec<(String, Option<String>, Value)> {
    body.split("\n\n")
        .filter(|block| !block.trim().is_empty() && !block.starts_with(':'))
        .map(|block| {
            let field = |name: &str| {
                block
                    .lines()
                    .find_map(|line| line.strip_prefix(&format!("{name}:")))
                    .map(|v| v.trim().to_string())
            };
            let data = field("data")
                .map(|d| serde_json::from_str(&d).unwrap())
                .unwrap_or(Value::Null);
            (field("event").unwrap_or_default(), field("id"), data)
        })
        .collect()
}

#[tokio::test]
async fn a_runs_progress_streams_in_order_a_page_at_a_time_and_resumes() {
    let app = spawn_app().await;
    let questions: Vec<String> = (0..60)
        .map(|i| format!("Where is my order A{:04}?", 1000 + i))
        .collect();
    let conversations: Vec<(String, Vec<&str>)> = questions
        .iter()
        .enumerate()
        .map(|(i, q)| (format!("order_{i:02}"), vec![q.as_str()]))
        .collect();
    let borrowed: Vec<(&str, &[&str])> = conversations
        .iter()
        .map(|(id, qs)| (id.as_str(), qs.as_slice()))
        .collect();
    let set = common::recorded_eval_set(&borrowed).await;
    app.import("demo", to_adk_json(&set)).await;
    let body = json!({"wait": false, "evalMetrics": [{"metricName": "tool_trajectory_avg_score", "threshold": 1.0}]});
    let started = app
        .post_json("/apps/demo/eval_sets/regression/run_eval", &body)
        .await;
    assert_eq!(started.status(), StatusCode::ACCEPTED);
    let ids: Vec<String> = serde_json::from_value(app.get_json("/apps/demo/eval_results").await).unwrap();
    let progress = format!("/apps/demo/eval_results/{}/progress", ids[0]);

    let response = app.get(&progress).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()[header::CONTENT_TYPE], "text/event-stream");
    let events = sse_events(&response.text().await.unwrap());
    let (last_event, _, last_data) = events.last().unwrap();
    assert_eq!(
        (last_event.as_str(), &last_data["status"]),
        ("end", &json!("finished"))
    );
    // Every case run once, in the order stored, never more than 50 in one event.
    let batches: Vec<&(String, Option<String>, Value)> =
        events.iter().filter(|(e, _, _)| e == "cases").collect();
    let mut seen = Vec::new();
    let mut positions = Vec::new();
    for (_, id, data) in &batches {
        let cases = data["cases"].as_array().unwrap();
        assert!(!cases.is_empty() && cases.len() <= 50, "{}", cases.len());
        seen.extend(cases.iter().map(|c| c["eval_id"].as_str().unwrap().to_string()));
        positions.push(id.as_ref().unwrap().parse::<i64>().unwrap());
    }
    let mut expected: Vec<String> = conversations.iter().map(|(id, _)| id.clone()).collect();
    let mut sorted = seen.clone();
    sorted.sort();
    expected.sort();
    assert_eq!(sorted, expected);
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "{positions:?}");
    // The last progress event says all 60 are done, with nothing left to wait for.
    let last_progress = events.iter().rev().find(|(e, _, _)| e == "progress").unwrap();
    assert_eq!(last_progress.2["done"], 60);
    assert_eq!(last_progress.2["total"], 60);
    assert_eq!(last_progress.2["passed"], 60);
    assert_eq!(last_progress.2["eta_seconds"], Value::Null);

    // Reconnecting after the first batch sends only what came after it.
    let resumed = app
        .http
        .get(app.url(&progress))
        .header("Last-Event-ID", positions[0].to_string())
        .send()
        .await
        .unwrap();
    let events = sse_events(&resumed.text().await.unwrap());
    let again: usize = events
        .iter()
        .filter(|(e, _, _)| e == "cases")
        .map(|(_, _, data)| data["cases"].as_array().unwrap().len())
        .sum();
    let first_batch = batches[0].2["cases"].as_array().unwrap().len();
    assert_eq!(again, 60 - first_batch);
    assert_eq!(events.last().unwrap().0, "end");

    assert_error(
        app.get("/apps/demo/eval_results/nope/progress").await,
        StatusCode::NOT_FOUND,
    )
    .await;
}
