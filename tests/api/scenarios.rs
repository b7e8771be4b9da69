//! `conversation_scenario` cases: the simulated user (evalstudio.toml's `[simulator]`, here a
//! scripted model speaking the OpenAI protocol over HTTP) talks to the demo agent until it
//! sends the stop signal or reaches the turn limit; the conversation is scored and kept.

use crate::common::fake_openai::{Reply, Server};
use crate::helpers::{assert_error, spawn_app_with_config, TestApp};
use reqwest::StatusCode;
use serde_json::{json, Value};

fn scenario_set(persona: Option<&str>) -> Value {
    json!({
        "eval_set_id": "scenarios",
        "eval_cases": [{
            "eval_id": "paris_then_rome",
            "conversation_scenario": {
                "starting_prompt": "What's the weather in Paris?",
                "conversation_plan": "Ask for the weather in Paris, then in Rome, then say thanks.",
                "user_persona": persona
            }
        }]
    })
}

async fn app_with_simulator(server: &Server, persona: Option<&str>) -> TestApp {
    let config = format!(
        "[simulator]\nbase_url = \"{}\"\nmodel = \"user-model\"\n",
        server.base_url
    );
    let app = spawn_app_with_config(&config).await;
    app.import("demo", scenario_set(persona).to_string()).await;
    app
}

async fn run(app: &TestApp, body: Value) -> Value {
    let results = app.run_eval("demo", "scenarios", &body).await;
    results.into_iter().next().unwrap()
}

