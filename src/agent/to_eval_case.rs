//! "Add current session": a recorded session becomes an eval case whose expected trajectory is
//! exactly what the agent did, following ADK's rules (one Invocation per user turn).

use super::{AgentEvent, Turn};
use crate::evalset::{
    Content, EvalCase, FunctionCall, FunctionResponse, IntermediateData, Invocation, Part, SessionInput,
};
use serde_json::{Map, Value};

/// A turn as a session stores it: the turn plus its invocation id and start time.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedTurn {
    pub invocation_id: String,
    /// Seconds since the epoch when the user's message arrived.
    pub timestamp: f64,
    pub turn: Turn,
}

/// Who and where a session ran: becomes the case's `session_input`.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionOrigin {
    pub app_name: String,
    pub user_id: String,
    /// The session's state when the case was made (ADK writes an empty one; we keep the real one).
    pub state: Map<String, Value>,
    /// The agent's name, the author of text it wrote between tool calls.
    pub agent_name: String,
}

/// Builds the eval case for a session. Per turn: the user's message, the final response (none if
/// the turn ended in an error), the tool calls and responses in order, and text written before a
/// tool call as an intermediate response.
pub fn session_to_eval_case(
    eval_id: &str,
    origin: &SessionOrigin,
    turns: &[RecordedTurn],
    now: f64,
) -> EvalCase {
    EvalCase {
        eval_id: eval_id.to_string(),
        conversation: Some(
            turns
                .iter()
                .map(|t| turn_to_invocation(t, &origin.agent_name))
                .collect(),
        ),
        session_input: Some(SessionInput {
            app_name: origin.app_name.clone(),
            user_id: origin.user_id.clone(),
            state: origin.state.clone(),
            ..SessionInput::default()
        }),
        creation_timestamp: now,
        ..EvalCase::default()
    }
}

