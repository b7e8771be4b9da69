//! The chat messages the model is sent: the system prompt, the session's recorded turns replayed
//! as messages, the new user message, and what the tool loop adds (the model's calls and their
//! results).

use serde_json::{json, Map, Value};

use crate::agent::{AgentEvent, Turn};

/// System prompt, the session so far, the new message.
pub(super) fn initial(system_prompt: Option<&str>, history: &[Turn], message: &str) -> Vec<Value> {
    let mut messages = Vec::new();
    if let Some(prompt) = system_prompt.filter(|p| !p.is_empty()) {
        messages.push(json!({"role": "system", "content": prompt}));
    }
    for turn in history {
        replay_turn(turn, &mut messages);
    }
    messages.push(json!({"role": "user", "content": message}));
    messages
}

/// A model reply that asked for tools: its text as content and its calls. Content is `""`
/// rather than null when there is no text: OpenAI takes either, llama.cpp's server answers
/// null with an HTTP 500.
pub(super) fn assistant_with_calls(text: &str, tool_calls: Vec<Value>) -> Value {
    json!({
        "role": "assistant",
        "content": text,
        "tool_calls": tool_calls,
    })
}

pub(super) fn tool_call(id: &str, name: &str, arguments: &str) -> Value {
    json!({
        "id": id,
        "type": "function",
        "function": {"name": name, "arguments": arguments},
    })
}

/// A tool's result, answering the call `id`.
pub(super) fn tool_result(id: &str, response: &Map<String, Value>) -> Value {
    json!({
        "role": "tool",
        "tool_call_id": id,
        "content": Value::Object(response.clone()).to_string(),
    })
}

/// Rebuilds the chat messages of a recorded turn: the user's message; per model reply with tool
/// calls an assistant message carrying them (its text as content) followed by one tool
/// message per result; the final answer. A call without a recorded result gets an error result,
/// because the API rejects a conversation with an unanswered tool call.
fn replay_turn(turn: &Turn, messages: &mut Vec<Value>) {
    messages.push(json!({"role": "user", "content": turn.user}));
    let mut text = String::new();
    // Calls of the assistant message being built, not yet answered.
    let mut open_calls: Vec<String> = Vec::new();
    let mut awaiting_results = false;
    for event in &turn.events {
        match event {
            AgentEvent::TextDelta { text: delta } => {
                if awaiting_results {
                    close_calls(&mut open_calls, messages);
                    awaiting_results = false;
                }
                text.push_str(delta);
            }
            AgentEvent::ToolCall { id, name, args } => {
                let call = tool_call(id, name, &Value::Object(args.clone()).to_string());
                let last_has_calls = messages
                    .last()
                    .is_some_and(|m| m["role"] == "assistant" && m.get("tool_calls").is_some());
                if awaiting_results && last_has_calls {
                    if let Some(Value::Array(calls)) =
                        messages.last_mut().and_then(|m| m.get_mut("tool_calls"))
                    {
                        calls.push(call);
                    }
                } else {
                    close_calls(&mut open_calls, messages);
                    messages.push(assistant_with_calls(&std::mem::take(&mut text), vec![call]));
                    awaiting_results = true;
                }
                open_calls.push(id.clone());
            }
            AgentEvent::ToolResult { id, response, .. } => {
                // Results follow their calls; once one arrives no more calls join that message.
                awaiting_results = false;
                open_calls.retain(|open| open != id);
                messages.push(tool_result(id, response));
            }
            AgentEvent::FinalResponse { text: answer } => {
                close_calls(&mut open_calls, messages);
                awaiting_results = false;
                text.clear();
                messages.push(json!({"role": "assistant", "content": answer}));
            }
            AgentEvent::Error { .. }
            | AgentEvent::Usage { .. }
            | AgentEvent::ModelCall { .. }
            | AgentEvent::Author { .. } => {}
        }
    }
    close_calls(&mut open_calls, messages);
}

fn close_calls(open_calls: &mut Vec<String>, messages: &mut Vec<Value>) {
    for id in open_calls.drain(..) {
        messages.push(json!({
            "role": "tool",
            "tool_call_id": id,
            "content": json!({"error": "no result was recorded for this call"}).to_string(),
        }));
    }
}