fn user_messages(result: &Value) -> Vec<String> {
    result["eval_metric_result_per_invocation"]
        .as_array()
        .unwrap()
        .iter()
        .map(|turn| {
            turn["actual_invocation"]["user_content"]["parts"][0]["text"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect()
}

fn prompt_of(body: &Value) -> String {
    body["messages"][0]["content"].as_str().unwrap().to_string()
}

/// A NOVICE simulated user that asks about Rome and then sends the stop signal, its run scored
/// by `tool_single_use`: the app, the simulator's model and the case's result.
async fn talked_until_the_stop_signal() -> (TestApp, Server, Value) {
    let server = Server::start(vec![
        Reply::completion("What's the weather in Rome?"),
        Reply::completion("Thanks, that's all. </finished>"),
    ])
    .await;
    let app = app_with_simulator(&server, Some("NOVICE")).await;
    let result = run(
        &app,
        json!({"evalMetrics": [{"metricName": "tool_single_use", "criterion": {"threshold": 1, "tool_name": "get_weather"}}]}),
    )
    .await;
    assert_eq!(result["error"], Value::Null, "{result}");
    (app, server, result)
}

#[tokio::test]
async fn the_simulated_user_talks_until_the_stop_signal_and_the_conversation_is_scored() {
    let (_app, _server, result) = talked_until_the_stop_signal().await;
    // The starting prompt verbatim, then what the simulator said; its stop signal is not sent.
    assert_eq!(
        user_messages(&result),
        ["What's the weather in Paris?", "What's the weather in Rome?"]
    );
    let turns = result["eval_metric_result_per_invocation"].as_array().unwrap();
    assert!(turns.iter().all(|turn| turn["expected_invocation"].is_null()));
    let rome = turns[1]["actual_invocation"]["final_response"].to_string();
    assert!(rome.contains("Rome"), "{rome}");
    assert_eq!(result["overall_eval_metric_results"][0]["score"], 1.0, "{result}");
    assert_eq!(result["final_eval_status"], 1);
}

#[tokio::test]
async fn the_simulator_is_asked_after_each_turn_with_the_persona_and_the_whole_conversation() {
    let (_app, server, _) = talked_until_the_stop_signal().await;
    // Asked twice, never for the first message; the second time with the whole conversation,
    // in ADK's persona instructions.
    let bodies = server.bodies();
    assert_eq!(bodies.len(), 2);
    assert_eq!(bodies[0]["model"], "user-model");
    let prompt = prompt_of(&bodies[1]);
    assert!(
        prompt.contains("A Novice is trying to solve a problem"),
        "{prompt}"
    );
    assert!(
        prompt.contains("user: What's the weather in Paris?\n\ndemo: "),
        "{prompt}"
    );
    assert!(
        prompt.contains("\n\nuser: What's the weather in Rome?\n\ndemo: "),
        "{prompt}"
    );
}

#[tokio::test]
async fn the_stored_run_keeps_the_simulated_conversation() {
    let (app, _server, _) = talked_until_the_stop_signal().await;
    let results: Vec<String> = app
        .get_json("/apps/demo/eval_results")
        .await
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    let stored = app
        .get_json(&format!("/apps/demo/eval_results/{}", results[0]))
        .await;
    assert_eq!(
        user_messages(&stored["eval_case_results"][0]).len(),
        2,
        "{stored}"
    );
}

#[tokio::test]
async fn the_turn_limit_counts_the_starting_prompt() {
    let server = Server::always(Reply::completion("What's the weather in Rome?")).await;
    let app = app_with_simulator(&server, None).await;
    let result = run(
        &app,
        json!({"user_simulator_config": {"max_allowed_invocations": 3, "include_function_calls": true}}),
    )
    .await;
    assert_eq!(result["error"], Value::Null, "{result}");
    assert_eq!(user_messages(&result).len(), 3);
    assert_eq!(server.request_count(), 2);
    // include_function_calls shows the simulator the tool calls, as ADK writes them.
    let prompt = prompt_of(&server.bodies()[1]);
    assert!(
        prompt.contains("demo called tool 'get_weather' with args: {'city': 'Paris'"),
        "{prompt}"
    );
    assert!(prompt.contains("Tool 'get_weather' returned: {"), "{prompt}");
}

#[tokio::test]
async fn an_empty_simulator_reply_is_an_error_with_the_reason() {
    let server = Server::always(Reply::completion("")).await;
    let app = app_with_simulator(&server, None).await;
    let result = run(&app, json!({})).await;
    let error = result["error"].as_str().unwrap();
    assert!(
        error.contains("turn 2: the user simulator's model answered with an empty message"),
        "{error}"
    );
    // The conversation up to there is kept.
    assert_eq!(user_messages(&result), ["What's the weather in Paris?"]);
}

#[tokio::test]
async fn bad_simulator_instructions_are_refused_naming_the_field() {
    let server = Server::always(Reply::completion("hi")).await;
    let app = app_with_simulator(&server, None).await;
    let response = app
        .post_json(
            "/apps/demo/eval_sets/scenarios/run_eval",
            &json!({"user_simulator_config": {"custom_instructions": "Plan: {{ conversation_plan }}"}}),
        )
        .await;
    let body = assert_error(response, StatusCode::BAD_REQUEST).await;
    let error = body["error"].as_str().unwrap();
    assert!(
        error.starts_with("user_simulator_config.custom_instructions: missing {{ stop_signal }}, {{ conversation_history }}"),
        "{error}"
    );
    assert_eq!(server.request_count(), 0);
}

#[tokio::test]
async fn an_unknown_persona_stops_the_case_naming_the_personas_there_are() {
    let server = Server::always(Reply::completion("hi")).await;
    let app = app_with_simulator(&server, Some("GRUMPY")).await;
    let result = run(&app, json!({})).await;
    let error = result["error"].as_str().unwrap();
    assert!(
        error.contains("no built-in persona `GRUMPY`; ADK's are EXPERT, NOVICE, EVALUATOR"),
        "{error}"
    );
}

#[tokio::test]
async fn without_a_simulator_model_the_case_says_what_to_configure() {
    let app = spawn_app_with_config("").await;
    app.import("demo", scenario_set(None).to_string()).await;
    let result = run(&app, json!({})).await;
    let error = result["error"].as_str().unwrap();
    assert!(
        error.contains("add a [simulator] (or [judge]) table to evalstudio.toml"),
        "{error}"
    );
}

/// A conversation of two turns whose simulated user's turns `per_turn_user_simulator_quality_v1`
/// judges: the first kept to the plan, the stop signal after the second came too early. The
/// app, the models' server (simulator and judge) and the case's result.
async fn simulated_turns_judged() -> (TestApp, Server, Value) {
    // The simulator's two messages, then the judge's verdict on turn 2 and on the stop signal.
    let server = Server::start(vec![
        Reply::completion("What's the weather in Rome?"),
        Reply::completion("</finished>"),
        Reply::completion(r#"{"criteria": [], "is_valid": true}"#),
        Reply::completion(r#"{"criteria": [], "is_valid": false}"#),
    ])
    .await;
    let config = format!(
        "[simulator]\nbase_url = \"{0}\"\nmodel = \"user-model\"\n[judge]\nbase_url = \"{0}\"\nmodel = \"judge-model\"\n",
        server.base_url
    );
    let app = spawn_app_with_config(&config).await;
    app.import("demo", scenario_set(None).to_string()).await;
    let result = run(
        &app,
        json!({"evalMetrics": [{"metricName": "per_turn_user_simulator_quality_v1",
            "criterion": {"threshold": 1.0, "judge_model_options": {"num_samples": 1}}}]}),
    )
    .await;
    (app, server, result)
}

#[tokio::test]
async fn the_simulated_users_turns_are_judged() {
    let (_app, server, result) = simulated_turns_judged().await;
    // Turn 1 is the starting prompt; turn 2 kept to the plan, but the judge found the stop
    // signal after it too early, which fails the last turn.
    let turns = result["eval_metric_result_per_invocation"].as_array().unwrap();
    let scores: Vec<&Value> = turns
        .iter()
        .map(|t| &t["eval_metric_results"][0]["score"])
        .collect();
    assert_eq!(scores, [&json!(1.0), &json!(0.0)], "{result}");
    assert_eq!(result["overall_eval_metric_results"][0]["score"], 0.5);
    let last = &turns[1]["eval_metric_results"][0]["details"];
    assert!(last["reason"].as_str().unwrap().contains("</finished>"), "{last}");
    assert_eq!(last["evidence"]["votes"]["no"], 1, "{last}");
    let judged = prompt_of(&server.bodies()[3]);
    assert!(
        judged.contains("# Generated User Response\n</finished>"),
        "{judged}"
    );
}

#[tokio::test]
async fn the_adk_export_of_judged_simulated_turns_has_the_scores_alone() {
    let (app, _server, _) = simulated_turns_judged().await;
    // ADK's reader refuses keys it does not define, so its file has the scores alone.
    let results = app.get_json("/apps/demo/eval_results").await;
    let id = results[0].as_str().unwrap();
    let file = app.get(&format!("/apps/demo/eval_results/{id}/export")).await;
    assert_eq!(file.status(), StatusCode::OK);
    let file: Value = file.json().await.unwrap();
    let details = &file["eval_case_results"][0]["eval_metric_result_per_invocation"][1]
        ["eval_metric_results"][0]["details"];
    assert!(
        details.get("evidence").is_none() && details.get("reason").is_none(),
        "{details}"
    );
    assert_eq!(
        file["eval_case_results"][0]["overall_eval_metric_results"][0]["score"],
        0.5
    );
}
