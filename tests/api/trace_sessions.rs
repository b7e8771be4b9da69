//! Sessions recorded as spans: what ADK 2.13's exporter sent for one turn of the weather agent
//! (tests/fixtures/otlp, as stored, sent again here as OTLP/JSON) is listed, read back as its
//! invocation, and saved as an eval case.

use crate::helpers::{assert_error, spawn_app_with_config, TestApp};
use crate::otlp_json::otlp_request;
use reqwest::StatusCode;
use serde_json::{json, Value};

async fn app_with(request: &Value) -> TestApp {
    let app = spawn_app_with_config("[otlp]\nquiet_period_secs = 0\n").await;
    let sent = app.post_json("/v1/traces", request).await;
    assert_eq!(sent.status(), StatusCode::OK);
    app.post_json("/apps/weather_agent/eval_sets/prod", &json!({}))
        .await;
    app
}

async fn recorded() -> TestApp {
    app_with(&otlp_request("adk_schema2", |_| {})).await
}

#[tokio::test]
async fn a_recorded_session_is_listed_for_its_app() {
    let app = recorded().await;
    let sessions = app.get_json("/apps/weather_agent/trace_sessions").await;
    assert_eq!(sessions.as_array().unwrap().len(), 1, "{sessions}");
    let listed = &sessions[0];
    assert_eq!(
        (
            listed["session_id"].as_str(),
            listed["turns"].as_i64(),
            listed["tool_calls"].as_i64(),
            listed["errors"].as_i64()
        ),
        (Some("s2"), Some(1), Some(1), Some(0))
    );
    assert_eq!(
        app.get_json("/apps/weather_agent/trace_sessions?errors=true")
            .await,
        json!([])
    );
    assert_eq!(app.get_json("/apps/demo/trace_sessions").await, json!([]));
}

#[tokio::test]
async fn a_tool_span_arriving_later_without_a_session_id_counts_for_its_traces_session() {
    let without_tool = otlp_request("adk_schema2", |span| {
        if span["name"] == "execute_tool get_weather" {
            span.insert("dropped".into(), Value::Bool(true));
        }
    });
    let app = app_with(&without_tool).await;
    let listed = app.get_json("/apps/weather_agent/trace_sessions").await;
    assert_eq!(listed[0]["tool_calls"], 0);
    let only_tool = otlp_request("adk_schema2", |span| {
        if span["name"] != "execute_tool get_weather" {
            span.insert("dropped".into(), Value::Bool(true));
        }
    });
    assert_eq!(
        app.post_json("/v1/traces", &only_tool).await.status(),
        StatusCode::OK
    );
    let listed = app.get_json("/apps/weather_agent/trace_sessions").await;
    assert_eq!(
        (listed[0]["turns"].as_i64(), listed[0]["tool_calls"].as_i64()),
        (Some(1), Some(1))
    );
}

#[tokio::test]
async fn a_recorded_session_reads_back_as_its_invocations() {
    let app = recorded().await;
    let session = app.get_json("/apps/weather_agent/trace_sessions/s2").await;
    assert_eq!(
        (session["complete"].as_bool(), session["contentMissing"].as_bool()),
        (Some(true), Some(false))
    );
    let invocation = &session["invocations"][0];
    assert_eq!(
        invocation["user_content"]["parts"][0]["text"],
        "What's the weather in Paris?"
    );
    assert_eq!(
        invocation["intermediate_data"]["tool_uses"][0]["args"],
        json!({"city": "Paris"})
    );
    assert_eq!(
        invocation["final_response"]["parts"][0]["text"],
        "It is sunny and 21 °C in Paris."
    );
}

#[tokio::test]
async fn add_trace_session_saves_the_case_and_refuses_its_id_twice() {
    let app = recorded().await;
    let body = json!({"sessionId": "s2", "evalId": "paris_from_prod"});
    let added = app
        .post_json("/apps/weather_agent/eval_sets/prod/add_trace_session", &body)
        .await;
    assert_eq!(added.status(), StatusCode::OK);
    let case = app
        .get_json("/apps/weather_agent/eval_sets/prod/evals/paris_from_prod")
        .await;
    let invocation = &case["conversation"][0];
    assert_eq!(
        invocation["intermediate_data"]["tool_uses"][0]["name"],
        "get_weather"
    );
    assert_eq!(
        invocation["intermediate_data"]["tool_responses"][0]["response"]["forecast"],
        "sunny"
    );
    assert_eq!(case["session_input"]["app_name"], "weather_agent");
    let again = app
        .post_json("/apps/weather_agent/eval_sets/prod/add_trace_session", &body)
        .await;
    assert_error(again, StatusCode::CONFLICT).await;
}

