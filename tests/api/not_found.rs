//! What is not there answers 404 with the app's JSON error body.

use crate::helpers::{assert_error, spawn_app};
use reqwest::StatusCode;
use serde_json::json;

#[tokio::test]
async fn missing_things_are_404_json() {
    let app = spawn_app().await;
    assert_error(
        app.get("/apps/demo/eval_sets/nope/evals").await,
        StatusCode::NOT_FOUND,
    )
    .await;
    assert_error(
        app.get("/apps/demo/eval_sets/nope/export").await,
        StatusCode::NOT_FOUND,
    )
    .await;
    assert_error(
        app.get("/apps/demo/eval_sets/nope/evals/x").await,
        StatusCode::NOT_FOUND,
    )
    .await;
    assert_error(
        app.put_json(
            "/apps/demo/eval_sets/nope/evals/x",
            &json!({"eval_id": "x", "conversation": [], "version": 1}),
        )
        .await,
        StatusCode::NOT_FOUND,
    )
    .await;
    assert_error(app.get("/apps/demo/no_such_route").await, StatusCode::NOT_FOUND).await;
}
