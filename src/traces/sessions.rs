//! A conversation from its spans: the traces of one session, each an invocation (a user turn),
//! read back into the turns "Add current session" records, under either of ADK 2.13's span
//! schemas (schema 2, the GenAI conventions' `generate_content` and `execute_tool` spans with
//! `gen_ai.*` content; schema 1, `call_llm` spans with `gcp.vertex.agent.*` request and
//! response). Spans that carry no content are said to, not guessed at.

use crate::agent::to_eval_case::{RecordedTurn, SessionOrigin};
use crate::agent::{AgentEvent, ToolSource, Turn};
use crate::records::spans::{SpanRecord, SpanStatus};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashSet};

/// A recorded conversation as its spans tell it.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceSession {
    pub session_id: String,
    pub origin: SessionOrigin,
    /// One per trace, in the order they started.
    pub turns: Vec<RecordedTurn>,
    /// Whether every trace has its root and every span's parent (spans still missing otherwise).
    pub complete: bool,
    /// Whether the model calls' spans carry no messages: the agent records them only when
    /// `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT` is `SPAN_ONLY` (or `SPAN_AND_EVENT`).
    pub content_missing: bool,
}

/// The setting an ADK agent needs for its spans to carry what was said.
pub const CONTENT_SETTING: &str = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY";

/// The session `session_id` from the spans of its traces (in any order).
pub fn trace_session(session_id: &str, spans: &[SpanRecord]) -> TraceSession {
    let mut traces: BTreeMap<&str, Vec<&SpanRecord>> = BTreeMap::new();
    for span in spans {
        traces.entry(&span.trace_id).or_default().push(span);
    }
    let mut traces: Vec<Vec<&SpanRecord>> = traces.into_values().collect();
    for trace in &mut traces {
        trace.sort_by_key(|span| (span.start_unix_nano, span.end_unix_nano));
    }
    traces.sort_by_key(|trace| trace[0].start_unix_nano);
    let turns: Vec<(RecordedTurn, bool)> = traces.iter().map(|trace| turn(trace)).collect();
    // The app is named after its root agent, which is also the author of its text.
    let app = app_name(spans);
    TraceSession {
        session_id: session_id.to_string(),
        origin: SessionOrigin {
            user_id: text_attribute(spans, &["user.id", "enduser.id"]).unwrap_or_else(|| "user".to_string()),
            state: Map::new(),
            agent_name: app.clone(),
            app_name: app,
        },
        complete: traces.iter().all(|trace| is_whole(trace)),
        content_missing: turns.iter().any(|(_, has_content)| !has_content),
        turns: turns.into_iter().map(|(turn, _)| turn).collect(),
    }
}

/// Spans (of any sessions, in any order) grouped as the store groups them: a session is every
/// trace one of whose spans names it, so a trace's spans without the attribute still belong.
/// Traces that name no session are left out. Sessions in order of their first span's start.
pub fn group_sessions(spans: Vec<SpanRecord>) -> Vec<(String, Vec<SpanRecord>)> {
    let mut session_of_trace: BTreeMap<String, String> = BTreeMap::new();
    for span in &spans {
        if let Some(session) = &span.session_id {
            session_of_trace
                .entry(span.trace_id.clone())
                .or_insert_with(|| session.clone());
        }
    }
    let mut sessions: BTreeMap<String, Vec<SpanRecord>> = BTreeMap::new();
    for span in spans {
        if let Some(session) = session_of_trace.get(&span.trace_id) {
            sessions.entry(session.clone()).or_default().push(span);
        }
    }
    let mut sessions: Vec<(String, Vec<SpanRecord>)> = sessions.into_iter().collect();
    sessions.sort_by_key(|(_, spans)| spans.iter().map(|span| span.start_unix_nano).min());
    sessions
}

/// The app: the outermost agent's name, else the resource's service name.
fn app_name(spans: &[SpanRecord]) -> String {
    root_agent(spans)
        .or_else(|| spans.iter().find_map(|span| span.service_name.clone()))
        .unwrap_or_else(|| "unknown".to_string())
}

/// The agent of the earliest `invoke_agent` span (or OpenInference's AGENT span).
fn root_agent(spans: &[SpanRecord]) -> Option<String> {
    spans
        .iter()
        .filter(|span| operation(span) == Some("invoke_agent") || open_inference(span) == Some("AGENT"))
        .filter_map(|span| Some((span.start_unix_nano, span.agent_name()?)))
        .min_by_key(|(start, _)| *start)
        .map(|(_, name)| name.to_string())
}

