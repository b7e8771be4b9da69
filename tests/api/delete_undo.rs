//! Deleting cases, one or several at once, and bringing them back, history included.

use crate::helpers::{assert_error, spawn_app, TestApp};
use crate::ok_eval_set::ok_eval_set;
use reqwest::StatusCode;
use serde_json::{json, Value};

const CASE0: &str = "/apps/demo/eval_sets/three/evals/case0";

/// An app with the evalset `three` (case0..case2).
async fn three_cases() -> TestApp {
    let app = spawn_app().await;
    app.import("demo", ok_eval_set("three", 3).to_string()).await;
    app
}

async fn delete_evals(app: &TestApp, ids: Value) -> reqwest::Response {
    app.post_json(
        "/apps/demo/eval_sets/three/delete_evals",
        &json!({"evalIds": ids}),
    )
    .await
}

async fn undo_delete(app: &TestApp, ids: Value) -> reqwest::Response {
    app.post_json("/apps/demo/eval_sets/three/undo_delete", &json!({"evalIds": ids}))
        .await
}

async fn listed(app: &TestApp) -> Value {
    app.get_json("/apps/demo/eval_sets/three/evals").await
}

async fn exported_ids(app: &TestApp) -> Vec<String> {
    let exported = app.get_json("/apps/demo/eval_sets/three/export").await;
    exported["eval_cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["eval_id"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn deleted_cases_leave_the_list_and_the_export_and_are_listed_as_deleted_newest_first() {
    let app = three_cases().await;
    assert_eq!(app.delete(CASE0).await.status(), StatusCode::NO_CONTENT);
    assert_eq!(
        delete_evals(&app, json!(["case1", "case2"])).await.status(),
        StatusCode::OK
    );
    assert_eq!(listed(&app).await, json!([]));
    assert!(exported_ids(&app).await.is_empty());
    let deleted: Vec<String> = app
        .get_json("/apps/demo/eval_sets/three/deleted_evals")
        .await
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["eval_id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(deleted, ["case2", "case1", "case0"]);
}

#[tokio::test]
async fn an_undone_delete_brings_the_case_back_with_its_edit_version_and_history() {
    let app = three_cases().await;
    let mut edited = app.get_json(CASE0).await;
    edited["tags"] = json!(["edited"]);
    assert_eq!(app.put_json(CASE0, &edited).await.status(), StatusCode::OK);
    app.delete(CASE0).await;
    assert_eq!(undo_delete(&app, json!(["case0"])).await.status(), StatusCode::OK);
    let back = app.get_json(CASE0).await;
    assert_eq!(
        (back["tags"].clone(), back["version"].as_i64()),
        (json!(["edited"]), Some(2))
    );
    let history = app.get_json(&format!("{CASE0}/versions")).await;
    assert_eq!(history.as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn undone_cases_take_their_place_in_the_file_order_again() {
    let app = three_cases().await;
    delete_evals(&app, json!(["case0", "case1", "case2"])).await;
    assert_eq!(
        undo_delete(&app, json!(["case2", "case0"])).await.status(),
        StatusCode::OK
    );
    assert_eq!(listed(&app).await, json!(["case0", "case2"]));
    assert_eq!(exported_ids(&app).await, ["case0", "case2"]);
}

#[tokio::test]
async fn a_bulk_delete_that_cannot_be_done_whole_changes_nothing() {
    let app = three_cases().await;
    for (ids, status, why) in [
        (
            json!(["case0", "nope"]),
            StatusCode::NOT_FOUND,
            "one case is unknown",
        ),
        (json!([]), StatusCode::BAD_REQUEST, "no case is named"),
    ] {
        let response = delete_evals(&app, ids).await;
        assert_eq!(response.status(), status, "{why}");
        assert_error(response, status).await;
    }
    assert_eq!(listed(&app).await, json!(["case0", "case1", "case2"]));
}

#[tokio::test]
async fn an_undo_that_would_clash_with_a_new_case_of_the_same_id_is_a_409_and_keeps_the_deleted_one() {
    let app = three_cases().await;
    assert_eq!(
        delete_evals(&app, json!(["case0"])).await.status(),
        StatusCode::OK
    );
    let copy = app
        .post_json(
            "/apps/demo/eval_sets/three/evals/case1/duplicate",
            &json!({"newEvalId": "case0"}),
        )
        .await;
    assert_eq!(copy.status(), StatusCode::CREATED);
    assert_error(undo_delete(&app, json!(["case0"])).await, StatusCode::CONFLICT).await;
    assert_eq!(
        app.get_json("/apps/demo/eval_sets/three/deleted_evals").await[0]["eval_id"],
        "case0"
    );
}
