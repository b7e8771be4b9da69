//! google-adk 2.13's web-server routes under `/dev/apps/{app}` and `/list-apps`, answering with
//! ADK's shapes (camelCase, `null` bodies, `{"detail": ...}` errors) over the same data as the
//! 1.x routes.

use crate::common;
use crate::helpers::{run_request, spawn_app, TestApp};
use evalstudio::evalset::to_adk_json;
use reqwest::StatusCode;
use serde_json::{json, Value};

const DEV: &str = "/dev/apps/demo";

/// Checks the status and answers the body.
async fn expect(response: reqwest::Response, status: StatusCode) -> Value {
    assert_eq!(response.status(), status);
    response.json().await.unwrap()
}

async fn chatted_session(app: &TestApp) {
    app.create_session("demo", "u", "s1").await;
    let run = run_request("demo", "u", "s1", "What's the weather in Paris?");
    assert_eq!(app.post_json("/run", &run).await.status(), StatusCode::OK);
}

#[tokio::test]
async fn list_apps_names_the_agent_profiles() {
    let app = spawn_app().await;
    assert_eq!(app.get_json("/list-apps?relative_path=./").await, json!(["demo"]));
}

#[tokio::test]
async fn an_evalset_is_created_listed_and_refused_twice_as_adk_does() {
    let app = spawn_app().await;
    let create = json!({"eval_set": {"eval_set_id": "s1", "eval_cases": [], "tool_execution_mode": "live"}});
    let created = expect(
        app.post_json(&format!("{DEV}/eval-sets"), &create).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        (&created["eval_set_id"], &created["name"], &created["eval_cases"]),
        (&json!("s1"), &json!("s1"), &json!([]))
    );
    assert!(created["creation_timestamp"].as_f64().unwrap() > 0.0);

    let again = expect(
        app.post_json(&format!("{DEV}/eval-sets"), &create).await,
        StatusCode::BAD_REQUEST,
    )
    .await;
    assert_eq!(
        again,
        json!({"detail": "EvalSet s1 already exists for app demo."})
    );

    let bare = app.post(&format!("{DEV}/eval_sets/s2"), "").await;
    assert_eq!(expect(bare, StatusCode::OK).await, Value::Null);
    assert_eq!(
        app.get_json(&format!("{DEV}/eval-sets")).await,
        json!({"evalSetIds": ["s1", "s2"]})
    );
    assert_eq!(
        app.get_json(&format!("{DEV}/eval_sets")).await,
        json!(["s1", "s2"])
    );
}

#[tokio::test]
async fn a_session_added_is_read_replaced_and_deleted_in_adks_shapes() {
    let app = spawn_app().await;
    app.post(&format!("{DEV}/eval_sets/s1"), "").await;
    chatted_session(&app).await;
    let add = json!({"evalId": "c1", "sessionId": "s1", "userId": "u"});
    let added = app
        .post_json(&format!("{DEV}/eval-sets/s1/add-session"), &add)
        .await;
    assert_eq!(expect(added, StatusCode::OK).await, Value::Null);
    let twice = app
        .post_json(&format!("{DEV}/eval_sets/s1/add_session"), &add)
        .await;
    assert_eq!(
        expect(twice, StatusCode::BAD_REQUEST).await,
        json!({"detail": "Eval id `c1` already exists in `s1` eval set."})
    );
    assert_eq!(
        app.get_json(&format!("{DEV}/eval_sets/s1/evals")).await,
        json!(["c1"])
    );

    let path = format!("{DEV}/eval-sets/s1/eval-cases/c1");
    let mut case = app.get_json(&path).await;
    assert_eq!(case["evalId"], "c1");
    assert_eq!(
        case["conversation"][0]["userContent"]["parts"][0]["text"],
        "What's the weather in Paris?"
    );
    case["conversation"][0]["finalResponse"]["parts"][0]["text"] = json!("Sunny.");
    assert_eq!(
        expect(app.put_json(&path, &case).await, StatusCode::OK).await,
        Value::Null
    );
    let read = app.get_json(&format!("{DEV}/eval_sets/s1/evals/c1")).await;
    assert_eq!(
        read["conversation"][0]["finalResponse"]["parts"][0]["text"],
        "Sunny."
    );

    case["evalId"] = json!("other");
    let mismatch = expect(app.put_json(&path, &case).await, StatusCode::BAD_REQUEST).await;
    assert_eq!(
        mismatch["detail"],
        "Eval id in EvalCase should match the eval id in the API route."
    );
    assert_eq!(expect(app.delete(&path).await, StatusCode::OK).await, Value::Null);
    let gone = expect(app.get(&path).await, StatusCode::NOT_FOUND).await;
    assert_eq!(gone, json!({"detail": "Eval set `s1` or Eval `c1` not found."}));
    let missing = expect(
        app.get(&format!("{DEV}/eval_sets/nope/evals")).await,
        StatusCode::BAD_REQUEST,
    )
    .await;
    assert_eq!(missing, json!({"detail": "Eval set `nope` not found."}));
}