/// OpenInference's kind of span (`LLM`, `TOOL`, `AGENT`, ...).
fn open_inference(span: &SpanRecord) -> Option<&str> {
    span.attributes
        .get("openinference.span.kind")
        .and_then(Value::as_str)
}

fn text_attribute(spans: &[SpanRecord], keys: &[&str]) -> Option<String> {
    spans
        .iter()
        .find_map(|span| keys.iter().find_map(|key| text(&span.attributes, key)))
}

/// Whether the trace has one root and every other span's parent.
fn is_whole(trace: &[&SpanRecord]) -> bool {
    let ids: HashSet<&str> = trace.iter().map(|span| span.span_id.as_str()).collect();
    let roots = trace.iter().filter(|span| span.parent_span_id.is_none()).count();
    roots == 1
        && trace
            .iter()
            .filter_map(|span| span.parent_span_id.as_deref())
            .all(|parent| ids.contains(parent))
}

/// Which spans of a trace are its model calls, by what the trace carries.
#[derive(Clone, Copy, PartialEq)]
enum ModelCalls {
    /// ADK's schema 1 records each call twice, as `call_llm` with the content and as the GenAI
    /// instrumentation's `generate_content` without: the first.
    Schema1,
    /// The GenAI conventions' `generate_content` (ADK's schema 2), `chat` or `text_completion`.
    GenAi,
    /// OpenInference's LLM spans, when only they carry the messages (its instrumentation of a
    /// framework, or of ADK run without ADK's own content capture).
    OpenInference,
}

impl ModelCalls {
    fn of(trace: &[&SpanRecord]) -> ModelCalls {
        let has = |key: &str| trace.iter().any(|span| span.attributes.contains_key(key));
        if trace.iter().any(|span| span.name == "call_llm") {
            ModelCalls::Schema1
        } else if !has("gen_ai.input.messages")
            && trace.iter().any(|span| open_inference(span) == Some("LLM"))
        {
            ModelCalls::OpenInference
        } else {
            ModelCalls::GenAi
        }
    }

    fn includes(self, span: &SpanRecord) -> bool {
        match self {
            ModelCalls::Schema1 => span.name == "call_llm",
            ModelCalls::GenAi => matches!(
                operation(span),
                Some("generate_content" | "chat" | "text_completion")
            ),
            ModelCalls::OpenInference => open_inference(span) == Some("LLM"),
        }
    }
}

/// A moment of a turn, from its spans.
enum Step<'a> {
    /// A model call started, in its agent.
    Agent(&'a SpanRecord),
    /// A model call ended, with what it said.
    Said(&'a SpanRecord),
    /// A tool ran.
    Tool(&'a SpanRecord),
}

/// Whether one of the span's ancestors is a model call too.
fn within_model_call(span: &SpanRecord, trace: &[&SpanRecord], calls: ModelCalls) -> bool {
    lineage(span, trace).skip(1).any(|above| calls.includes(above))
}

/// The span, then its parent, its parent's parent, … as far as the trace has them. A damaged
/// trace's parent links might loop: it goes no higher than the trace is long.
fn lineage<'a>(span: &'a SpanRecord, trace: &'a [&'a SpanRecord]) -> impl Iterator<Item = &'a SpanRecord> {
    std::iter::successors(Some(span), move |current| {
        let parent = current.parent_span_id.as_deref()?;
        trace.iter().copied().find(|other| other.span_id == parent)
    })
    .take(trace.len() + 1)
}

/// Whether the span ran a tool: the GenAI conventions' `execute_tool`, OpenInference's TOOL.
fn is_tool_call(span: &SpanRecord) -> bool {
    operation(span) == Some("execute_tool") || open_inference(span) == Some("TOOL")
}

