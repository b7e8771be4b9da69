//! Tool replay in evals (`toolExecutionMode: replay`): a captured case re-runs against its
//! recorded tool results. The tool is a counter over MCP (end2end/counter-mcp.js), so a live
//! re-run sees a new number; the model (the fake OpenAI-protocol server) answers with what its
//! tool said.

use crate::common::fake_openai::{Reply, Server};
use crate::helpers::{assert_error, run_request, spawn_app_with_config, TestApp};
use reqwest::StatusCode;
use serde_json::{json, Value};

fn ticket_call(queue: &str) -> Reply {
    Reply::sse(vec![
        json!({"choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [
        {"index": 0, "id": "call_t", "type": "function",
         "function": {"name": "next_ticket", "arguments": json!({"queue": queue}).to_string()}}
    ]}, "finish_reason": "tool_calls"}]}),
    ])
}

/// A chat captured as case `ticket` of evalset `tickets`: the model called next_ticket for
/// billing and said what it got ("ticket 1 for billing"). Then the model's script goes on with
/// `then`.
async fn captured_case(then: Vec<Reply>) -> (TestApp, Server) {
    let mut script = vec![ticket_call("billing"), Reply::echo_tool_result()];
    script.extend(then);
    let model = Server::start(script).await;
    let counter = format!("{}/end2end/counter-mcp.js", env!("CARGO_MANIFEST_DIR"));
    let config = format!(
        "[[mcp_servers]]\nname = \"counter\"\ncommand = \"node\"\nargs = [\"{counter}\"]\n\
         [[profiles]]\nname = \"desk\"\nkind = \"openai\"\nmodel = \"m\"\nbase_url = \"{}\"\n\
         mcp_servers = [\"counter\"]\n",
        model.base_url
    );
    let app = spawn_app_with_config(&config).await;
    app.create_session("desk", "u", "s1").await;
    let events: Vec<Value> = app
        .post_json(
            "/run",
            &run_request("desk", "u", "s1", "A billing ticket, please"),
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        events.last().unwrap()["content"]["parts"][0]["text"],
        "The tool said: ticket 1 for billing"
    );
    app.capture_session("desk", "tickets", "ticket", "s1").await;
    (app, model)
}

fn exact(mode: Option<&str>, miss: Option<&str>) -> Value {
    json!({
        "evalMetrics": [
            {"metricName": "tool_trajectory_avg_score", "threshold": 1.0},
            {"metricName": "response_match_score", "threshold": 1.0}
        ],
        "toolExecutionMode": mode,
        "replayMiss": miss,
    })
}

async fn only_case(app: &TestApp, body: Value) -> Value {
    app.run_eval("desk", "tickets", &body)
        .await
        .into_iter()
        .next()
        .unwrap()
}

fn response_of_first_call(result: &Value) -> Value {
    let actual = &result["eval_metric_result_per_invocation"][0]["actual_invocation"];
    let events = actual["intermediate_data"]["invocation_events"]
        .as_array()
        .unwrap();
    events
        .iter()
        .flat_map(|e| e["content"]["parts"].as_array().cloned().unwrap_or_default())
        .find_map(|p| p.get("function_response").cloned())
        .expect("a function response")["response"]
        .clone()
}

/// The captured case and a model that calls next_ticket for billing once more.
async fn captured_case_run_again() -> (TestApp, Server) {
    captured_case(vec![ticket_call("billing"), Reply::echo_tool_result()]).await
}

#[tokio::test]
async fn a_counter_case_fails_live() {
    let (app, _model) = captured_case_run_again().await;
    let live = only_case(&app, exact(None, None)).await;
    assert_eq!(
        live["final_eval_status"], 2,
        "a live re-run sees ticket 2: {live}"
    );
    assert!(live.get("tool_sources").is_none(), "live runs mark nothing");
}

#[tokio::test]
async fn a_counter_case_passes_under_replay_with_its_recorded_result() {
    let (app, _model) = captured_case_run_again().await;
    let replayed = only_case(&app, exact(Some("replay"), None)).await;
    assert_eq!(replayed["final_eval_status"], 1, "{replayed}");
    assert_eq!(replayed["tool_sources"], json!([["replayed"]]));
    assert_eq!(
        response_of_first_call(&replayed)["content"][0]["text"],
        "ticket 1 for billing"
    );
}

#[tokio::test]
async fn an_unrecorded_call_under_replay_miss_error_is_answered_with_an_error_and_marked() {
    let (app, _model) = captured_case(vec![ticket_call("sales"), Reply::echo_tool_result()]).await;
    let result = only_case(&app, exact(Some("REPLAY"), Some("error"))).await;
    assert_eq!(result["tool_sources"], json!([["unrecorded"]]));
    assert_eq!(
        response_of_first_call(&result)["error"],
        "no recorded result for next_ticket {\"queue\":\"sales\"}"
    );
    assert_eq!(result["final_eval_status"], 2);
}

