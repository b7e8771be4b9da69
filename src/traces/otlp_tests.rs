use super::*;
use opentelemetry_proto::tonic::common::v1::{ArrayValue, InstrumentationScope};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans};
use serde_json::json;
use std::io::Write as _;

fn pair(key: &str, value: Option<any_value::Value>) -> KeyValue {
    KeyValue {
        key: key.into(),
        value: value.map(|value| AnyValue { value: Some(value) }),
        ..Default::default()
    }
}

fn text(key: &str, value: &str) -> KeyValue {
    pair(key, Some(any_value::Value::StringValue(value.into())))
}

fn span(name: &str, span_id: u8, parent: Option<u8>, attributes: Vec<KeyValue>) -> Span {
    Span {
        trace_id: vec![0xab; 16],
        span_id: vec![span_id; 8],
        parent_span_id: parent.map(|p| vec![p; 8]).unwrap_or_default(),
        name: name.into(),
        kind: span::SpanKind::Internal as i32,
        start_time_unix_nano: 1_700_000_000_000_000_000,
        end_time_unix_nano: 1_700_000_000_500_000_000,
        attributes,
        ..Default::default()
    }
}

fn request(spans: Vec<Span>) -> ExportTraceServiceRequest {
    ExportTraceServiceRequest {
        resource_spans: vec![ResourceSpans {
            resource: Some(Resource {
                attributes: vec![text("service.name", "weather-agent")],
                ..Default::default()
            }),
            scope_spans: vec![ScopeSpans {
                scope: Some(InstrumentationScope {
                    name: "gcp.vertex.agent".into(),
                    ..Default::default()
                }),
                spans,
                ..Default::default()
            }],
            ..Default::default()
        }],
    }
}

#[test]
fn a_protobuf_request_becomes_spans_with_hex_ids_resource_scope_and_session() {
    let body = request(vec![
        span(
            "invoke_agent weather_agent",
            1,
            None,
            vec![text("gcp.vertex.agent.session_id", "s-1")],
        ),
        span(
            "execute_tool get_weather",
            2,
            Some(1),
            vec![text("gen_ai.tool.name", "get_weather")],
        ),
    ])
    .encode_to_vec();
    let decoded = decode_traces(&body, Encoding::Protobuf).unwrap();
    assert_eq!(decoded.rejected, 0);
    let [root, tool] = &decoded.spans[..] else {
        panic!("{decoded:?}")
    };
    assert_eq!(root.trace_id, "ab".repeat(16));
    assert_eq!(root.span_id, "0101010101010101");
    assert_eq!(root.parent_span_id, None);
    assert_eq!(root.session_id.as_deref(), Some("s-1"));
    assert_eq!(root.kind, SpanKind::Internal);
    assert_eq!(
        (root.start_unix_nano, root.end_unix_nano),
        (1_700_000_000_000_000_000, 1_700_000_000_500_000_000)
    );
    assert_eq!(root.service_name.as_deref(), Some("weather-agent"));
    assert_eq!(root.scope.as_deref(), Some("gcp.vertex.agent"));
    assert_eq!(tool.parent_span_id.as_deref(), Some("0101010101010101"));
    assert_eq!(tool.attributes["gen_ai.tool.name"], "get_weather");
    assert_eq!(tool.session_id, None, "only a span that says so has a session");
}

#[test]
fn attribute_values_of_every_type_become_json() {
    let mut spans = vec![span("s", 1, None, Vec::new())];
    let list = ArrayValue {
        values: vec![AnyValue {
            value: Some(any_value::Value::StringValue("a".into())),
        }],
    };
    spans[0].attributes = vec![
        pair("flag", Some(any_value::Value::BoolValue(true))),
        pair("count", Some(any_value::Value::IntValue(-3))),
        pair("ratio", Some(any_value::Value::DoubleValue(0.5))),
        pair("nan", Some(any_value::Value::DoubleValue(f64::NAN))),
        pair("raw", Some(any_value::Value::BytesValue(vec![0, 255]))),
        pair("list", Some(any_value::Value::ArrayValue(list))),
        pair("unset", None),
    ];
    let decoded = decode_traces(&request(spans).encode_to_vec(), Encoding::Protobuf).unwrap();
    assert_eq!(
        Value::Object(decoded.spans[0].attributes.clone()),
        json!({"flag": true, "count": -3, "ratio": 0.5, "nan": null, "raw": "00ff", "list": ["a"], "unset": null})
    );
}

#[test]
fn a_json_request_as_otlp_json_writes_it_is_read_the_same() {
    // OTLP/JSON: hex ids, camelCase keys, 64-bit integers as strings, enums as numbers.
    let body = json!({"resourceSpans": [{
        "resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "weather-agent"}}]},
        "scopeSpans": [{"scope": {"name": "gcp.vertex.agent"}, "spans": [{
            "traceId": "abababababababababababababababab",
            "spanId": "0101010101010101",
            "name": "invoke_agent weather_agent",
            "kind": 1,
            "startTimeUnixNano": "1700000000000000000",
            "endTimeUnixNano": "1700000000500000000",
            "attributes": [
                {"key": "gcp.vertex.agent.session_id", "value": {"stringValue": "s-1"}},
                {"key": "turns", "value": {"intValue": "2"}}
            ],
            "status": {"code": 2, "message": "tool failed"}
        }]}]
    }]});
    let decoded = decode_traces(body.to_string().as_bytes(), Encoding::Json).unwrap();
    let span = &decoded.spans[0];
    assert_eq!(span.trace_id, "ab".repeat(16));
    assert_eq!(span.session_id.as_deref(), Some("s-1"));
    assert_eq!(span.attributes["turns"], 2);
    assert_eq!(
        (span.status, span.status_message.as_deref()),
        (SpanStatus::Error, Some("tool failed"))
    );
    assert_eq!(span.start_unix_nano, 1_700_000_000_000_000_000);
}

