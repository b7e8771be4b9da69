//! The OpenAI-compatible agent against a real HTTP server on 127.0.0.1 that speaks the
//! chat-completions wire protocol from a script (`crate::testing::fake_openai`).
//!
//! API keys: the agent reads `api_key_env` through a lookup function. Production uses the process
//! environment; these tests swap in a fixed table (`test_keys`) instead of calling
//! `std::env::set_var`, because the environment is shared by all test threads and changing it
//! while another thread reads it (reqwest reads proxy variables, libc reads resolver ones) is a
//! data race. One test (`missing_key_variable_fails_before_any_request`) goes through the real
//! environment lookup with a variable that is never set.

use std::time::Duration;

use serde_json::{json, Value};

use super::{OpenAiAgent, OpenAiConfig};
use crate::agent::{AgentEvent, ToolRegistry};
use crate::testing::fake_openai::{Reply, Server};

mod tool_loop;
mod transport;

const KEY_VAR: &str = "EVALSTUDIO_TEST_OPENAI_KEY";
const SECRET: &str = "sk-test-7f3a9c1e5b-very-secret";

fn test_keys(name: &str) -> Option<String> {
    (name == KEY_VAR).then(|| SECRET.to_string())
}

/// The agent's view of the scripted server.
trait AgentServer {
    fn config(&self) -> OpenAiConfig;
    fn agent(&self) -> OpenAiAgent;
    fn agent_with(&self, change: impl FnOnce(&mut OpenAiConfig)) -> OpenAiAgent;
}

impl AgentServer for Server {
    fn config(&self) -> OpenAiConfig {
        OpenAiConfig {
            request_timeout: Duration::from_secs(5),
            retry_base_delay: Duration::from_millis(1),
            ..OpenAiConfig::new(&self.base_url, "test-model")
        }
    }

    fn agent(&self) -> OpenAiAgent {
        self.agent_with(|_| {})
    }

    fn agent_with(&self, change: impl FnOnce(&mut OpenAiConfig)) -> OpenAiAgent {
        let mut config = self.config();
        change(&mut config);
        OpenAiAgent::new(config, ToolRegistry::demo()).with_key_lookup(test_keys)
    }
}

// ---------------------------------------------------------------------------------------------
// Chunks as OpenAI streams them

fn chunk(delta: Value, finish_reason: Option<&str>) -> Value {
    json!({
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "model": "test-model",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
    })
}

fn text(piece: &str) -> Value {
    chunk(json!({"content": piece}), None)
}

fn call_start(index: u64, id: &str, name: &str) -> Value {
    chunk(
        json!({"role": "assistant", "content": null, "tool_calls": [
            {"index": index, "id": id, "type": "function", "function": {"name": name, "arguments": ""}}
        ]}),
        None,
    )
}

fn call_args(index: u64, part: &str) -> Value {
    chunk(
        json!({"tool_calls": [{"index": index, "function": {"arguments": part}}]}),
        None,
    )
}

fn finish(reason: &str) -> Value {
    chunk(json!({}), Some(reason))
}

/// A reply with text in the given pieces.
fn text_reply(pieces: &[&str]) -> Reply {
    let mut events: Vec<Value> = pieces.iter().map(|p| text(p)).collect();
    events.push(finish("stop"));
    Reply::sse(events)
}

/// A reply calling tools one after another, each call's arguments split into three pieces.
fn tool_reply(calls: &[(&str, &str, Value)]) -> Reply {
    let mut events = Vec::new();
    for (index, (id, name, args)) in calls.iter().enumerate() {
        events.push(call_start(index as u64, id, name));
        for part in split3(&args.to_string()) {
            events.push(call_args(index as u64, &part));
        }
    }
    events.push(finish("tool_calls"));
    Reply::sse(events)
}

fn split3(s: &str) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    let third = chars.len() / 3;
    vec![
        chars[..third].iter().collect(),
        chars[third..2 * third].iter().collect(),
        chars[2 * third..].iter().collect(),
    ]
}

// ---------------------------------------------------------------------------------------------
// Helpers

/// The kinds of the turn's events, leaving out the model-call timings (which
/// `each_model_call_is_timed` checks).
fn kinds(events: &[AgentEvent]) -> Vec<&'static str> {
    events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::TextDelta { .. } => Some("text"),
            AgentEvent::ToolCall { .. } => Some("call"),
            AgentEvent::ToolResult { .. } => Some("result"),
            AgentEvent::FinalResponse { .. } => Some("final"),
            AgentEvent::Error { .. } => Some("error"),
            AgentEvent::Usage { .. } => Some("usage"),
            AgentEvent::Author { .. } => Some("author"),
            AgentEvent::ModelCall { .. } => None,
        })
        .collect()
}

/// The turn's error message; panics unless the turn ended with exactly one error.
fn the_error(events: &[AgentEvent]) -> String {
    let errors: Vec<&String> = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Error { message } => Some(message),
            _ => None,
        })
        .collect();
    assert_eq!(errors.len(), 1, "{events:?}");
    assert!(
        matches!(events.last(), Some(AgentEvent::Error { .. })),
        "{events:?}"
    );
    assert!(!kinds(events).contains(&"final"), "{events:?}");
    errors[0].clone()
}

fn results(events: &[AgentEvent]) -> Vec<(String, String, Value)> {
    events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ToolResult {
                id, name, response, ..
            } => Some((id.clone(), name.clone(), Value::Object(response.clone()))),
            _ => None,
        })
        .collect()
}
