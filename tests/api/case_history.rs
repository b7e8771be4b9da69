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

/// The weather evalset's case saved twice: Paris (1), Lyon (2), Nice (3).
async fn three_versions() -> TestApp {
    let app = spawn_app().await;
    app.import("demo", EVALSET).await;
    let v1 = app.get_json(CASE).await;
    let v2 = save_city(&app, &v1, "Lyon").await;
    let v3 = save_city(&app, &v2, "Nice").await;
    assert_eq!(v3["version"], 3);
    app
}

fn city(case: &Value) -> &Value {
    &case["conversation"][0]["intermediate_data"]["tool_uses"][0]["args"]["city"]
}

#[tokio::test]
async fn each_save_keeps_the_version_it_replaced_newest_first_with_what_changed() {
    let app = three_versions().await;
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
}

#[tokio::test]
async fn an_earlier_version_reads_as_it_was_saved() {
    let app = three_versions().await;
    let first = app.get_json(&format!("{CASE}/versions/1")).await;
    assert_eq!(city(&first), "Paris");
    assert_eq!(first["version"], 1);
}

#[tokio::test]
async fn a_version_that_is_not_there_or_not_a_number_is_refused() {
    let app = three_versions().await;
    for (version, status) in [("9", StatusCode::NOT_FOUND), ("first", StatusCode::BAD_REQUEST)] {
        let response = app.get(&format!("{CASE}/versions/{version}")).await;
        assert_eq!(response.status(), status, "version {version}");
        assert_error(response, status).await;
    }
}

#[tokio::test]
async fn a_restore_at_a_stale_version_is_a_409_and_changes_nothing() {
    let app = three_versions().await;
    let restore = format!("{CASE}/versions/1/restore");
    assert_error(
        app.post_json(&restore, &json!({"version": 2})).await,
        StatusCode::CONFLICT,
    )
    .await;
    assert_eq!(city(&app.get_json(CASE).await), "Nice");
    assert_eq!(
        app.get_json(&format!("{CASE}/versions"))
            .await
            .as_array()
            .unwrap()
            .len(),
        3
    );
}

#[tokio::test]
async fn a_restore_saves_the_old_version_as_the_next_and_keeps_the_history() {
    let app = three_versions().await;
    let restore = format!("{CASE}/versions/1/restore");
    let restored: Value = app
        .post_json(&restore, &json!({"version": 3}))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(restored["version"], 4);
    assert_eq!(city(&restored), "Paris");
    let history = app.get_json(&format!("{CASE}/versions")).await;
    assert_eq!(history.as_array().unwrap().len(), 4);
}

#[tokio::test]
async fn export_writes_only_the_current_version() {
    let app = three_versions().await;
    let exported = app.get_json("/apps/demo/eval_sets/weather/export").await;
    assert_eq!(exported["eval_cases"].as_array().unwrap().len(), 1);
    assert_eq!(city(&exported["eval_cases"][0]), "Nice");
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
