//! Importing evalset files (`/apps/{app}/import`) and exporting eval sets as ADK files.

use crate::fixtures::{fixture_path, read_fixture};
use crate::helpers::{assert_error, spawn_app};
use evalstudio::evalset::{parse_evalset_file, to_adk_json, LegacyDefaults};
use reqwest::StatusCode;
use serde_json::{json, Value};

/// The ADK file the server should export for `text`.
fn expected_export(text: &str) -> String {
    let mut id = || "x".to_string();
    let legacy = LegacyDefaults {
        name: "x",
        file_name: "x.json",
        now: 0.0,
        new_invocation_id: &mut id,
    };
    to_adk_json(&parse_evalset_file(text, legacy).unwrap().0)
}

#[tokio::test]
async fn every_fixture_imports_and_exports_unchanged() {
    let app = spawn_app().await;
    let mut names: Vec<String> = std::fs::read_dir(fixture_path("adk"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        // The evalsets, not the eval configs or the note of their origin.
        .filter(|name| name.ends_with(".json") && !name.ends_with("_test_config.json"))
        .collect();
    names.sort();
    assert!(names.len() >= 7);
    for name in names {
        let text = read_fixture(&format!("adk/{name}"));
        let response = app
            .post(&format!("/apps/fixtures/import?file_name={name}"), text.clone())
            .await;
        assert_eq!(response.status(), StatusCode::CREATED, "{name}");
        let summary: Value = response.json().await.unwrap();
        let id = summary["eval_set_id"].as_str().unwrap().to_string();
        let export_path = format!("/apps/fixtures/eval_sets/{id}/export");
        let exported = app.get(&export_path).await;
        assert_eq!(exported.status(), StatusCode::OK);
        let disposition = exported.headers()["content-disposition"]
            .to_str()
            .unwrap()
            .to_string();
        assert_eq!(disposition, format!("attachment; filename=\"{id}.evalset.json\""));
        let exported = exported.text().await.unwrap();
        if summary["format"] == "ADK evalset" {
            assert_eq!(exported, expected_export(&text), "{name}");
        } else {
            // Legacy lists get fresh invocation ids and timestamps, as in ADK; from then on they are stable.
            assert_eq!(summary["format"], "legacy .test.json list", "{name}");
            assert!(
                exported.contains("\"tool_uses\"") || !text.contains("tool_name"),
                "{name}"
            );
        }
        let again = app
            .post("/apps/fixtures/import?replace=true", exported.clone())
            .await;
        assert_eq!(again.status(), StatusCode::CREATED, "{name}");
        assert_eq!(
            app.get(&export_path).await.text().await.unwrap(),
            exported,
            "{name} round trip"
        );
    }
}

#[tokio::test]
async fn import_conflicts_unless_replacing() {
    let app = spawn_app().await;
    let text = read_fixture("adk/simple_multi_turn_conversation.test.json");
    let first = app.post("/apps/demo/import", text.clone()).await;
    assert_eq!(first.status(), StatusCode::CREATED);
    let summary: Value = first.json().await.unwrap();
    assert_eq!(summary["cases"], 1);
    assert_eq!(summary["format"], "ADK evalset");
    let id = summary["eval_set_id"].as_str().unwrap().to_string();
    assert_error(
        app.post("/apps/demo/import", text.clone()).await,
        StatusCode::CONFLICT,
    )
    .await;
    let replaced = app.post("/apps/demo/import?replace=true", text).await;
    assert_eq!(replaced.status(), StatusCode::CREATED);
    assert_eq!(replaced.json::<Value>().await.unwrap()["replaced"], true);
    let ids = app.get_json(&format!("/apps/demo/eval_sets/{id}/evals")).await;
    assert_eq!(ids.as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn legacy_lists_take_their_id_from_the_file_name() {
    let app = spawn_app().await;
    let legacy = r#"[{"query": "Weather in Paris?", "expected_tool_use": [{"tool_name": "get_weather", "tool_input": {"city": "Paris"}}], "reference": "Sunny."}]"#;
    let response = app
        .post("/apps/demo/import?file_name=weather%20check.test.json", legacy)
        .await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let summary: Value = response.json().await.unwrap();
    assert_eq!(summary["eval_set_id"], "weather_check");
    assert_eq!(summary["format"], "legacy .test.json list");
    let case = app
        .get_json("/apps/demo/eval_sets/weather_check/evals/weather%20check.test.json")
        .await;
    assert_eq!(
        case["conversation"][0]["intermediate_data"]["tool_uses"][0]["args"]["city"],
        "Paris"
    );
    let renamed = app.post("/apps/demo/import?eval_set_id=renamed", legacy).await;
    assert_eq!(renamed.json::<Value>().await.unwrap()["eval_set_id"], "renamed");
}

#[tokio::test]
async fn a_file_that_cannot_be_read_is_a_400_and_changes_nothing() {
    let app = spawn_app().await;
    let bad_case = "{\"eval_set_id\": \"s\", \"eval_cases\": [\n  {\"eval_id\": \"ok\", \"conversation\": []},\n  {\"conversation\": []}\n]}";
    for (body, why) in [
        (bad_case.as_bytes().to_vec(), "a case without its eval_id"),
        (b"{\"eval_set_id\": ".to_vec(), "JSON cut short"),
        (vec![0xff_u8, 0xfe], "not UTF-8"),
    ] {
        let response = app.post("/apps/demo/import", body).await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{why}");
        assert_error(response, StatusCode::BAD_REQUEST).await;
    }
    assert_eq!(app.get_json("/apps/demo/eval_sets").await, json!([]));
}

#[tokio::test]
async fn a_bad_case_is_named_by_its_path_line_and_missing_field() {
    let app = spawn_app().await;
    let bad = "{\"eval_set_id\": \"s\", \"eval_cases\": [\n  {\"eval_id\": \"ok\", \"conversation\": []},\n  {\"conversation\": []}\n]}";
    let body = assert_error(app.post("/apps/demo/import", bad).await, StatusCode::BAD_REQUEST).await;
    assert_eq!(body["detail"]["path"], "eval_cases[1]");
    assert_eq!(body["detail"]["line"], 3);
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .contains("missing field `eval_id`"),
        "{body}"
    );
}

#[tokio::test]
async fn a_syntax_error_is_named_by_its_line() {
    let app = spawn_app().await;
    let syntax = assert_error(
        app.post("/apps/demo/import", "{\"eval_set_id\": ").await,
        StatusCode::BAD_REQUEST,
    )
    .await;
    assert_eq!(syntax["detail"]["line"], 1);
}
