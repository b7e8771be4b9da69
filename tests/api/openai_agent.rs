//! An `openai` agent profile from the config file driving a session against a model server.

use crate::helpers::{run_request, serve, spawn_app_with_config};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

/// A model server speaking OpenAI's streaming chat-completions protocol: the first call asks
/// for get_weather (arguments split across chunks), the second answers in text. Returns its
/// base URL (ending in /v1) and the requests it received.
async fn spawn_scripted_openai() -> (String, Arc<Mutex<Vec<Value>>>) {
    use axum::routing::post;
    let requests = Arc::new(Mutex::new(Vec::<Value>::new()));
    let seen = requests.clone();
    let model = axum::Router::new().route(
        "/v1/chat/completions",
        post(move |axum::Json(body): axum::Json<Value>| {
            let seen = seen.clone();
            async move {
                let calls_so_far = {
                    let mut seen = seen.lock().unwrap();
                    seen.push(body);
                    seen.len()
                };
                let chunks: Vec<Value> = if calls_so_far == 1 {
                    vec![
                        json!({"choices": [{"index": 0, "delta": {"role": "assistant", "content": null,
                            "tool_calls": [{"index": 0, "id": "call_x1", "type": "function",
                                            "function": {"name": "get_weather", "arguments": "{\"ci"}}]}}]}),
                        json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0,
                            "function": {"arguments": "ty\": \"Tokyo\"}"}}]}, "finish_reason": "tool_calls"}]}),
                    ]
                } else {
                    vec![
                        json!({"choices": [{"index": 0, "delta": {"content": "Tokyo is "}}]}),
                        json!({"choices": [{"index": 0, "delta": {"content": "sunny."}, "finish_reason": "stop"}]}),
                    ]
                };
                let mut sse: String = chunks.iter().map(|c| format!("data: {c}\n\n")).collect();
                sse.push_str("data: [DONE]\n\n");
                ([(axum::http::header::CONTENT_TYPE, "text/event-stream")], sse)
            }
        }),
    );
    (format!("{}/v1", serve(model).await), requests)
}

#[tokio::test]
async fn an_openai_profile_from_the_config_file_drives_a_session() {
    let (base_url, requests) = spawn_scripted_openai().await;
    let config = format!(
        "[[profiles]]\nname = \"scripted\"\nkind = \"openai\"\nmodel = \"test-model\"\nbase_url = \"{base_url}\"\n\
         system_prompt = \"Be brief.\"\ntools = [\"get_weather\"]\n"
    );
    let app = spawn_app_with_config(&config).await;
    app.create_session("scripted", "u", "s1").await;
    let run = run_request("scripted", "u", "s1", "Weather in Tokyo?");
    let events: Vec<Value> = app.post_json("/run", &run).await.json().await.unwrap();
    assert_eq!(
        events[0]["content"]["parts"][0]["functionCall"]["args"],
        json!({"city": "Tokyo"})
    );
    assert_eq!(
        events[1]["content"]["parts"][0]["functionResponse"]["response"]["city"],
        "Tokyo"
    );
    assert_eq!(events[2]["content"]["parts"][0]["text"], "Tokyo is sunny.");

    let sent = requests.lock().unwrap().clone();
    assert_eq!(sent.len(), 2);
    assert_eq!(sent[0]["model"], "test-model");
    assert_eq!(
        sent[0]["messages"][0],
        json!({"role": "system", "content": "Be brief."})
    );
    let tool_names: Vec<&str> = sent[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["function"]["name"].as_str())
        .collect();
    assert_eq!(
        tool_names,
        ["get_weather"],
        "the profile's tool list is what the model is offered"
    );
    let tool_message = sent[1]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .unwrap();
    assert_eq!(tool_message["tool_call_id"], "call_x1");

    let case = app.capture_session("scripted", "s", "tokyo", "s1").await;
    assert_eq!(
        case["conversation"][0]["intermediate_data"]["tool_uses"][0]["id"],
        "call_x1"
    );
    assert_eq!(
        case["conversation"][0]["final_response"]["parts"][0]["text"],
        "Tokyo is sunny."
    );
}
