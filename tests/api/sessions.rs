//! Sessions (`/apps/{app}/users/{user}/sessions`) and the errors of running and saving them.

use crate::helpers::{assert_error, run_request, spawn_app};
use reqwest::StatusCode;
use serde_json::json;

#[tokio::test]
async fn session_errors_are_clear() {
    let app = spawn_app().await;
    let run = run_request("demo", "u", "missing", "hi");
    assert_error(app.post_json("/run", &run).await, StatusCode::NOT_FOUND).await;
    let mut no_agent = run.clone();
    no_agent["appName"] = json!("nobody");
    assert_error(app.post_json("/run", &no_agent).await, StatusCode::NOT_FOUND).await;
    assert_error(app.post("/run", "{\"appName\": ").await, StatusCode::BAD_REQUEST).await;
    assert_eq!(
        app.post("/apps/demo/users/u/sessions/s1", "").await.status(),
        StatusCode::OK
    );
    assert_error(
        app.post("/apps/demo/users/u/sessions/s1", "").await,
        StatusCode::BAD_REQUEST,
    )
    .await;
    let empty_turn =
        json!({"appName": "demo", "userId": "u", "sessionId": "s1", "newMessage": {"parts": []}});
    assert_error(app.post_json("/run", &empty_turn).await, StatusCode::BAD_REQUEST).await;
    assert_eq!(
        app.post("/apps/demo/eval_sets/set", "").await.status(),
        StatusCode::CREATED
    );
    let add = json!({"evalId": "x", "sessionId": "s1", "userId": "u"});
    let no_turns = app.post_json("/apps/demo/eval_sets/set/add_session", &add).await;
    assert_error(no_turns, StatusCode::BAD_REQUEST).await;
    let mut missing = add.clone();
    missing["sessionId"] = json!("nope");
    let not_found = app
        .post_json("/apps/demo/eval_sets/set/add_session", &missing)
        .await;
    assert_error(not_found, StatusCode::NOT_FOUND).await;
    assert_eq!(
        app.delete("/apps/demo/users/u/sessions/s1").await.status(),
        StatusCode::NO_CONTENT
    );
    assert_error(
        app.get("/apps/demo/users/u/sessions/s1").await,
        StatusCode::NOT_FOUND,
    )
    .await;
    assert_eq!(app.get_json("/apps/demo/users/u/sessions").await, json!([]));
}
