//! Sessions (`/apps/{app}/users/{user}/sessions`) and the errors of running and saving them.

use crate::helpers::{assert_error, run_request, spawn_app};
use reqwest::StatusCode;
use serde_json::json;

#[tokio::test]
async fn a_turn_that_cannot_run_is_refused_with_a_sentence() {
    let app = spawn_app().await;
    app.create_session("demo", "u", "s1").await;
    let mut no_agent = run_request("demo", "u", "s1", "hi");
    no_agent["appName"] = json!("nobody");
    let empty_turn =
        json!({"appName": "demo", "userId": "u", "sessionId": "s1", "newMessage": {"parts": []}});
    for (body, status, why) in [
        (
            run_request("demo", "u", "missing", "hi"),
            StatusCode::NOT_FOUND,
            "no such session",
        ),
        (no_agent, StatusCode::NOT_FOUND, "no such agent"),
        (empty_turn, StatusCode::BAD_REQUEST, "a message without parts"),
    ] {
        let response = app.post_json("/run", &body).await;
        assert_eq!(response.status(), status, "{why}");
        assert_error(response, status).await;
    }
    assert_error(app.post("/run", "{\"appName\": ").await, StatusCode::BAD_REQUEST).await;
}

#[tokio::test]
async fn a_session_id_is_created_once() {
    let app = spawn_app().await;
    assert_eq!(
        app.post("/apps/demo/users/u/sessions/s1", "").await.status(),
        StatusCode::OK
    );
    assert_error(
        app.post("/apps/demo/users/u/sessions/s1", "").await,
        StatusCode::BAD_REQUEST,
    )
    .await;
}

#[tokio::test]
async fn a_session_that_cannot_be_saved_as_a_case_is_refused_with_a_sentence() {
    let app = spawn_app().await;
    app.create_session("demo", "u", "s1").await;
    assert_eq!(
        app.post("/apps/demo/eval_sets/set", "").await.status(),
        StatusCode::CREATED
    );
    for (session_id, status, why) in [
        ("s1", StatusCode::BAD_REQUEST, "a session without turns"),
        ("nope", StatusCode::NOT_FOUND, "no such session"),
    ] {
        let add = json!({"evalId": "x", "sessionId": session_id, "userId": "u"});
        let response = app.post_json("/apps/demo/eval_sets/set/add_session", &add).await;
        assert_eq!(response.status(), status, "{why}");
        assert_error(response, status).await;
    }
    assert_eq!(app.get_json("/apps/demo/eval_sets/set/evals").await, json!([]));
}

#[tokio::test]
async fn a_deleted_session_is_gone_from_its_page_and_the_list() {
    let app = spawn_app().await;
    app.create_session("demo", "u", "s1").await;
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
