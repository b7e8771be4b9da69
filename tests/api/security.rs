//! What a shared server must not be talked into: ids that would become other paths of ADK's
//! server, requests sent where its config does not say. Each case is a 4xx with a sentence,
//! and nothing is stored or sent (a local listener counts what must not come).

use crate::helpers::{assert_error, serve, spawn_app, spawn_app_with_config, SLOW_MODEL_LATENCY};
use crate::ok_eval_set::ok_eval_set;
use axum::extract::OriginalUri;
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

/// Ids an attacker would paste into a path. (A lone `..` never arrives in one: HTTP clients
/// resolve dot segments, even escaped, before they send; it is tried in bodies.)
const HOSTILE_IDS: &[&str] = &["../../run", "a/b", "a?b=1", "a#b", "a%2Fb", "a\u{0}b"];

#[tokio::test]
async fn a_hostile_user_or_session_id_is_refused_naming_the_field_and_nothing_is_stored() {
    let app = spawn_app().await;
    let long = "u".repeat(10_000);
    for id in HOSTILE_IDS.iter().copied().chain([long.as_str()]) {
        let escaped = urlencoding(id);
        let response = app
            .post(&format!("/apps/demo/users/{escaped}/sessions"), "")
            .await;
        let error = assert_error(response, StatusCode::BAD_REQUEST).await;
        assert!(
            error["error"].as_str().unwrap().starts_with("user id "),
            "{id:?}: {error}"
        );
    }
    for id in HOSTILE_IDS.iter().copied().chain(["..", long.as_str()]) {
        let response = app
            .post_json("/apps/demo/users/u/sessions", &json!({"sessionId": id}))
            .await;
        let error = assert_error(response, StatusCode::BAD_REQUEST).await;
        assert!(
            error["error"].as_str().unwrap().starts_with("session id "),
            "{id:?}: {error}"
        );
    }
    assert_eq!(
        app.get_json("/apps/demo/users/u/sessions").await,
        json!([]),
        "nothing stored"
    );
}

