//! Helpers the integration test crates share.

// Each test crate uses a part of the fake model server.
#[allow(dead_code)]
#[path = "../../src/testing/fake_openai.rs"]
pub mod fake_openai;
// Each test crate uses a part of it.
#[allow(dead_code)]
#[path = "../../src/testing/database.rs"]
pub mod database;

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
                replay: None,
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

/// A model speaking the OpenAI streaming protocol that answers every request with `reply` after
/// `delay`. Returns its base URL (ending in /v1) and the server, which counts the requests.
pub async fn spawn_slow_model(reply: &str, delay: std::time::Duration) -> (String, fake_openai::Server) {
    let chunk = serde_json::json!({"choices": [{"index": 0, "delta": {"content": reply},
        "finish_reason": "stop"}]});
    let server = fake_openai::Server::always(fake_openai::Reply {
        delay,
        ..fake_openai::Reply::sse(vec![chunk])
    })
    .await;
    (server.base_url.clone(), server)
}

/// evalstudio.toml with one `openai` profile, `slow`, at `base_url`.
pub fn slow_profile(base_url: &str) -> String {
    format!("[[profiles]]\nname = \"slow\"\nkind = \"openai\"\nmodel = \"m\"\nbase_url = \"{base_url}\"\n")
}

/// Each case result's `final_eval_status` in an ADK EvalSetResult (1 passed, 2 failed, 3 not
/// evaluated).
pub fn case_statuses(result: &serde_json::Value) -> Vec<i64> {
    result["eval_case_results"]
        .as_array()
        .expect("eval_case_results is a list")
        .iter()
        .map(|case| case["final_eval_status"].as_i64().expect("a status number"))
        .collect()
}
