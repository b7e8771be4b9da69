//! ADK's informational metrics over the invocations an agent's recorded turns become
//! (`agent::to_eval_case::generated_invocation`), in the order each agent reports events.

use crate::agent::to_eval_case::{generated_invocation, RecordedTurn};
use crate::agent::{AgentEvent, Turn};
use crate::evalset::Invocation;
use pure_metrics::efficiency::{evaluate_efficiency, Efficiency};
use serde_json::{json, Value};

fn generated(events: Vec<AgentEvent>) -> Invocation {
    let recorded = RecordedTurn {
        invocation_id: "e-1".into(),
        timestamp: 101.0,
        turn: Turn {
            user: "Where is A1001?".into(),
            events,
        },
    };
    generated_invocation(&recorded, "demo_agent")
}

fn efficiency(metric: Efficiency, invocation: &Invocation) -> Option<f64> {
    evaluate_efficiency(metric, std::slice::from_ref(invocation)).overall
}

fn usage(prompt_tokens: u64, completion_tokens: u64) -> AgentEvent {
    AgentEvent::Usage {
        prompt_tokens,
        completion_tokens,
    }
}

fn text(text: &str) -> AgentEvent {
    AgentEvent::TextDelta { text: text.into() }
}

fn call(id: &str, name: &str, args: Value) -> AgentEvent {
    AgentEvent::ToolCall {
        id: id.into(),
        name: name.into(),
        args: args.as_object().cloned().unwrap(),
    }
}

fn result(id: &str, name: &str, response: Value) -> AgentEvent {
    AgentEvent::ToolResult {
        id: id.into(),
        name: name.into(),
        response: response.as_object().cloned().unwrap(),
        duration_ms: 3,
        source: Default::default(),
    }
}

fn answer(words: &str) -> Vec<AgentEvent> {
    vec![
        text(words),
        AgentEvent::FinalResponse { text: words.into() },
        usage(10, 5),
    ]
}

#[test]
fn usage_right_after_each_reply_before_its_calls() {
    // The OpenAI agent's order.
    let invocation = generated(vec![
        text("Let me check."),
        usage(12, 3),
        call("c1", "get_order_status", json!({"order_id": "A1001"})),
        result("c1", "get_order_status", json!({"status": "shipped"})),
        text("It has shipped."),
        AgentEvent::FinalResponse {
            text: "It has shipped.".into(),
        },
        usage(30, 4),
    ]);
    assert_eq!(efficiency(Efficiency::InferenceCallCount, &invocation), Some(2.0));
    assert_eq!(efficiency(Efficiency::TokenUsage, &invocation), Some(49.0));
    assert_eq!(efficiency(Efficiency::ToolCallCount, &invocation), Some(1.0));
}

#[test]
fn usage_after_each_reply() {
    // The ADK agent's order: each model event's parts, then its usage.
    let invocation = generated(vec![
        text("Checking."),
        usage(10, 2),
        text("It has shipped."),
        usage(20, 4),
        AgentEvent::FinalResponse {
            text: "It has shipped.".into(),
        },
    ]);
    assert_eq!(efficiency(Efficiency::InferenceCallCount, &invocation), Some(2.0));
    assert_eq!(efficiency(Efficiency::TokenUsage, &invocation), Some(36.0));
}

#[test]
fn calls_one_at_a_time_and_usage_once() {
    // The demo agent's order: each call followed by its result, one usage report at the end.
    let mut events = vec![
        call("c1", "get_weather", json!({"city": "Paris"})),
        result("c1", "get_weather", json!({"temperature_c": 18})),
        call("c2", "convert_currency", json!({"amount": 20})),
        result("c2", "convert_currency", json!({"converted": 21.6})),
    ];
    events.extend(answer("18 °C; 21.60 USD."));
    let invocation = generated(events);
    assert_eq!(efficiency(Efficiency::InferenceCallCount, &invocation), Some(1.0));
    assert_eq!(efficiency(Efficiency::ToolCallCount, &invocation), Some(2.0));
}

#[test]
fn parallel_calls_then_their_results() {
    // The OpenAI agent's order for parallel calls: every call, then every result.
    let mut events = vec![
        call("c1", "get_weather", json!({"city": "Paris"})),
        call("c2", "convert_currency", json!({"amount": 20})),
        result("c1", "get_weather", json!({"temperature_c": 18})),
        result("c2", "convert_currency", json!({"converted": 21.6})),
    ];
    events.extend(answer("18 °C; 21.60 USD."));
    let invocation = generated(events);
    assert_eq!(efficiency(Efficiency::InferenceCallCount, &invocation), Some(1.0));
    assert_eq!(efficiency(Efficiency::TokenUsage, &invocation), Some(15.0));
}
