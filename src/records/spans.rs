//! Spans as the OTLP receiver stores them, and what the Traces list reads of one.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A span as an OTLP receiver stored it (ids as lowercase hex, times in Unix nanoseconds),
/// with its resource's and its own attributes as JSON objects.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpanRecord {
    pub trace_id: String,
    pub span_id: String,
    pub parent_span_id: Option<String>,
    pub name: String,
    pub kind: SpanKind,
    pub start_unix_nano: i64,
    pub end_unix_nano: i64,
    pub status: SpanStatus,
    pub status_message: Option<String>,
    /// The resource's `service.name`.
    pub service_name: Option<String>,
    /// The conversation it belongs to, when the span says (ADK's, OpenInference's or the GenAI
    /// conventions' attribute).
    pub session_id: Option<String>,
    /// The instrumentation scope that made it (`gcp.vertex.agent` for ADK).
    pub scope: Option<String>,
    pub attributes: Map<String, Value>,
    pub events: Vec<SpanEvent>,
    pub resource: Map<String, Value>,
}

impl SpanRecord {
    /// The tool an `execute_tool` span ran (`gen_ai.tool.name`; OpenInference's TOOL span's
    /// `tool.name`).
    pub fn tool_name(&self) -> Option<&str> {
        let named = |key: &str| self.attributes.get(key).and_then(|name| name.as_str());
        let open_inference_tool = named("openinference.span.kind") == Some("TOOL");
        named("gen_ai.tool.name").or_else(|| named("tool.name").filter(|_| open_inference_tool))
    }

    /// The agent the span names: the GenAI conventions' `gen_ai.agent.name`, else
    /// OpenInference's `agent.name`.
    pub fn agent_name(&self) -> Option<&str> {
        let named = |key: &str| self.attributes.get(key).and_then(|name| name.as_str());
        named("gen_ai.agent.name").or_else(|| named("agent.name"))
    }

    /// What was said and sent in the span, lowercased, for the Traces list's text filter: the
    /// string values of its messages, tool arguments and results (JSON held as text read
    /// first), without their keys. None when it has none.
    pub fn search_text(&self) -> Option<String> {
        let mut texts = Vec::new();
        for key in CONTENT_KEYS {
            if let Some(value) = self.attributes.get(*key) {
                string_leaves(value, &mut texts);
            }
        }
        // OpenInference flattens its messages into an attribute per field.
        let flattened = self.attributes.iter().filter(|(key, _)| {
            let message = key.starts_with("llm.input_messages.") || key.starts_with("llm.output_messages.");
            message && (key.ends_with(".content") || key.ends_with(".text") || key.ends_with(".arguments"))
        });
        for (_, value) in flattened {
            string_leaves(value, &mut texts);
        }
        (!texts.is_empty()).then(|| texts.join("\n").to_lowercase())
    }

    /// The tokens a model call used, as the GenAI conventions report them
    /// (`gen_ai.usage.input_tokens`, `gen_ai.usage.output_tokens`), else as OpenInference
    /// does (`llm.token_count.prompt`, `llm.token_count.completion`).
    pub fn tokens(&self) -> (Option<i64>, Option<i64>) {
        let count = |key: &str| {
            self.attributes
                .get(key)
                .and_then(|n| n.as_f64())
                .map(|n| n as i64)
        };
        let either = |genai: &str, open_inference: &str| count(genai).or_else(|| count(open_inference));
        (
            either("gen_ai.usage.input_tokens", "llm.token_count.prompt"),
            either("gen_ai.usage.output_tokens", "llm.token_count.completion"),
        )
    }
}

/// The attributes that carry what was said and sent: the GenAI conventions', ADK's schema 1,
/// OpenInference's.
const CONTENT_KEYS: &[&str] = &[
    "gen_ai.input.messages",
    "gen_ai.output.messages",
    "gen_ai.tool.call.arguments",
    "gen_ai.tool.call.result",
    "gcp.vertex.agent.llm_request",
    "gcp.vertex.agent.llm_response",
    "gcp.vertex.agent.tool_call_args",
    "gcp.vertex.agent.tool_response",
    "input.value",
    "output.value",
];

/// The strings in `value`, a string holding JSON read as that JSON.
fn string_leaves(value: &serde_json::Value, texts: &mut Vec<String>) {
    use serde_json::Value;
    match value {
        Value::String(text) => match serde_json::from_str::<Value>(text) {
            Ok(inner @ (Value::Object(_) | Value::Array(_))) => string_leaves(&inner, texts),
            _ => texts.push(text.clone()),
        },
        Value::Array(items) => items.iter().for_each(|item| string_leaves(item, texts)),
        Value::Object(fields) => fields.values().for_each(|field| string_leaves(field, texts)),
        Value::Number(_) | Value::Bool(_) | Value::Null => {}
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpanEvent {
    pub name: String,
    pub time_unix_nano: i64,
    pub attributes: Map<String, Value>,
}

/// OTLP's span kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SpanKind {
    Unspecified,
    Internal,
    Server,
    Client,
    Producer,
    Consumer,
}

impl SpanKind {
    pub fn as_str(self) -> &'static str {
        match self {
            SpanKind::Unspecified => "unspecified",
            SpanKind::Internal => "internal",
            SpanKind::Server => "server",
            SpanKind::Client => "client",
            SpanKind::Producer => "producer",
            SpanKind::Consumer => "consumer",
        }
    }

    pub fn parse(text: &str) -> Option<SpanKind> {
        [
            SpanKind::Unspecified,
            SpanKind::Internal,
            SpanKind::Server,
            SpanKind::Client,
            SpanKind::Producer,
            SpanKind::Consumer,
        ]
        .into_iter()
        .find(|kind| kind.as_str() == text)
    }
}

/// OTLP's span status codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SpanStatus {
    Unset,
    Ok,
    Error,
}

impl SpanStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            SpanStatus::Unset => "unset",
            SpanStatus::Ok => "ok",
            SpanStatus::Error => "error",
        }
    }

    pub fn parse(text: &str) -> Option<SpanStatus> {
        [SpanStatus::Unset, SpanStatus::Ok, SpanStatus::Error]
            .into_iter()
            .find(|status| status.as_str() == text)
    }
}
