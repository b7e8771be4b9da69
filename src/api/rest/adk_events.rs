//! Sessions and turns in ADK's Event shape (camelCase, as its api_server writes them).

use crate::agent::AgentEvent;
use crate::records::{SessionRecord, SessionTurn};
use serde_json::{json, Value};

/// A session as ADK's api_server returns it, events included.
pub fn adk_session(session: &SessionRecord) -> Value {
    let events: Vec<Value> = session
        .turns
        .iter()
        .flat_map(|turn| {
            let user = json!({
                "id": format!("{}-user", turn.invocation_id), "invocationId": turn.invocation_id,
                "author": "user", "timestamp": turn.started_at,
                "content": {"role": "user", "parts": [{"text": turn.user_message}]},
            });
            std::iter::once(user).chain(adk_agent_events(turn))
        })
        .collect();
    json!({
        "id": session.summary.id,
        "appName": session.summary.app_name,
        "userId": session.summary.user_id,
        "title": session.summary.title,
        "state": session.state,
        "events": events,
        "lastUpdateTime": crate::clock::iso_seconds(&session.summary.updated_at),
    })
}

/// A turn's agent events in ADK's Event shape (camelCase, as its api_server writes them).
pub fn adk_agent_events(turn: &SessionTurn) -> Vec<Value> {
    let usage = turn.token_usage();
    let mut author = turn.author.as_str();
    let mut events = Vec::new();
    for (index, event) in turn.events.iter().enumerate() {
        if let AgentEvent::Author { name } = event {
            author = name;
        } else if let Some(body) = adk_event_body(event, Some(usage)) {
            let time = turn.event_time(index);
            events.push(adk_event(&turn.invocation_id, author, time, events.len(), body));
        }
    }
    events
}

pub fn adk_event(invocation_id: &str, author: &str, timestamp: f64, n: usize, body: Value) -> Value {
    let mut event = json!({
        "id": format!("{invocation_id}-{n}"),
        "invocationId": invocation_id,
        "author": author,
        "timestamp": timestamp,
    });
    if let (Some(event), Value::Object(body)) = (event.as_object_mut(), body) {
        event.extend(body);
    }
    event
}

/// What one agent event adds to an ADK event; `None` for what ADK has no event for.
pub fn adk_event_body(event: &AgentEvent, usage: Option<(u64, u64)>) -> Option<Value> {
    match event {
        AgentEvent::ToolCall { id, name, args } => Some(json!({"content": {"role": "model",
            "parts": [{"functionCall": {"id": id, "name": name, "args": args}}]}})),
        AgentEvent::ToolResult {
            id, name, response, ..
        } => Some(json!({"content": {"role": "user",
            "parts": [{"functionResponse": {"id": id, "name": name, "response": response}}]}})),
        AgentEvent::FinalResponse { text } => {
            let mut body = json!({"content": {"role": "model", "parts": [{"text": text}]}});
            if let Some((prompt, completion)) = usage {
                body["usageMetadata"] =
                    json!({"promptTokenCount": prompt, "candidatesTokenCount": completion});
            }
            Some(body)
        }
        AgentEvent::Error { message } => Some(json!({"errorCode": "AGENT_ERROR", "errorMessage": message})),
        AgentEvent::TextDelta { .. }
        | AgentEvent::Usage { .. }
        | AgentEvent::ModelCall { .. }
        | AgentEvent::Author { .. } => None,
    }
}
