//! Helpers the integration test crates share.

use evalstudio::agent::to_eval_case::{session_to_eval_case, RecordedTurn, SessionOrigin};
use evalstudio::agent::{Agent, DemoAgent, SessionContext, Turn};
use evalstudio::evalset::EvalSet;
use futures::StreamExt;
use serde_json::Map;

/// An evalset recorded from the demo agent, as "Add current session" would save it.
pub async fn recorded_eval_set(conversations: &[(&str, &[&str])]) -> EvalSet {
    let agent = DemoAgent::new();
    let state = Map::new();
    let mut cases = Vec::new();
    for (eval_id, messages) in conversations {
        let mut turns: Vec<RecordedTurn> = Vec::new();
        for message in *messages {
            let history: Vec<Turn> = turns.iter().map(|t| t.turn.clone()).collect();
            let session = SessionContext {
                user_id: "u",
                session_id: "s",
                state: &state,
            };
            let events = agent.run_turn(session, &history, message).collect().await;
            turns.push(RecordedTurn {
                invocation_id: format!("e-{}", turns.len()),
                timestamp: 1.0,
                turn: Turn {
                    user: message.to_string(),
                    events,
                },
            });
        }
        let origin = SessionOrigin {
            app_name: "demo".into(),
            user_id: "u".into(),
            state: Map::new(),
            agent_name: "demo".into(),
        };
        cases.push(session_to_eval_case(eval_id, &origin, &turns, 1.0));
    }
    EvalSet {
        eval_set_id: "regression".into(),
        eval_cases: cases,
        ..EvalSet::default()
    }
}
