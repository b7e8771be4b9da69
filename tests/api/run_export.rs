//! A run exported as ADK's EvalSetResult file and as JUnit XML; and the case list's statuses
//! from the latest run, with its failed filter.

use crate::common;
use crate::helpers::{assert_error, spawn_app};
use evalstudio::evalset::to_adk_json;
use reqwest::{header, StatusCode};
use serde_json::{json, Value};

#[tokio::test]
async fn a_run_exports_as_adks_result_file_and_as_junit() {
    let app = spawn_app().await;
    let mut set = common::recorded_eval_set(&[
        ("paris", &["weather in Paris and 20 EUR in USD"][..]),
        ("order", &["Where is my order A1003?"][..]),
    ])
    .await;
    // Break one expectation: that case fails.
    let order = &mut set.eval_cases[1].conversation.as_mut().unwrap()[0];
    let calls = &mut order.intermediate_data.as_mut().unwrap().tool_uses;
    calls[0]
        .args
        .as_mut()
        .unwrap()
        .insert("order_id".into(), json!("Z9999"));
    app.import("demo", to_adk_json(&set)).await;
    let body = json!({"evalMetrics": [{"metricName": "tool_trajectory_avg_score", "threshold": 1.0}]});
    let response = app
        .post_json("/apps/demo/eval_sets/regression/run_eval", &body)
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    let ids: Vec<String> = serde_json::from_value(app.get_json("/apps/demo/eval_results").await).unwrap();
    let export = format!("/apps/demo/eval_results/{}/export", ids[0]);

    let adk = app.get(&export).await;
    assert_eq!(adk.status(), StatusCode::OK);
    let disposition = adk.headers()[header::CONTENT_DISPOSITION]
        .to_str()
        .unwrap()
        .to_string();
    assert_eq!(
        disposition,
        format!("attachment; filename=\"{}.evalset_result.json\"", ids[0])
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
    assert_eq!(file["eval_set_result_id"], ids[0].as_str());
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

    let junit = app.get(&format!("{export}?format=junit")).await;
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

    assert_error(
        app.get(&format!("{export}?format=csv")).await,
        StatusCode::BAD_REQUEST,
    )
    .await;
    assert_error(
        app.get("/apps/demo/eval_results/nope/export").await,
        StatusCode::NOT_FOUND,
    )
    .await;

    // The case list shows the latest run's outcome and keeps only the failed case on request.
    let page = app.get_json("/apps/demo/eval_sets/regression/cases").await;
    assert_eq!(page["last_run"]["result_id"], ids[0].as_str());
    let outcome =
        |page: &Value, i: usize| page["cases"][i]["last_result"]["summary"]["final_eval_status"].clone();
    assert_eq!((outcome(&page, 0), outcome(&page, 1)), (json!(1), json!(2)));
    let failed = app
        .get_json("/apps/demo/eval_sets/regression/cases?failed=1")
        .await;
    assert_eq!(failed["total_cases"], 1);
    assert_eq!(failed["cases"][0]["eval_id"], "order");
}
