//! "Add current session": a chat held over `/run` saved as an eval case
//! (`/apps/{app}/eval_sets/{id}/add_session`).

use crate::helpers::{assert_error, spawn_app, TestApp};
use reqwest::StatusCode;
use serde_json::{json, Value};

/// Creates alice's session with state `{"tier": "gold"}`; its id.
async fn gold_session(app: &TestApp) -> String {
    let created = app
        .post(
            "/apps/demo/users/alice/sessions",
            r#"{"state": {"tier": "gold"}}"#,
        )
        .await;
    assert_eq!(created.status(), StatusCode::OK);
    let session: Value = created.json().await.unwrap();
    session["id"].as_str().unwrap().to_string()
}

/// One `/run` turn of alice's session; the events it answered.
async fn turn(app: &TestApp, session_id: &str, text: &str) -> Vec<Value> {
    let run = json!({"appName": "demo", "userId": "alice", "sessionId": session_id,
                     "newMessage": {"role": "user", "parts": [{"text": text}]}});
    let response = app.post_json("/run", &run).await;
    assert_eq!(response.status(), StatusCode::OK);
    response.json().await.unwrap()
}

/// Alice's session after two turns (Paris and a currency, then London), and the evalset `chats`.
async fn chatted() -> (TestApp, String) {
    let app = spawn_app().await;
    let session_id = gold_session(&app).await;
    turn(&app, &session_id, "weather in Paris and 20 EUR in USD").await;
    turn(&app, &session_id, "and in London?").await;
    assert_eq!(
        app.post("/apps/demo/eval_sets/chats", "").await.status(),
        StatusCode::CREATED
    );
    (app, session_id)
}

async fn add_session(app: &TestApp, body: &Value) -> reqwest::Response {
    app.post_json("/apps/demo/eval_sets/chats/add_session", body)
        .await
}

#[tokio::test]
async fn a_new_session_is_the_apps_with_no_events() {
    let app = spawn_app().await;
    let session_id = gold_session(&app).await;
    let session = app
        .get_json(&format!("/apps/demo/users/alice/sessions/{session_id}"))
        .await;
    assert_eq!(
        (
            session["appName"].as_str(),
            session["events"].as_array().map(Vec::len)
        ),
        (Some("demo"), Some(0))
    );
}

#[tokio::test]
async fn a_turn_over_run_calls_the_tools_and_answers() {
    let app = spawn_app().await;
    let session_id = gold_session(&app).await;
    let events = turn(&app, &session_id, "weather in Paris and 20 EUR in USD").await;
    let calls: Vec<&str> = events
        .iter()
        .filter_map(|e| e["content"]["parts"][0]["functionCall"]["name"].as_str())
        .collect();
    assert_eq!(calls, ["get_weather", "convert_currency"]);
    assert!(events.last().unwrap()["content"]["parts"][0]["text"]
        .as_str()
        .unwrap()
        .contains("Paris"));
}

#[tokio::test]
async fn a_follow_up_uses_the_earlier_turn_and_snake_case_keys_work_too() {
    let app = spawn_app().await;
    let session_id = gold_session(&app).await;
    turn(&app, &session_id, "weather in Paris and 20 EUR in USD").await;
    let second = json!({"app_name": "demo", "user_id": "alice", "session_id": session_id,
                        "new_message": {"parts": [{"text": "and in London?"}]}});
    let events: Vec<Value> = app.post_json("/run", &second).await.json().await.unwrap();
    assert_eq!(
        events[0]["content"]["parts"][0]["functionCall"]["args"]["city"],
        "London"
    );
}

#[tokio::test]
async fn the_stored_session_has_each_turn_and_is_titled_by_its_first_message() {
    let (app, session_id) = chatted().await;
    let stored = app
        .get_json(&format!("/apps/demo/users/alice/sessions/{session_id}"))
        .await;
    let users = stored["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["author"] == "user")
        .count();
    assert_eq!(users, 2);
    assert_eq!(stored["title"], "weather in Paris and 20 EUR in USD");
}

#[tokio::test]
async fn an_added_session_is_a_case_with_its_state_turns_and_tool_calls() {
    let (app, session_id) = chatted().await;
    let add = json!({"evalId": "paris_then_london", "sessionId": session_id, "userId": "alice"});
    let added = add_session(&app, &add).await;
    assert_eq!(added.status(), StatusCode::OK);
    let case: Value = added.json().await.unwrap();
    assert_eq!(case["version"], 1);
    assert_eq!(case["session_input"]["state"]["tier"], "gold");
    let turns = case["conversation"].as_array().unwrap();
    assert_eq!(turns.len(), 2);
    assert_eq!(
        turns[0]["intermediate_data"]["tool_uses"][1]["args"],
        json!({"amount": 20, "from": "EUR", "to": "USD"})
    );
    assert_eq!(turns[1]["user_content"]["parts"][0]["text"], "and in London?");
    let exported = app
        .get("/apps/demo/eval_sets/chats/export")
        .await
        .text()
        .await
        .unwrap();
    assert!(
        exported.contains("\"eval_id\": \"paris_then_london\"") && exported.contains("\"convert_currency\"")
    );
}

#[tokio::test]
async fn adding_under_a_taken_id_is_a_409_unless_overwriting() {
    let (app, session_id) = chatted().await;
    let add = json!({"evalId": "paris_then_london", "sessionId": session_id, "userId": "alice"});
    add_session(&app, &add).await;
    let body = assert_error(add_session(&app, &add).await, StatusCode::CONFLICT).await;
    assert!(body["error"].as_str().unwrap().contains("overwrite"));
    let mut overwrite = add.clone();
    overwrite["overwrite"] = json!(true);
    let replaced: Value = add_session(&app, &overwrite).await.json().await.unwrap();
    assert_eq!(replaced["version"], 2);
}

/// The eval id is checked by the service, so REST refuses what the browser refuses.
#[tokio::test]
async fn add_session_refuses_eval_ids_the_browser_refuses() {
    let app = spawn_app().await;
    app.create_session("demo", "alice", "s1").await;
    let turn = crate::helpers::run_request("demo", "alice", "s1", "weather in Paris");
    assert_eq!(app.post_json("/run", &turn).await.status(), StatusCode::OK);
    assert_eq!(
        app.post("/apps/demo/eval_sets/chats", "").await.status(),
        StatusCode::CREATED
    );
    for (eval_id, why) in [
        ("a\u{7}b", "control characters"),
        (&"x".repeat(201) as &str, "longer than 200"),
        ("   ", "Enter an eval id"),
    ] {
        let add = json!({"evalId": eval_id, "sessionId": "s1", "userId": "alice"});
        let response = app
            .post_json("/apps/demo/eval_sets/chats/add_session", &add)
            .await;
        let body = assert_error(response, StatusCode::BAD_REQUEST).await;
        assert!(body["error"].as_str().unwrap().contains(why), "{body}");
    }
    assert_eq!(app.get_json("/apps/demo/eval_sets/chats/evals").await, json!([]));
}
