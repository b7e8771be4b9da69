//! "Add current session": a recorded session becomes an eval case whose expected trajectory is
//! exactly what the agent did, following ADK's rules (one Invocation per user turn).

use super::{AgentEvent, Turn};
use crate::evalset::{
    Content, EvalCase, FunctionCall, FunctionResponse, IntermediateData, Invocation, InvocationEvent, Part,
    SessionInput,
};
use serde_json::{json, Map, Value};

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
            AgentEvent::Error { .. } | AgentEvent::Usage { .. } | AgentEvent::ModelCall { .. } => {}
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

/// A turn as ADK's `EvaluationGenerator` records an agent's live run (the actual invocations of
/// an eval): `invocation_events` with one event per model reply, carrying its token usage, and
/// one per batch of tool responses. This is the form the efficiency metrics read model calls and
/// tokens from; the final reply's text is on `final_response`, not repeated in its event.
pub fn generated_invocation(recorded: &RecordedTurn, agent_name: &str) -> Invocation {
    let mut events = GeneratedEvents {
        author: agent_name.to_string(),
        ..GeneratedEvents::default()
    };
    let mut final_response = None;
    for event in &recorded.turn.events {
        match event {
            AgentEvent::TextDelta { text } => {
                // Usage already in: the agent reports it after a reply (as the ADK agent does),
                // so this text starts the next one.
                if events.reply_usage.is_some() {
                    events.end_reply();
                }
                events.end_tool_responses();
                events.reply_text.push_str(text);
            }
            AgentEvent::ToolCall { id, name, args } => {
                events.end_tool_responses();
                events.reply_calls.push(Part {
                    function_call: Some(Box::new(FunctionCall {
                        id: Some(id.clone()),
                        name: Some(name.clone()),
                        args: Some(args.clone()),
                        ..FunctionCall::default()
                    })),
                    ..Part::default()
                });
            }
            AgentEvent::ToolResult {
                id, name, response, ..
            } => {
                events.end_reply();
                events.tool_responses.push(Part {
                    function_response: Some(Box::new(FunctionResponse {
                        id: Some(id.clone()),
                        name: Some(name.clone()),
                        response: Some(response.clone()),
                        ..FunctionResponse::default()
                    })),
                    ..Part::default()
                });
            }
            AgentEvent::Usage {
                prompt_tokens,
                completion_tokens,
            } => {
                // One usage report per model call: a second one starts the next reply.
                if events.reply_usage.is_some() {
                    events.end_reply();
                }
                events.end_tool_responses();
                events.reply_usage = Some(json!({
                    "candidates_token_count": completion_tokens,
                    "prompt_token_count": prompt_tokens,
                    "total_token_count": prompt_tokens + completion_tokens,
                }));
            }
            AgentEvent::FinalResponse { text } => {
                events.reply_is_final = true;
                final_response = Some(Content::text("model", text));
            }
            AgentEvent::Author { name } => {
                events.end_reply();
                events.end_tool_responses();
                events.author = name.clone();
            }
            AgentEvent::Error { .. } | AgentEvent::ModelCall { .. } => {}
        }
    }
    events.end_reply();
    events.end_tool_responses();
    Invocation {
        invocation_id: recorded.invocation_id.clone(),
        user_content: Content::text("user", &recorded.turn.user),
        final_response,
        intermediate_data: Some(IntermediateData {
            invocation_events: Some(events.done),
            ..IntermediateData::default()
        }),
        creation_timestamp: recorded.timestamp,
        ..Invocation::default()
    }
}

/// The events of a turn being built, and the model reply and tool responses still open.
#[derive(Default)]
struct GeneratedEvents {
    done: Vec<InvocationEvent>,
    author: String,
    reply_text: String,
    reply_calls: Vec<Part>,
    reply_usage: Option<Value>,
    reply_is_final: bool,
    tool_responses: Vec<Part>,
}

impl GeneratedEvents {
    fn end_reply(&mut self) {
        let text = std::mem::take(&mut self.reply_text);
        let calls = std::mem::take(&mut self.reply_calls);
        let usage = self.reply_usage.take();
        let is_final = std::mem::take(&mut self.reply_is_final);
        let mut parts = Vec::new();
        if !text.is_empty() {
            parts.push(Part {
                text: Some(text),
                ..Part::default()
            });
        }
        let has_calls = !calls.is_empty();
        parts.extend(calls);
        if parts.is_empty() && usage.is_none() {
            return;
        }
        // As ADK: the final reply's text is already the invocation's final_response.
        let content = (!parts.is_empty() && (!is_final || has_calls)).then(|| Content {
            parts: Some(parts),
            role: Some("model".into()),
            ..Content::default()
        });
        self.done.push(InvocationEvent {
            author: self.author.clone(),
            content,
            usage_metadata: usage,
            ..InvocationEvent::default()
        });
    }

