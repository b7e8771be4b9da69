//! The judge client against a real HTTP server on 127.0.0.1 that speaks the chat-completions
//! protocol from a script (`crate::testing::fake_openai`): answers, malformed answers, retries,
//! a rejected key and timeouts, directly and through a judge metric. Keys come from a table, not
//! the process environment (see the `openai` agent's tests).

use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};

use super::client::{JudgeConfig, OpenAiJudge};
use crate::eval::judge::{evaluate_judge_metric, parse_judge_metric, JudgeInput};
use crate::eval::services::{Judge, JudgeRequest};
use crate::testing::fake_openai::{unreachable_base_url, Reply, Server};

const KEY_VAR: &str = "EVALSTUDIO_TEST_JUDGE_KEY";
const SECRET: &str = "sk-judge-test-2b7e1516-secret";

fn test_keys(name: &str) -> Option<String> {
    (name == KEY_VAR).then(|| SECRET.to_string())
}

fn judge_with(server: &Server, change: impl FnOnce(&mut JudgeConfig)) -> OpenAiJudge {
    let mut config = JudgeConfig {
        timeout_secs: Some(5.0),
        ..JudgeConfig::new(&server.base_url, "judge-model")
    };
    change(&mut config);
    OpenAiJudge::new(config).for_tests(test_keys, Duration::from_millis(1))
}

/// A non-streamed chat completion with `content` as the answer.
fn answer(content: Value) -> Reply {
    Reply::status(
        200,
        json!({
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "model": "judge-model",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        }),
    )
}

async fn ask(judge: &OpenAiJudge, prompt: &str) -> Result<String, String> {
    judge.complete(JudgeRequest { prompt, model: None }).await
}

fn relevancy() -> crate::eval::judge::JudgeMetric {
    let criterion: Map<String, Value> = serde_json::from_value(json!({"threshold": 1.0})).unwrap();
    parse_judge_metric("relevancy", &criterion, "criteria.relevancy")
        .unwrap()
        .unwrap()
}

fn input() -> JudgeInput {
    JudgeInput {
        query: "Weather in Paris?".into(),
        response: "Sunny, 25 °C.".into(),
        context: vec!["get_weather: {\"sky\":\"sunny\",\"temp_c\":25}".into()],
        ..JudgeInput::default()
    }
}

#[tokio::test]
async fn asks_one_prompt_at_temperature_0_and_returns_the_text() {
    let server = Server::start(vec![answer(json!("YES")), answer(json!("no"))]).await;
    let judge = judge_with(&server, |c| c.api_key_env = Some(KEY_VAR.into()));
    assert_eq!(ask(&judge, "Is it relevant?").await, Ok("YES".to_string()));
    let other_model = JudgeRequest {
        prompt: "Again?",
        model: Some("bigger-judge"),
    };
    assert_eq!(judge.complete(other_model).await, Ok("no".to_string()));
    let bodies = server.bodies();
    assert_eq!(
        bodies[0],
        json!({"model": "judge-model", "messages": [{"role": "user", "content": "Is it relevant?"}], "temperature": 0.0})
    );
    assert_eq!(bodies[1]["model"], "bigger-judge");
    let requests = server.requests();
    assert_eq!(requests[0].path, "/v1/chat/completions");
    assert_eq!(requests[0].authorization, Some(format!("Bearer {SECRET}")));
    let debug = format!("{judge:?}");
    assert!(debug.contains(KEY_VAR) && !debug.contains(SECRET), "{debug}");
}

