//! `evalstudio eval` as a user runs it: the real binary on evalset files, with exit codes,
//! ADK-shaped JSON and a JUnit report.

mod common;
#[path = "common/ok_eval_set.rs"]
mod ok_eval_set;
#[path = "common/wait.rs"]
mod wait;

use common::{recorded_eval_set, slow_profile, spawn_slow_model};
use evalstudio::evalset::to_adk_json;
use ok_eval_set::ok_eval_set;
use serde_json::Value;
use std::path::Path;
use std::process::Command;

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
        (
            "paris",
            &["weather in Paris and 20 EUR in USD", "and in London?"][..],
        ),
        ("order", &["Where is my order A1003?"][..]),
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
    assert_eq!(
        common::case_statuses(&result),
        [1, 1, 1, 1],
        "two cases, two runs each"
    );
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

// Multi-threaded: the model server must answer while the test waits on a child process.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_killed_mid_way_keeps_finished_cases_and_resumes_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    // One case at a time, each waiting this long on the model: once two are stored, the four
    // others take seconds, far longer than the kill takes.
    let (base_url, requests) = spawn_slow_model("ok", std::time::Duration::from_millis(500)).await;
    std::fs::write(dir.path().join("evalstudio.toml"), slow_profile(&base_url)).unwrap();
    std::fs::write(
        dir.path().join("six.evalset.json"),
        ok_eval_set("six", 6).to_string(),
    )
    .unwrap();

    // Created (and migrated) before the child opens it, so the two never migrate at once.
    let store =
        evalstudio::store::Store::open(&evalstudio::store::Location::Sqlite(dir.path().join("test.db")))
            .await
            .unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_evalstudio"))
        .current_dir(dir.path())
        .args([
            "eval",
            "six.evalset.json",
            "--agent",
            "slow",
            "--concurrency",
            "1",
            "--db",
            "test.db",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::fs::File::create(dir.path().join("stderr.txt")).unwrap())
        .spawn()
        .unwrap();
    // Kill -9 once a few cases are stored.
    let run = wait::wait_until("the run stored two cases", || async {
        let runs = store.list_eval_runs("demo", None).await.unwrap();
        runs.into_iter().find(|r| r.done >= 2)
    })
    .await;
    child.kill().unwrap();
    child.wait().unwrap();
    let requests_before = requests.request_count();
    let stored = store.eval_run("demo", &run.result_id).await.unwrap().summary;
    assert!(stored.done >= 2 && stored.done < 6, "killed mid-way: {stored:?}");
    assert_eq!(
        stored.status,
        evalstudio::records::runs::RunStatus::Running,
        "nobody marked it yet"
    );

    let (code, stdout, stderr) = evalstudio(dir.path(), &["eval", "--resume", "missing_id"]);
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert!(stderr.contains("eval result `missing_id` not found"), "{stderr}");
    // Still running: `--resume` joins it as a worker, and takes up the killed process's cases
    // once its lease has ended.
    let (code, stdout, stderr) = evalstudio(
        dir.path(),
        &["eval", "--resume", &run.result_id, "--json", "r.json"],
    );
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("6 cases: 6 passed"), "{stdout}");
    // Only the cases not stored ran again.
    assert_eq!(
        requests.request_count() - requests_before,
        6 - stored.done as usize,
        "resumed cases"
    );
    let result: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("r.json")).unwrap()).unwrap();
    assert_eq!(result["eval_case_results"].as_array().unwrap().len(), 6);
    // ADK's EvalSetResult, nothing more.
    let keys: Vec<&str> = result.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "eval_set_result_id",
            "eval_set_result_name",
            "eval_set_id",
            "eval_case_results",
            "creation_timestamp"
        ]
    );
    let finished = store.eval_run("demo", &run.result_id).await.unwrap().summary;
    assert_eq!((finished.done, finished.passed), (6, 6));

    // A finished run cannot be resumed.
    let (code, _, stderr) = evalstudio(dir.path(), &["eval", "--resume", &run.result_id]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("is finished; only an interrupted or cancelled run can be resumed"),
        "{stderr}"
    );
}
