//! The request body limit: a body over it is refused with 413 before anything is stored.

use crate::helpers::{assert_error, spawn_app_with_body_limit};
use reqwest::StatusCode;
use serde_json::json;

#[tokio::test]
async fn a_body_over_the_limit_gets_413() {
    let app = spawn_app_with_body_limit(1024).await;
    let big = format!(
        r#"{{"eval_set_id": "big", "eval_cases": [], "padding": "{}"}}"#,
        "x".repeat(4096)
    );
    assert_error(
        app.post("/apps/demo/import", big).await,
        StatusCode::PAYLOAD_TOO_LARGE,
    )
    .await;
    assert_eq!(app.get_json("/apps/demo/eval_sets").await, json!([]));
    let small = r#"{"eval_set_id": "small", "eval_cases": []}"#;
    assert_eq!(
        app.post("/apps/demo/import", small).await.status(),
        StatusCode::CREATED
    );
}