#[test]
fn a_span_without_valid_ids_is_refused_and_the_rest_kept() {
    let mut bad = span("no trace", 2, None, Vec::new());
    bad.trace_id = vec![0; 16];
    let mut short = span("short id", 3, None, Vec::new());
    short.span_id = vec![1, 2];
    let decoded = decode_traces(
        &request(vec![span("good", 1, None, Vec::new()), bad, short]).encode_to_vec(),
        Encoding::Protobuf,
    )
    .unwrap();
    assert_eq!(decoded.spans.len(), 1);
    assert_eq!(decoded.rejected, 2);
    assert_eq!(
        decoded.problem.as_deref(),
        Some("span `no trace` has no valid trace id (16 bytes, not all zero)")
    );
}

#[test]
fn a_body_that_is_not_a_request_is_malformed() {
    let err = decode_traces(b"{\"resourceSpans\": 3}", Encoding::Json).unwrap_err();
    assert!(
        matches!(err, OtlpError::Malformed { encoding: "JSON", .. }),
        "{err:?}"
    );
    let err = decode_traces(&[0xff, 0xff, 0xff], Encoding::Protobuf).unwrap_err();
    assert!(
        matches!(
            err,
            OtlpError::Malformed {
                encoding: "protobuf",
                ..
            }
        ),
        "{err:?}"
    );
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

#[test]
fn gzip_is_undone_and_the_limit_applies_to_what_it_inflates_to() {
    let plain = vec![b'x'; 10_000];
    let packed = gzip(&plain);
    assert!(packed.len() < 1_000);
    assert_eq!(
        decompress(&packed, Some("gzip"), 10_000).unwrap().as_ref(),
        &plain[..]
    );
    assert_eq!(
        decompress(&packed, Some("gzip"), 9_999).unwrap_err(),
        OtlpError::TooLarge { limit: 9_999 }
    );
    assert_eq!(
        decompress(&plain, None, 9_999).unwrap_err(),
        OtlpError::TooLarge { limit: 9_999 }
    );
    assert!(matches!(
        decompress(b"not gzip", Some("gzip"), 100),
        Err(OtlpError::BadGzip(_))
    ));
    assert_eq!(
        decompress(b"x", Some("br"), 100).unwrap_err(),
        OtlpError::UnsupportedEncoding("br".into())
    );
}

#[test]
fn content_types_name_the_encoding() {
    assert_eq!(
        Encoding::of_content_type("application/x-protobuf"),
        Ok(Encoding::Protobuf)
    );
    assert_eq!(
        Encoding::of_content_type("application/json; charset=utf-8"),
        Ok(Encoding::Json)
    );
    assert!(Encoding::of_content_type("text/plain").is_err());
}

#[test]
fn answers_are_a_partial_success_only_when_spans_were_refused() {
    assert!(traces_response(Encoding::Protobuf, 0, None).is_empty());
    assert_eq!(traces_response(Encoding::Json, 0, None), b"{}");
    let answer: Value = serde_json::from_slice(&traces_response(Encoding::Json, 2, Some("why"))).unwrap();
    // OTLP/JSON readers take a 64-bit integer as a number or a string.
    let rejected = &answer["partialSuccess"]["rejectedSpans"];
    assert!(rejected == &json!(2) || rejected == &json!("2"), "{answer}");
    assert_eq!(answer["partialSuccess"]["errorMessage"], "why");
    let decoded =
        ExportTraceServiceResponse::decode(&traces_response(Encoding::Protobuf, 2, Some("why"))[..]).unwrap();
    assert_eq!(decoded.partial_success.unwrap().rejected_spans, 2);
    let status = RpcStatus::decode(&status_body(Encoding::Protobuf, "bad")[..]).unwrap();
    assert_eq!((status.code, status.message.as_str()), (INVALID_ARGUMENT, "bad"));
}

#[test]
fn log_records_give_the_user_of_their_trace_and_nothing_else() {
    let body = json!({"resourceLogs": [{"scopeLogs": [{"logRecords": [
        {"traceId": "ab".repeat(16), "spanId": "01".repeat(8), "eventName": "gen_ai.client.inference.operation.details",
         "attributes": [{"key": "user.id", "value": {"stringValue": "alice"}}]},
        {"traceId": "ab".repeat(16), "attributes": [{"key": "user.id", "value": {"stringValue": "alice"}}]},
        {"traceId": "cd".repeat(16), "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}}]},
        {"attributes": [{"key": "user.id", "value": {"stringValue": "nobody's trace"}}]},
    ]}]}]});
    let users = decode_log_users(body.to_string().as_bytes(), Encoding::Json).unwrap();
    assert_eq!(users, [("ab".repeat(16), "alice".to_string())]);
    assert!(matches!(
        decode_log_users(b"{\"resourceLogs\": 3}", Encoding::Json),
        Err(OtlpError::Malformed { .. })
    ));
}
