//! Sessions and turns in ADK's Event shape (camelCase, as its api_server writes them), and the
//! session an eval case ran in.

use crate::agent::AgentEvent;
use crate::eval::result::EvalCaseResult;
use crate::evalset::{Camel, Content, Invocation};
use crate::records::sessions::{SessionRecord, SessionTurn};
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

/// The session an eval case ran in, as ADK's Session, rebuilt from the actual invocations its
/// result holds (each turn's user message, tool calls and responses, and reply), as `adk web`
/// keeps an eval's session beside the chat sessions.
pub fn eval_case_session(app: &str, result: &EvalCaseResult) -> Value {
    let mut events = Vec::new();
    let mut last_update = 0.0;
    for per in &result.eval_metric_result_per_invocation {
        let invocation = &per.actual_invocation;
        last_update = invocation.creation_timestamp;
        events.extend(invocation_events(app, invocation));
    }
    json!({
        "id": result.session_id,
        "appName": app,
        "userId": result.user_id.as_deref().unwrap_or_default(),
        "state": {},
        "events": events,
        "lastUpdateTime": last_update,
    })
}

/// One invocation as ADK events: the user's message, then what the agent did.
fn invocation_events(app: &str, invocation: &Invocation) -> Vec<Value> {
    let content = |content: &Content| json!({ "content": Camel(content) });
    let mut bodies = vec![("user".to_string(), content(&invocation.user_content))];
    let recorded = invocation.intermediate_data.as_ref();
    match recorded.and_then(|data| data.invocation_events.as_ref()) {
        Some(recorded) => bodies.extend(
            recorded
                .iter()
                .filter_map(|event| Some((event.author.clone(), content(event.content.as_ref()?)))),
        ),
        None => {
            let calls = invocation
                .tool_calls()
                .into_iter()
                .map(|call| json!({"content": {"role": "model", "parts": [{"functionCall": Camel(call)}]}}));
            let responses = invocation.tool_responses().into_iter().map(|response| {
                json!({"content": {"role": "user", "parts": [{"functionResponse": Camel(response)}]}})
            });
            bodies.extend(calls.chain(responses).map(|body| (app.to_string(), body)));
            let texts = recorded.map(|data| data.intermediate_texts()).unwrap_or_default();
            bodies.extend(texts.into_iter().map(|(author, parts)| {
                (
                    author,
                    json!({"content": {"role": "model", "parts": Camel(&parts)}}),
                )
            }));
        }
    }
    if let Some(reply) = &invocation.final_response {
        bodies.push((app.to_string(), content(reply)));
    }
    let time = invocation.creation_timestamp;
    bodies
        .into_iter()
        .enumerate()
        .map(|(n, (author, body))| adk_event(&invocation.invocation_id, &author, time, n, body))
        .collect()
}
