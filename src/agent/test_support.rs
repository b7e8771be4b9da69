//! What the agent tests share: run a turn or a conversation through any agent, and read the
//! calls and the answer back out of its events.

use futures::StreamExt;
use serde_json::{Map, Value};

use super::{Agent, AgentEvent, SessionContext, Turn};

/// One turn of user `tester` in session `s1`, which starts with an empty state.
pub(super) async fn run(agent: &dyn Agent, history: &[Turn], message: &str) -> Vec<AgentEvent> {
    let state = Map::new();
    let session = SessionContext {
        user_id: "tester",
        session_id: "s1",
        state: &state,
        replay: None,
    };
    agent.run_turn(session, history, message).collect().await
}

/// Runs a conversation, returning every turn.
pub(super) async fn conversation(agent: &dyn Agent, messages: &[&str]) -> Vec<Turn> {
    let mut turns = Vec::new();
    for message in messages {
        let events = run(agent, &turns, message).await;
        turns.push(Turn {
            user: message.to_string(),
            events,
        });
    }
    turns
}

/// The tool calls: (name, args).
pub(super) fn calls(events: &[AgentEvent]) -> Vec<(String, Value)> {
    calls_with_ids(events)
        .into_iter()
        .map(|(_, name, args)| (name, args))
        .collect()
}

/// The tool calls: (id, name, args).
pub(super) fn calls_with_ids(events: &[AgentEvent]) -> Vec<(String, String, Value)> {
    events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ToolCall { id, name, args } => {
                Some((id.clone(), name.clone(), Value::Object(args.clone())))
            }
            _ => None,
        })
        .collect()
}

/// The answer; panics if the turn has none.
pub(super) fn final_text(events: &[AgentEvent]) -> String {
    events
        .iter()
        .find_map(|e| match e {
            AgentEvent::FinalResponse { text } => Some(text.clone()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no final response in {events:?}"))
}
