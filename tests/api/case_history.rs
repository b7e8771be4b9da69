//! A case's history (each save keeps the version it replaced; list, read, restore),
//! duplicating and renaming a case.

use crate::helpers::{assert_error, spawn_app, TestApp};
use reqwest::StatusCode;
use serde_json::{json, Value};

const EVALSET: &str = r#"{"eval_set_id": "weather", "eval_cases": [{"eval_id": "paris", "conversation": [{
    "invocation_id": "i1",
    "user_content": {"role": "user", "parts": [{"text": "Weather in Paris?"}]},
    "final_response": {"role": "model", "parts": [{"text": "Sunny."}]},
    "intermediate_data": {"tool_uses": [{"name": "get_weather", "args": {"city": "Paris"}}]}
}]}]}"#;

const CASE: &str = "/apps/demo/eval_sets/weather/evals/paris";

/// Saves `case` with `city` as get_weather's argument; returns the saved case.
async fn save_city(app: &TestApp, case: &Value, city: &str) -> Value {
    let mut edited = case.clone();
    edited["conversation"][0]["intermediate_data"]["tool_uses"][0]["args"]["city"] = json!(city);
    let response = app.put_json(CASE, &edited).await;
    assert_eq!(response.status(), StatusCode::OK);
    response.json().await.unwrap()
}

#[tokio::test]
async fn each_save_keeps_the_version_it_replaced_and_any_can_be_restored() {
    let app = spawn_app().await;
    app.import("demo", EVALSET).await;
    let v1 = app.get_json(CASE).await;
    let v2 = save_city(&app, &v1, "Lyon").await;
    let v3 = save_city(&app, &v2, "Nice").await;
    assert_eq!(v3["version"], 3);

    let history = app.get_json(&format!("{CASE}/versions")).await;
    let versions: Vec<(i64, bool)> = history
        .as_array()
        .unwrap()
        .iter()
        .map(|v| (v["version"].as_i64().unwrap(), v["current"].as_bool().unwrap()))
        .collect();
    assert_eq!(versions, [(3, true), (2, false), (1, false)]);
    assert_eq!(
        history[0]["changes"],
        json!(["turn 1: args of get_weather changed"])
    );
    assert_eq!(history[2]["changes"], json!([]));

    let first = app.get_json(&format!("{CASE}/versions/1")).await;
    assert_eq!(
        first["conversation"][0]["intermediate_data"]["tool_uses"][0]["args"]["city"],
        "Paris"
    );
    assert_eq!(first["version"], 1);
    assert_error(
        app.get(&format!("{CASE}/versions/9")).await,
        StatusCode::NOT_FOUND,
    )
    .await;
    assert_error(
        app.get(&format!("{CASE}/versions/first")).await,
        StatusCode::BAD_REQUEST,
    )
    .await;

    // A restore names the current version it read: a stale one is refused and changes nothing.
    let restore = format!("{CASE}/versions/1/restore");
    assert_error(
        app.post_json(&restore, &json!({"version": 2})).await,
        StatusCode::CONFLICT,
    )
    .await;
    let restored: Value = app
        .post_json(&restore, &json!({"version": 3}))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(restored["version"], 4);
    assert_eq!(
        restored["conversation"][0]["intermediate_data"]["tool_uses"][0]["args"]["city"],
        "Paris"
    );
    let history = app.get_json(&format!("{CASE}/versions")).await;
    assert_eq!(history.as_array().unwrap().len(), 4);

    // Export writes only the current version.
    let exported = app.get_json("/apps/demo/eval_sets/weather/export").await;
    assert_eq!(exported["eval_cases"].as_array().unwrap().len(), 1);
    assert_eq!(
        exported["eval_cases"][0]["conversation"][0]["intermediate_data"]["tool_uses"][0]["args"]["city"],
        "Paris"
    );
}

#[tokio::test]
async fn a_case_is_duplicated_under_a_free_or_given_id() {
    let app = spawn_app().await;
    app.import("demo", EVALSET).await;
    let duplicate = format!("{CASE}/duplicate");
    let first = app.post(&duplicate, "").await;
    assert_eq!(first.status(), StatusCode::CREATED);
    let first: Value = first.json().await.unwrap();
    assert_eq!(
        (first["eval_id"].as_str(), first["version"].as_i64()),
        (Some("paris_copy"), Some(1))
    );
    let second: Value = app.post(&duplicate, "").await.json().await.unwrap();
    assert_eq!(second["eval_id"], "paris_copy_2");
    let named = app
        .post_json(&duplicate, &json!({"newEvalId": "paris_rainy"}))
        .await;
    assert_eq!(named.status(), StatusCode::CREATED);
    assert_error(
        app.post_json(&duplicate, &json!({"newEvalId": "paris_rainy"}))
            .await,
        StatusCode::CONFLICT,
    )
    .await;
    assert_error(
        app.post_json(&duplicate, &json!({"newEvalId": "bad\nid"})).await,
        StatusCode::BAD_REQUEST,
    )
    .await;
    assert_error(
        app.post("/apps/demo/eval_sets/weather/evals/nope/duplicate", "")
            .await,
        StatusCode::NOT_FOUND,
    )
    .await;
    assert_eq!(
        app.get_json("/apps/demo/eval_sets/weather/evals").await,
        json!(["paris", "paris_copy", "paris_copy_2", "paris_rainy"])
    );
    // The copy has the original's content.
    let copy = app
        .get_json("/apps/demo/eval_sets/weather/evals/paris_copy")
        .await;
    let original = app.get_json(CASE).await;
    assert_eq!(copy["conversation"], original["conversation"]);
}

#[tokio::test]
async fn a_case_is_renamed_at_its_version_keeping_its_history() {
    let app = spawn_app().await;
    app.import("demo", EVALSET).await;
    let v1 = app.get_json(CASE).await;
    save_city(&app, &v1, "Lyon").await;
    app.post(&format!("{CASE}/duplicate"), "").await;
    let rename = format!("{CASE}/rename");
    assert_error(
        app.post_json(&rename, &json!({"newEvalId": "paris_copy", "version": 2}))
            .await,
        StatusCode::CONFLICT,
    )
    .await;
    assert_error(
        app.post_json(&rename, &json!({"newEvalId": "lyon", "version": 1}))
            .await,
        StatusCode::CONFLICT,
    )
    .await;
    assert_error(
        app.post_json(&rename, &json!({"newEvalId": " ", "version": 2}))
            .await,
        StatusCode::BAD_REQUEST,
    )
    .await;
    let renamed: Value = app
        .post_json(&rename, &json!({"newEvalId": "lyon", "version": 2}))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        (renamed["eval_id"].as_str(), renamed["version"].as_i64()),
        (Some("lyon"), Some(3))
    );
    assert_eq!(
        app.get_json("/apps/demo/eval_sets/weather/evals").await,
        json!(["lyon", "paris_copy"])
    );
    let history = app
        .get_json("/apps/demo/eval_sets/weather/evals/lyon/versions")
        .await;
    assert_eq!(history[0]["changes"], json!(["renamed from `paris` to `lyon`"]));
    assert_error(app.get(CASE).await, StatusCode::NOT_FOUND).await;
}
