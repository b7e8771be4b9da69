//! What is not there answers 404: with the app's JSON error body over REST, with the "Page not
//! found" page (and no panel or form of the thing) in the browser.

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

#[tokio::test]
async fn a_page_of_something_missing_is_a_404_page() {
    let app = spawn_app().await;
    for path in [
        "/evalsets/demo/nope",
        "/evalsets/demo/nope/case?eval_id=x",
        "/evalsets/demo/nope/edit?eval_id=x",
        "/evalsets/demo/nope/results/r?eval_id=x",
        "/runs/demo/nope",
        "/runs/demo/a/compare/b",
        "/no/such/page",
    ] {
        let response = app.get(path).await;
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{path}");
        let html = response.text().await.unwrap();
        assert!(html.contains("Page not found"), "{path} shows the 404 page");
        assert!(
            !html.contains("Run evaluation"),
            "{path} offers no run of a missing evalset"
        );
    }
}