#[tokio::test]
async fn spans_without_messages_are_not_added_and_say_which_setting_the_agent_needs() {
    let app = app_with(&otlp_request("adk_schema2", |span| {
        let attributes = span["attributes"].as_object_mut().unwrap();
        attributes.remove("gen_ai.input.messages");
        attributes.remove("gen_ai.output.messages");
    }))
    .await;
    let session = app.get_json("/apps/weather_agent/trace_sessions/s2").await;
    assert_eq!(
        session["contentSetting"],
        "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY"
    );
    let body = json!({"sessionId": "s2", "evalId": "paris"});
    let refused = app
        .post_json("/apps/weather_agent/eval_sets/prod/add_trace_session", &body)
        .await;
    let error = assert_error(refused, StatusCode::BAD_REQUEST).await;
    assert!(
        error["error"]
            .as_str()
            .unwrap()
            .contains("CAPTURE_MESSAGE_CONTENT=SPAN_ONLY"),
        "{error}"
    );
}

#[tokio::test]
async fn a_session_missing_spans_is_shown_incomplete_and_not_added() {
    let app = app_with(&otlp_request("adk_schema2", |span| {
        if span["name"] == "invoke_workflow weather_agent" {
            span.insert("dropped".into(), Value::Bool(true));
        }
    }))
    .await;
    let session = app.get_json("/apps/weather_agent/trace_sessions/s2").await;
    assert_eq!(session["complete"], false);
    let body = json!({"sessionId": "s2", "evalId": "paris"});
    let refused = app
        .post_json("/apps/weather_agent/eval_sets/prod/add_trace_session", &body)
        .await;
    let error = assert_error(refused, StatusCode::BAD_REQUEST).await;
    assert!(
        error["error"].as_str().unwrap().contains("is missing spans"),
        "{error}"
    );
}

#[tokio::test]
async fn an_unknown_session_is_a_404() {
    let app = recorded().await;
    assert_error(
        app.get("/apps/weather_agent/trace_sessions/nope").await,
        StatusCode::NOT_FOUND,
    )
    .await;
}

/// The trajectory (needing a reference) and whether get_weather was called (needing none).
fn scoring(session_ids: &[&str]) -> Value {
    json!({"sessionIds": session_ids, "evalMetrics": [
        {"metricName": "tool_trajectory_avg_score", "threshold": 1.0},
        {"metricName": "tool_single_use", "threshold": 1.0, "criterion": {"tool_name": "get_weather"}},
    ], "label": "production, Tuesday"})
}

