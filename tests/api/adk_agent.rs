//! An `adk` agent profile: a session run through an ADK api_server, sub-agents and all.

use crate::fixtures::read_fixture;
use crate::helpers::{run_request, serve, spawn_app_with_config};
use serde_json::{json, Value};

/// An ADK api_server stand-in that answers /run_sse with a recording of a real one
/// (tests/fixtures/adk_run_sse) and accepts session creation. Returns its address.
async fn spawn_adk_replay(recording: &str) -> String {
    use axum::routing::post;
    let body = read_fixture(&format!("adk_run_sse/{recording}.sse"));
    let adk = axum::Router::new()
        .route(
            "/apps/{app}/users/{user}/sessions/{id}",
            post(|| async { axum::Json(json!({})) }),
        )
        .route(
            "/run_sse",
            post(move || {
                let body = body.clone();
                async move { ([(axum::http::header::CONTENT_TYPE, "text/event-stream")], body) }
            }),
        );
    serve(adk).await
}

#[tokio::test]
async fn an_adk_profile_records_sub_agents_and_event_times() {
    let base_url = spawn_adk_replay("sub_agent-1").await;
    let config = format!("[[profiles]]\nname = \"support\"\nkind = \"adk\"\nbase_url = \"{base_url}\"\nadk_app = \"sub_agent\"\n");
    let app = spawn_app_with_config(&config).await;
    app.create_session("support", "u", "s1").await;
    let run = run_request("support", "u", "s1", "Where is order A1001?");
    let events: Vec<Value> = app.post_json("/run", &run).await.json().await.unwrap();
    let authors: Vec<&str> = events.iter().map(|e| e["author"].as_str().unwrap()).collect();
    assert_eq!(authors, ["assistant", "assistant", "orders", "orders", "orders"]);
    assert_eq!(
        events[4]["content"]["parts"][0]["text"],
        "Order A1001 has shipped."
    );

    // Each stored event has its own time, in order, within the turn.
    let session = app.get_json("/apps/support/users/u/sessions/s1").await;
    let times: Vec<f64> = session["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["timestamp"].as_f64().unwrap())
        .collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "{times:?}");

    let case = app.capture_session("support", "s", "a1001", "s1").await;
    let data = &case["conversation"][0]["intermediate_data"];
    let names: Vec<&str> = data["tool_uses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["transfer_to_agent", "get_order_status"]);
    assert_eq!(
        data["intermediate_responses"],
        json!([["orders", [{"text": "Looking up A1001."}]]])
    );
}