#[tokio::test]
async fn a_metric_scores_through_the_judge() {
    let server = Server::start(vec![
        answer(json!("**Yes.** It matches the context.")),
        answer(json!("Maybe?")),
    ])
    .await;
    let judge = judge_with(&server, |c| c.temperature = Some(0.3));
    let score = evaluate_judge_metric(&relevancy(), &input(), &judge).await;
    assert_eq!(score.score, Some(1.0));
    let prompt = server.bodies()[0]["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(prompt.contains("Response:\nSunny, 25 °C.\n"), "{prompt}");
    assert_eq!(server.bodies()[0]["temperature"], 0.3);

    // Not yes or no: NOT_EVALUATED, the raw reply kept.
    let score = evaluate_judge_metric(&relevancy(), &input(), &judge).await;
    assert_eq!(score.score, None);
    assert_eq!(
        score.reason.as_deref(),
        Some("the judge's reply was neither yes nor no")
    );
    let evidence = serde_json::to_value(score.evidence.unwrap()).unwrap();
    assert_eq!(evidence["samples"][0]["reply"], "Maybe?");
}

#[tokio::test]
async fn content_given_as_parts_is_joined() {
    let server = Server::start(vec![answer(
        json!([{"type": "text", "text": "ye"}, {"type": "text", "text": "s"}]),
    )])
    .await;
    assert_eq!(
        ask(&judge_with(&server, |_| {}), "p").await,
        Ok("yes".to_string())
    );
}

#[tokio::test]
async fn malformed_answers_are_errors_that_say_what_came() {
    let server = Server::start(vec![
        Reply {
            headers: vec![("content-type", "text/html".into())],
            chunks: vec!["<html>gateway</html>".into()],
            ..Reply::status(200, Value::Null)
        },
        Reply::status(200, json!({"choices": []})),
        Reply::status(
            200,
            json!({"choices": [{"message": {"content": null, "refusal": "I can't judge that."}, "finish_reason": "stop"}]}),
        ),
        Reply::status(200, json!({"error": {"message": "context length exceeded"}})),
    ])
    .await;
    let judge = judge_with(&server, |_| {});
    let not_json = ask(&judge, "p").await.unwrap_err();
    assert!(
        not_json.contains("not JSON") && not_json.contains("<html>gateway</html>"),
        "{not_json}"
    );
    let no_choices = ask(&judge, "p").await.unwrap_err();
    assert!(no_choices.contains("answered with no choices"), "{no_choices}");
    let refused = ask(&judge, "p").await.unwrap_err();
    assert!(
        refused.contains("without text (finish_reason: stop); it refused: I can't judge that."),
        "{refused}"
    );
    let error = ask(&judge, "p").await.unwrap_err();
    assert!(
        error.contains("reported an error: context length exceeded"),
        "{error}"
    );
    assert_eq!(server.request_count(), 4, "malformed answers are not retried");

    // Through a metric: NOT_EVALUATED with the error, never a score.
    let server = Server::start(vec![Reply::status(200, json!({"choices": []}))]).await;
    let score = evaluate_judge_metric(&relevancy(), &input(), &judge_with(&server, |_| {})).await;
    assert_eq!(score.score, None);
    assert!(score
        .reason
        .unwrap()
        .starts_with("the judge failed: the judge model server at"));
}

#[tokio::test]
async fn retries_a_500_then_succeeds() {
    let server = Server::start(vec![
        Reply::status(500, json!({"error": {"message": "overloaded"}})),
        Reply::status(503, json!({"error": "busy"})),
        answer(json!("yes")),
    ])
    .await;
    let judge = judge_with(&server, |_| {});
    assert_eq!(ask(&judge, "p").await, Ok("yes".to_string()));
    assert_eq!(server.request_count(), 3);
    let bodies = server.bodies();
    assert_eq!(bodies[0], bodies[2], "a retry sends the same request");

    let failing = Server::always(Reply::status(502, json!({"error": "bad gateway"}))).await;
    let error = ask(&judge_with(&failing, |c| c.max_retries = Some(1)), "p")
        .await
        .unwrap_err();
    assert!(
        error.contains("502") && error.contains("gave up after 2 attempts"),
        "{error}"
    );
    assert_eq!(failing.request_count(), 2);
}

#[tokio::test]
async fn unauthorized_is_final_and_names_the_variable_not_the_key() {
    let server = Server::start(vec![Reply::status(
        401,
        json!({"error": {"message": format!("Incorrect API key provided: {SECRET}")}}),
    )])
    .await;
    let judge = judge_with(&server, |c| c.api_key_env = Some(KEY_VAR.into()));
    let error = ask(&judge, "p").await.unwrap_err();
    assert!(
        error.contains(&format!(
            "rejected the API key (401 Unauthorized); check the API key in ${KEY_VAR}"
        )),
        "{error}"
    );
    assert!(!error.contains(SECRET), "{error}");
    assert_eq!(server.request_count(), 1, "401 is not retried");

    let unset = judge_with(&server, |c| {
        c.api_key_env = Some("EVALSTUDIO_JUDGE_VARIABLE_NEVER_SET".into())
    });
    let error = ask(&unset, "p").await.unwrap_err();
    assert!(
        error.contains("$EVALSTUDIO_JUDGE_VARIABLE_NEVER_SET is not set"),
        "{error}"
    );
    assert_eq!(server.request_count(), 1, "no request without the key");
}

#[tokio::test]
async fn a_silent_server_times_out_naming_the_setting() {
    let mut slow = answer(json!("yes"));
    slow.delay = Duration::from_secs(3);
    let server = Server::start(vec![slow]).await;
    let judge = judge_with(&server, |c| c.timeout_secs = Some(0.2));
    let started = Instant::now();
    let error = ask(&judge, "p").await.unwrap_err();
    assert!(
        error.contains("did not answer within 200 ms (timeout_secs)"),
        "{error}"
    );
    assert!(started.elapsed() < Duration::from_secs(2));
    assert_eq!(server.request_count(), 1);
}

#[tokio::test]
async fn connection_failures_are_retried_then_reported() {
    let base_url = unreachable_base_url();
    let config = JudgeConfig {
        max_retries: Some(1),
        ..JudgeConfig::new(&base_url, "m")
    };
    let judge = OpenAiJudge::new(config).for_tests(test_keys, Duration::from_millis(1));
    let error = ask(&judge, "p").await.unwrap_err();
    assert!(
        error.contains(&format!(
            "could not connect to the model server at {base_url}/chat/completions"
        )),
        "{error}"
    );
    assert!(error.contains("gave up after 2 attempts"), "{error}");
}
