//! `evalstudio score` as a user runs it: the real binary on evalset files. Actual cases may come
//! in any order; a file that does not fit the expected set is an error naming the case, and
//! leaves no result file behind, whole or partial.

use serde_json::{json, Value};
use std::path::Path;
use std::process::Command;

fn score(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_evalstudio"))
        .current_dir(dir)
        .arg("score")
        .args(args)
        .output()
        .unwrap();
    (
        output.status.code().unwrap(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn case(eval_id: &str, city: &str) -> Value {
    json!({"eval_id": eval_id, "conversation": [{
        "invocation_id": format!("{eval_id}-1"),
        "user_content": {"parts": [{"text": format!("Weather in {city}?")}], "role": "user"},
        "final_response": {"parts": [{"text": format!("Sunny in {city}.")}], "role": "model"},
        "intermediate_data": {"tool_uses": [{"name": "get_weather", "args": {"city": city}}]},
    }]})
}

fn write_set(dir: &Path, name: &str, cases: Vec<Value>) {
    let set = json!({"eval_set_id": "weather", "eval_cases": cases});
    std::fs::write(dir.join(name), set.to_string()).unwrap();
}

#[test]
fn actual_cases_in_another_order_score_against_their_own_expected_case() {
    let dir = tempfile::tempdir().unwrap();
    write_set(
        dir.path(),
        "expected.json",
        vec![case("a", "Paris"), case("b", "Oslo")],
    );
    write_set(
        dir.path(),
        "actual.json",
        vec![case("b", "Oslo"), case("a", "Rome")],
    );
    let (code, stdout, stderr) = score(
        dir.path(),
        &[
            "expected.json",
            "actual.json",
            "--json",
            "r.json",
            "--json-summary",
            "s.json",
        ],
    );
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(stdout.contains("2 cases: 1 passed, 1 failed"), "{stdout}");
    let verdicts: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("s.json")).unwrap()).unwrap();
    let cases: Vec<(&str, i64)> = verdicts["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["eval_id"].as_str().unwrap(),
                c["final_eval_status"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(cases, [("a", 2), ("b", 1)], "in the expected set's order");
    assert_eq!(verdicts["passed"], false);
    let result: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("r.json")).unwrap()).unwrap();
    assert_eq!(result["eval_case_results"].as_array().unwrap().len(), 2);
}

#[test]
fn an_actual_set_that_does_not_fit_leaves_no_result_file() {
    let dir = tempfile::tempdir().unwrap();
    write_set(
        dir.path(),
        "expected.json",
        vec![case("a", "Paris"), case("b", "Oslo")],
    );
    write_set(
        dir.path(),
        "actual.json",
        vec![case("a", "Paris"), case("z", "Oslo")],
    );
    let (code, _, stderr) = score(dir.path(), &["expected.json", "actual.json", "--json", "r.json"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("actual.json: eval case `z` is not in the expected eval set"),
        "{stderr}"
    );
    let left: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| !name.ends_with(".json") || name == "r.json")
        .collect();
    assert!(left.is_empty(), "nothing but the inputs: {left:?}");
}

#[test]
fn a_broken_actual_file_names_its_line() {
    let dir = tempfile::tempdir().unwrap();
    write_set(dir.path(), "expected.json", vec![case("a", "Paris")]);
    std::fs::write(
        dir.path().join("actual.json"),
        "{\"eval_set_id\": \"weather\",\n\"eval_cases\": [7]}",
    )
    .unwrap();
    let (code, _, stderr) = score(dir.path(), &["expected.json", "actual.json"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("actual.json") && stderr.contains("line 2"),
        "{stderr}"
    );
}

/// Without `--json`, scoring keeps verdicts alone (no whole result is built): the verdicts and
/// the table are those written beside ADK's file, over two runs.
#[test]
fn verdicts_written_alone_are_those_written_beside_adk_file() {
    let dir = tempfile::tempdir().unwrap();
    let expected = vec![case("a", "Paris"), case("b", "Oslo"), case("c", "Lima")];
    write_set(dir.path(), "expected.json", expected);
    write_set(
        dir.path(),
        "run1.json",
        vec![case("c", "Lima"), case("b", "Oslo"), case("a", "Rome")],
    );
    write_set(
        dir.path(),
        "run2.json",
        vec![case("a", "Paris"), case("c", "Quito"), case("b", "Oslo")],
    );
    let runs = ["expected.json", "run1.json", "run2.json"];
    let with_adk = score(
        dir.path(),
        &[&runs[..], &["--json", "r.json", "--json-summary", "s1.json"]].concat(),
    );
    let alone = score(dir.path(), &[&runs[..], &["--json-summary", "s2.json"]].concat());
    assert_eq!(with_adk, alone, "the same exit code and table");
    let verdicts = |name: &str| {
        let mut value: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.path().join(name)).unwrap()).unwrap();
        let header = value.as_object_mut().unwrap();
        header.remove("eval_set_result_id");
        header.remove("creation_timestamp");
        value
    };
    let written = verdicts("s2.json");
    assert_eq!(written, verdicts("s1.json"));
    assert_eq!(written["case_runs"].as_array().unwrap().len(), 6);
    assert_eq!(
        written["counts"],
        json!({"passed": 1, "failed": 2, "not_evaluated": 0})
    );
}

/// A key only the fast readers refuse (serde_json reserves the prefix, but reads this one as any
/// other) in either set: the case is read whole, and scores.
#[test]
fn a_key_the_fast_readers_refuse_still_scores() {
    let dir = tempfile::tempdir().unwrap();
    let mut odd = case("a", "Paris");
    odd["x"] = json!({"$serde_json::private::other": 1});
    write_set(dir.path(), "expected.json", vec![odd.clone(), case("b", "Oslo")]);
    write_set(dir.path(), "actual.json", vec![case("b", "Oslo"), odd]);
    let (code, stdout, stderr) = score(dir.path(), &["expected.json", "actual.json"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("2 cases: 2 passed"), "{stdout}");
}
