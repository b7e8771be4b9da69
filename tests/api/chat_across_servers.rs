//! A chat turn on a team's servers: one turn per session whichever server is asked, followed
//! through another server as it goes (its events read from the database: no sticky load
//! balancer needed), and stopped through any.

use crate::common::{fake_openai, slow_profile, spawn_slow_model};
use crate::helpers::{assert_error, run_request, spawn_app_with_config, TestApp, SLOW_MODEL_LATENCY};
use crate::wait::wait_until;
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::time::Duration;

/// How the page's server functions send their arguments.
const FORM: &str = "application/x-www-form-urlencoded";

/// The lines of the chat page's follow stream (`follow_chat_turn`) as `server` answers them.
async fn follow(server: &TestApp, session_id: &str) -> Vec<Value> {
    let answer = server
        .http
        .post(server.url("/api/follow_chat_turn"))
        .header("content-type", FORM)
        .body(format!("app=slow&session_id={session_id}"))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), StatusCode::OK);
    let body = answer.text().await.unwrap();
    body.lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// Two servers on one database whose `slow` agent answers after `latency`, and the browser
/// user's session `s1`; the model's server, to see what it was asked.
async fn two_servers_and_a_session(latency: Duration) -> (TestApp, TestApp, fake_openai::Server) {
    let (base_url, model) = spawn_slow_model("ok", latency).await;
    let config = slow_profile(&base_url);
    let first = spawn_app_with_config(&config).await;
    let second = first.another_server_without_worker(&config).await;
    first.create_session("slow", "user", "s1").await;
    (first, second, model)
}

/// Waits until the turn under way has asked the model (it holds its session from before).
async fn model_asked(model: &fake_openai::Server) {
    wait_until("the turn asked the model", || async {
        (model.request_count() == 1).then_some(())
    })
    .await;
}

#[tokio::test]
async fn a_turn_running_on_one_server_is_followed_through_another_which_refuses_a_second_turn() {
    let (first, second, model) = two_servers_and_a_session(SLOW_MODEL_LATENCY).await;
    let hello = run_request("slow", "user", "s1", "hello");
    let running = first.post_json("/run", &hello);
    let elsewhere = async {
        model_asked(&model).await;
        let refused = second
            .post_json("/run", &run_request("slow", "user", "s1", "again"))
            .await;
        (refused, follow(&second, "s1").await)
    };
    let (ran, (refused, followed)) = tokio::join!(running, elsewhere);
    assert_eq!(ran.status(), StatusCode::OK);
    let error = assert_error(refused, StatusCode::CONFLICT).await;
    assert!(
        error["error"]
            .as_str()
            .unwrap()
            .contains("already running a turn"),
        "{error}"
    );

    assert_eq!(followed[0], json!({"kind": "started", "user_message": "hello"}));
    let done = followed.last().unwrap();
    assert_eq!(done["kind"], "done", "{followed:?}");
    assert_eq!(done["turn"]["user_message"], "hello");
    // What arrived before the end came in order (here the model answers all at once, so the
    // follower may see the events only in the recorded turn; the browser test watches a turn
    // stream in a second tab).
    let seen: Vec<&Value> = followed[1..followed.len() - 1]
        .iter()
        .map(|line| &line["event"])
        .collect();
    let recorded: Vec<&Value> = done["turn"]["events"].as_array().unwrap().iter().collect();
    assert!(
        recorded.starts_with(&seen),
        "{seen:?} is not how {recorded:?} began"
    );
    assert!(recorded.iter().any(|event| event["type"] == "final_response"));
    // Nothing is under way now: following answers nothing.
    assert!(follow(&second, "s1").await.is_empty());
}

#[tokio::test]
async fn a_turn_is_stopped_through_another_server() {
    let (first, second, model) = two_servers_and_a_session(Duration::from_secs(60)).await;
    let hello = run_request("slow", "user", "s1", "hello");
    let running = first.post_json("/run", &hello);
    let stop = async {
        model_asked(&model).await;
        let stopped = second
            .http
            .post(second.url("/api/stop_chat_turn"))
            .header("content-type", FORM)
            .body("session_id=s1")
            .send()
            .await
            .unwrap();
        stopped.text().await.unwrap()
    };
    let (ran, stopped) = tokio::join!(running, stop);
    assert_eq!(stopped, "true");
    assert_eq!(ran.status(), StatusCode::OK);
    let session = second.get_json("/apps/slow/users/user/sessions/s1").await;
    assert!(session.to_string().contains("stopped by the user"), "{session}");
}
