//! Creating, listing and deleting eval sets (`/apps/{app}/eval_sets`).

use crate::helpers::{assert_error, spawn_app};
use reqwest::StatusCode;
use serde_json::{json, Value};

#[tokio::test]
async fn an_app_starts_with_no_eval_sets() {
    let app = spawn_app().await;
    assert_eq!(app.get_json("/apps/demo/eval_sets").await, json!([]));
}

#[tokio::test]
async fn a_created_eval_set_is_named_by_its_id_and_listed_in_order() {
    let app = spawn_app().await;
    assert_eq!(
        app.post("/apps/demo/eval_sets/zeta", "").await.status(),
        StatusCode::CREATED
    );
    let created = app.post("/apps/demo/eval_sets/alpha", "").await;
    assert_eq!(created.status(), StatusCode::CREATED);
    let body: Value = created.json().await.unwrap();
    assert_eq!(
        (body["eval_set_id"].as_str(), body["name"].as_str()),
        (Some("alpha"), Some("alpha"))
    );
    assert_eq!(
        app.get_json("/apps/demo/eval_sets").await,
        json!(["alpha", "zeta"])
    );
}

#[tokio::test]
async fn an_eval_set_that_cannot_be_created_is_a_400_with_a_sentence() {
    let app = spawn_app().await;
    app.post("/apps/demo/eval_sets/taken", "").await;
    let too_long = format!("/apps/demo/eval_sets/{}", "x".repeat(129));
    for (path, why) in [
        ("/apps/demo/eval_sets/taken", "the id is taken"),
        (
            "/apps/demo/eval_sets/bad%20id",
            "a space is not an id's character",
        ),
        ("/apps/demo/eval_sets/%C3%A9t%C3%A9", "ids are ASCII"),
        (too_long.as_str(), "ids are at most 128 characters"),
    ] {
        let response = app.post(path, "").await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{why}");
        assert_error(response, StatusCode::BAD_REQUEST).await;
    }
    assert_eq!(app.get_json("/apps/demo/eval_sets").await, json!(["taken"]));
}

#[tokio::test]
async fn apps_keep_their_eval_sets_apart() {
    let app = spawn_app().await;
    app.post("/apps/demo/eval_sets/alpha", "").await;
    assert_eq!(app.get_json("/apps/other/eval_sets").await, json!([]));
}

#[tokio::test]
async fn a_deleted_eval_set_is_gone_and_a_second_delete_is_a_404() {
    let app = spawn_app().await;
    app.post("/apps/demo/eval_sets/alpha", "").await;
    app.post("/apps/demo/eval_sets/zeta", "").await;
    assert_eq!(
        app.delete("/apps/demo/eval_sets/zeta").await.status(),
        StatusCode::NO_CONTENT
    );
    assert_eq!(app.get_json("/apps/demo/eval_sets").await, json!(["alpha"]));
    assert_error(
        app.delete("/apps/demo/eval_sets/zeta").await,
        StatusCode::NOT_FOUND,
    )
    .await;
}
