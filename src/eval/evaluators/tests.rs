use super::*;
use serde_json::json;

#[test]
fn a_reply_is_read_or_refused_saying_what_is_wrong() {
    let reply = EvaluatorReply::parse(
        r#" {"score": 0.5, "passed": false, "reason": "too long", "details": {"words": 80}} "#,
    )
    .unwrap();
    assert_eq!(
        (reply.score, reply.passed, reply.reason.as_deref()),
        (0.5, Some(false), Some("too long"))
    );
    assert_eq!(reply.details, Some(json!({"words": 80})));
    let error = |text: &str| EvaluatorReply::parse(text).unwrap_err();
    assert!(
        error("hello").starts_with("the reply is not JSON"),
        "{}",
        error("hello")
    );
    assert!(error("[1]").contains("not a JSON object"));
    assert!(
        error(r#"{"score": "high"}"#).starts_with("the reply has no number `score`: `{\"score\": \"high\"}`")
    );
    assert!(error(r#"{"score": 1, "passed": "yes"}"#).contains("`passed` is not true or false"));
    let long = format!(r#"{{"note": "{}"}}"#, "x".repeat(500));
    assert!(error(&long).ends_with("…`"), "long replies are cut");
}

#[test]
fn an_unknown_evaluator_is_named_with_those_declared() {
    let mut evaluators = Evaluators::default();
    struct Fixed;
    impl Evaluator for Fixed {
        fn evaluate<'a>(&'a self, _: &'a EvaluatorRequest) -> BoxFuture<'a, Result<EvaluatorReply, String>> {
            Box::pin(async { Ok(EvaluatorReply::scored(1.0)) })
        }
    }
    evaluators.insert("fixed", Arc::new(Fixed));
    let error = evaluators
        .find(&EvaluatorTarget::Named("db".into()))
        .err()
        .unwrap();
    assert!(
        error.starts_with("no evaluator named `db`: declare it in evalstudio.toml"),
        "{error}"
    );
    assert!(error.ends_with("(declared: fixed)"), "{error}");
    let http = EvaluatorTarget::Http(HttpTarget {
        url: "http://127.0.0.1:1/".into(),
        timeout: DEFAULT_EVALUATOR_TIMEOUT,
        retries: 0,
        headers: EvaluatorHeaders::default(),
    });
    assert!(evaluators
        .find(&http)
        .err()
        .unwrap()
        .contains("declare [[evaluators]]"));
}

#[cfg(feature = "ssr")]
mod io {
    use super::super::*;
    use crate::evalset::{Content, EvalCase, Invocation};
    use serde_json::json;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn request(criterion: serde_json::Value) -> EvaluatorRequest {
        let turn = Invocation {
            user_content: Content::text("user", "Weather in Paris?"),
            final_response: Some(Content::text("model", "It is sunny in Paris.")),
            ..Invocation::default()
        };
        EvaluatorRequest {
            metric_name: "check".into(),
            criterion: criterion.as_object().unwrap().clone(),
            eval_set_id: "set".into(),
            eval_case: EvalCase {
                eval_id: "paris".into(),
                conversation: Some(vec![turn.clone()]),
                ..EvalCase::default()
            },
            expected_invocations: Some(vec![turn.clone()]),
            actual_invocations: vec![turn],
            session_state: Default::default(),
        }
    }

    fn command(argv: &[&str], timeout: Duration) -> CommandEvaluator {
        CommandEvaluator::new(CommandSpec {
            name: "check".into(),
            argv: argv.iter().map(|a| a.to_string()).collect(),
            timeout,
        })
    }

    /// The documented example, run as the docs say.
    #[tokio::test]
    async fn the_python_example_scores_from_its_stdin() {
        let example = crate::testing::repo::repo_path("examples/evaluators/must_mention.py");
        let evaluator = command(&["python3", &example.to_string_lossy()], Duration::from_secs(20));
        let reply = evaluator
            .evaluate(&request(
                json!({"threshold": 1, "must_mention": ["Paris", "sunny", "umbrella"]}),
            ))
            .await
            .unwrap();
        assert!((reply.score - 2.0 / 3.0).abs() < 1e-9, "{reply:?}");
        assert_eq!(reply.reason.as_deref(), Some("missing: umbrella"));
    }

    #[tokio::test]
    async fn a_slow_failing_or_babbling_command_says_so() {
        let req = request(json!({}));
        let slow = command(&["sh", "-c", "sleep 5"], Duration::from_millis(200));
        let error = slow.evaluate(&req).await.unwrap_err();
        assert!(
            error.contains("did not finish within 200ms and was stopped"),
            "{error}"
        );
        let failing = command(
            &["sh", "-c", "cat >/dev/null; echo 'no database' >&2; exit 3"],
            Duration::from_secs(5),
        );
        let error = failing.evaluate(&req).await.unwrap_err();
        assert_eq!(
            error,
            "evaluator `check` exited with status 3 (its stderr is in the server log)"
        );
        let quiet = command(&["sh", "-c", "cat >/dev/null; exit 2"], Duration::from_secs(5));
        let error = quiet.evaluate(&req).await.unwrap_err();
        assert_eq!(
            error,
            "evaluator `check` exited with status 2 (it wrote nothing on stderr)"
        );
        let babbling = command(&["sh", "-c", "echo all good"], Duration::from_secs(5));
        let error = babbling.evaluate(&req).await.unwrap_err();
        assert!(
            error.contains("printed something else than a reply: the reply is not JSON"),
            "{error}"
        );
        let missing = command(&["no-such-program-here"], Duration::from_secs(5));
        assert!(missing
            .evaluate(&req)
            .await
            .unwrap_err()
            .contains("could not be started"));
    }

    /// The reason is stored with the run and read by every viewer: it names the evaluator and
    /// what failed, never the command line or what the command wrote on stderr.
    #[tokio::test]
    async fn a_failing_commands_reason_holds_neither_its_argv_nor_its_stderr() {
        let req = request(json!({}));
        let script = "cat >/dev/null; echo 'connecting with SECRET-TOKEN-1 failed' >&2; exit 3";
        let failing = command(
            &["sh", "-c", script, "--token=SECRET-ARG-2"],
            Duration::from_secs(5),
        );
        let timing_out = command(
            &["sh", "-c", "sleep 5", "--token=SECRET-ARG-2"],
            Duration::from_millis(200),
        );
        let missing = command(&["/no/such/SECRET-ARG-2"], Duration::from_secs(5));
        let noisy = "cat >/dev/null; echo SECRET-TOKEN-1 >&2; echo hi";
        let babbling = command(
            &["sh", "-c", noisy, "--token=SECRET-ARG-2"],
            Duration::from_secs(5),
        );
        for (evaluator, says) in [
            (failing, "exited with status 3"),
            (timing_out, "did not finish within 200ms"),
            (missing, "could not be started"),
            (babbling, "printed something else than a reply"),
        ] {
            let error = evaluator.evaluate(&req).await.unwrap_err();
            assert!(error.starts_with("evaluator `check` "), "{error}");
            assert!(error.contains(says), "{error}");
            for secret in ["SECRET-TOKEN-1", "SECRET-ARG-2", "sh -c", "--token"] {
                assert!(!error.contains(secret), "{secret} in {error}");
            }
        }
    }

    /// An HTTP evaluator on 127.0.0.1 that answers each request with the next of `replies`.
    async fn serve(replies: Vec<(u16, &'static str, u64)>) -> (String, Arc<AtomicUsize>) {
        use axum::routing::post;
        let count = Arc::new(AtomicUsize::new(0));
        let seen = count.clone();
        let app = axum::Router::new().route(
            "/score",
            post(move |axum::Json(body): axum::Json<serde_json::Value>| {
                let seen = seen.clone();
                let replies = replies.clone();
                async move {
                    assert_eq!(
                        body["eval_case"]["eval_id"], "paris",
                        "the request carries the case"
                    );
                    let n = seen.fetch_add(1, Ordering::SeqCst);
                    let (status, text, delay_ms) = replies[n.min(replies.len() - 1)];
                    tokio::time::sleep(Duration::from_millis(delay_ms)).await;
                    (axum::http::StatusCode::from_u16(status).unwrap(), text)
                }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        (format!("http://{addr}/score"), count)
    }

    fn http(url: &str, timeout_ms: u64, retries: u32) -> HttpEvaluator {
        HttpEvaluator::new(
            crate::outbound::client(Duration::from_secs(5)),
            HttpTarget {
                url: url.into(),
                timeout: Duration::from_millis(timeout_ms),
                retries,
                headers: EvaluatorHeaders::default(),
            },
        )
        .without_retry_pause()
    }

    /// The URL a reason names (stored, read by every viewer) has no userinfo, query or fragment.
    #[tokio::test]
    async fn an_http_evaluators_reason_names_its_url_without_secrets() {
        let req = request(json!({}));
        let (url, _) = serve(vec![(400, "bad request", 0)]).await;
        let with_secrets =
            url.replace("http://", "http://me:SECRET-PASS@") + "?token=SECRET-TOKEN#SECRET-FRAGMENT";
        let error = http(&with_secrets, 2000, 0).evaluate(&req).await.unwrap_err();
        assert!(
            error.starts_with(&format!("the evaluator at {url} answered 400")),
            "{error}"
        );
        // Nothing listens there: reqwest's own error would name the whole URL.
        let unreachable = "http://me:SECRET-PASS@127.0.0.1:1/score?token=SECRET-TOKEN";
        let error = http(unreachable, 2000, 0).evaluate(&req).await.unwrap_err();
        assert!(
            error.starts_with("the evaluator at http://127.0.0.1:1/score could not be reached"),
            "{error}"
        );
        assert!(!error.contains("SECRET"), "{error}");
    }

    #[tokio::test]
    async fn an_http_evaluator_retries_what_may_pass_and_explains_what_does_not() {
        let req = request(json!({}));
        // A 503, then an answer: retried.
        let (url, count) = serve(vec![
            (503, "busy", 0),
            (200, r#"{"score": 0.9, "passed": true}"#, 0),
        ])
        .await;
        let reply = http(&url, 2000, 2).evaluate(&req).await.unwrap();
        assert_eq!(
            (reply.score, reply.passed, count.load(Ordering::SeqCst)),
            (0.9, Some(true), 2)
        );

        // Slower than its limit every time: gives up after the retries.
        let (url, count) = serve(vec![(200, r#"{"score": 1}"#, 1000)]).await;
        let error = http(&url, 100, 1).evaluate(&req).await.unwrap_err();
        assert!(
            error.contains("did not answer within 100ms (gave up after 2 attempts)"),
            "{error}"
        );
        assert_eq!(count.load(Ordering::SeqCst), 2);

        // A malformed answer or a 400 is final.
        let (url, count) = serve(vec![(200, "<html>oops</html>", 0)]).await;
        let error = http(&url, 2000, 2).evaluate(&req).await.unwrap_err();
        assert!(error.contains("answered, but the reply is not JSON"), "{error}");
        assert!(error.contains("`<html>oops</html>`"), "{error}");
        assert_eq!(count.load(Ordering::SeqCst), 1);
        let (url, _) = serve(vec![(400, "unknown case", 0)]).await;
        let error = http(&url, 2000, 2).evaluate(&req).await.unwrap_err();
        assert!(
            error.ends_with("answered 400 Bad Request: unknown case"),
            "{error}"
        );
    }
}
