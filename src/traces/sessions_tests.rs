//! On spans ADK 2.13 sent while the weather fixture agent answered one turn (`make conformance`
//! sends the same), stored by the receiver: tests/fixtures/otlp/adk_schema{1,2}.spans.json.

use super::*;
use crate::agent::to_eval_case::session_to_eval_case;
use crate::testing::repo::repo_path;
use serde_json::json;

fn fixture(name: &str) -> Vec<SpanRecord> {
    let path = repo_path(&format!("tests/fixtures/otlp/{name}.spans.json"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn the_weather_turn(events: &[AgentEvent]) {
    let [AgentEvent::Author { name }, AgentEvent::ToolCall { name: tool, args, id }, AgentEvent::ToolResult {
        response,
        id: answered,
        ..
    }, AgentEvent::FinalResponse { text }] = events
    else {
        panic!("{events:#?}")
    };
    assert_eq!(name, "weather_agent");
    assert_eq!(
        (tool.as_str(), json!(args)),
        ("get_weather", json!({"city": "Paris"}))
    );
    assert!(id.starts_with("adk-"), "ADK's own call id: {id}");
    assert_eq!(answered, id);
    assert_eq!(
        json!(response),
        json!({"city": "Paris", "forecast": "sunny", "temperature_c": 21})
    );
    assert_eq!(text, "It is sunny and 21 °C in Paris.");
}

#[test]
fn schema_2_spans_give_the_turn_with_its_tool_call_and_answer() {
    let spans = fixture("adk_schema2");
    let session = trace_session("s2", &spans);
    assert!(session.complete && !session.content_missing, "{session:#?}");
    assert_eq!(session.origin.app_name, "weather_agent");
    let [turn] = &session.turns[..] else {
        panic!("{session:#?}")
    };
    assert!(
        turn.invocation_id.starts_with("e-"),
        "ADK's invocation id: {}",
        turn.invocation_id
    );
    assert_eq!(turn.turn.user, "What's the weather in Paris?");
    the_weather_turn(&turn.turn.events);
}

#[test]
fn schema_1_spans_give_the_same_turn() {
    let session = trace_session("s1", &fixture("adk_schema1"));
    assert!(session.complete && !session.content_missing, "{session:#?}");
    let [turn] = &session.turns[..] else {
        panic!("{session:#?}")
    };
    assert_eq!(turn.turn.user, "What's the weather in Paris?");
    the_weather_turn(&turn.turn.events);
}

#[test]
fn the_turn_becomes_the_case_add_current_session_makes() {
    let session = trace_session("s2", &fixture("adk_schema2"));
    let case = session_to_eval_case("paris", &session.origin, &session.turns, 1.0);
    let invocation = &case.conversation.unwrap()[0];
    let data = invocation.intermediate_data.as_ref().unwrap();
    assert_eq!(data.tool_uses[0].name.as_deref(), Some("get_weather"));
    assert_eq!(
        data.tool_responses[0].response.as_ref().unwrap()["forecast"],
        "sunny"
    );
    assert!(data.intermediate_responses.is_empty());
    assert_eq!(
        invocation
            .final_response
            .as_ref()
            .unwrap()
            .parts
            .as_ref()
            .unwrap()[0]
            .text
            .as_deref(),
        Some("It is sunny and 21 °C in Paris.")
    );
}

#[test]
fn spans_without_messages_say_their_content_is_missing() {
    let mut spans = fixture("adk_schema2");
    for span in &mut spans {
        span.attributes.remove("gen_ai.input.messages");
        span.attributes.remove("gen_ai.output.messages");
    }
    let session = trace_session("s2", &spans);
    assert!(session.content_missing);
    assert_eq!(session.turns[0].turn.user, "");
}

#[test]
fn a_trace_missing_a_span_is_incomplete() {
    let mut spans = fixture("adk_schema2");
    spans.retain(|span| span.name != "invoke_agent weather_agent");
    assert!(!trace_session("s2", &spans).complete);
}

#[test]
fn spans_in_any_order_give_the_same_session() {
    let spans = fixture("adk_schema1");
    let mut reversed = spans.clone();
    reversed.reverse();
    assert_eq!(trace_session("s1", &reversed), trace_session("s1", &spans));
}

#[test]
fn openinference_spans_alone_give_the_same_turn_in_the_order_it_happened() {
    // ADK run without its own content capture, OpenInference's ADK instrumentation recording
    // what was said on the agent's span, which encloses the tool call.
    let spans = fixture("openinference_adk");
    assert!(spans
        .iter()
        .all(|span| !span.attributes.contains_key("gen_ai.input.messages")));
    let session = trace_session("oi", &spans);
    assert!(session.complete && !session.content_missing, "{session:#?}");
    assert_eq!(session.origin.app_name, "weather_agent");
    let [turn] = &session.turns[..] else {
        panic!("{session:#?}")
    };
    assert_eq!(turn.turn.user, "What's the weather in Paris?");
    the_weather_turn(&turn.turn.events);
}

#[test]
fn schema_1_text_said_beside_a_tool_call_comes_before_it() {
    // ADK's call_llm span stays open while the tool it asked for runs.
    let mut spans = fixture("adk_schema1");
    let first_call = spans
        .iter_mut()
        .filter(|span| span.name == "call_llm")
        .min_by_key(|span| span.start_unix_nano)
        .unwrap();
    let response = json!({"content": {"role": "model", "parts": [
        {"text": "Let me check."},
        {"function_call": {"args": {"city": "Paris"}, "name": "get_weather"}},
    ]}});
    first_call.attributes.insert(
        "gcp.vertex.agent.llm_response".into(),
        json!(response.to_string()),
    );
    let session = trace_session("s1", &spans);
    let events = &session.turns[0].turn.events;
    let said = events
        .iter()
        .position(|event| matches!(event, AgentEvent::TextDelta { text } if text == "Let me check."));
    let called = events
        .iter()
        .position(|event| matches!(event, AgentEvent::ToolCall { .. }));
    assert!(said.unwrap() < called.unwrap(), "{events:#?}");
}

#[test]
fn a_clients_chat_span_under_adks_model_call_is_the_same_call_read_once() {
    let mut spans = fixture("adk_schema2");
    let calls: Vec<SpanRecord> = spans
        .iter()
        .filter(|span| span.name.starts_with("generate_content"))
        .cloned()
        .collect();
    for call in calls {
        let mut chat = call.clone();
        chat.span_id = format!("{}ff", &call.span_id[..14]);
        chat.parent_span_id = Some(call.span_id.clone());
        chat.name = "chat m".into();
        chat.attributes
            .insert("gen_ai.operation.name".into(), json!("chat"));
        spans.push(chat);
    }
    let session = trace_session("s2", &spans);
    let [turn] = &session.turns[..] else {
        panic!("{session:#?}")
    };
    the_weather_turn(&turn.turn.events);
}

#[test]
fn an_openinference_message_whose_first_part_is_an_image_keeps_its_text() {
    let mut spans = fixture("openinference_adk");
    let llm = spans
        .iter_mut()
        .find(|span| span.attributes.get("openinference.span.kind") == Some(&json!("LLM")))
        .unwrap();
    let key = |part: usize, field: &str| {
        format!("llm.input_messages.1.message.contents.{part}.message_content.{field}")
    };
    let text = llm.attributes.remove(&key(0, "text")).unwrap();
    llm.attributes.insert(key(0, "type"), json!("image"));
    llm.attributes.insert(key(1, "type"), json!("text"));
    llm.attributes.insert(key(1, "text"), text);
    let session = trace_session("oi", &spans);
    assert_eq!(session.turns[0].turn.user, "What's the weather in Paris?");
    assert!(!session.content_missing);
}
