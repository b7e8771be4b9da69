//! The OpenAI-compatible agent against a real HTTP server on 127.0.0.1 that speaks the
//! chat-completions wire protocol from a script (`crate::testing::fake_openai`).
//!
//! API keys: the agent reads `api_key_env` through a lookup function. Production uses the process
//! environment; these tests swap in a fixed table (`test_keys`) instead of calling
//! `std::env::set_var`, because the environment is shared by all test threads and changing it
//! while another thread reads it (reqwest reads proxy variables, libc reads resolver ones) is a
//! data race. One test (`missing_key_variable_fails_before_any_request`) goes through the real
//! environment lookup with a variable that is never set.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::{OpenAiAgent, OpenAiConfig};
use crate::agent::test_support::{calls_with_ids, final_text, run};
use crate::agent::{tools, AgentEvent, ToolRegistry, Turn};
use crate::testing::fake_openai::{unreachable_base_url, Reply, Server};

const KEY_VAR: &str = "EVALSTUDIO_TEST_OPENAI_KEY";
const SECRET: &str = "sk-test-7f3a9c1e5b-very-secret";

fn test_keys(name: &str) -> Option<String> {
    (name == KEY_VAR).then(|| SECRET.to_string())
}

/// The agent's view of the scripted server.
trait AgentServer {
    fn config(&self) -> OpenAiConfig;
    fn agent(&self) -> OpenAiAgent;
    fn agent_with(&self, change: impl FnOnce(&mut OpenAiConfig)) -> OpenAiAgent;
}

impl AgentServer for Server {
    fn config(&self) -> OpenAiConfig {
        OpenAiConfig {
            request_timeout: Duration::from_secs(5),
            retry_base_delay: Duration::from_millis(1),
            ..OpenAiConfig::new(&self.base_url, "test-model")
        }
    }

    fn agent(&self) -> OpenAiAgent {
        self.agent_with(|_| {})
    }

    fn agent_with(&self, change: impl FnOnce(&mut OpenAiConfig)) -> OpenAiAgent {
        let mut config = self.config();
        change(&mut config);
        OpenAiAgent::new(config, ToolRegistry::demo()).with_key_lookup(test_keys)
    }
}

// ---------------------------------------------------------------------------------------------
// Chunks as OpenAI streams them

fn chunk(delta: Value, finish_reason: Option<&str>) -> Value {
    json!({
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "model": "test-model",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
    })
}

fn text(piece: &str) -> Value {
    chunk(json!({"content": piece}), None)
}

fn call_start(index: u64, id: &str, name: &str) -> Value {
    chunk(
        json!({"role": "assistant", "content": null, "tool_calls": [
            {"index": index, "id": id, "type": "function", "function": {"name": name, "arguments": ""}}
        ]}),
        None,
    )
}

fn call_args(index: u64, part: &str) -> Value {
    chunk(
        json!({"tool_calls": [{"index": index, "function": {"arguments": part}}]}),
        None,
    )
}

fn finish(reason: &str) -> Value {
    chunk(json!({}), Some(reason))
}

/// A reply with text in the given pieces.
fn text_reply(pieces: &[&str]) -> Reply {
    let mut events: Vec<Value> = pieces.iter().map(|p| text(p)).collect();
    events.push(finish("stop"));
    Reply::sse(events)
}

/// A reply calling tools one after another, each call's arguments split into three pieces.
fn tool_reply(calls: &[(&str, &str, Value)]) -> Reply {
    let mut events = Vec::new();
    for (index, (id, name, args)) in calls.iter().enumerate() {
        events.push(call_start(index as u64, id, name));
        for part in split3(&args.to_string()) {
            events.push(call_args(index as u64, &part));
        }
    }
    events.push(finish("tool_calls"));
    Reply::sse(events)
}

fn split3(s: &str) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    let third = chars.len() / 3;
    vec![
        chars[..third].iter().collect(),
        chars[third..2 * third].iter().collect(),
        chars[2 * third..].iter().collect(),
    ]
}

// ---------------------------------------------------------------------------------------------
// Helpers