/// One trace as a turn; and whether its model calls carried their messages.
fn turn(trace: &[&SpanRecord]) -> (RecordedTurn, bool) {
    let calls = ModelCalls::of(trace);
    // A call inside another (an instrumented client's `chat` under ADK's `generate_content`)
    // is the same call, read once.
    let is_model_call = |span: &SpanRecord| calls.includes(span) && !within_model_call(span, trace, calls);
    let model_calls: Vec<&SpanRecord> = trace.iter().copied().filter(|span| is_model_call(span)).collect();
    let user = model_calls.first().and_then(|call| user_message(call));
    // What the turn did, in the order it happened. A model call says what it said when it
    // starts (an ADK call span may stay open while its tools run), but OpenInference's LLM span
    // of an ADK agent encloses the tools it led to, so there what it said comes at its end.
    let mut steps: Vec<(i64, Step)> = Vec::new();
    for span in trace.iter().copied() {
        if is_model_call(span) {
            let said_at = match calls {
                ModelCalls::OpenInference => span.end_unix_nano,
                ModelCalls::Schema1 | ModelCalls::GenAi => span.start_unix_nano,
            };
            steps.push((span.start_unix_nano, Step::Agent(span)));
            steps.push((said_at, Step::Said(span)));
        } else if is_tool_call(span) {
            steps.push((span.start_unix_nano, Step::Tool(span)));
        }
    }
    steps.sort_by_key(|(at, _)| *at);
    let mut events = Vec::new();
    let mut author: Option<String> = None;
    let last_call = model_calls.last().map(|call| call.span_id.as_str());
    for (_, step) in steps {
        match step {
            Step::Agent(span) => {
                if let Some(name) = agent_of(span, trace) {
                    if author.as_deref() != Some(name.as_str()) {
                        events.push(AgentEvent::Author { name: name.clone() });
                        author = Some(name);
                    }
                }
            }
            Step::Said(span) => {
                let after_it = trace
                    .iter()
                    .any(|other| is_tool_call(other) && other.start_unix_nano >= span.end_unix_nano);
                match reply_text(span) {
                    Some(text) if Some(span.span_id.as_str()) == last_call && !after_it => {
                        events.push(AgentEvent::FinalResponse { text })
                    }
                    Some(text) => events.push(AgentEvent::TextDelta { text }),
                    None => {}
                }
            }
            Step::Tool(span) => tool_events(span, &mut events),
        }
    }
    let failed = trace
        .iter()
        .find(|span| span.parent_span_id.is_none() && span.status == SpanStatus::Error);
    if let Some(root) = failed {
        if !events
            .iter()
            .any(|event| matches!(event, AgentEvent::FinalResponse { .. }))
        {
            events.push(AgentEvent::Error {
                message: root
                    .status_message
                    .clone()
                    .unwrap_or_else(|| "the turn failed".into()),
            });
        }
    }
    let first = trace[0];
    let turn = RecordedTurn {
        invocation_id: trace
            .iter()
            .find_map(|span| text(&span.attributes, "gcp.vertex.agent.invocation_id"))
            .unwrap_or_else(|| first.trace_id.clone()),
        timestamp: first.start_unix_nano as f64 / 1e9,
        turn: Turn {
            user: user.clone().unwrap_or_default(),
            events,
        },
    };
    (turn, user.is_some() || model_calls.is_empty())
}

/// The agent a span ran in: its own `gen_ai.agent.name`, else its nearest ancestor's (schema 1's
/// `call_llm` spans name none).
fn agent_of(span: &SpanRecord, trace: &[&SpanRecord]) -> Option<String> {
    lineage(span, trace).find_map(|at| at.agent_name().map(str::to_string))
}

/// The tool call and its result, from an `execute_tool` span.
fn tool_events(span: &SpanRecord, events: &mut Vec<AgentEvent>) {
    let name = span.tool_name().unwrap_or_default().to_string();
    let id = text(&span.attributes, "gen_ai.tool.call.id")
        .or_else(|| text(&span.attributes, "tool.id"))
        .unwrap_or_else(|| span.span_id.clone());
    // OpenInference's input and output values come last: they are a span's whatever it ran.
    let args = json_attribute(
        span,
        &[
            "gen_ai.tool.call.arguments",
            "gcp.vertex.agent.tool_call_args",
            "input.value",
        ],
    );
    let response = json_attribute(
        span,
        &["gen_ai.tool.call.result", "gcp.vertex.agent.tool_response"],
    )
    .or_else(|| json_attribute(span, &["output.value"]).map(function_response_unwrapped));
    events.push(AgentEvent::ToolCall {
        id: id.clone(),
        name: name.clone(),
        args: as_object(args, "args"),
    });
    let response = match (response, span.status) {
        (Some(response), _) => as_object(Some(response), "result"),
        (None, SpanStatus::Error) => {
            let message = span
                .status_message
                .clone()
                .unwrap_or_else(|| "the tool failed".into());
            Map::from_iter([("error".to_string(), Value::String(message))])
        }
        (None, _) => Map::new(),
    };
    events.push(AgentEvent::ToolResult {
        id,
        name,
        response,
        duration_ms: ((span.end_unix_nano - span.start_unix_nano).max(0) / 1_000_000) as u64,
        source: ToolSource::default(),
    });
}

/// A tool's response as OpenInference's ADK instrumentation records it, a whole function
/// response (`{"id", "name", "response"}`), as the response alone.
fn function_response_unwrapped(value: Value) -> Value {
    match value {
        Value::Object(mut object)
            if object.contains_key("name") && object.get("response").is_some_and(Value::is_object) =>
        {
            object.remove("response").unwrap_or_default()
        }
        other => other,
    }
}

