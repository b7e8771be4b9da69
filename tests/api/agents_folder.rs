//! Folder mode (`evalstudio web AGENTS_DIR`) on a copy of tests/fixtures/agents, with google-adk's
//! own api_server and `adk eval` from the conformance venv: the evalset files are the truth.

use crate::adk::{adk_venv, copy_weather_app};
use crate::fixtures::fixture_path;
use crate::helpers::{assert_error, run_request, spawn_folder_app, TestApp};
use crate::wait::wait_until;
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const SMOKE: &str = "/apps/weather/eval_sets/smoke";

/// A copy of the fixture agents folder, in git, and the app serving it.
async fn open_folder() -> (tempfile::TempDir, TestApp) {
    open_folder_with(&[]).await
}

/// The same with more files in the app's folder: (name, text).
async fn open_folder_with(files: &[(&str, &str)]) -> (tempfile::TempDir, TestApp) {
    let dir = tempfile::tempdir().unwrap();
    let weather = copy_weather_app(dir.path());
    for (name, text) in files {
        std::fs::write(weather.join(name), text).unwrap();
    }
    std::fs::write(dir.path().join(".gitignore"), ".adk/\n__pycache__/\n").unwrap();
    git(dir.path(), &["init", "-q"]);
    git(dir.path(), &["add", "."]);
    git(dir.path(), &["commit", "-q", "-m", "agents"]);
    let app = spawn_folder_app(dir.path(), &adk_venv().join("bin/adk")).await;
    (dir, app)
}