#[tokio::test]
async fn a_run_answers_its_results_and_they_read_back_in_camel_case() {
    let app = spawn_app().await;
    let set = common::recorded_eval_set(&[("paris", &["What's the weather in Paris?"][..])]).await;
    app.import("demo", to_adk_json(&set)).await;
    let body = json!({"eval_case_ids": [], "eval_metrics": [{"metricName": "tool_trajectory_avg_score", "threshold": 1}]});
    let run = expect(
        app.post_json(&format!("{DEV}/eval-sets/regression/run"), &body)
            .await,
        StatusCode::OK,
    )
    .await;
    let result = &run["runEvalResults"][0];
    assert_eq!(
        (&result["evalId"], &result["finalEvalStatus"]),
        (&json!("paris"), &json!(1))
    );
    assert_eq!(result["evalMetricResults"], json!([]));
    assert_eq!(
        result["overallEvalMetricResults"][0]["metricName"],
        "tool_trajectory_avg_score"
    );
    assert!(result["evalMetricResultPerInvocation"][0]["actualInvocation"]["userContent"].is_object());

    let ids = app.get_json(&format!("{DEV}/eval-results")).await;
    let id = ids["evalResultIds"][0].as_str().unwrap().to_string();
    assert_eq!(app.get_json(&format!("{DEV}/eval_results")).await, json!([id]));
    let stored = app.get_json(&format!("{DEV}/eval-results/{id}")).await;
    assert_eq!(
        (&stored["evalSetResultId"], &stored["evalSetId"]),
        (&json!(id), &json!("regression"))
    );
    assert_eq!(stored["evalCaseResults"][0]["evalId"], "paris");
    let missing = expect(
        app.get(&format!("{DEV}/eval_results/nope")).await,
        StatusCode::NOT_FOUND,
    )
    .await;
    assert_eq!(missing, json!({"detail": "Eval set result `nope` not found."}));
}

