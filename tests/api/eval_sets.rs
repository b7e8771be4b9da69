//! Creating, listing and deleting eval sets (`/apps/{app}/eval_sets`).

use crate::helpers::{assert_error, spawn_app};
use reqwest::StatusCode;
use serde_json::{json, Value};

#[tokio::test]
async fn create_list_and_delete_eval_sets() {
    let app = spawn_app().await;
    assert_eq!(app.get_json("/apps/demo/eval_sets").await, json!([]));
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
    assert_error(
        app.post("/apps/demo/eval_sets/alpha", "").await,
        StatusCode::BAD_REQUEST,
    )
    .await;
    assert_error(
        app.post("/apps/demo/eval_sets/bad%20id", "").await,
        StatusCode::BAD_REQUEST,
    )
    .await;
    assert_eq!(
        app.get_json("/apps/other/eval_sets").await,
        json!([]),
        "apps are separate"
    );
    assert_eq!(
        app.delete("/apps/demo/eval_sets/zeta").await.status(),
        StatusCode::NO_CONTENT
    );
    assert_error(
        app.delete("/apps/demo/eval_sets/zeta").await,
        StatusCode::NOT_FOUND,
    )
    .await;
    assert_eq!(app.get_json("/apps/demo/eval_sets").await, json!(["alpha"]));
}
