//! Running a session's turn: `/run_sse` streams ADK events, and a session takes one turn at a time.

use crate::common;
use crate::helpers::{assert_error, run_request, spawn_app, spawn_app_with_config, SLOW_MODEL_LATENCY};
use crate::wait::wait_until;
use reqwest::StatusCode;
use serde_json::{json, Value};

#[tokio::test]
async fn run_sse_streams_adk_events_and_records_the_turn() {
    let app = spawn_app().await;
    app.create_session("demo", "u", "s1").await;
    let request = json!({"appName": "demo", "userId": "u", "sessionId": "s1", "streaming": true,
                         "newMessage": {"parts": [{"text": "Where is my order A1003?"}]}});
    let response = app.post_json("/run_sse", &request).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert!(response.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/event-stream"));
    let body = response.text().await.unwrap();
    let events: Vec<Value> = body
        .lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .map(|data| serde_json::from_str(data).unwrap())
        .collect();
    assert_eq!(
        events[0]["content"]["parts"][0]["functionCall"]["name"],
        "get_order_status"
    );
    assert_eq!(
        events[1]["content"]["parts"][0]["functionResponse"]["name"],
        "get_order_status"
    );
    let partial: String = events
        .iter()
        .filter(|e| e["partial"] == true)
        .filter_map(|e| e["content"]["parts"][0]["text"].as_str())
        .collect();
    let last = events.last().unwrap();
    assert_eq!(
        last["content"]["parts"][0]["text"].as_str(),
        Some(partial.as_str()),
        "partials add up to the answer"
    );
    assert!(events
        .iter()
        .all(|e| e["invocationId"] == events[0]["invocationId"]));
    let ids: std::collections::HashSet<_> = events
        .iter()
        .map(|e| e["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids.len(), events.len(), "event ids are unique");

    // The turn was recorded once the stream ended.
    let session = app.get_json("/apps/demo/users/u/sessions/s1").await;
    assert_eq!(
        session["events"][0]["content"]["parts"][0]["text"],
        "Where is my order A1003?"
    );
    assert_eq!(
        session["events"].as_array().unwrap().len(),
        4,
        "user, call, response, answer"
    );
}

#[tokio::test]
async fn a_session_runs_one_turn_at_a_time() {
    let (base_url, model_requests) = common::spawn_slow_model("done", SLOW_MODEL_LATENCY).await;
    let app = spawn_app_with_config(&common::slow_profile(&base_url)).await;
    app.create_session("slow", "u", "s1").await;
    let run = run_request("slow", "u", "s1", "hi");
    let first = app.post_json("/run", &run);
    let second = async {
        // A turn holds its session from before it asks the model until the answer is recorded.
        wait_until("the first turn asked the model", || async {
            (model_requests.request_count() == 1).then_some(())
        })
        .await;
        app.post_json("/run", &run).await
    };
    let (first, second) = tokio::join!(first, second);
    assert_eq!(first.status(), StatusCode::OK);
    let error = assert_error(second, StatusCode::CONFLICT).await;
    assert!(
        error["error"]
            .as_str()
            .unwrap()
            .contains("already running a turn"),
        "{error}"
    );
    // Once the first turn is over the session takes the next one.
    assert_eq!(app.post_json("/run", &run).await.status(), StatusCode::OK);
    let session = app.get_json("/apps/slow/users/u/sessions/s1").await;
    assert_eq!(
        session["events"].as_array().unwrap().len(),
        4,
        "two turns of user + answer"
    );
}
