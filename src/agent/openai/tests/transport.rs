//! Tests of the HTTP side: streamed chunks, usage, retries, errors and the API key.

use std::time::Instant;

use super::*;
use crate::agent::test_support::{final_text, run};
use crate::testing::fake_openai::unreachable_base_url;

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
