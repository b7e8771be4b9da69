//! Tests of the demo agent's turns as events: their JSON, streaming, determinism and injected faults.

use serde_json::json;

use super::*;
use crate::agent::test_support::{conversation, final_text, run};

/// Events with durations zeroed, for comparing runs.
fn without_durations(events: &[AgentEvent]) -> Vec<AgentEvent> {
    events
        .iter()
        .cloned()
        .map(|e| match e {
            AgentEvent::ToolResult {
                id, name, response, ..
            } => AgentEvent::ToolResult {
                id,
                name,
                response,
                duration_ms: 0,
                source: Default::default(),
            },
            other => other,
        })
        .collect()
}

#[test]
fn events_serialize_with_a_type_tag() {
    let event = AgentEvent::ToolCall {
        id: "call_0_0".into(),
        name: "get_weather".into(),
        args: args(json!({"city": "Paris"})),
    };
    let value = serde_json::to_value(&event).unwrap();
    assert_eq!(
        value,
        json!({"type": "tool_call", "id": "call_0_0", "name": "get_weather", "args": {"city": "Paris"}})
    );
    let back: AgentEvent = serde_json::from_value(value).unwrap();
    assert_eq!(back, event);
    let usage = serde_json::to_value(AgentEvent::Usage {
        prompt_tokens: 1,
        completion_tokens: 2,
    })
    .unwrap();
    assert_eq!(usage["type"], "usage");
}

// ---------------------------------------------------------------------------------------------
// Streaming, determinism, faults

#[tokio::test]
async fn turn_event_sequence_and_streaming() {
    let agent = DemoAgent::new();
    let history = conversation(&agent, &["hello"]).await;
    let events = run(&agent, &history, "Weather in Cairo and 100 USD in JPY").await;

    // ToolCall, ToolResult per call, then deltas, the final response and usage.
    assert!(matches!(&events[0], AgentEvent::ToolCall { id, .. } if id == "call_1_0"));
    assert!(
        matches!(&events[1], AgentEvent::ToolResult { id, name, .. } if id == "call_1_0" && name == "get_weather")
    );
    assert!(matches!(&events[2], AgentEvent::ToolCall { id, .. } if id == "call_1_1"));
    assert!(matches!(&events[3], AgentEvent::ToolResult { id, .. } if id == "call_1_1"));
    let deltas: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::TextDelta { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert!(deltas.len() > 1, "the answer streams in several chunks");
    assert_eq!(deltas.concat(), final_text(&events));
    assert!(deltas.iter().all(|d| !d.is_empty()));
    let n = events.len();
    assert!(matches!(events[n - 3], AgentEvent::FinalResponse { .. }));
    assert!(matches!(events[n - 2], AgentEvent::ModelCall { .. }));
    let AgentEvent::Usage {
        prompt_tokens,
        completion_tokens,
    } = events[n - 1]
    else {
        panic!("usage comes last");
    };
    assert!(prompt_tokens > 0 && completion_tokens > 0);
}

#[tokio::test]
async fn same_input_gives_the_same_events() {
    let agent = DemoAgent::new();
    let history = conversation(&agent, &["weather in Rome", "and in Madrid?"]).await;
    for message in [
        "what about Sydney?",
        "how do I track my order",
        "2+2 and 5 GBP to EUR",
        "sing",
    ] {
        let first = run(&agent, &history, message).await;
        let second = run(&DemoAgent::new(), &history, message).await;
        assert_eq!(without_durations(&first), without_durations(&second), "{message}");
    }
}

#[tokio::test]
async fn error_rate_one_always_fails_and_zero_never_does() {
    let always = DemoAgent::with_faults(DemoFaults {
        latency_ms: 0,
        error_rate: 1.0,
    });
    let never = DemoAgent::with_faults(DemoFaults {
        latency_ms: 0,
        error_rate: 0.0,
    });
    for message in [
        "weather in Paris",
        "hi",
        "",
        "calculate 1+1",
        "what is your return policy",
    ] {
        let failed = run(&always, &[], message).await;
        assert_eq!(failed.len(), 1, "{message}");
        assert!(matches!(&failed[0], AgentEvent::Error { message } if message.contains("injected fault")));
        let ok = run(&never, &[], message).await;
        assert!(
            ok.iter().any(|e| matches!(e, AgentEvent::FinalResponse { .. })),
            "{message}"
        );
        assert!(!ok.iter().any(|e| matches!(e, AgentEvent::Error { .. })));
    }
}

#[tokio::test]
async fn partial_error_rate_is_deterministic_and_roughly_proportional() {
    let agent = DemoAgent::with_faults(DemoFaults {
        latency_ms: 0,
        error_rate: 0.5,
    });
    let mut failures = 0;
    for i in 0..200 {
        let message = format!("calculate {i}+1");
        let first = run(&agent, &[], &message).await;
        let again = run(&agent, &[], &message).await;
        let failed = matches!(first[0], AgentEvent::Error { .. });
        assert_eq!(failed, matches!(again[0], AgentEvent::Error { .. }));
        failures += usize::from(failed);
    }
    assert!((60..=140).contains(&failures), "{failures} of 200 failed");
}

#[tokio::test]
async fn latency_delays_the_turn() {
    let agent = DemoAgent::with_faults(DemoFaults {
        latency_ms: 50,
        error_rate: 0.0,
    });
    let started = std::time::Instant::now();
    let events = run(&agent, &[], "hi").await;
    assert!(started.elapsed() >= std::time::Duration::from_millis(50));
    assert!(final_text(&events).starts_with("Hi!"));
}
