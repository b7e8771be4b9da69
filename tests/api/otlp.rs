//! The OTLP/HTTP receiver at /v1/traces: what an agent's OpenTelemetry exporter sends is stored
//! span by span; what cannot be read is refused whole with OTLP's Status, and nothing is stored.

use crate::helpers::{spawn_app, spawn_app_with_config, TestApp};
use evalstudio::access::Role;
use evalstudio::records::spans::SpanStatus;
use evalstudio::store::Store;
use flate2::write::GzEncoder;
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::{any_value, AnyValue, KeyValue};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span};
use prost::Message;
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::io::Write;

const TRACE: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const SESSION: &str = "s-1";

fn request(spans: &[(u8, &str)]) -> ExportTraceServiceRequest {
    let text = |key: &str, value: &str| KeyValue {
        key: key.into(),
        value: Some(AnyValue {
            value: Some(any_value::Value::StringValue(value.into())),
        }),
        ..Default::default()
    };
    ExportTraceServiceRequest {
        resource_spans: vec![ResourceSpans {
            resource: Some(Resource {
                attributes: vec![text("service.name", "weather-agent")],
                ..Default::default()
            }),
            scope_spans: vec![ScopeSpans {
                spans: spans
                    .iter()
                    .map(|&(id, name)| Span {
                        trace_id: (0..16)
                            .map(|n| u8::from_str_radix(&TRACE[2 * n..2 * n + 2], 16).unwrap())
                            .collect(),
                        span_id: vec![id; 8],
                        name: name.into(),
                        start_time_unix_nano: 1_700_000_000_000_000_000 + u64::from(id),
                        end_time_unix_nano: 1_700_000_001_000_000_000,
                        attributes: vec![text("gcp.vertex.agent.session_id", SESSION)],
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            }],
            ..Default::default()
        }],
    }
}

async fn otlp_app() -> TestApp {
    spawn_app_with_config("[otlp]\n").await
}

async fn post(app: &TestApp, path: &str, content_type: &str, gzip: bool, body: Vec<u8>) -> reqwest::Response {
    let mut request = app.http.post(app.url(path)).header("Content-Type", content_type);
    let body = if gzip {
        request = request.header("Content-Encoding", "gzip");
        let mut encoder = GzEncoder::new(Vec::new(), flate2::Compression::default());
        encoder.write_all(&body).unwrap();
        encoder.finish().unwrap()
    } else {
        body
    };
    request.body(body).send().await.unwrap()
}

async fn stored(app: &TestApp) -> Vec<String> {
    let store = Store::open(&app.database).await.unwrap();
    store
        .session_spans(SESSION)
        .await
        .unwrap()
        .into_iter()
        .map(|span| span.name)
        .collect()
}

#[tokio::test]
async fn protobuf_spans_are_stored_with_their_session_and_answered_in_protobuf() {
    let app = otlp_app().await;
    let body = request(&[(1, "invoke_agent weather_agent"), (2, "execute_tool get_weather")]).encode_to_vec();
    let response = post(&app, "/v1/traces", "application/x-protobuf", false, body).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()["content-type"], "application/x-protobuf");
    let answer = ExportTraceServiceResponse::decode(response.bytes().await.unwrap()).unwrap();
    assert_eq!(answer.partial_success, None);
    let spans = Store::open(&app.database)
        .await
        .unwrap()
        .session_spans(SESSION)
        .await
        .unwrap();
    assert_eq!(spans.len(), 2);
    assert_eq!(spans[0].name, "invoke_agent weather_agent");
    assert_eq!(spans[0].session_id.as_deref(), Some(SESSION));
    assert_eq!(spans[0].service_name.as_deref(), Some("weather-agent"));
    assert_eq!(spans[0].status, SpanStatus::Unset);
}

#[tokio::test]
async fn a_gzip_json_body_is_read_and_a_span_sent_twice_is_kept_once() {
    let app = otlp_app().await;
    let body = serde_json::to_vec(&request(&[(1, "first")])).unwrap();
    for _ in 0..2 {
        let response = post(&app, "/v1/traces", "application/json", true, body.clone()).await;
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(response.json::<Value>().await.unwrap(), json!({}));
    }
    assert_eq!(stored(&app).await, ["first"]);
}

#[tokio::test]
async fn spans_of_one_trace_arriving_out_of_order_across_requests_are_assembled() {
    let app = otlp_app().await;
    for (id, name) in [(3, "third"), (1, "first"), (2, "second")] {
        let body = request(&[(id, name)]).encode_to_vec();
        assert_eq!(
            post(&app, "/v1/traces", "application/x-protobuf", false, body)
                .await
                .status(),
            StatusCode::OK
        );
    }
    assert_eq!(stored(&app).await, ["first", "second", "third"]);
}

#[tokio::test]
async fn a_malformed_body_is_a_400_status_and_stores_nothing() {
    let app = otlp_app().await;
    let response = post(
        &app,
        "/v1/traces",
        "application/json",
        false,
        br#"{"resourceSpans": 7}"#.to_vec(),
    )
    .await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let status: Value = response.json().await.unwrap();
    assert_eq!(status["code"], 3);
    assert!(
        status["message"]
            .as_str()
            .unwrap()
            .starts_with("the body is not an OTLP ExportTraceServiceRequest in JSON"),
        "{status}"
    );
    let response = post(&app, "/v1/traces", "application/x-protobuf", false, vec![0xff; 9]).await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    assert_eq!(
        Store::open(&app.database)
            .await
            .unwrap()
            .span_count()
            .await
            .unwrap(),
        0
    );
}

#[tokio::test]
async fn a_body_over_the_limit_once_decompressed_is_a_413() {
    let app = spawn_app_with_config("[otlp]\nmax_body_mib = 0.001\n").await;
    // About 2 KB of spans, which gzip packs well under the limit of 1,048 bytes.
    let names: Vec<String> = (1..=20)
        .map(|n| format!("span number {n} of a long trace"))
        .collect();
    let spans: Vec<(u8, &str)> = names
        .iter()
        .enumerate()
        .map(|(n, name)| (n as u8 + 1, name.as_str()))
        .collect();
    let response = post(
        &app,
        "/v1/traces",
        "application/x-protobuf",
        true,
        request(&spans).encode_to_vec(),
    )
    .await;
    assert_eq!(response.status(), StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(
        Store::open(&app.database)
            .await
            .unwrap()
            .span_count()
            .await
            .unwrap(),
        0
    );
}

#[tokio::test]
async fn logs_and_metrics_are_accepted_and_dropped() {
    let app = otlp_app().await;
    for path in ["/v1/logs", "/v1/metrics"] {
        let response = post(&app, path, "application/x-protobuf", false, Vec::new()).await;
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        let response = post(&app, path, "application/json", false, b"{}".to_vec()).await;
        assert_eq!(response.json::<Value>().await.unwrap(), json!({}), "{path}");
    }
}

#[tokio::test]
async fn another_content_type_is_a_415() {
    let app = otlp_app().await;
    let response = post(&app, "/v1/traces", "text/plain", false, b"hello".to_vec()).await;
    assert_eq!(response.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
}

#[tokio::test]
async fn without_an_otlp_table_the_receiver_is_off_and_says_how_to_turn_it_on() {
    let app = spawn_app().await;
    let response = post(&app, "/v1/traces", "application/json", false, b"{}".to_vec()).await;
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
    let status: Value = response.json().await.unwrap();
    assert!(
        status["message"]
            .as_str()
            .unwrap()
            .contains("add an [otlp] table"),
        "{status}"
    );
}

#[tokio::test]
async fn with_auth_on_it_takes_an_ingest_token_and_that_token_reads_nothing() {
    let app = spawn_app_with_config("[auth]\n[otlp]\n").await;
    app.add_user("collector", Role::Ingest, None).await;
    let token = app.new_token("collector", "otel").await;
    let body = request(&[(1, "first")]).encode_to_vec();
    let anonymous = post(&app, "/v1/traces", "application/x-protobuf", false, body.clone()).await;
    assert_eq!(anonymous.status(), StatusCode::UNAUTHORIZED);
    let sent = app
        .http
        .post(app.url("/v1/traces"))
        .bearer_auth(&token)
        .header("Content-Type", "application/x-protobuf")
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(sent.status(), StatusCode::OK);
    assert_eq!(stored(&app).await, ["first"]);
    let read = app
        .http
        .get(app.url("/apps/demo/eval_sets"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(read.status(), StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn retention_deletes_spans_received_too_long_ago_and_beyond_the_newest_kept() {
    let app = otlp_app().await;
    let store = Store::open(&app.database).await.unwrap();
    let body = request(&[(1, "first"), (2, "second"), (3, "third")]).encode_to_vec();
    post(&app, "/v1/traces", "application/x-protobuf", false, body).await;
    let listed = app.get_json("/apps/weather-agent/trace_sessions").await;
    assert_eq!(listed[0]["session_id"], SESSION);
    assert_eq!(
        store.prune_spans(0.0, 2).await.unwrap(),
        1,
        "the oldest beyond two"
    );
    assert_eq!(stored(&app).await, ["second", "third"]);
    assert_eq!(
        store.prune_spans(f64::MAX, 100).await.unwrap(),
        2,
        "all received before now"
    );
    assert_eq!(store.span_count().await.unwrap(), 0);
    // A session with no span left leaves the list too.
    let listed = app.get_json("/apps/weather-agent/trace_sessions").await;
    assert_eq!(listed, json!([]));
}
