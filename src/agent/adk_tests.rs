//! The `adk` agent against a local HTTP server that replays what a real ADK api_server streamed
//! (tests/fixtures/adk_run_sse, recorded by conformance/record_adk_events.py with google-adk).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use futures::StreamExt;
use serde_json::{json, Map, Value};

use super::adk::{AdkAgent, AdkConfig};
use super::test_support::calls_with_ids;
use super::to_eval_case::{session_to_eval_case, RecordedTurn, SessionOrigin};
use super::{Agent, AgentEvent, SessionContext, Turn};

fn recording(name: &str) -> String {
    let path = crate::testing::repo::repo_path(&format!("tests/fixtures/adk_run_sse/{name}.sse"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// What the fake api_server saw and what it still has to say.
#[derive(Default)]
struct Replay {
    /// Bodies for successive /run_sse requests; (status, body).
    runs: Mutex<VecDeque<(StatusCode, String)>>,
    sessions: Mutex<Vec<String>>,
    session_bodies: Mutex<Vec<Value>>,
    run_bodies: Mutex<Vec<Value>>,
}

async fn create_session(
    State(replay): State<Arc<Replay>>,
    Path((app, user, id)): Path<(String, String, String)>,
    Json(body): Json<Value>,
) -> Response {
    let key = format!("{app}/{user}/{id}");
    replay.session_bodies.lock().unwrap().push(body.clone());
    let mut sessions = replay.sessions.lock().unwrap();
    if app == "missing_app" {
        return (StatusCode::NOT_FOUND, Json(json!({"detail": "Not Found"}))).into_response();
    }
    if sessions.contains(&key) {
        let detail = format!("Session already exists: {id}");
        return (StatusCode::CONFLICT, Json(json!({"detail": detail}))).into_response();
    }
    sessions.push(key);
    Json(json!({"id": id, "appName": app, "userId": user, "state": body, "events": []})).into_response()
}

async fn run_sse(State(replay): State<Arc<Replay>>, Json(body): Json<Value>) -> Response {
    replay.run_bodies.lock().unwrap().push(body);
    let (status, text) = replay
        .runs
        .lock()
        .unwrap()
        .pop_front()
        .unwrap_or((StatusCode::INTERNAL_SERVER_ERROR, "script ran out".into()));
    (status, [("content-type", "text/event-stream")], text).into_response()
}

async fn start(runs: Vec<(StatusCode, String)>) -> (String, Arc<Replay>) {
    let replay = Arc::new(Replay {
        runs: Mutex::new(runs.into()),
        ..Replay::default()
    });
    let app = Router::new()
        .route("/apps/{app}/users/{user}/sessions/{id}", post(create_session))
        .route("/run_sse", post(run_sse))
        .with_state(replay.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{addr}"), replay)
}

fn ok(names: &[&str]) -> Vec<(StatusCode, String)> {
    names.iter().map(|n| (StatusCode::OK, recording(n))).collect()
}

/// Runs the user messages as one session, returning the turns.
async fn chat(agent: &AdkAgent, messages: &[&str]) -> Vec<Turn> {
    let state: Map<String, Value> = json!({"tier": "gold"}).as_object().cloned().unwrap();
    let mut turns: Vec<Turn> = Vec::new();
    for message in messages {
        let session = SessionContext {
            user_id: "alice",
            session_id: "s-1",
            state: &state,
            replay: None,
        };
        let events: Vec<AgentEvent> = agent.run_turn(session, &turns, message).collect().await;
        turns.push(Turn {
            user: message.to_string(),
            events,
        });
    }
    turns
}

fn agent(base_url: &str, app: &str) -> AdkAgent {
    AdkAgent::new(AdkConfig::new(base_url, app))
}

fn text_deltas(events: &[AgentEvent]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::TextDelta { text } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

fn errors(events: &[AgentEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Error { message } => Some(message.clone()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn parallel_calls_and_a_streamed_answer() {
    let (url, replay) = start(ok(&["parallel_calls-1"])).await;
    let turns = chat(
        &agent(&url, "parallel_calls"),
        &["Weather in Paris, and where is order A1001?"],
    )
    .await;
    let events = &turns[0].events;

    assert_eq!(
        events.first(),
        Some(&AgentEvent::Author {
            name: "assistant".into()
        })
    );
    assert_eq!(
        calls_with_ids(events),
        [
            ("call-1".into(), "get_weather".into(), json!({"city": "Paris"})),
            (
                "call-2".into(),
                "get_order_status".into(),
                json!({"order_id": "A1001"})
            ),
        ]
    );
    let results: Vec<(&str, &Map<String, Value>)> = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ToolResult { id, response, .. } => Some((id.as_str(), response)),
            _ => None,
        })
        .collect();
    assert_eq!(results.len(), 2);
    assert_eq!(results[0].0, "call-1");
    assert_eq!(results[0].1["condition"], "sunny");
    let answer = "It is 18 °C and sunny in Paris. Order A1001 has shipped.";
    // The partial chunks are shown as they come; ADK's repeat of the whole text is not.
    assert_eq!(text_deltas(events), answer);
    assert!(
        events
            .iter()
            .filter(|e| matches!(e, AgentEvent::TextDelta { .. }))
            .count()
            > 5
    );
    assert_eq!(turns[0].final_response(), Some(answer));
    let usage = events.iter().fold((0, 0), |(p, c), e| match e {
        AgentEvent::Usage {
            prompt_tokens,
            completion_tokens,
        } => (p + prompt_tokens, c + completion_tokens),
        _ => (p, c),
    });
    assert_eq!(usage, (120 + 180, 20 + 16));
    assert!(errors(events).is_empty());

    // The session was created once, with our state as its body, and the run asked to stream.
    assert_eq!(*replay.sessions.lock().unwrap(), ["parallel_calls/alice/s-1"]);
    assert_eq!(replay.session_bodies.lock().unwrap()[0], json!({"tier": "gold"}));
    let run = &replay.run_bodies.lock().unwrap()[0];
    assert_eq!(run["app_name"], "parallel_calls");
    assert_eq!(run["user_id"], "alice");
    assert_eq!(run["session_id"], "s-1");
    assert_eq!(run["streaming"], true);
    assert_eq!(
        run["new_message"],
        json!({"role": "user", "parts": [{"text": "Weather in Paris, and where is order A1001?"}]})
    );
}

#[tokio::test]
async fn a_multi_turn_session_becomes_an_adk_eval_case() {
    let (url, replay) = start(ok(&["multi_turn-1", "multi_turn-2"])).await;
    let turns = chat(
        &agent(&url, "multi_turn"),
        &["Weather in Paris?", "And in London?"],
    )
    .await;
    assert_eq!(
        replay.sessions.lock().unwrap().len(),
        1,
        "the second turn uses the session the first one made"
    );
    assert_eq!(turns[0].final_response(), Some("Sunny, 18 °C in Paris."));
    assert_eq!(turns[1].final_response(), Some("Rainy, 12 °C in London."));
    let durations: Vec<u64> = turns[0]
        .events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ToolResult { duration_ms, .. } => Some(*duration_ms),
            _ => None,
        })
        .collect();
    assert_eq!(durations.len(), 1);
    assert!(durations[0] < 1_000, "timed from the recorded timestamps");

    let recorded: Vec<RecordedTurn> = turns
        .into_iter()
        .enumerate()
        .map(|(n, turn)| RecordedTurn {
            invocation_id: format!("e-{n}"),
            timestamp: n as f64,
            turn,
        })
        .collect();
    let origin = SessionOrigin {
        app_name: "weather_adk".into(),
        user_id: "alice".into(),
        state: Map::new(),
        agent_name: "weather_adk".into(),
    };
    let case = session_to_eval_case("paris_then_london", &origin, &recorded, 0.0);
    let invocations = case.invocations();
    assert_eq!(invocations.len(), 2);
    let first = invocations[0].intermediate_data.as_ref().unwrap();
    assert_eq!(first.tool_uses[0].name.as_deref(), Some("get_weather"));
    let (author, parts) = &first.intermediate_responses[0];
    assert_eq!(
        author, "assistant",
        "text before the call, by the agent that wrote it"
    );
    assert_eq!(parts[0].text.as_deref(), Some("Let me check the weather."));
    let second = invocations[1].intermediate_data.as_ref().unwrap();
    assert_eq!(
        second.tool_uses[0].args.as_ref().unwrap()["city"],
        json!("London")
    );
}

#[tokio::test]
async fn a_failing_tool_is_one_error_and_no_answer() {
    let (url, _replay) = start(ok(&["tool_error-1"])).await;
    let turns = chat(&agent(&url, "tool_error"), &["Weather in Atlantis?"]).await;
    let events = &turns[0].events;
    assert_eq!(calls_with_ids(events).len(), 1);
    assert_eq!(
        errors(events),
        ["the ADK agent failed (ValueError): unknown city Atlantis"]
    );
    assert_eq!(turns[0].final_response(), None);
}

#[tokio::test]
async fn a_sub_agent_is_named_as_the_author_of_what_it_does() {
    let (url, _replay) = start(ok(&["sub_agent-1"])).await;
    let turns = chat(&agent(&url, "sub_agent"), &["Where is order A1001?"]).await;
    let events = &turns[0].events;
    let authors: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Author { name } => Some(name.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(authors, ["assistant", "orders"]);
    let names: Vec<String> = calls_with_ids(events)
        .into_iter()
        .map(|(_, name, _)| name)
        .collect();
    assert_eq!(names, ["transfer_to_agent", "get_order_status"]);
    assert_eq!(turns[0].final_response(), Some("Order A1001 has shipped."));
}

#[tokio::test]
async fn server_errors_are_explained() {
    // A session the server no longer has (an api_server restarted since the first turn).
    let (url, _replay) = start(vec![(
        StatusCode::NOT_FOUND,
        r#"{"detail":"Session not found: s-1"}"#.into(),
    )])
    .await;
    let earlier = Turn {
        user: "hi".into(),
        events: vec![AgentEvent::FinalResponse { text: "hello".into() }],
    };
    let state = Map::new();
    let session = SessionContext {
        user_id: "alice",
        session_id: "s-1",
        state: &state,
        replay: None,
    };
    let agent = agent(&url, "multi_turn");
    let events: Vec<AgentEvent> = agent.run_turn(session, &[earlier], "again").collect().await;
    let message = &errors(&events)[0];
    assert!(
        message.contains("has no session `s-1`") && message.contains("may have restarted"),
        "{message}"
    );

    // An app the server does not serve.
    let events: Vec<AgentEvent> = super::adk::AdkAgent::new(AdkConfig::new(&url, "missing_app"))
        .run_turn(session, &[], "hi")
        .collect()
        .await;
    assert!(
        errors(&events)[0].contains("has no app `missing_app`"),
        "{events:?}"
    );

    // Nobody listening.
    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap()
    };
    let events: Vec<AgentEvent> = AdkAgent::new(AdkConfig::new(format!("http://{closed}"), "x"))
        .run_turn(session, &[], "hi")
        .collect()
        .await;
    assert!(
        errors(&events)[0].contains("is `adk api_server` running?"),
        "{events:?}"
    );
}