#[tokio::test]
async fn an_eval_runs_session_reads_back_by_its_id_as_adk_web_keeps_it() {
    let app = spawn_app().await;
    let set = common::recorded_eval_set(&[("paris", &["What's the weather in Paris?"][..])]).await;
    app.import("demo", to_adk_json(&set)).await;
    let body = json!({"eval_metrics": [{"metricName": "tool_trajectory_avg_score", "threshold": 1}]});
    let run = app
        .post_json(&format!("{DEV}/eval-sets/regression/run"), &body)
        .await;
    let run = expect(run, StatusCode::OK).await;
    let user = run["runEvalResults"][0]["userId"].as_str().unwrap().to_string();
    let ids = app.get_json(&format!("{DEV}/eval-results")).await;
    let stored = app
        .get_json(&format!(
            "{DEV}/eval-results/{}",
            ids["evalResultIds"][0].as_str().unwrap()
        ))
        .await;
    let case = &stored["evalCaseResults"][0];
    let session_id = case["sessionId"].as_str().unwrap();
    let details = &case["sessionDetails"];
    assert_eq!(
        (&details["id"], &details["userId"]),
        (&json!(session_id), &json!(user))
    );

    let session = app
        .get_json(&format!("/apps/demo/users/{user}/sessions/{session_id}"))
        .await;
    assert_eq!(&session, details);
    let events = session["events"].as_array().unwrap();
    assert_eq!(events[0]["author"], "user");
    assert_eq!(
        events[1]["content"]["parts"][0]["functionCall"]["name"],
        "get_weather"
    );
    assert!(events.last().unwrap()["content"]["parts"][0]["text"].is_string());
    let someone_else = app
        .get(&format!("/apps/demo/users/someone_else/sessions/{session_id}"))
        .await;
    assert_eq!(someone_else.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn metrics_info_lists_what_this_server_scores_and_an_unknown_route_is_adks_404() {
    let app = spawn_app().await;
    let info = app.get_json(&format!("{DEV}/metrics-info")).await;
    let trajectory = info["metricsInfo"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["metricName"] == "tool_trajectory_avg_score")
        .unwrap()
        .clone();
    assert_eq!(
        trajectory["metricValueInfo"],
        json!({"interval": {"minValue": 0.0, "openAtMin": false, "maxValue": 1.0, "openAtMax": false}})
    );
    assert_eq!(trajectory["requiresThreshold"], true);
    let unknown = expect(
        app.get(&format!("{DEV}/eval-sets/s1")).await,
        StatusCode::NOT_FOUND,
    )
    .await;
    assert_eq!(unknown, json!({"detail": "Not Found"}));
}

#[tokio::test]
async fn version_names_evalstudio_and_a_session_has_no_recorded_spans() {
    let app = spawn_app().await;
    let version = app.get_json("/version").await;
    assert_eq!(
        (version["version"].as_str().is_some(), &version["language"]),
        (true, &json!("rust"))
    );
    assert_eq!(
        app.get_json(&format!("{DEV}/debug/trace/session/s1")).await,
        json!([])
    );
}

#[tokio::test]
async fn a_profiles_agent_graph_is_drawn_from_its_profile() {
    let app = spawn_app().await;
    let info = app.get_json(&format!("{DEV}/build_graph")).await;
    assert_eq!(info["root_agent"]["name"], "demo");
    let tools = info["root_agent"]["tools"].as_array().unwrap();
    assert!(
        tools.contains(&json!({"name": "get_weather", "type": "tool"})),
        "{info}"
    );

    let image = app
        .get_json(&format!("{DEV}/build_graph_image?dark_mode=true"))
        .await;
    let dot = image[""]["dotSrc"].as_str().unwrap();
    assert!(
        dot.contains("\"demo\" -> tool_") && dot.contains("get_weather"),
        "{dot}"
    );
    let missing = expect(
        app.get(&format!("{DEV}/build_graph_image?node=nope")).await,
        StatusCode::NOT_FOUND,
    )
    .await;
    assert_eq!(missing, json!({"detail": "Node not found: nope"}));
}

#[tokio::test]
async fn an_unknown_app_has_no_graph_and_a_profile_no_agent_file() {
    let app = spawn_app().await;
    let unknown = expect(app.get("/dev/apps/nope/build_graph").await, StatusCode::NOT_FOUND).await;
    assert_eq!(unknown, json!({"detail": "App not found: nope"}));
    let file = app.get(&format!("{DEV}/builder")).await;
    assert_eq!(file.status(), StatusCode::OK);
    assert_eq!(
        file.text().await.unwrap(),
        "",
        "ADK's answer for an agent without a YAML file"
    );
}

#[tokio::test]
async fn list_apps_in_detail_describes_each_profile_as_adk_does() {
    let app = spawn_app().await;
    let listed = app.get_json("/list-apps?detailed=true").await;
    let demo = &listed["apps"][0];
    assert_eq!(
        (
            &demo["name"],
            &demo["rootAgentName"],
            &demo["language"],
            &demo["isComputerUse"]
        ),
        (&json!("demo"), &json!("demo"), &json!("yaml"), &json!(false))
    );
    assert!(demo["description"].as_str().unwrap().contains("demo agent"));
}