/// Percent-encodes every byte but letters and digits, as a hostile client would send an id.
fn urlencoding(id: &str) -> String {
    id.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[tokio::test]
async fn a_case_user_id_reaches_adk_as_one_escaped_path_segment() {
    let paths = Arc::new(Mutex::new(Vec::<String>::new()));
    let seen = Arc::clone(&paths);
    let adk = axum::Router::new().fallback(move |uri: OriginalUri| {
        seen.lock().unwrap().push(uri.path().to_string());
        async { ([(axum::http::header::CONTENT_TYPE, "text/event-stream")], "") }
    });
    let base_url = serve(adk).await;
    let config = format!("[[profiles]]\nname = \"support\"\nkind = \"adk\"\nbase_url = \"{base_url}\"\n");
    let app = spawn_app_with_config(&config).await;
    let set = json!({"eval_set_id": "hostile", "eval_cases": [{
        "eval_id": "c1",
        "conversation": [{"invocation_id": "i1", "user_content": {"role": "user", "parts": [{"text": "hi"}]}}],
        "session_input": {"app_name": "support", "user_id": "../../run?x=#", "state": {}}
    }]});
    app.import("support", set.to_string()).await;
    let body =
        json!({"evalMetrics": [{"metricName": "response_match_score", "criterion": {"threshold": 0.1}}]});
    let _: Vec<Value> = app.run_eval("support", "hostile", &body).await;
    let paths = paths.lock().unwrap().clone();
    let created: Vec<&String> = paths.iter().filter(|p| p.starts_with("/apps/")).collect();
    assert_eq!(created.len(), 1, "{paths:?}");
    assert!(
        created[0].starts_with("/apps/support/users/..%2F..%2Frun%3Fx=%23/sessions/"),
        "{paths:?}"
    );
    assert!(
        paths
            .iter()
            .all(|p| p == "/run_sse" || p.starts_with("/apps/support/users/..%2F")),
        "{paths:?}"
    );
}

/// A listener counting every request it gets: what must never be sent is asked of it.
async fn counting_listener() -> (String, Arc<Mutex<Vec<String>>>) {
    let seen = Arc::new(Mutex::new(Vec::<String>::new()));
    let log = Arc::clone(&seen);
    let router = axum::Router::new().fallback(move |uri: OriginalUri| {
        log.lock().unwrap().push(uri.to_string());
        async { axum::Json(json!({"score": 1})) }
    });
    (serve(router).await, seen)
}

#[tokio::test]
async fn a_criterion_with_a_url_or_a_command_is_refused_on_every_route_that_takes_metrics() {
    let (listener, seen) = counting_listener().await;
    let app = spawn_app_with_config("[otlp]\n").await;
    let set = crate::common::recorded_eval_set(&[("paris", &["weather in Paris"][..])]).await;
    app.import("demo", evalstudio::evalset::to_adk_json(&set)).await;
    let routes = [
        "/apps/demo/eval_sets/regression/run_eval",
        "/dev/apps/demo/eval-sets/regression/run",
        "/dev/apps/demo/eval_sets/regression/run_eval",
        "/apps/demo/eval_sets/regression/score_trace_sessions",
    ];
    let criteria = [
        (
            json!({"threshold": 1, "url": format!("{listener}/meta-data")}),
            "names a url",
        ),
        (
            json!({"threshold": 1, "command": ["touch", "/tmp/evalstudio-pwned"]}),
            "commands run only from evalstudio.toml",
        ),
    ];
    for route in routes {
        for (criterion, refusal) in &criteria {
            let body =
                json!({"sessionIds": ["s1"], "evalMetrics": [{"metricName": "x", "criterion": criterion}]});
            let response = app.post_json(route, &body).await;
            assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{route} {criterion}");
            let answer: Value = response.json().await.unwrap();
            let sentence = answer["error"]
                .as_str()
                .or(answer["detail"].as_str())
                .unwrap_or_default()
                .to_string();
            assert!(sentence.contains(refusal), "{route}: {answer}");
        }
    }
    assert!(
        seen.lock().unwrap().is_empty(),
        "sent: {:?}",
        seen.lock().unwrap()
    );
    assert!(!std::path::Path::new("/tmp/evalstudio-pwned").exists());
    let runs = app.get_json("/apps/demo/eval_results").await;
    assert_eq!(runs, json!([]), "no run stored");
}

#[tokio::test]
async fn every_id_taking_route_refuses_hostile_ids_without_storing_or_sending() {
    let (listener, seen) = counting_listener().await;
    let config = format!("[[profiles]]\nname = \"remote\"\nkind = \"adk\"\nbase_url = \"{listener}\"\n");
    let app = spawn_app_with_config(&config).await;
    let long = "x".repeat(10_000);
    let mut failures = Vec::new();
    for route in evalstudio::server::declared_routes(None).entries() {
        if !route.path.contains('{') {
            continue;
        }
        for id in HOSTILE_IDS.iter().copied().chain([long.as_str()]) {
            let path = with_params(&route.path, &urlencoding(id));
            let status = app
                .http
                .request(route.method.clone(), app.url(&path))
                .json(&json!({}))
                .send()
                .await
                .unwrap()
                .status();
            if !status.is_client_error() {
                failures.push(format!(
                    "{} {} with {:?}: {status}",
                    route.method,
                    route.path,
                    id.chars().take(12).collect::<String>()
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} answers were not 4xx:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        seen.lock().unwrap().is_empty(),
        "sent: {:?}",
        seen.lock().unwrap()
    );
    assert_eq!(
        app.get_json("/apps/demo/eval_sets").await,
        json!([]),
        "nothing stored"
    );
}

/// `path` with each `{param}` replaced by `value` (already escaped for a path).
fn with_params(path: &str, value: &str) -> String {
    path.split('/')
        .map(|part| if part.starts_with('{') { value } else { part })
        .collect::<Vec<_>>()
        .join("/")
}

#[tokio::test]
async fn forged_origin_host_and_proxy_headers_are_refused_with_a_sentence() {
    let app = spawn_app().await;
    let create = |header: &'static str, value: &'static str| {
        app.http
            .post(app.url("/apps/demo/eval_sets/forged"))
            .header(header, value)
            .send()
    };
    for (header, value, says) in [
        ("origin", "https://evil.example", "another site"),
        ("host", "evil.example", "loopback only"),
        ("x-forwarded-for", "203.0.113.9", "through a proxy"),
        ("forwarded", "for=203.0.113.9", "through a proxy"),
        ("x-real-ip", "203.0.113.9", "through a proxy"),
        ("via", "1.1 proxy", "through a proxy"),
    ] {
        let response = create(header, value).await.unwrap();
        let error = assert_error(response, StatusCode::FORBIDDEN).await;
        assert!(
            error["error"].as_str().unwrap().contains(says),
            "{header}: {error}"
        );
    }
    assert_eq!(
        app.get_json("/apps/demo/eval_sets").await,
        json!([]),
        "nothing stored"
    );
}

#[tokio::test]
async fn every_answer_forbids_framing_and_sniffing_and_pages_load_only_their_own() {
    let app = spawn_app().await;
    for path in ["/", "/apps/demo/eval_sets", "/no/such/page", "/favicon.svg"] {
        let response = app.get(path).await;
        let header = |name: &str| {
            response
                .headers()
                .get(name)
                .map(|v| v.to_str().unwrap().to_string())
        };
        assert_eq!(header("x-frame-options").as_deref(), Some("DENY"), "{path}");
        assert_eq!(
            header("x-content-type-options").as_deref(),
            Some("nosniff"),
            "{path}"
        );
        let policy = header("content-security-policy").unwrap_or_default();
        assert!(policy.contains("frame-ancestors 'none'"), "{path}: {policy}");
        assert!(policy.contains("default-src 'self'"), "{path}: {policy}");
    }
}

/// How long the server waited before it closed `connection` (at most 30 s).
async fn closed_after(mut connection: tokio::net::TcpStream) -> f64 {
    use tokio::io::AsyncReadExt;
    let started = std::time::Instant::now();
    let mut rest = Vec::new();
    let closed = tokio::time::timeout(
        std::time::Duration::from_secs(30),
        connection.read_to_end(&mut rest),
    )
    .await;
    assert!(closed.is_ok(), "the connection is still open after 30 s");
    started.elapsed().as_secs_f64()
}

#[tokio::test]
async fn a_client_that_sends_nothing_or_stays_idle_is_cut_off() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let app = spawn_app().await;
    let address = app.address.trim_start_matches("http://");
    let silent = tokio::net::TcpStream::connect(address).await.unwrap();
    let waited = closed_after(silent).await;
    assert!(
        (9.0..20.0).contains(&waited),
        "silent: closed after {waited:.1} s"
    );
    let mut idle = tokio::net::TcpStream::connect(address).await.unwrap();
    idle.write_all(b"GET /apps/demo/eval_sets HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        .await
        .unwrap();
    let mut answer = [0u8; 12];
    idle.read_exact(&mut answer).await.unwrap();
    assert_eq!(&answer, b"HTTP/1.1 200");
    let waited = closed_after(idle).await;
    assert!(
        (9.0..20.0).contains(&waited),
        "idle after an answer: closed after {waited:.1} s"
    );
}

#[tokio::test]
async fn a_body_that_stops_arriving_is_answered_408_and_nothing_is_stored() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let app = spawn_app().await;
    let address = app.address.trim_start_matches("http://");
    let mut slow = tokio::net::TcpStream::connect(address).await.unwrap();
    slow.write_all(
        b"POST /apps/demo/import HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"eval_set_id\": ",
    )
    .await
    .unwrap();
    let started = std::time::Instant::now();
    let mut answer = [0u8; 12];
    tokio::time::timeout(std::time::Duration::from_secs(30), slow.read_exact(&mut answer))
        .await
        .expect("an answer within 30 s")
        .unwrap();
    assert_eq!(&answer, b"HTTP/1.1 408");
    let waited = started.elapsed().as_secs_f64();
    assert!((9.0..20.0).contains(&waited), "answered after {waited:.1} s");
    assert_eq!(
        app.get_json("/apps/demo/eval_sets").await,
        json!([]),
        "nothing stored"
    );
}

#[tokio::test]
async fn a_client_that_never_finishes_its_headers_is_cut_off() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let app = spawn_app().await;
    let address = app.address.trim_start_matches("http://");
    let mut slow = tokio::net::TcpStream::connect(address).await.unwrap();
    slow.write_all(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        .await
        .unwrap();
    let started = std::time::Instant::now();
    let mut rest = Vec::new();
    let closed = tokio::time::timeout(std::time::Duration::from_secs(30), slow.read_to_end(&mut rest)).await;
    assert!(closed.is_ok(), "the connection is still open after 30 s");
    let waited = started.elapsed().as_secs_f64();
    assert!((9.0..20.0).contains(&waited), "closed after {waited:.1} s");
}

#[tokio::test]
async fn event_streams_past_a_users_cap_are_answered_429() {
    let (base_url, _model) = crate::common::spawn_slow_model("ok", SLOW_MODEL_LATENCY).await;
    let config = format!(
        "{}[limits]\nevent_streams_per_user = 2\nevent_streams_total = 4\n",
        crate::common::slow_profile(&base_url)
    );
    let app = spawn_app_with_config(&config).await;
    app.import("slow", ok_eval_set("three", 3).to_string()).await;
    let id = app.start_run("slow", "three").await;
    let progress = format!("/apps/slow/eval_results/{id}/progress");
    // The run waits on the slow model, so its streams stay open while their bodies are unread.
    let first = app.get(&progress).await;
    let second = app.get(&progress).await;
    assert_eq!(
        (first.status(), second.status()),
        (StatusCode::OK, StatusCode::OK)
    );
    let error = assert_error(app.get(&progress).await, StatusCode::TOO_MANY_REQUESTS).await;
    assert!(
        error["error"].as_str().unwrap().contains("the most one user may"),
        "{error}"
    );
    drop((first, second));
    crate::wait::wait_until("closed streams free their places", || async {
        (app.get(&progress).await.status() == StatusCode::OK).then_some(())
    })
    .await;
}

#[tokio::test]
async fn a_stored_run_whose_criteria_name_a_url_is_refused_at_resume() {
    let (listener, seen) = counting_listener().await;
    let app = spawn_app().await;
    let set = crate::common::recorded_eval_set(&[("paris", &["weather in Paris"][..])]).await;
    app.import("demo", evalstudio::evalset::to_adk_json(&set)).await;
    let body =
        json!({"evalMetrics": [{"metricName": "response_match_score", "criterion": {"threshold": 0.1}}]});
    let _: Vec<Value> = app.run_eval("demo", "regression", &body).await;
    let id = app.get_json("/apps/demo/eval_results").await[0]
        .as_str()
        .unwrap()
        .to_string();
    // As a run recorded by a CLI on its user's own test_config.json, then stopped.
    let config =
        json!({"criteria": {"peek": {"threshold": 1, "url": format!("{listener}/meta-data")}}}).to_string();
    let update = format!(
        "UPDATE eval_runs SET status = 'interrupted', config_json = '{config}' WHERE result_id = '{id}'"
    );
    app.execute_sql(&update, &update).await;
    let response = app
        .post(&format!("/apps/demo/eval_results/{id}/resume"), "")
        .await;
    let error = assert_error(response, StatusCode::BAD_REQUEST).await;
    assert!(
        error["error"]
            .as_str()
            .unwrap()
            .starts_with("the criterion of `peek` names a url"),
        "{error}"
    );
    assert!(
        seen.lock().unwrap().is_empty(),
        "sent: {:?}",
        seen.lock().unwrap()
    );
}