/// The kinds of the turn's events, leaving out the model-call timings (which
/// `each_model_call_is_timed` checks).
fn kinds(events: &[AgentEvent]) -> Vec<&'static str> {
    events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::TextDelta { .. } => Some("text"),
            AgentEvent::ToolCall { .. } => Some("call"),
            AgentEvent::ToolResult { .. } => Some("result"),
            AgentEvent::FinalResponse { .. } => Some("final"),
            AgentEvent::Error { .. } => Some("error"),
            AgentEvent::Usage { .. } => Some("usage"),
            AgentEvent::Author { .. } => Some("author"),
            AgentEvent::ModelCall { .. } => None,
        })
        .collect()
}

/// The turn's error message; panics unless the turn ended with exactly one error.
fn the_error(events: &[AgentEvent]) -> String {
    let errors: Vec<&String> = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Error { message } => Some(message),
            _ => None,
        })
        .collect();
    assert_eq!(errors.len(), 1, "{events:?}");
    assert!(
        matches!(events.last(), Some(AgentEvent::Error { .. })),
        "{events:?}"
    );
    assert!(!kinds(events).contains(&"final"), "{events:?}");
    errors[0].clone()
}

fn results(events: &[AgentEvent]) -> Vec<(String, String, Value)> {
    events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ToolResult {
                id, name, response, ..
            } => Some((id.clone(), name.clone(), Value::Object(response.clone()))),
            _ => None,
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Streaming

#[tokio::test]
async fn streams_text_only() {
    let server = Server::start(vec![text_reply(&["Hel", "lo", ", world"])]).await;
    let agent = server.agent_with(|c| {
        c.system_prompt = Some("Be brief.".into());
        c.temperature = Some(0.2);
        c.base_url.push('/'); // a trailing slash is trimmed
    });
    let events = run(&agent, &[], "Say hello").await;
    assert_eq!(kinds(&events), ["text", "text", "text", "final"]);
    assert_eq!(
        events[..3],
        [
            AgentEvent::TextDelta { text: "Hel".into() },
            AgentEvent::TextDelta { text: "lo".into() },
            AgentEvent::TextDelta {
                text: ", world".into()
            },
        ]
    );
    assert_eq!(final_text(&events), "Hello, world");

    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].path, "/v1/chat/completions");
    assert_eq!(requests[0].authorization, None);
    let body = &requests[0].body;
    assert_eq!(body["model"], "test-model");
    assert_eq!(body["stream"], true);
    assert_eq!(body["temperature"], 0.2);
    assert_eq!(body["tools"], Value::Array(ToolRegistry::demo().declarations()));
    assert_eq!(
        body["messages"],
        json!([
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Say hello"},
        ])
    );
}

#[tokio::test]
async fn tolerates_keep_alives_crlf_and_lines_split_across_network_chunks() {
    let first = text("Bonjour").to_string();
    let (a, b) = first.split_at(17);
    let server = Server::start(vec![Reply::raw(vec![
        ": keep-alive\n\n".into(),
        format!("data: {a}"),
        format!("{b}\r\n\r\n"),
        "event: message\r\n".into(),
        format!("data:{}\r\n\r\n", text(" à tous")),
        format!("data: {}\n\n", finish("stop")),
        // The stream just ends: no [DONE], no final newline.
        format!("data: {}", text("!")),
    ])])
    .await;
    let events = run(&server.agent(), &[], "hi").await;
    assert_eq!(final_text(&events), "Bonjour à tous!");
    assert_eq!(kinds(&events), ["text", "text", "text", "final"]);
}

#[tokio::test]
async fn usage_chunk_becomes_a_usage_event() {
    let mut reply = text_reply(&["Hi"]);
    let usage = json!({
        "id": "chatcmpl-1", "object": "chat.completion.chunk", "choices": [],
        "usage": {"prompt_tokens": 42, "completion_tokens": 7, "total_tokens": 49},
    });
    reply
        .chunks
        .insert(reply.chunks.len() - 1, format!("data: {usage}\n\n"));
    let server = Server::start(vec![reply]).await;
    let events = run(&server.agent(), &[], "hi").await;
    assert_eq!(kinds(&events), ["text", "final", "usage"]);
    assert_eq!(
        events.last(),
        Some(&AgentEvent::Usage {
            prompt_tokens: 42,
            completion_tokens: 7
        })
    );
    assert_eq!(
        server.bodies()[0]["stream_options"],
        json!({"include_usage": true})
    );
}

