//! "Add current session": a chat held over `/run` saved as an eval case
//! (`/apps/{app}/eval_sets/{id}/add_session`).

use crate::helpers::{assert_error, spawn_app};
use reqwest::StatusCode;
use serde_json::{json, Value};

#[tokio::test]
async fn chat_through_run_then_add_the_session_as_an_eval_case() {
    let app = spawn_app().await;
    let created = app
        .post(
            "/apps/demo/users/alice/sessions",
            r#"{"state": {"tier": "gold"}}"#,
        )
        .await;
    assert_eq!(created.status(), StatusCode::OK);
    let session: Value = created.json().await.unwrap();
    let session_id = session["id"].as_str().unwrap().to_string();
    assert_eq!(
        (
            session["appName"].as_str(),
            session["events"].as_array().map(Vec::len)
        ),
        (Some("demo"), Some(0))
    );

    let run = |text: &str| {
        json!({"appName": "demo", "userId": "alice", "sessionId": session_id,
               "newMessage": {"role": "user", "parts": [{"text": text}]}})
    };
    let first = app
        .post_json("/run", &run("weather in Paris and 20 EUR in USD"))
        .await;
    assert_eq!(first.status(), StatusCode::OK);
    let events: Vec<Value> = first.json().await.unwrap();
    let calls: Vec<&str> = events
        .iter()
        .filter_map(|e| e["content"]["parts"][0]["functionCall"]["name"].as_str())
        .collect();
    assert_eq!(calls, ["get_weather", "convert_currency"]);
    assert!(events.last().unwrap()["content"]["parts"][0]["text"]
        .as_str()
        .unwrap()
        .contains("Paris"));
    // A follow-up uses the earlier turn; snake_case request keys work too.
    let second = json!({"app_name": "demo", "user_id": "alice", "session_id": session_id,
                        "new_message": {"parts": [{"text": "and in London?"}]}});
    let events: Vec<Value> = app.post_json("/run", &second).await.json().await.unwrap();
    assert_eq!(
        events[0]["content"]["parts"][0]["functionCall"]["args"]["city"],
        "London"
    );

    let stored = app
        .get_json(&format!("/apps/demo/users/alice/sessions/{session_id}"))
        .await;
    let authors: Vec<&str> = stored["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["author"].as_str())
        .collect();
    assert_eq!(authors.iter().filter(|a| **a == "user").count(), 2);
    assert_eq!(stored["title"], "weather in Paris and 20 EUR in USD");

    assert_eq!(
        app.post("/apps/demo/eval_sets/chats", "").await.status(),
        StatusCode::CREATED
    );
    let add = json!({"evalId": "paris_then_london", "sessionId": session_id, "userId": "alice"});
    let added = app
        .post_json("/apps/demo/eval_sets/chats/add_session", &add)
        .await;
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

    // The same id again: a clear 409, unless overwriting.
    let again = app
        .post_json("/apps/demo/eval_sets/chats/add_session", &add)
        .await;
    let body = assert_error(again, StatusCode::CONFLICT).await;
    assert!(body["error"].as_str().unwrap().contains("overwrite"));
    let mut overwrite = add.clone();
    overwrite["overwrite"] = json!(true);
    let replaced: Value = app
        .post_json("/apps/demo/eval_sets/chats/add_session", &overwrite)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(replaced["version"], 2);

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