fn git(dir: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

fn smoke_file(dir: &Path) -> PathBuf {
    dir.join("weather/smoke.evalset.json")
}

/// Runs google-adk's own Python with `args`, in the folder; answers its stdout.
fn python(dir: &Path, args: &[&str]) -> String {
    let output = Command::new(adk_venv().join("bin/python"))
        .args(args)
        .current_dir(dir)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "python {args:?}:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

#[tokio::test]
async fn add_current_session_writes_the_file_and_adk_eval_passes_on_it() {
    let (dir, app) = open_folder().await;
    let listed = app.get_json("/apps/weather/eval_sets").await;
    assert_eq!(listed, json!(["smoke"]));

    app.create_session("weather", "u", "s1").await;
    let run = run_request("weather", "u", "s1", "What is the weather in Lyon?");
    let events: Vec<Value> = app.post_json("/run", &run).await.json().await.unwrap();
    let reply = events.last().unwrap()["content"]["parts"][0]["text"].clone();
    assert_eq!(reply, "It is sunny and 21 °C in Lyon.");

    let add = json!({"evalId": "lyon", "sessionId": "s1", "userId": "u"});
    let added = app.post_json(&format!("{SMOKE}/add_session"), &add).await;
    assert_eq!(added.status(), StatusCode::OK);
    let file: Value =
        serde_json::from_str(&std::fs::read_to_string(smoke_file(dir.path())).unwrap()).unwrap();
    let ids: Vec<&str> = file["eval_cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["eval_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["paris", "lyon"]);

    let cli = fixture_path("../../conformance/adk_cli.py");
    let out = python(
        dir.path(),
        &[
            cli.to_str().unwrap(),
            "eval",
            "weather",
            "weather/smoke.evalset.json",
        ],
    );
    assert!(out.contains("Tests passed: 2"), "{out}");
}

#[tokio::test]
async fn an_edit_changes_only_that_case_in_the_file() {
    let (dir, app) = open_folder().await;
    let path = format!("{SMOKE}/evals/paris");
    let mut case = app.get_json(&path).await;
    case["conversation"][0]["final_response"]["parts"][0]["text"] = json!("Sunny, 21 °C.");
    assert_eq!(app.put_json(&path, &case).await.status(), StatusCode::OK);

    assert_eq!(
        git(dir.path(), &["diff", "--numstat"]),
        "1\t1\tweather/smoke.evalset.json\n"
    );
    let diff = git(dir.path(), &["diff", "-U0"]);
    assert!(
        diff.contains("+                \"text\": \"Sunny, 21 °C.\""),
        "{diff}"
    );
}

#[tokio::test]
async fn a_file_changed_on_disk_is_a_new_version_of_its_case() {
    let (dir, app) = open_folder().await;
    let text = std::fs::read_to_string(smoke_file(dir.path())).unwrap();
    std::fs::write(
        smoke_file(dir.path()),
        text.replace("What is the weather in Paris?", "Paris weather?"),
    )
    .unwrap();

    let path = format!("{SMOKE}/evals/paris");
    let opened = app.get_json(&path).await;
    let case = wait_until("the edit on disk is read", || async {
        let case = app.get_json(&path).await;
        (case["version"] == 2).then_some(case)
    })
    .await;
    assert_eq!(
        case["conversation"][0]["user_content"]["parts"][0]["text"],
        "Paris weather?"
    );
    let history = app.get_json(&format!("{path}/versions")).await;
    assert_eq!(history.as_array().unwrap().len(), 2, "{history}");
    // Read, not written back: the file is as the editor left it.
    assert!(git(dir.path(), &["diff", "--numstat"]).starts_with("1\t1\t"));
    // An edit opened before the change on disk is stale: theirs against yours.
    let body = assert_error(app.put_json(&path, &opened).await, StatusCode::CONFLICT).await;
    assert_eq!(body["detail"]["currentVersion"], 2);
}

#[tokio::test]
async fn a_file_that_does_not_parse_is_listed_refused_and_left_alone() {
    let (dir, app) = open_folder().await;
    let broken_path = dir.path().join("weather/broken.evalset.json");
    let broken = "{\n  \"eval_set_id\": \"broken\",\n  \"eval_cases\": [\n    {\"eval_id\": 5}\n  ]\n}";
    std::fs::write(&broken_path, broken).unwrap();
    wait_until("the broken file is listed", || async {
        let listed = app.get_json("/apps/weather/eval_sets").await;
        (listed == json!(["broken", "smoke"])).then_some(())
    })
    .await;

    let body = assert_error(
        app.delete("/apps/weather/eval_sets/broken").await,
        StatusCode::CONFLICT,
    )
    .await;
    let error = body["error"].as_str().unwrap();
    assert!(
        error.contains("weather/broken.evalset.json does not parse (line 4, column"),
        "{error}"
    );
    assert_eq!(std::fs::read_to_string(&broken_path).unwrap(), broken);
    // The other evalsets still work.
    assert_eq!(app.get_json(&format!("{SMOKE}/evals")).await, json!(["paris"]));
}

#[tokio::test]
async fn a_finished_run_lands_in_the_eval_history_as_adk_reads_it() {
    let (dir, app) = open_folder().await;
    let body = json!({"evalMetrics": [{"metricName": "tool_trajectory_avg_score", "threshold": 1.0}]});
    let results = app.run_eval("weather", "smoke", &body).await;
    assert_eq!(results[0]["final_eval_status"], 1, "{}", results[0]);

    let history = dir.path().join("weather/.adk/eval_history");
    let names: Vec<String> = std::fs::read_dir(&history)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
    let name = names[0].strip_suffix(".evalset_result.json").unwrap();
    assert!(name.starts_with("weather_smoke_"), "{name}");
    let read = format!(
        "from google.adk.evaluation.local_eval_set_results_manager import LocalEvalSetResultsManager\n\
         r = LocalEvalSetResultsManager('.').get_eval_set_result('weather', '{name}')\n\
         print(r.eval_set_id, len(r.eval_case_results), r.eval_case_results[0].final_eval_status.name)"
    );
    assert_eq!(python(dir.path(), &["-c", &read]).trim(), "smoke 1 PASSED");
}

#[tokio::test]
async fn runs_adk_wrote_appear_as_runs_in_either_of_its_forms() {
    let (dir, app) = open_folder().await;
    let cli = fixture_path("../../conformance/adk_cli.py");
    python(
        dir.path(),
        &[
            cli.to_str().unwrap(),
            "eval",
            "weather",
            "weather/smoke.evalset.json",
        ],
    );
    let history = dir.path().join("weather/.adk/eval_history");
    let written = std::fs::read_dir(&history)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let id = written
        .file_name()
        .unwrap()
        .to_str()
        .unwrap()
        .strip_suffix(".evalset_result.json")
        .unwrap()
        .to_string();
    let ids = wait_until("ADK's run is listed", || async {
        let ids: Vec<String> =
            serde_json::from_value(app.get_json("/apps/weather/eval_results").await).unwrap();
        ids.contains(&id).then_some(ids)
    })
    .await;
    assert_eq!(ids.len(), 1);
    // Listed once stored, and stored whole (its head, its cases, its end) in one write.
    let run = wait_until("ADK's run is stored whole", || async {
        let run = app.get_json(&format!("/apps/weather/eval_results/{id}")).await;
        (run["status"] == "finished").then_some(run)
    })
    .await;
    assert_eq!(run["eval_case_results"][0]["final_eval_status"], 1, "{run}");

    // Older ADK wrote the result's JSON as one JSON string.
    let older = json!(std::fs::read_to_string(&written)
        .unwrap()
        .replace(&id, "weather_smoke_1.5"))
    .to_string();
    std::fs::write(history.join("weather_smoke_1.5.evalset_result.json"), older).unwrap();
    wait_until("the older file's run is listed", || async {
        let ids: Vec<String> =
            serde_json::from_value(app.get_json("/apps/weather/eval_results").await).unwrap();
        ids.contains(&"weather_smoke_1.5".to_string()).then_some(())
    })
    .await;
}

/// ADK's old `.test.json` list, as Evalstudio writes it back.
const TEST_LIST: &str = r#"[
  {
    "query": "Weather in Oslo?",
    "expected_tool_use": [
      {
        "tool_name": "get_weather",
        "tool_input": {
          "city": "Oslo"
        }
      }
    ],
    "reference": "It is sunny and 21 °C in Oslo."
  }
]
"#;

#[tokio::test]
async fn a_test_json_list_is_an_evalset_edited_in_its_own_form() {
    let (dir, app) = open_folder_with(&[("oslo.test.json", TEST_LIST)]).await;
    assert_eq!(
        app.get_json("/apps/weather/eval_sets").await,
        json!(["oslo", "smoke"])
    );
    let ids = app.get_json("/apps/weather/eval_sets/oslo/evals").await;
    assert_eq!(ids, json!(["oslo.test.json"]));

    let path = "/apps/weather/eval_sets/oslo/evals/oslo.test.json";
    let mut case = app.get_json(path).await;
    case["conversation"][0]["final_response"]["parts"][0]["text"] = json!("Sunny in Oslo.");
    assert_eq!(app.put_json(path, &case).await.status(), StatusCode::OK);
    let written = std::fs::read_to_string(dir.path().join("weather/oslo.test.json")).unwrap();
    assert_eq!(
        written,
        TEST_LIST.replace("It is sunny and 21 °C in Oslo.", "Sunny in Oslo.")
    );

    // A second case does not fit the one-case list: refused, the file as it was.
    let add = app
        .post_json(
            "/apps/weather/eval_sets/oslo/evals/oslo.test.json/duplicate",
            &json!({}),
        )
        .await;
    assert_eq!(
        add.status(),
        StatusCode::CONFLICT,
        "{}",
        add.text().await.unwrap()
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("weather/oslo.test.json")).unwrap(),
        written
    );
}