#[tokio::test]
async fn a_case_recorded_without_results_says_so_under_replay() {
    let (app, _model) = captured_case(Vec::new()).await;
    let set = json!({"eval_set_id": "imported", "eval_cases": [{
        "eval_id": "calls_only",
        "conversation": [{"invocation_id": "i1",
            "user_content": {"role": "user", "parts": [{"text": "A billing ticket, please"}]},
            "final_response": {"role": "model", "parts": [{"text": "ticket 1"}]},
            "intermediate_data": {"tool_uses": [{"name": "next_ticket", "args": {"queue": "billing"}}]}}]
    }]});
    app.import("desk", set.to_string()).await;
    let result = app
        .run_eval("desk", "imported", &exact(Some("replay"), None))
        .await;
    let error = result[0]["error"].as_str().unwrap();
    assert!(
        error.contains("tool replay needs each recorded call's result, and 1 of this turn's calls have none"),
        "{error}"
    );
}

/// An app whose profile `remote` is an ADK api_server, with an evalset `s` of one case; and the
/// path that runs it.
async fn remote_app() -> (TestApp, &'static str) {
    let config = "[[profiles]]\nname = \"remote\"\nkind = \"adk\"\nbase_url = \"http://127.0.0.1:9\"\n";
    let app = spawn_app_with_config(config).await;
    app.import(
        "remote",
        json!({"eval_set_id": "s", "eval_cases": [{"eval_id": "c", "conversation": []}]}).to_string(),
    )
    .await;
    (app, "/apps/remote/eval_sets/s/run_eval")
}

#[tokio::test]
async fn replay_is_refused_for_an_adk_profile() {
    let (app, path) = remote_app().await;
    let refused = app
        .post_json(path, &json!({"tool_execution_mode": "replay"}))
        .await;
    let body = assert_error(refused, StatusCode::BAD_REQUEST).await;
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .contains("`remote` profile's tools run on its ADK api_server"),
        "{body}"
    );
}

#[tokio::test]
async fn an_unknown_tool_mode_is_refused_naming_the_field() {
    let (app, path) = remote_app().await;
    let bad = app.post_json(path, &json!({"toolExecutionMode": "mock"})).await;
    let body = assert_error(bad, StatusCode::BAD_REQUEST).await;
    assert_eq!(
        body["error"],
        "tool_execution_mode: expected \"live\" or \"replay\", found \"mock\""
    );
}

/// The captured case added through ADK web's routes to an evalset `replayed` created for replay.
async fn evalset_adk_web_created_for_replay() -> (TestApp, Server) {
    let (app, model) = captured_case_run_again().await;
    let create = json!({"eval_set": {"eval_set_id": "replayed", "eval_cases": [],
        "model_execution_mode": "replay", "tool_execution_mode": "replay"}});
    let created = app.post_json("/dev/apps/desk/eval-sets", &create).await;
    assert_eq!(created.status(), StatusCode::OK);
    let add = json!({"evalId": "ticket", "sessionId": "s1", "userId": "u"});
    let added = app
        .post_json("/dev/apps/desk/eval-sets/replayed/add-session", &add)
        .await;
    assert_eq!(added.status(), StatusCode::OK);
    (app, model)
}

#[tokio::test]
async fn an_evalset_adk_web_created_for_replay_keeps_its_mode_and_replays() {
    let (app, _model) = evalset_adk_web_created_for_replay().await;
    let export = app.get("/apps/desk/eval_sets/replayed/export").await;
    let file = export.text().await.unwrap();
    assert!(file.contains("\"tool_execution_mode\": \"replay\""), "{file}");
    let by_default = app.run_eval("desk", "replayed", &exact(None, None)).await;
    assert_eq!(
        by_default[0]["tool_sources"],
        json!([["replayed"]]),
        "{}",
        by_default[0]
    );
}

#[tokio::test]
async fn a_run_that_says_live_runs_an_evalset_created_for_replay_live() {
    let (app, _model) = evalset_adk_web_created_for_replay().await;
    let live = app.run_eval("desk", "replayed", &exact(Some("live"), None)).await;
    assert!(live[0].get("tool_sources").is_none(), "the run's own mode wins");
}

#[tokio::test]
async fn adk_web_cannot_create_an_evalset_with_an_unknown_tool_mode() {
    let app = crate::helpers::spawn_app().await;
    let create = json!({"eval_set": {"eval_set_id": "s", "eval_cases": [], "tool_execution_mode": "mock"}});
    let refused = app.post_json("/dev/apps/demo/eval-sets", &create).await;
    assert_eq!(refused.status(), StatusCode::BAD_REQUEST);
    let body: Value = refused.json().await.unwrap();
    assert_eq!(
        body["detail"],
        "tool_execution_mode: expected \"live\" or \"replay\", found \"mock\""
    );
}
