//! `evalstudio eval` as a user runs it: the real binary on evalset files, with exit codes,
//! ADK-shaped JSON and a JUnit report.

use evalstudio::agent::to_eval_case::{session_to_eval_case, RecordedTurn, SessionOrigin};
use evalstudio::agent::{Agent, DemoAgent, SessionContext, Turn};
use evalstudio::evalset::{to_adk_json, EvalSet};
use futures::StreamExt;
use serde_json::{Map, Value};
use std::path::Path;
use std::process::Command;

/// An evalset recorded from the demo agent, as "Add current session" would save it.
async fn recorded_eval_set(conversations: &[(&str, &[&str])]) -> EvalSet {
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

fn evalstudio(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_evalstudio"))
        .current_dir(dir)
        .args(args)
        .args(["--db", "test.db"])
        .output()
        .unwrap();
    (
        output.status.code().unwrap(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[tokio::test]
async fn a_recorded_session_passes_and_a_changed_expectation_fails() {
    let dir = tempfile::tempdir().unwrap();
    let mut set = recorded_eval_set(&[
        ("paris", &["weather in Paris and 20 EUR in USD", "and in London?"]),
        ("order", &["Where is my order A1003?"]),
    ])
    .await;
    std::fs::write(dir.path().join("regression.evalset.json"), to_adk_json(&set)).unwrap();

    let (code, stdout, stderr) = evalstudio(
        dir.path(),
        &[
            "eval",
            "regression.evalset.json",
            "--num-runs",
            "2",
            "--json",
            "r.json",
            "--junit",
            "j.xml",
        ],
    );
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("2 cases: 2 passed, 0 failed"), "{stdout}");
    let result: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("r.json")).unwrap()).unwrap();
    let statuses: Vec<&Value> = result["eval_case_results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["final_eval_status"])
        .collect();
    assert_eq!(statuses.len(), 4, "two cases, two runs each");
    assert!(statuses.iter().all(|s| **s == 1), "{statuses:?}");
    let junit = std::fs::read_to_string(dir.path().join("j.xml")).unwrap();
    assert!(
        junit.contains(r#"<testsuite name="regression" tests="2" failures="0" errors="0">"#),
        "{junit}"
    );

    // Expecting Rome where the agent looks up Paris fails that case, and only that one.
    let paris = set.eval_cases[0].conversation.as_mut().unwrap();
    let call = &mut paris[0].intermediate_data.as_mut().unwrap().tool_uses[0];
    call.args.as_mut().unwrap()["city"] = Value::from("Rome");
    std::fs::write(dir.path().join("changed.evalset.json"), to_adk_json(&set)).unwrap();
    let (code, stdout, _) = evalstudio(dir.path(), &["eval", "changed.evalset.json", "--junit", "j.xml"]);
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("1 passed, 1 failed"), "{stdout}");
    let junit = std::fs::read_to_string(dir.path().join("j.xml")).unwrap();
    assert!(
        junit.contains(r#"failures="1""#) && junit.contains("tool_trajectory_avg_score: 0.5000"),
        "{junit}"
    );

    // --metrics narrows the config: the response still matches, so the case passes.
    let (code, stdout, _) = evalstudio(
        dir.path(),
        &[
            "eval",
            "changed.evalset.json",
            "--metrics",
            "response_match_score",
        ],
    );
    assert_eq!(code, 0, "{stdout}");
}

#[tokio::test]
async fn usage_mistakes_exit_with_2_and_say_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let set = recorded_eval_set(&[("hi", &["hello"])]).await;
    std::fs::write(dir.path().join("s.evalset.json"), to_adk_json(&set)).unwrap();

    let (code, _, stderr) = evalstudio(dir.path(), &["eval", "s.evalset.json", "--agent", "nope"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("no agent profile is named `nope`"), "{stderr}");

    let (code, _, stderr) = evalstudio(dir.path(), &["eval", "missing_set"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("missing_set: no such file"), "{stderr}");

    let (code, _, stderr) = evalstudio(dir.path(), &["eval", "s.evalset.json", "--metrics", "bleu"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("`bleu` is not in the eval config"), "{stderr}");

    std::fs::write(
        dir.path().join("test_config.json"),
        r#"{"criteria": {"tool_trajectory_avg_score": "high"}}"#,
    )
    .unwrap();
    let (code, _, stderr) = evalstudio(dir.path(), &["eval", "s.evalset.json"]);
    assert_eq!(code, 2, "the config beside the evalset is read");
    assert!(stderr.contains("test_config.json"), "{stderr}");
}
