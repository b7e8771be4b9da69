//! `evalstudio score-traces` as a user runs it: the real binary on an OTLP/JSON file of what
//! ADK 2.13's exporter sent for two sessions (one per span schema), one request per line as the
//! Collector's file exporter writes them. Sessions score without the agent running again.

#[path = "common/otlp_json.rs"]
mod otlp_json;

use otlp_json::otlp_request;
use serde_json::{json, Value};
use std::path::Path;
use std::process::Command;

fn score_traces(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_evalstudio"))
        .current_dir(dir)
        .env_remove("EVALSTUDIO_CONFIG")
        .arg("score-traces")
        .args(args)
        .output()
        .unwrap();
    (
        output.status.code().unwrap(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// `spans.jsonl` (sessions s1 and s2, each asking for the weather in Paris) and `config.json`
/// (the trajectory, which needs a reference, and whether get_weather was called, which does not).
fn recorded(dir: &Path) {
    let lines = [
        otlp_request("adk_schema2", |_| {}),
        otlp_request("adk_schema1", |_| {}),
    ]
    .map(|request| request.to_string())
    .join("\n");
    std::fs::write(dir.join("spans.jsonl"), lines).unwrap();
    let config = json!({"criteria": {
        "tool_trajectory_avg_score": 1.0,
        "tool_single_use": {"threshold": 1.0, "tool_name": "get_weather"},
    }});
    std::fs::write(dir.join("config.json"), config.to_string()).unwrap();
}

/// A reference case asking for the weather in Paris, expecting get_weather called for `city`.
fn reference(dir: &Path, eval_id: &str, city: &str) {
    let set = json!({"eval_set_id": "weather", "eval_cases": [{"eval_id": eval_id, "conversation": [{
        "invocation_id": "i-1",
        "user_content": {"parts": [{"text": "What's the weather in Paris?"}], "role": "user"},
        "final_response": {"parts": [{"text": "Sunny."}], "role": "model"},
        "intermediate_data": {"tool_uses": [{"name": "get_weather", "args": {"city": city}}]},
    }]}]});
    std::fs::write(dir.join("reference.json"), set.to_string()).unwrap();
}

fn metric<'a>(result: &'a Value, name: &str) -> &'a Value {
    result["overall_eval_metric_results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["metric_name"] == name)
        .unwrap()
}

fn results(dir: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(dir.join("r.json")).unwrap();
    let file: Value = serde_json::from_str(&text).unwrap();
    file["eval_case_results"].as_array().unwrap().clone()
}

#[test]
fn without_a_reference_each_session_scores_on_the_metrics_that_need_none() {
    let dir = tempfile::tempdir().unwrap();
    recorded(dir.path());
    let (code, stdout, stderr) = score_traces(
        dir.path(),
        &["spans.jsonl", "--config", "config.json", "--json", "r.json"],
    );
    assert_eq!(code, 0, "{stdout}{stderr}");
    let results = results(dir.path());
    let mut ids: Vec<&str> = results.iter().map(|r| r["eval_id"].as_str().unwrap()).collect();
    ids.sort();
    assert_eq!(ids, ["s1", "s2"], "one case per session, named after it");
    for result in &results {
        assert_eq!(metric(result, "tool_single_use")["eval_status"], 1, "{result:#}");
        assert_eq!(metric(result, "tool_trajectory_avg_score")["eval_status"], 3);
        let invocation = &result["eval_metric_result_per_invocation"][0];
        assert_eq!(invocation["expected_invocation"], Value::Null);
        let called = &invocation["actual_invocation"]["intermediate_data"]["tool_uses"][0];
        assert_eq!(called["args"], json!({"city": "Paris"}));
    }
    assert!(stdout.contains("s1") && stdout.contains("s2"), "{stdout}");
}

#[test]
fn a_session_matched_to_a_reference_case_by_its_first_message_is_scored_against_it() {
    let dir = tempfile::tempdir().unwrap();
    recorded(dir.path());
    reference(dir.path(), "paris", "Paris");
    let args = [
        "spans.jsonl",
        "--config",
        "config.json",
        "--expected",
        "reference.json",
        "--json",
        "r.json",
    ];
    let (code, stdout, stderr) = score_traces(dir.path(), &args);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stderr.contains("session `s2`: scored against case `paris` (same first user message)"),
        "{stderr}"
    );
    for result in results(dir.path()) {
        assert_eq!(metric(&result, "tool_trajectory_avg_score")["score"], 1.0);
        assert_eq!(result["eval_set_id"], "weather");
    }
    reference(dir.path(), "paris", "Rome");
    let (code, stdout, _) = score_traces(dir.path(), &args);
    assert_eq!(code, 1, "the recorded call was for Paris: {stdout}");
    assert_eq!(
        metric(&results(dir.path())[0], "tool_trajectory_avg_score")["score"],
        0.0
    );
}

#[test]
fn a_malformed_request_is_an_error_naming_its_line_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    recorded(dir.path());
    let good = otlp_request("adk_schema2", |_| {}).to_string();
    let bad = json!({"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": 7}]}]}]});
    std::fs::write(dir.path().join("spans.jsonl"), format!("{good}\n{bad}\n")).unwrap();
    let (code, _, stderr) = score_traces(
        dir.path(),
        &["spans.jsonl", "--config", "config.json", "--json", "r.json"],
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("spans.jsonl: the request ending on line 2"),
        "{stderr}"
    );
    assert!(!dir.path().join("r.json").exists());
}

#[test]
fn spans_of_incomplete_sessions_are_left_out_and_said() {
    let dir = tempfile::tempdir().unwrap();
    recorded(dir.path());
    // The schema 2 session without its root span: a trace still missing spans.
    let partial = otlp_request("adk_schema2", |span| {
        if span["parent_span_id"].is_null() {
            span.insert("dropped".into(), json!(true));
        }
    });
    std::fs::write(dir.path().join("spans.jsonl"), partial.to_string()).unwrap();
    let (code, _, stderr) = score_traces(dir.path(), &["spans.jsonl", "--config", "config.json"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("left out: session `s2` is missing spans"),
        "{stderr}"
    );
    assert!(stderr.contains("no session of app"), "{stderr}");
}