/// The last text the user wrote in a model call's input.
fn user_message(call: &SpanRecord) -> Option<String> {
    if let Some(messages) = json_attribute(call, &["gen_ai.input.messages"]) {
        // GenAI conventions: [{"role", "parts": [{"type": "text", "content"}]}].
        return messages.as_array()?.iter().rev().find_map(|message| {
            (message["role"] == "user").then(|| parts_text(&message["parts"], "content"))?
        });
    }
    // Schema 1: the request as the model got it, {"contents": [{"role", "parts": [{"text"}]}]}.
    if let Some(request) = json_attribute(call, &["gcp.vertex.agent.llm_request"]) {
        return request["contents"].as_array()?.iter().rev().find_map(|content| {
            (content["role"] == "user").then(|| parts_text(&content["parts"], "text"))?
        });
    }
    open_inference_messages(call, "llm.input_messages")
        .into_iter()
        .rev()
        .find_map(|(role, text)| (role == "user").then_some(text).flatten())
}

/// OpenInference's messages, flattened into attributes (`llm.input_messages.0.message.role`,
/// `....message.content` or `....message.contents.1.message_content.text`): each one's role and
/// text, in order.
fn open_inference_messages(span: &SpanRecord, list: &str) -> Vec<(String, Option<String>)> {
    (0..)
        .map_while(|index| {
            let at = |key: &str| format!("{list}.{index}.message.{key}");
            let role = text(&span.attributes, &at("role"))?;
            let whole = text(&span.attributes, &at("content"));
            // A part that is not text (an image) has a type and no text: skipped, not an end.
            let part = |n: usize, key: &str| at(&format!("contents.{n}.message_content.{key}"));
            let parts: Vec<String> = (0..)
                .map_while(|n| {
                    let said = text(&span.attributes, &part(n, "text"));
                    let there = said.is_some() || span.attributes.contains_key(&part(n, "type"));
                    there.then_some(said)
                })
                .flatten()
                .collect();
            let said = whole.or_else(|| (!parts.is_empty()).then(|| parts.concat()));
            Some((role, said))
        })
        .collect()
}

/// The text of a model call's reply, if it wrote any.
fn reply_text(call: &SpanRecord) -> Option<String> {
    if let Some(messages) = json_attribute(call, &["gen_ai.output.messages"]) {
        let texts: Vec<String> = messages
            .as_array()?
            .iter()
            .filter_map(|message| parts_text(&message["parts"], "content"))
            .collect();
        return (!texts.is_empty()).then(|| texts.concat());
    }
    if let Some(response) = json_attribute(call, &["gcp.vertex.agent.llm_response"]) {
        return parts_text(&response["content"]["parts"], "text");
    }
    let texts: Vec<String> = open_inference_messages(call, "llm.output_messages")
        .into_iter()
        .filter_map(|(_, text)| text)
        .collect();
    (!texts.is_empty()).then(|| texts.concat())
}

/// The text parts of a list of parts, joined; none when there are none. A GenAI part says its
/// type (`"type": "text"`); ADK's parts are text when they have `text`.
fn parts_text(parts: &Value, key: &str) -> Option<String> {
    let texts: Vec<&str> = parts
        .as_array()?
        .iter()
        .filter(|part| part.get("type").is_none_or(|kind| kind == "text"))
        .filter_map(|part| part[key].as_str())
        .collect();
    (!texts.is_empty()).then(|| texts.concat())
}

fn operation(span: &SpanRecord) -> Option<&str> {
    span.attributes
        .get("gen_ai.operation.name")
        .and_then(Value::as_str)
}

fn text(attributes: &Map<String, Value>, key: &str) -> Option<String> {
    attributes.get(key).and_then(Value::as_str).map(str::to_string)
}

/// An attribute holding JSON as text (as ADK writes content), parsed; a value that is not JSON
/// text stands as it is.
fn json_attribute(span: &SpanRecord, keys: &[&str]) -> Option<Value> {
    let value = keys.iter().find_map(|key| span.attributes.get(*key))?;
    Some(match value {
        Value::String(text) => serde_json::from_str(text).unwrap_or_else(|_| value.clone()),
        other => other.clone(),
    })
}

/// A tool's arguments or response as an object, as ADK's function calls hold them; anything else
/// under `key`.
fn as_object(value: Option<Value>, key: &str) -> Map<String, Value> {
    match value {
        Some(Value::Object(object)) => object,
        None | Some(Value::Null) => Map::new(),
        Some(other) => Map::from_iter([(key.to_string(), other)]),
    }
}

#[cfg(test)]
#[path = "sessions_tests.rs"]
mod tests;