// ---------------------------------------------------------------------------------------------
// The tool loop

#[tokio::test]
async fn tool_call_with_split_arguments_runs_the_tool_then_answers() {
    let server = Server::start(vec![
        tool_reply(&[("call_w1", "get_weather", json!({"city": "Paris"}))]),
        text_reply(&["It is ", "sunny in Paris."]),
    ])
    .await;
    let events = run(&server.agent(), &[], "Weather in Paris?").await;
    assert_eq!(kinds(&events), ["call", "result", "text", "text", "final"]);
    assert_eq!(
        calls_with_ids(&events),
        [("call_w1".into(), "get_weather".into(), json!({"city": "Paris"}))]
    );
    let (id, name, response) = &results(&events)[0];
    assert_eq!((id.as_str(), name.as_str()), ("call_w1", "get_weather"));
    let expected = Value::Object(tools::get_weather("Paris").unwrap());
    assert_eq!(response, &expected);
    assert_eq!(final_text(&events), "It is sunny in Paris.");

    let bodies = server.bodies();
    assert_eq!(bodies.len(), 2);
    let messages = bodies[1]["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 3);
    assert_eq!(
        messages[0],
        json!({"role": "user", "content": "Weather in Paris?"})
    );
    assert_eq!(messages[1]["role"], "assistant");
    assert_eq!(messages[1]["content"], Value::Null);
    let tool_calls = messages[1]["tool_calls"].as_array().unwrap();
    assert_eq!(tool_calls.len(), 1);
    assert_eq!(tool_calls[0]["id"], "call_w1");
    assert_eq!(tool_calls[0]["type"], "function");
    assert_eq!(tool_calls[0]["function"]["name"], "get_weather");
    let sent_args: Value =
        serde_json::from_str(tool_calls[0]["function"]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(sent_args, json!({"city": "Paris"}));
    assert_eq!(messages[2]["role"], "tool");
    assert_eq!(messages[2]["tool_call_id"], "call_w1");
    let content: Value = serde_json::from_str(messages[2]["content"].as_str().unwrap()).unwrap();
    assert_eq!(content, expected);
}

#[tokio::test]
async fn parallel_tool_calls_with_interleaved_chunks() {
    let weather = json!({"city": "Tokyo"}).to_string();
    let money = json!({"amount": 20, "from": "EUR", "to": "USD"}).to_string();
    let (w, m) = (split3(&weather), split3(&money));
    let server = Server::start(vec![
        Reply::sse(vec![
            call_start(0, "call_a", "get_weather"),
            call_start(1, "call_b", "convert_currency"),
            call_args(1, &m[0]),
            call_args(0, &w[0]),
            call_args(0, &w[1]),
            call_args(1, &m[1]),
            call_args(1, &m[2]),
            call_args(0, &w[2]),
            finish("tool_calls"),
        ]),
        text_reply(&["Done."]),
    ])
    .await;
    let events = run(&server.agent(), &[], "Tokyo weather and 20 EUR in USD").await;
    assert_eq!(
        kinds(&events),
        ["call", "call", "result", "result", "text", "final"]
    );
    assert_eq!(
        calls_with_ids(&events),
        [
            ("call_a".into(), "get_weather".into(), json!({"city": "Tokyo"})),
            (
                "call_b".into(),
                "convert_currency".into(),
                json!({"amount": 20, "from": "EUR", "to": "USD"})
            ),
        ]
    );
    let results = results(&events);
    assert_eq!(results[0].0, "call_a");
    assert_eq!(results[1].0, "call_b");
    assert!(results.iter().all(|r| r.2.get("error").is_none()), "{results:?}");

    let messages = server.bodies()[1]["messages"].as_array().unwrap().clone();
    assert_eq!(messages.len(), 4);
    let ids: Vec<&Value> = messages[1]["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["id"])
        .collect();
    assert_eq!(ids, [&json!("call_a"), &json!("call_b")]);
    assert_eq!(messages[2]["tool_call_id"], "call_a");
    assert_eq!(messages[3]["tool_call_id"], "call_b");
}

#[tokio::test]
async fn multi_step_loop_tool_tool_text() {
    let server = Server::start(vec![
        tool_reply(&[("s1", "get_order_status", json!({"order_id": "A1001"}))]),
        tool_reply(&[("s2", "calculate", json!({"expression": "2 * 21"}))]),
        text_reply(&["All ", "done."]),
    ])
    .await;
    let events = run(&server.agent(), &[], "Order A1001, then 2*21").await;
    assert_eq!(
        kinds(&events),
        ["call", "result", "call", "result", "text", "text", "final"]
    );
    let names: Vec<String> = calls_with_ids(&events).into_iter().map(|c| c.1).collect();
    assert_eq!(names, ["get_order_status", "calculate"]);
    let bodies = server.bodies();
    assert_eq!(bodies.len(), 3);
    let roles = |b: &Value| -> Vec<String> {
        b["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["role"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(roles(&bodies[1]), ["user", "assistant", "tool"]);
    assert_eq!(
        roles(&bodies[2]),
        ["user", "assistant", "tool", "assistant", "tool"]
    );
    assert_eq!(bodies[2]["messages"][4]["tool_call_id"], "s2");
}

#[tokio::test]
async fn each_model_call_is_timed() {
    let server = Server::start(vec![
        tool_reply(&[("s1", "get_order_status", json!({"order_id": "A1001"}))]),
        text_reply(&["Shipped."]),
    ])
    .await;
    let events = run(&server.agent(), &[], "Where is A1001?").await;
    let timed: Vec<usize> = events
        .iter()
        .enumerate()
        .filter(|(_, e)| matches!(e, AgentEvent::ModelCall { .. }))
        .map(|(index, _)| index)
        .collect();
    assert_eq!(timed.len(), 2, "one per model call: {events:?}");
    assert!(
        matches!(events[timed[0] + 1], AgentEvent::ToolCall { .. }),
        "timed when the reply is in, before its calls run: {events:?}"
    );
}

#[tokio::test]
async fn llama_cpp_style_whole_call_in_one_chunk_without_index() {
    let server = Server::start(vec![
        Reply::sse(vec![
            chunk(
                json!({"role": "assistant", "content": null, "tool_calls": [
                    {"id": "call_abc", "type": "function",
                     "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}
                ]}),
                None,
            ),
            chunk(json!({"content": null}), Some("tool_calls")),
        ]),
        text_reply(&["Mild."]),
    ])
    .await;
    let events = run(&server.agent(), &[], "Paris?").await;
    assert_eq!(kinds(&events), ["call", "result", "text", "final"]);
    assert_eq!(calls_with_ids(&events)[0].0, "call_abc");
    assert_eq!(server.bodies()[1]["messages"][2]["tool_call_id"], "call_abc");
}

#[tokio::test]
async fn bad_arguments_and_unknown_tools_are_reported_to_the_model() {
    let server = Server::start(vec![
        Reply::sse(vec![
            call_start(0, "c_bad", "get_weather"),
            call_args(0, "{\"city\": \"Par"),
            call_start(1, "c_unknown", "launch_rocket"),
            call_args(1, "{}"),
            finish("tool_calls"),
        ]),
        text_reply(&["Sorry."]),
    ])
    .await;
    let events = run(&server.agent(), &[], "go").await;
    assert_eq!(
        kinds(&events),
        ["call", "call", "result", "result", "text", "final"]
    );
    let results = results(&events);
    let bad = results[0].2["error"].as_str().unwrap();
    assert!(
        bad.starts_with("the model sent arguments that are not JSON: "),
        "{bad}"
    );
    let unknown = results[1].2["error"].as_str().unwrap();
    assert!(
        unknown.starts_with("no tool named \"launch_rocket\""),
        "{unknown}"
    );
    // The model gets both errors back and its own (broken) arguments as it sent them.
    let messages = server.bodies()[1]["messages"].as_array().unwrap().clone();
    assert_eq!(
        messages[1]["tool_calls"][0]["function"]["arguments"],
        "{\"city\": \"Par"
    );
    assert!(messages[2]["content"].as_str().unwrap().contains("not JSON"));
    assert!(messages[3]["content"].as_str().unwrap().contains("no tool named"));
}

#[tokio::test]
async fn a_model_that_never_stops_calling_tools_hits_max_steps() {
    let forever = tool_reply(&[("again", "get_weather", json!({"city": "Paris"}))]);
    let server = Server::always(forever).await;
    let agent = server.agent_with(|c| c.max_tool_steps = 2);
    let events = run(&agent, &[], "loop").await;
    let error = the_error(&events);
    assert_eq!(
        error,
        "the model kept calling tools after 2 steps; raise max_tool_steps or check the system prompt"
    );
    assert_eq!(kinds(&events), ["call", "result", "call", "result", "error"]);
    assert_eq!(server.request_count(), 3);
}

#[tokio::test]
async fn history_is_replayed() {
    let server = Server::start(vec![
        tool_reply(&[("h1", "get_weather", json!({"city": "Paris"}))]),
        text_reply(&["Sunny."]),
        text_reply(&["Cooler."]),
    ])
    .await;
    let agent = server.agent_with(|c| c.system_prompt = Some("sys".into()));
    let first = run(&agent, &[], "Paris?").await;
    let history = vec![Turn {
        user: "Paris?".into(),
        events: first,
    }];
    let second = run(&agent, &history, "And London?").await;
    assert_eq!(final_text(&second), "Cooler.");

    let bodies = server.bodies();
    assert_eq!(bodies.len(), 3);
    // The second turn's request is the first turn's last request plus its answer and the new message.
    let mut expected = bodies[1]["messages"].as_array().unwrap().clone();
    expected.push(json!({"role": "assistant", "content": "Sunny."}));
    expected.push(json!({"role": "user", "content": "And London?"}));
    assert_eq!(bodies[2]["messages"], Value::Array(expected));
    assert_eq!(
        bodies[2]["messages"][0],
        json!({"role": "system", "content": "sys"})
    );
    assert_eq!(bodies[2]["messages"][2]["content"], Value::Null);
    assert_eq!(bodies[2]["messages"][3]["tool_call_id"], "h1");
}

#[tokio::test]
async fn history_of_parallel_and_errored_turns_keeps_every_call_answered() {
    let server = Server::start(vec![text_reply(&["ok"])]).await;
    let args = |v: Value| v.as_object().unwrap().clone();
    let history = vec![
        Turn {
            user: "two at once".into(),
            events: vec![
                AgentEvent::TextDelta {
                    text: "Checking.".into(),
                },
                AgentEvent::ToolCall {
                    id: "p1".into(),
                    name: "get_weather".into(),
                    args: args(json!({"city": "Paris"})),
                },
                AgentEvent::ToolCall {
                    id: "p2".into(),
                    name: "get_weather".into(),
                    args: args(json!({"city": "Rome"})),
                },
                AgentEvent::ToolResult {
                    id: "p1".into(),
                    name: "get_weather".into(),
                    response: args(json!({"t": 1})),
                    duration_ms: 0,
                },
                AgentEvent::ToolResult {
                    id: "p2".into(),
                    name: "get_weather".into(),
                    response: args(json!({"t": 2})),
                    duration_ms: 0,
                },
                AgentEvent::FinalResponse { text: "Both.".into() },
            ],
        },
        Turn {
            user: "broken".into(),
            events: vec![
                AgentEvent::ToolCall {
                    id: "x1".into(),
                    name: "calculate".into(),
                    args: args(json!({"expression": "1/0"})),
                },
                AgentEvent::Error {
                    message: "boom".into(),
                },
            ],
        },
    ];
    run(&server.agent(), &history, "next").await;
    let messages = server.bodies()[0]["messages"].clone();
    let summary: Vec<(String, Value)> = messages
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let extra = m
                .get("tool_call_id")
                .cloned()
                .or_else(|| {
                    m.get("tool_calls").map(|c| {
                        json!(c
                            .as_array()
                            .unwrap()
                            .iter()
                            .map(|c| c["id"].clone())
                            .collect::<Vec<_>>())
                    })
                })
                .unwrap_or_else(|| m["content"].clone());
            (m["role"].as_str().unwrap().to_string(), extra)
        })
        .collect();
    let expected: Vec<(String, Value)> = vec![
        ("user".into(), json!("two at once")),
        ("assistant".into(), json!(["p1", "p2"])),
        ("tool".into(), json!("p1")),
        ("tool".into(), json!("p2")),
        ("assistant".into(), json!("Both.")),
        ("user".into(), json!("broken")),
        ("assistant".into(), json!(["x1"])),
        ("tool".into(), json!("x1")),
        ("user".into(), json!("next")),
    ];
    assert_eq!(summary, expected);
    assert_eq!(messages[1]["content"], "Checking.");
    assert!(messages[7]["content"].as_str().unwrap().contains("no result"));
}

// ---------------------------------------------------------------------------------------------
// Retries

#[tokio::test]
async fn retries_429_honouring_retry_after() {
    let server = Server::start(vec![
        Reply::status(429, json!({"error": {"message": "slow down"}})).header("retry-after", "0"),
        text_reply(&["ok"]),
    ])
    .await;
    // A long base delay: only Retry-After: 0 keeps this test fast.
    let agent = server.agent_with(|c| c.retry_base_delay = Duration::from_secs(5));
    let started = Instant::now();
    let events = run(&agent, &[], "hi").await;
    assert_eq!(final_text(&events), "ok");
    assert_eq!(server.request_count(), 2);
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[tokio::test]
async fn retries_500_twice_then_succeeds() {
    let server = Server::start(vec![
        Reply::status(500, json!({"error": "oops"})),
        Reply::status(502, json!({"error": "bad gateway"})),
        text_reply(&["finally"]),
    ])
    .await;
    let events = run(&server.agent(), &[], "hi").await;
    assert_eq!(kinds(&events), ["text", "final"]);
    assert_eq!(server.request_count(), 3);
    // Retried requests are identical.
    let bodies = server.bodies();
    assert_eq!(bodies[0], bodies[2]);
}

#[tokio::test]
async fn gives_up_after_max_retries() {
    let server = Server::always(Reply::status(503, json!({"error": {"message": "overloaded"}}))).await;
    let agent = server.agent_with(|c| c.max_retries = 2);
    let error = the_error(&run(&agent, &[], "hi").await);
    assert_eq!(server.request_count(), 3);
    assert!(error.contains("503"), "{error}");
    assert!(error.contains("overloaded"), "{error}");
    assert!(error.contains("gave up after 3 attempts"), "{error}");
}

// ---------------------------------------------------------------------------------------------
// Errors and the API key

#[tokio::test]
async fn sends_the_key_as_a_bearer_token_and_never_shows_it() {
    let server = Server::start(vec![text_reply(&["ok"])]).await;
    let agent = server.agent_with(|c| c.api_key_env = Some(KEY_VAR.into()));
    run(&agent, &[], "hi").await;
    let auth = server.requests()[0].authorization.clone();
    assert_eq!(auth, Some(format!("Bearer {SECRET}")));
    let debug = format!("{agent:?}");
    assert!(debug.contains(KEY_VAR), "{debug}");
    assert!(!debug.contains(SECRET), "{debug}");
}

#[tokio::test]
async fn unauthorized_names_the_variable_but_not_the_key() {
    let server = Server::start(vec![Reply::status(
        401,
        json!({"error": {"message": format!("Incorrect API key provided: {SECRET}")}}),
    )])
    .await;
    let agent = server.agent_with(|c| c.api_key_env = Some(KEY_VAR.into()));
    let events = run(&agent, &[], "hi").await;
    let error = the_error(&events);
    assert!(
        error.contains(&format!("check the API key in ${KEY_VAR}")),
        "{error}"
    );
    assert!(!error.contains(SECRET), "{error}");
    assert!(!format!("{events:?}").contains(SECRET));
    assert_eq!(server.request_count(), 1, "401 is not retried");
}

#[tokio::test]
async fn missing_key_variable_fails_before_any_request() {
    let server = Server::start(vec![text_reply(&["ok"])]).await;
    let var = "EVALSTUDIO_OPENAI_TEST_VARIABLE_THAT_IS_NEVER_SET";
    let config = OpenAiConfig {
        api_key_env: Some(var.into()),
        ..server.config()
    };
    // The real environment lookup.
    let agent = OpenAiAgent::new(config, ToolRegistry::demo());
    let error = the_error(&run(&agent, &[], "hi").await);
    assert!(error.contains(&format!("${var} is not set")), "{error}");
    assert_eq!(server.request_count(), 0);
}

#[tokio::test]
async fn not_found_names_the_model_and_the_url() {
    let server = Server::start(vec![Reply::status(
        404,
        json!({"error": {"message": "model 'gpt-nope' not found"}}),
    )])
    .await;
    let agent = server.agent_with(|c| c.model = "gpt-nope".into());
    let error = the_error(&run(&agent, &[], "hi").await);
    assert!(error.contains("\"gpt-nope\""), "{error}");
    assert!(
        error.contains(&format!("{}/chat/completions", server.base_url)),
        "{error}"
    );
    assert!(error.contains("model 'gpt-nope' not found"), "{error}");
    assert_eq!(server.request_count(), 1);
}

#[tokio::test]
async fn connection_failure_names_the_url_and_the_cause() {
    let base_url = unreachable_base_url();
    let config = OpenAiConfig {
        max_retries: 1,
        retry_base_delay: Duration::from_millis(1),
        ..OpenAiConfig::new(&base_url, "m")
    };
    let agent = OpenAiAgent::new(config, ToolRegistry::demo());
    let error = the_error(&run(&agent, &[], "hi").await);
    assert!(
        error.contains(&format!(
            "could not connect to the model server at {base_url}/chat/completions"
        )),
        "{error}"
    );
    assert!(error.to_lowercase().contains("refused"), "{error}");
    assert!(error.contains("gave up after 2 attempts"), "{error}");
}

#[tokio::test]
async fn a_silent_server_times_out() {
    let mut slow = text_reply(&["late"]);
    slow.delay = Duration::from_secs(3);
    let server = Server::start(vec![slow]).await;
    let agent = server.agent_with(|c| c.request_timeout = Duration::from_millis(200));
    let started = Instant::now();
    let error = the_error(&run(&agent, &[], "hi").await);
    assert!(error.contains("did not answer within 200 ms"), "{error}");
    assert!(error.contains("request_timeout"), "{error}");
    assert!(started.elapsed() < Duration::from_secs(2));
    assert_eq!(server.request_count(), 1);
}

#[tokio::test]
async fn a_non_streaming_answer_is_an_error() {
    let server = Server::start(vec![Reply::status(
        200,
        json!({"choices": [{"message": {"role": "assistant", "content": "hi"}}]}),
    )])
    .await;
    let error = the_error(&run(&server.agent(), &[], "hi").await);
    assert!(error.contains("without streaming"), "{error}");
}

#[tokio::test]
async fn an_error_inside_the_stream_ends_the_turn() {
    let server = Server::start(vec![Reply::sse(vec![
        text("Part"),
        json!({"error": {"message": "context length exceeded"}}),
    ])])
    .await;
    let events = run(&server.agent(), &[], "hi").await;
    let error = the_error(&events);
    assert!(error.contains("context length exceeded"), "{error}");
    assert_eq!(kinds(&events), ["text", "error"]);
}
