//! The request body limit: a body over it is refused with 413 before anything is stored.

use crate::helpers::{assert_error, spawn_app_with_body_limit, TestApp};
use crate::ok_eval_set::ok_eval_set;
use reqwest::StatusCode;
use serde_json::json;

#[tokio::test]
async fn a_body_over_the_limit_gets_413() {
    let app = spawn_app_with_body_limit(1024).await;
    let big = format!(
        r#"{{"eval_set_id": "big", "eval_cases": [], "padding": "{}"}}"#,
        "x".repeat(4096)
    );
    assert_error(
        app.post("/apps/demo/import", big).await,
        StatusCode::PAYLOAD_TOO_LARGE,
    )
    .await;
    assert_eq!(app.get_json("/apps/demo/eval_sets").await, json!([]));
    let small = r#"{"eval_set_id": "small", "eval_cases": []}"#;
    assert_eq!(
        app.post("/apps/demo/import", small).await.status(),
        StatusCode::CREATED
    );
}

#[tokio::test]
async fn a_body_without_a_length_is_refused_once_it_passes_the_limit() {
    let app = spawn_app_with_body_limit(1024).await;
    // Sent in chunks, with no Content-Length: the limit can only apply as the bytes arrive.
    let chunks = vec![
        r#"{"eval_set_id": "big", "eval_cases": [], "padding": ""#.to_string(),
        "x".repeat(4096),
        r#""}"#.to_string(),
    ];
    let body = reqwest::Body::wrap_stream(futures::stream::iter(
        chunks.into_iter().map(Ok::<_, std::io::Error>),
    ));
    assert_error(
        app.post("/apps/demo/import", body).await,
        StatusCode::PAYLOAD_TOO_LARGE,
    )
    .await;
    assert_eq!(app.get_json("/apps/demo/eval_sets").await, json!([]));
}

/// Every route that reads a body, with a path that exists (so the body is what is refused).
const BODY_ROUTES: &[(&str, &str)] = &[
    ("POST", "/apps/demo/import"),
    ("PUT", "/apps/demo/eval_sets/limits/evals/case0"),
    ("POST", "/apps/demo/eval_sets/limits/evals/case0/duplicate"),
    ("POST", "/apps/demo/eval_sets/limits/evals/case0/rename"),
    ("POST", "/apps/demo/eval_sets/limits/delete_evals"),
    ("POST", "/apps/demo/eval_sets/limits/undo_delete"),
    (
        "POST",
        "/apps/demo/eval_sets/limits/evals/case0/versions/1/restore",
    ),
    ("POST", "/apps/demo/users/u/sessions"),
    ("POST", "/apps/demo/users/u/sessions/fresh"),
    ("POST", "/apps/demo/eval_sets/limits/add_session"),
    ("POST", "/apps/demo/eval_sets/limits/run_eval"),
    ("POST", "/run"),
    ("POST", "/run_sse"),
];

async fn send(app: &TestApp, method: &str, path: &str, body: impl Into<reqwest::Body>) -> reqwest::Response {
    let request = match method {
        "PUT" => reqwest::Client::new().put(app.url(path)),
        _ => reqwest::Client::new().post(app.url(path)),
    };
    request.body(body).send().await.unwrap()
}

#[tokio::test]
async fn every_route_refuses_an_oversized_body_with_the_json_413() {
    let app = spawn_app_with_body_limit(1024).await;
    app.import("demo", ok_eval_set("limits", 1).to_string()).await;
    for (method, path) in BODY_ROUTES {
        let big = format!(r#"{{"padding": "{}"}}"#, "x".repeat(4096));
        let body = assert_error(send(&app, method, path, big).await, StatusCode::PAYLOAD_TOO_LARGE).await;
        assert_eq!(body["error"], "request body too large", "{method} {path}: {body}");
    }
}

#[tokio::test]
async fn every_route_refuses_malformed_json_with_the_json_400() {
    let app = spawn_app_with_body_limit(1024).await;
    app.import("demo", ok_eval_set("limits", 1).to_string()).await;
    for (method, path) in BODY_ROUTES {
        let response = send(&app, method, path, "{\"oops\": ".to_string()).await;
        let body = assert_error(response, StatusCode::BAD_REQUEST).await;
        // A file upload names the JSON path; a request body names the line and column.
        let detail = &body["detail"];
        assert!(
            detail.get("line").is_some_and(|l| l.as_u64() == Some(1)),
            "{method} {path}: {body}"
        );
        assert!(detail.get("column").is_some(), "{method} {path}: {body}");
        // Not UTF-8: refused the same way, naming the byte.
        let response = send(&app, method, path, vec![b'{', 0xff, b'}']).await;
        let body = assert_error(response, StatusCode::BAD_REQUEST).await;
        assert!(
            body["error"].as_str().unwrap().contains("UTF-8"),
            "{method} {path}: {body}"
        );
    }
}
