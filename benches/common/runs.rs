//! What the run benchmarks share: an eval set of one-turn cases on the demo agent, recorded as
//! a run the way the server and the CLI record one.

use evalstudio::agent::Agent;
use evalstudio::eval::config::EvalConfig;
use evalstudio::evalset::{CompactEvalSet, Content, EvalCase, EvalSet, Invocation};
use evalstudio::service::runs::plan::{record_run, RunPlan};
use evalstudio::store::{EvalRunRecord, Store};
use std::sync::Arc;

const MESSAGES: [&str; 4] = [
    "What's the weather in Paris, and 20 EUR in USD?",
    "Where is my order A1003?",
    "How do I reset my password?",
    "What is 17 * 23 + 4?",
];

fn eval_set(cases: usize) -> EvalSet {
    EvalSet {
        eval_set_id: format!("bench_{cases}"),
        eval_cases: (0..cases)
            .map(|i| EvalCase {
                eval_id: format!("case_{i}"),
                conversation: Some(vec![Invocation {
                    invocation_id: format!("e-{i}"),
                    user_content: Content::text("user", MESSAGES[i % MESSAGES.len()]),
                    ..Invocation::default()
                }]),
                ..EvalCase::default()
            })
            .collect(),
        ..EvalSet::default()
    }
}

/// Records a run of `cases` one-turn cases on `agent` (the demo app), its cases queued.
pub async fn record_one_turn_run(store: &Store, agent: Arc<dyn Agent>, cases: usize) -> EvalRunRecord {
    let plan = RunPlan {
        app_name: "demo".into(),
        expected: CompactEvalSet::of(&eval_set(cases)),
        config: EvalConfig::default(),
        agent_name: "demo".into(),
        agent,
        num_runs: 1,
        label: None,
        whole_set: true,
        tools: Default::default(),
        commit: None,
    };
    record_run(store, &plan).await.expect("run recorded")
}
