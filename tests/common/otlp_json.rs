//! A span fixture (tests/fixtures/otlp/*.spans.json: what ADK 2.13's exporter sent, as the
//! receiver stored it) written back as the OTLP/JSON an exporter sends.

use serde_json::{json, Map, Value};

/// A stored span's attribute value as OTLP/JSON's AnyValue.
fn any_value(value: &Value) -> Value {
    match value {
        Value::String(text) => json!({"stringValue": text}),
        Value::Bool(flag) => json!({"boolValue": flag}),
        Value::Number(number) if number.is_i64() => json!({"intValue": number.to_string()}),
        Value::Number(number) => json!({"doubleValue": number}),
        Value::Array(items) => {
            json!({"arrayValue": {"values": items.iter().map(any_value).collect::<Vec<_>>()}})
        }
        Value::Object(object) => json!({"kvlistValue": {"values": key_values(object)}}),
        Value::Null => json!({}),
    }
}

fn key_values(object: &Map<String, Value>) -> Vec<Value> {
    object
        .iter()
        .map(|(key, value)| json!({"key": key, "value": any_value(value)}))
        .collect()
}

/// The fixture's spans as one OTLP/JSON ExportTraceServiceRequest, each first changed by `edit`
/// (which leaves a span out by marking it `"dropped"`).
pub fn otlp_request(fixture: &str, edit: impl Fn(&mut Map<String, Value>)) -> Value {
    let path = format!(
        "{}/tests/fixtures/otlp/{fixture}.spans.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut spans: Vec<Map<String, Value>> =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    spans.iter_mut().for_each(&edit);
    let kinds = [
        "unspecified",
        "internal",
        "server",
        "client",
        "producer",
        "consumer",
    ];
    let otlp_spans: Vec<Value> = spans
        .iter()
        .filter(|span| !span.contains_key("dropped"))
        .map(|span| {
            json!({
                "traceId": span["trace_id"], "spanId": span["span_id"],
                "parentSpanId": span["parent_span_id"].as_str().unwrap_or(""),
                "name": span["name"],
                "kind": kinds.iter().position(|kind| span["kind"] == *kind).unwrap(),
                "startTimeUnixNano": span["start_unix_nano"].to_string(),
                "endTimeUnixNano": span["end_unix_nano"].to_string(),
                "attributes": key_values(span["attributes"].as_object().unwrap()),
            })
        })
        .collect();
    json!({"resourceSpans": [{
        "resource": {"attributes": key_values(spans[0]["resource"].as_object().unwrap())},
        "scopeSpans": [{"scope": {"name": "gcp.vertex.agent"}, "spans": otlp_spans}]
    }]})
}