fn metric_score(result: &Value, name: &str) -> Value {
    result["overall_eval_metric_results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["metric_name"] == name)
        .map(|m| m["score"].clone())
        .unwrap()
}

#[tokio::test]
async fn recorded_sessions_are_scored_without_the_agent_as_a_finished_recorded_run() {
    let app = recorded().await;
    // The reference: the same session saved as a case, which it then matches by first message.
    let body = json!({"sessionId": "s2", "evalId": "paris"});
    app.post_json("/apps/weather_agent/eval_sets/prod/add_trace_session", &body)
        .await;
    let scored = app
        .post_json(
            "/apps/weather_agent/eval_sets/prod/score_trace_sessions",
            &scoring(&["s2"]),
        )
        .await;
    assert_eq!(scored.status(), StatusCode::CREATED);
    let run: Value = scored.json().await.unwrap();
    assert_eq!(
        (
            run["origin"].as_str(),
            run["status"].as_str(),
            run["label"].as_str()
        ),
        (Some("Recorded"), Some("finished"), Some("production, Tuesday")),
        "{run}"
    );
    let result_id = run["result_id"].as_str().unwrap();
    let stored = app
        .get_json(&format!("/apps/weather_agent/eval_results/{result_id}"))
        .await;
    let [result] = &stored["eval_case_results"].as_array().unwrap()[..] else {
        panic!("{stored}")
    };
    assert_eq!(result["eval_id"], "s2");
    assert_eq!(metric_score(result, "tool_trajectory_avg_score"), 1.0);
    assert_eq!(metric_score(result, "tool_single_use"), 1.0);
    let listed = app.get_json("/apps/weather_agent/eval_results").await;
    assert!(listed.to_string().contains(result_id), "{listed}");
}

#[tokio::test]
async fn a_session_matching_no_case_scores_only_the_metrics_that_need_no_reference() {
    let app = recorded().await;
    let scored = app
        .post_json(
            "/apps/weather_agent/eval_sets/prod/score_trace_sessions",
            &scoring(&["s2"]),
        )
        .await;
    let run: Value = scored.json().await.unwrap();
    let stored = app
        .get_json(&format!(
            "/apps/weather_agent/eval_results/{}",
            run["result_id"].as_str().unwrap()
        ))
        .await;
    let result = &stored["eval_case_results"][0];
    assert_eq!(metric_score(result, "tool_trajectory_avg_score"), Value::Null);
    assert_eq!(metric_score(result, "tool_single_use"), 1.0);
    assert_eq!(result["final_eval_status"], 1, "{result}");
}

#[tokio::test]
async fn scoring_refuses_unknown_incomplete_or_no_sessions_and_stores_no_run() {
    let app = app_with(&otlp_request("adk_schema2", |span| {
        if span["name"] == "invoke_workflow weather_agent" {
            span.insert("dropped".into(), Value::Bool(true));
        }
    }))
    .await;
    let path = "/apps/weather_agent/eval_sets/prod/score_trace_sessions";
    let incomplete = assert_error(
        app.post_json(path, &scoring(&["s2"])).await,
        StatusCode::BAD_REQUEST,
    )
    .await;
    assert!(
        incomplete["error"]
            .as_str()
            .unwrap()
            .contains("session `s2` is missing spans"),
        "{incomplete}"
    );
    assert_error(
        app.post_json(path, &scoring(&["nope"])).await,
        StatusCode::NOT_FOUND,
    )
    .await;
    let none = assert_error(app.post_json(path, &scoring(&[])).await, StatusCode::BAD_REQUEST).await;
    assert_eq!(none["error"], "select the sessions to score first");
    let other_set = "/apps/weather_agent/eval_sets/missing/score_trace_sessions";
    assert_error(
        app.post_json(other_set, &scoring(&["s2"])).await,
        StatusCode::NOT_FOUND,
    )
    .await;
    assert_eq!(app.get_json("/apps/weather_agent/eval_results").await, json!([]));
}

#[tokio::test]
async fn a_session_is_whole_once_no_span_of_it_arrived_for_the_quiet_period() {
    let app = spawn_app_with_config("[otlp]\nquiet_period_secs = 1\n").await;
    app.post_json("/v1/traces", &otlp_request("adk_schema2", |_| {}))
        .await;
    app.post_json("/apps/weather_agent/eval_sets/prod", &json!({}))
        .await;
    let session = app.get_json("/apps/weather_agent/trace_sessions/s2").await;
    assert_eq!(
        (&session["complete"], &session["arriving"]),
        (&json!(false), &json!(true))
    );
    let add = "/apps/weather_agent/eval_sets/prod/add_trace_session";
    let body = json!({"sessionId": "s2", "evalId": "paris"});
    let early = assert_error(app.post_json(add, &body).await, StatusCode::BAD_REQUEST).await;
    assert!(
        early["error"].as_str().unwrap().contains("still arriving"),
        "{early}"
    );
    tokio::time::sleep(std::time::Duration::from_millis(1200)).await;
    assert_eq!(app.post_json(add, &body).await.status(), StatusCode::OK);
}

/// The ids of the sessions `query` lists.
async fn listed(app: &TestApp, query: &str) -> Vec<String> {
    let sessions = app
        .get_json(&format!("/apps/weather_agent/trace_sessions?{query}"))
        .await;
    let mut ids: Vec<String> = sessions
        .as_array()
        .unwrap_or_else(|| panic!("{sessions}"))
        .iter()
        .map(|s| s["session_id"].as_str().unwrap().to_string())
        .collect();
    ids.sort();
    ids
}

#[tokio::test]
async fn sessions_are_found_by_the_tool_they_called_a_text_and_when_they_started() {
    let app = recorded().await;
    // Schema 1's session, its tool renamed.
    let renamed = otlp_request("adk_schema1", |span| {
        let attributes = span["attributes"].as_object_mut().unwrap();
        if attributes.contains_key("gen_ai.tool.name") {
            attributes.insert("gen_ai.tool.name".into(), json!("get_time"));
        }
    });
    app.post_json("/v1/traces", &renamed).await;
    assert_eq!(listed(&app, "").await, ["s1", "s2"]);
    assert_eq!(listed(&app, "tool=get_weather").await, ["s2"]);
    assert_eq!(listed(&app, "tool=get_time").await, ["s1"]);
    assert_eq!(listed(&app, "tool=nothing").await, Vec::<String>::new());
    assert_eq!(listed(&app, "text=SUNNY").await, ["s1", "s2"], "any case");
    assert_eq!(
        listed(&app, "text=100%25").await,
        Vec::<String>::new(),
        "a % is itself"
    );
    assert_eq!(
        listed(&app, "text=What%27s%20the").await,
        ["s1", "s2"],
        "as the user wrote it"
    );
    assert_eq!(
        listed(&app, "text=role").await,
        Vec::<String>::new(),
        "keys are not text"
    );
    let all = app.get_json("/apps/weather_agent/trace_sessions").await;
    let start = |id: &str| {
        all.as_array()
            .unwrap()
            .iter()
            .find(|s| s["session_id"] == id)
            .unwrap()["started_unix_nano"]
            .as_i64()
            .unwrap() as f64
            / 1e9
    };
    let (first, second) = if start("s1") < start("s2") {
        ("s1", "s2")
    } else {
        ("s2", "s1")
    };
    assert_eq!(listed(&app, &format!("since={}", start(second))).await, [second]);
    assert_eq!(listed(&app, &format!("until={}", start(second))).await, [first]);
}

#[tokio::test]
async fn the_list_shows_the_tokens_spans_report_and_the_user_log_records_name() {
    let app = spawn_app_with_config("[otlp]\nquiet_period_secs = 0\n").await;
    let request = otlp_request("adk_schema2", |span| {
        if span["name"].as_str().unwrap().starts_with("generate_content") {
            let attributes = span["attributes"].as_object_mut().unwrap();
            attributes.insert("gen_ai.usage.input_tokens".into(), json!(100));
            attributes.insert("gen_ai.usage.output_tokens".into(), json!(20));
        }
    });
    let trace_id = request["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["traceId"].clone();
    // ADK's inference log event, sent before the spans of its trace.
    let logs = json!({"resourceLogs": [{"scopeLogs": [{"logRecords": [{
        "traceId": trace_id, "eventName": "gen_ai.client.inference.operation.details",
        "attributes": [{"key": "user.id", "value": {"stringValue": "alice"}}],
    }]}]}]});
    assert_eq!(app.post_json("/v1/logs", &logs).await.status(), StatusCode::OK);
    app.post_json("/v1/traces", &request).await;
    let sessions = app.get_json("/apps/weather_agent/trace_sessions").await;
    let listed = &sessions[0];
    assert_eq!(
        (
            &listed["user_id"],
            &listed["input_tokens"],
            &listed["output_tokens"]
        ),
        (&json!("alice"), &json!(200), &json!(40)),
        "{listed}"
    );
}

#[tokio::test]
async fn a_schema_1_model_calls_tokens_are_counted_once() {
    // ADK records the usage on `call_llm` and again on the `generate_content` span under it.
    let request = otlp_request("adk_schema1", |span| {
        let name = span["name"].as_str().unwrap().to_string();
        if name == "call_llm" || name.starts_with("generate_content") {
            let attributes = span["attributes"].as_object_mut().unwrap();
            attributes.insert("gen_ai.usage.input_tokens".into(), json!(100));
            attributes.insert("gen_ai.usage.output_tokens".into(), json!(20));
        }
    });
    let app = app_with(&request).await;
    let listed = &app.get_json("/apps/weather_agent/trace_sessions").await[0];
    assert_eq!(
        (&listed["input_tokens"], &listed["output_tokens"]),
        (&json!(200), &json!(40)),
        "{listed}"
    );
}

#[tokio::test]
async fn the_sessions_a_filter_keeps_are_scored_and_those_that_cannot_be_said() {
    let app = recorded().await;
    // Schema 1's session without the root of its trace: kept by the filter, not scorable.
    let partial = otlp_request("adk_schema1", |span| {
        if span["parent_span_id"].is_null() {
            span.insert("dropped".into(), Value::Bool(true));
        }
    });
    app.post_json("/v1/traces", &partial).await;
    let path = "/apps/weather_agent/eval_sets/prod/score_trace_sessions";
    let mut body = scoring(&[]);
    body.as_object_mut().unwrap().remove("sessionIds");
    body["filter"] = json!({"tool": "get_weather"});
    let scored = app.post_json(path, &body).await;
    assert_eq!(scored.status(), StatusCode::CREATED);
    let run: Value = scored.json().await.unwrap();
    assert_eq!(run["origin"], "Recorded");
    let [(left_out, why)] =
        &serde_json::from_value::<Vec<(String, String)>>(run["left_out"].clone()).unwrap()[..]
    else {
        panic!("{run}")
    };
    assert_eq!(left_out, "s1");
    assert!(why.contains("missing spans"), "{why}");
    let stored = app
        .get_json(&format!(
            "/apps/weather_agent/eval_results/{}",
            run["result_id"].as_str().unwrap()
        ))
        .await;
    let ids: Vec<&Value> = stored["eval_case_results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|result| &result["eval_id"])
        .collect();
    assert_eq!(ids, [&json!("s2")]);
    body["filter"] = json!({"tool": "get_time"});
    let none = assert_error(app.post_json(path, &body).await, StatusCode::BAD_REQUEST).await;
    assert!(none["error"].as_str().unwrap().contains("0 kept"), "{none}");
    body["sessionIds"] = json!(["s2"]);
    assert_error(app.post_json(path, &body).await, StatusCode::BAD_REQUEST).await;
}
