//! An eval set that every case passes when the agent answers "ok", as the slow model of
//! `common::spawn_slow_model` does: for runs long enough to interrupt.

use serde_json::{json, Value};

/// Eval set `eval_set_id` in ADK's JSON with `cases` one-turn cases (`case0`, `case1`, ...),
/// each expecting the final answer "ok" and no tool calls.
pub fn ok_eval_set(eval_set_id: &str, cases: usize) -> Value {
    let cases: Vec<Value> = (0..cases)
        .map(|i| {
            json!({"eval_id": format!("case{i}"), "conversation": [{
                "invocation_id": format!("i{i}"),
                "user_content": {"role": "user", "parts": [{"text": format!("question {i}")}]},
                "final_response": {"role": "model", "parts": [{"text": "ok"}]},
                "intermediate_data": {"tool_uses": [], "intermediate_responses": []}
            }]})
        })
        .collect();
    json!({"eval_set_id": eval_set_id, "eval_cases": cases})
}