#[tokio::test]
async fn a_deleted_case_leaves_the_file_and_undo_brings_it_back() {
    let (dir, app) = open_folder().await;
    let original = std::fs::read_to_string(smoke_file(dir.path())).unwrap();
    assert_eq!(
        app.delete(&format!("{SMOKE}/evals/paris")).await.status(),
        StatusCode::NO_CONTENT
    );
    let file: Value =
        serde_json::from_str(&std::fs::read_to_string(smoke_file(dir.path())).unwrap()).unwrap();
    assert_eq!(file["eval_cases"], json!([]));

    let undo = app
        .post_json(&format!("{SMOKE}/undo_delete"), &json!({"evalIds": ["paris"]}))
        .await;
    assert_eq!(undo.status(), StatusCode::OK, "{}", undo.text().await.unwrap());
    assert_eq!(std::fs::read_to_string(smoke_file(dir.path())).unwrap(), original);
}

#[tokio::test]
async fn without_adk_the_folder_still_opens_with_chat_off() {
    let dir = tempfile::tempdir().unwrap();
    let weather = dir.path().join("weather");
    std::fs::create_dir(&weather).unwrap();
    for name in ["agent.py", "smoke.evalset.json"] {
        std::fs::copy(
            fixture_path(&format!("agents/weather/{name}")),
            weather.join(name),
        )
        .unwrap();
    }
    let app = spawn_folder_app(dir.path(), Path::new("/nonexistent/adk")).await;
    assert_eq!(app.get_json("/apps/weather/eval_sets").await, json!(["smoke"]));
    assert_eq!(app.get_json(&format!("{SMOKE}/evals")).await, json!(["paris"]));
}

#[tokio::test]
async fn the_agent_graph_adk_web_draws_comes_from_adks_own_server() {
    let (_dir, app) = open_folder().await;
    let graph = app.get_json("/dev/apps/weather/build_graph").await;
    assert_eq!(graph["root_agent"]["name"], "weather_agent");
    let image = app
        .get_json("/dev/apps/weather/build_graph_image?dark_mode=true")
        .await;
    assert!(
        image[""]["dotSrc"]
            .as_str()
            .unwrap()
            .starts_with("// Workflow Visualization"),
        "{image}"
    );
}