fn turn_to_invocation(recorded: &RecordedTurn, agent_name: &str) -> Invocation {
    let mut data = IntermediateData::default();
    let mut final_response = None;
    // Text streamed since the last tool call: an intermediate response if a tool call follows.
    let mut pending_text = String::new();
    let mut author = agent_name;
    for event in &recorded.turn.events {
        match event {
            AgentEvent::TextDelta { text } => pending_text.push_str(text),
            AgentEvent::ToolCall { id, name, args } => {
                if !pending_text.trim().is_empty() {
                    let part = Part {
                        text: Some(std::mem::take(&mut pending_text)),
                        ..Part::default()
                    };
                    data.intermediate_responses.push((author.to_string(), vec![part]));
                }
                pending_text.clear();
                data.tool_uses.push(FunctionCall {
                    id: Some(id.clone()),
                    name: Some(name.clone()),
                    args: Some(args.clone()),
                    ..FunctionCall::default()
                });
            }
            AgentEvent::ToolResult {
                id, name, response, ..
            } => {
                data.tool_responses.push(FunctionResponse {
                    id: Some(id.clone()),
                    name: Some(name.clone()),
                    response: Some(response.clone()),
                    ..FunctionResponse::default()
                });
            }
            AgentEvent::FinalResponse { text } => final_response = Some(Content::text("model", text)),
            AgentEvent::Author { name } => author = name,
            AgentEvent::Error { .. } | AgentEvent::Usage { .. } => {}
        }
    }
    Invocation {
        invocation_id: recorded.invocation_id.clone(),
        user_content: Content::text("user", &recorded.turn.user),
        final_response,
        intermediate_data: Some(data),
        creation_timestamp: recorded.timestamp,
        ..Invocation::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evalset::to_adk_json;
    use serde_json::json;

    fn args(value: Value) -> Map<String, Value> {
        value.as_object().cloned().unwrap()
    }

    fn origin() -> SessionOrigin {
        SessionOrigin {
            app_name: "demo".into(),
            user_id: "alice".into(),
            state: args(json!({"tier": "gold"})),
            agent_name: "demo_agent".into(),
        }
    }

    fn recorded(n: usize, user: &str, events: Vec<AgentEvent>) -> RecordedTurn {
        RecordedTurn {
            invocation_id: format!("e-{n}"),
            timestamp: 100.0 + n as f64,
            turn: Turn {
                user: user.into(),
                events,
            },
        }
    }

    fn call(id: &str, name: &str, a: Value) -> AgentEvent {
        AgentEvent::ToolCall {
            id: id.into(),
            name: name.into(),
            args: args(a),
        }
    }

    fn result(id: &str, name: &str, r: Value) -> AgentEvent {
        AgentEvent::ToolResult {
            id: id.into(),
            name: name.into(),
            response: args(r),
            duration_ms: 3,
        }
    }

    fn final_text(text: &str) -> Vec<AgentEvent> {
        vec![
            AgentEvent::TextDelta { text: text.into() },
            AgentEvent::FinalResponse { text: text.into() },
            AgentEvent::Usage {
                prompt_tokens: 10,
                completion_tokens: 5,
            },
        ]
    }

    #[test]
    fn multi_turn_session_with_parallel_calls_becomes_one_invocation_per_turn() {
        let mut first = vec![
            call("c1", "get_weather", json!({"city": "Paris"})),
            call(
                "c2",
                "convert_currency",
                json!({"amount": 20, "from": "EUR", "to": "USD"}),
            ),
            result("c1", "get_weather", json!({"temperature_c": 18})),
            result("c2", "convert_currency", json!({"converted": 21.6})),
        ];
        first.extend(final_text("18 °C in Paris; 20 EUR is 21.60 USD."));
        let mut second = vec![call("c3", "get_weather", json!({"city": "London"}))];
        second.push(result("c3", "get_weather", json!({"temperature_c": 12})));
        second.extend(final_text("12 °C in London."));
        let turns = [
            recorded(1, "Weather in Paris and 20 EUR in USD", first),
            recorded(2, "and in London?", second),
        ];

        let case = session_to_eval_case("paris_and_london", &origin(), &turns, 500.0);
        assert_eq!(case.turn_count(), 2);
        assert_eq!(case.tool_call_count(), 3);
        let first = &case.invocations()[0];
        assert_eq!(first.invocation_id, "e-1");
        assert_eq!(first.creation_timestamp, 101.0);
        assert_eq!(
            first.user_content.joined_text(),
            "Weather in Paris and 20 EUR in USD"
        );
        assert_eq!(
            first.final_response.as_ref().unwrap().joined_text(),
            "18 °C in Paris; 20 EUR is 21.60 USD."
        );
        let data = first.intermediate_data.as_ref().unwrap();
        let names: Vec<_> = data
            .tool_uses
            .iter()
            .map(|c| c.name.as_deref().unwrap())
            .collect();
        assert_eq!(names, ["get_weather", "convert_currency"]);
        assert_eq!(data.tool_responses[1].id.as_deref(), Some("c2"));
        assert!(
            data.intermediate_responses.is_empty(),
            "the answer is not an intermediate response"
        );
        let session = case.session_input.as_ref().unwrap();
        assert_eq!(
            (session.app_name.as_str(), session.user_id.as_str()),
            ("demo", "alice")
        );
        assert_eq!(session.state["tier"], "gold", "the real state is kept");
        assert_eq!(case.creation_timestamp, 500.0);
        // And it is a valid ADK case.
        let set = crate::evalset::EvalSet {
            eval_set_id: "s".into(),
            eval_cases: vec![case],
            ..Default::default()
        };
        let text = to_adk_json(&set);
        assert!(text.contains("\"tool_uses\"") && text.contains("\"tool_responses\""));
    }

    #[test]
    fn text_before_a_tool_call_is_an_intermediate_response() {
        let mut events = vec![
            AgentEvent::TextDelta {
                text: "Let me check ".into(),
            },
            AgentEvent::TextDelta {
                text: "the order.".into(),
            },
            call("c1", "get_order_status", json!({"order_id": "A1001"})),
            result("c1", "get_order_status", json!({"status": "shipped"})),
        ];
        events.extend(final_text("It has shipped."));
        let case = session_to_eval_case("order", &origin(), &[recorded(1, "Where is A1001?", events)], 0.0);
        let data = case.invocations()[0].intermediate_data.clone().unwrap();
        assert_eq!(data.intermediate_responses.len(), 1);
        let (author, parts) = &data.intermediate_responses[0];
        assert_eq!(author, "demo_agent");
        assert_eq!(parts[0].text.as_deref(), Some("Let me check the order."));
        assert_eq!(
            case.invocations()[0]
                .final_response
                .as_ref()
                .unwrap()
                .joined_text(),
            "It has shipped."
        );
    }

    #[test]
    fn text_of_a_sub_agent_is_attributed_to_it() {
        let mut events = vec![
            AgentEvent::TextDelta {
                text: "Routing you.".into(),
            },
            call("c1", "transfer_to_agent", json!({"agent_name": "orders"})),
            result("c1", "transfer_to_agent", json!({})),
            AgentEvent::Author {
                name: "orders".into(),
            },
            AgentEvent::TextDelta {
                text: "Looking it up.".into(),
            },
            call("c2", "get_order_status", json!({"order_id": "A1001"})),
            result("c2", "get_order_status", json!({"status": "shipped"})),
        ];
        events.extend(final_text("It has shipped."));
        let case = session_to_eval_case("multi", &origin(), &[recorded(1, "Where is A1001?", events)], 0.0);
        let data = case.invocations()[0].intermediate_data.clone().unwrap();
        let authors: Vec<&str> = data
            .intermediate_responses
            .iter()
            .map(|(a, _)| a.as_str())
            .collect();
        assert_eq!(authors, ["demo_agent", "orders"]);
    }

    #[test]
    fn a_turn_that_ends_in_an_error_has_no_final_response() {
        let events = vec![
            call("c1", "calculate", json!({"expression": "1/0"})),
            AgentEvent::Error {
                message: "model unavailable".into(),
            },
        ];
        let case = session_to_eval_case("err", &origin(), &[recorded(1, "1/0?", events)], 0.0);
        let invocation = &case.invocations()[0];
        assert!(invocation.final_response.is_none());
        assert_eq!(
            invocation.tool_calls().len(),
            1,
            "what happened before the error is kept"
        );
    }
}