    fn end_tool_responses(&mut self) {
        if self.tool_responses.is_empty() {
            return;
        }
        self.done.push(InvocationEvent {
            author: self.author.clone(),
            content: Some(Content {
                parts: Some(std::mem::take(&mut self.tool_responses)),
                role: Some("user".into()),
                ..Content::default()
            }),
            ..InvocationEvent::default()
        });
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
            source: Default::default(),
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

    fn usage(prompt_tokens: u64, completion_tokens: u64) -> AgentEvent {
        AgentEvent::Usage {
            prompt_tokens,
            completion_tokens,
        }
    }

    fn generated(events: Vec<AgentEvent>) -> Invocation {
        generated_invocation(&recorded(1, "Where is A1001?", events), "demo_agent")
    }

    #[test]
    fn a_generated_turn_has_one_event_per_model_reply_with_its_usage() {
        // The order the OpenAI agent reports in: usage right after each reply, before its calls.
        let invocation = generated(vec![
            AgentEvent::TextDelta {
                text: "Let me check.".into(),
            },
            usage(12, 3),
            call("c1", "get_order_status", json!({"order_id": "A1001"})),
            result("c1", "get_order_status", json!({"status": "shipped"})),
            AgentEvent::TextDelta {
                text: "It has shipped.".into(),
            },
            AgentEvent::FinalResponse {
                text: "It has shipped.".into(),
            },
            usage(30, 4),
        ]);
        let data = invocation.intermediate_data.as_ref().unwrap();
        let events = data.events();
        assert_eq!(events.len(), 3, "{events:#?}");
        let reply = events[0].content.as_ref().unwrap();
        assert_eq!(reply.role.as_deref(), Some("model"));
        let parts = reply.parts.as_ref().unwrap();
        assert_eq!(parts[0].text.as_deref(), Some("Let me check."));
        assert_eq!(parts[1].function_call.as_ref().unwrap().id.as_deref(), Some("c1"));
        assert_eq!(
            events[0].usage_metadata,
            Some(json!({"prompt_token_count": 12, "candidates_token_count": 3, "total_token_count": 15}))
        );
        let responses = events[1].content.as_ref().unwrap();
        assert_eq!(responses.role.as_deref(), Some("user"));
        assert!(events[1].usage_metadata.is_none());
        assert_eq!(data.tool_responses()[0].name.as_deref(), Some("get_order_status"));
        assert!(
            events[2].content.is_none(),
            "the final text is the final_response, as ADK records it"
        );
        assert_eq!(
            invocation.final_response.as_ref().unwrap().joined_text(),
            "It has shipped."
        );
        assert_eq!(invocation.tool_calls().len(), 1);
        assert_eq!(data.intermediate_texts().len(), 1);
    }

    #[test]
    fn usage_reported_after_each_reply_keeps_replies_apart() {
        // The ADK agent's order: each model event's parts, then its usage.
        let invocation = generated(vec![
            AgentEvent::TextDelta {
                text: "Checking.".into(),
            },
            usage(10, 2),
            AgentEvent::TextDelta {
                text: "It has shipped.".into(),
            },
            usage(20, 4),
            AgentEvent::FinalResponse {
                text: "It has shipped.".into(),
            },
        ]);
        let data = invocation.intermediate_data.as_ref().unwrap();
        assert_eq!(data.events().len(), 2);
        let texts = data.intermediate_texts();
        assert_eq!(texts.len(), 1, "the final text is not repeated: {texts:?}");
        assert_eq!(texts[0].1[0].text.as_deref(), Some("Checking."));
    }

    #[test]
    fn demo_agent_calls_one_at_a_time_and_reports_usage_once() {
        // The demo agent's order: each call followed by its result, one usage report at the end.
        let mut events = vec![
            call("c1", "get_weather", json!({"city": "Paris"})),
            result("c1", "get_weather", json!({"temperature_c": 18})),
            call("c2", "convert_currency", json!({"amount": 20})),
            result("c2", "convert_currency", json!({"converted": 21.6})),
        ];
        events.extend(final_text("18 °C; 21.60 USD."));
        let invocation = generated(events);
        let events = invocation.intermediate_data.as_ref().unwrap().events();
        assert_eq!(events.len(), 5, "call, result, call, result, final: {events:#?}");
    }

    #[test]
    fn parallel_results_are_one_event() {
        // The OpenAI agent's order for parallel calls: every call, then every result.
        let mut events = vec![
            call("c1", "get_weather", json!({"city": "Paris"})),
            call("c2", "convert_currency", json!({"amount": 20})),
            result("c1", "get_weather", json!({"temperature_c": 18})),
            result("c2", "convert_currency", json!({"converted": 21.6})),
        ];
        events.extend(final_text("18 °C; 21.60 USD."));
        let invocation = generated(events);
        let events = invocation.intermediate_data.as_ref().unwrap().events();
        assert_eq!(events.len(), 3);
        assert_eq!(
            events[1].content.as_ref().unwrap().parts.as_ref().unwrap().len(),
            2,
            "parallel results are one event"
        );
    }

    #[test]
    fn generated_events_name_the_sub_agent_and_survive_an_error() {
        let invocation = generated(vec![
            call("c1", "transfer_to_agent", json!({"agent_name": "orders"})),
            usage(5, 1),
            result("c1", "transfer_to_agent", json!({})),
            AgentEvent::Author {
                name: "orders".into(),
            },
            call("c2", "get_order_status", json!({"order_id": "A1001"})),
            usage(9, 2),
            AgentEvent::Error {
                message: "model unavailable".into(),
            },
        ]);
        let events = invocation.intermediate_data.as_ref().unwrap().events();
        let authors: Vec<&str> = events.iter().map(|e| e.author.as_str()).collect();
        assert_eq!(authors, ["demo_agent", "demo_agent", "orders"]);
        assert!(invocation.final_response.is_none());
        assert_eq!(invocation.tool_calls().len(), 2);
    }
}
