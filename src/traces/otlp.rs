//! OTLP/HTTP as its specification has it, without I/O: a request body (protobuf or JSON, gzip or
//! not) read into the spans to store with the `opentelemetry-proto` crate's types, and the
//! answers an exporter expects (a partial success naming what was refused, or a `Status`).

use crate::records::spans::{SpanEvent, SpanKind, SpanRecord, SpanStatus};
use opentelemetry_proto::tonic::collector::logs::v1::ExportLogsServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTracePartialSuccess, ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::{any_value, AnyValue, KeyValue};
use opentelemetry_proto::tonic::trace::v1::{span, Span};
use prost::Message;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::fmt::Write as _;
use std::io::Read;

/// The attributes that name a span's conversation: ADK's, OpenInference's, the GenAI
/// conventions'.
const SESSION_KEYS: [&str; 3] = [
    "gcp.vertex.agent.session_id",
    "session.id",
    "gen_ai.conversation.id",
];

/// A body's encoding, from its Content-Type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Protobuf,
    Json,
}

impl Encoding {
    pub fn of_content_type(content_type: &str) -> Result<Encoding, OtlpError> {
        let media = content_type.split(';').next().unwrap_or_default().trim();
        if media.eq_ignore_ascii_case("application/x-protobuf")
            || media.eq_ignore_ascii_case("application/protobuf")
        {
            Ok(Encoding::Protobuf)
        } else if media.eq_ignore_ascii_case("application/json") {
            Ok(Encoding::Json)
        } else {
            Err(OtlpError::UnsupportedContentType(content_type.to_string()))
        }
    }

    pub fn content_type(self) -> &'static str {
        match self {
            Encoding::Protobuf => "application/x-protobuf",
            Encoding::Json => "application/json",
        }
    }
}

/// Why a request was refused whole.
#[derive(Debug, PartialEq, thiserror::Error)]
pub enum OtlpError {
    #[error("Content-Type `{0}` is not OTLP/HTTP's: send application/x-protobuf or application/json")]
    UnsupportedContentType(String),
    #[error("Content-Encoding `{0}` is not supported: send gzip or none")]
    UnsupportedEncoding(String),
    #[error("the body is not valid gzip: {0}")]
    BadGzip(String),
    #[error("the body is over the limit of {limit} bytes (once decompressed)")]
    TooLarge { limit: usize },
    #[error("the body is not an OTLP ExportTraceServiceRequest in {encoding}: {detail}")]
    Malformed { encoding: &'static str, detail: String },
}

/// The body as the exporter wrote it: gzip undone, refused once over `limit` bytes (checked while
/// decompressing, so a small body that inflates hugely is never held whole).
pub fn decompress<'a>(
    body: &'a [u8],
    content_encoding: Option<&str>,
    limit: usize,
) -> Result<Cow<'a, [u8]>, OtlpError> {
    let coding = content_encoding
        .map(str::trim)
        .filter(|coding| !coding.is_empty() && !coding.eq_ignore_ascii_case("identity"));
    let plain = match coding {
        None => Cow::Borrowed(body),
        Some(coding) if coding.eq_ignore_ascii_case("gzip") => {
            let mut plain = Vec::new();
            flate2::read::GzDecoder::new(body)
                .take(limit as u64 + 1)
                .read_to_end(&mut plain)
                .map_err(|err| OtlpError::BadGzip(err.to_string()))?;
            Cow::Owned(plain)
        }
        Some(other) => return Err(OtlpError::UnsupportedEncoding(other.to_string())),
    };
    if plain.len() > limit {
        return Err(OtlpError::TooLarge { limit });
    }
    Ok(plain)
}

/// What a request held: the spans to store, and how many were refused and why (the first
/// reason), for the partial-success answer.
#[derive(Debug, Default, PartialEq)]
pub struct DecodedTraces {
    pub spans: Vec<SpanRecord>,
    pub rejected: usize,
    pub problem: Option<String>,
}

/// Reads an ExportTraceServiceRequest.
pub fn decode_traces(body: &[u8], encoding: Encoding) -> Result<DecodedTraces, OtlpError> {
    let request = match encoding {
        Encoding::Protobuf => {
            ExportTraceServiceRequest::decode(body).map_err(|err| OtlpError::Malformed {
                encoding: "protobuf",
                detail: err.to_string(),
            })?
        }
        Encoding::Json => serde_json::from_slice(body).map_err(|err| OtlpError::Malformed {
            encoding: "JSON",
            detail: err.to_string(),
        })?,
    };
    let mut decoded = DecodedTraces::default();
    for resource_spans in request.resource_spans {
        let resource = resource_spans
            .resource
            .map(|resource| attributes(&resource.attributes))
            .unwrap_or_default();
        let service_name = resource
            .get("service.name")
            .and_then(Value::as_str)
            .map(str::to_string);
        for scope_spans in resource_spans.scope_spans {
            let scope = scope_spans
                .scope
                .map(|scope| scope.name)
                .filter(|name| !name.is_empty());
            for span in scope_spans.spans {
                let origin = Origin {
                    resource: &resource,
                    service_name: service_name.as_deref(),
                    scope: scope.as_deref(),
                };
                match record(span, &origin) {
                    Ok(record) => decoded.spans.push(record),
                    Err(problem) => {
                        decoded.rejected += 1;
                        decoded.problem.get_or_insert(problem);
                    }
                }
            }
        }
    }
    Ok(decoded)
}

/// The users log records name, by the trace they were written in: (trace id, user id). ADK puts
/// `user.id` on its inference log events, never on a span; the rest of a log is not kept.
pub fn decode_log_users(body: &[u8], encoding: Encoding) -> Result<Vec<(String, String)>, OtlpError> {
    let request: ExportLogsServiceRequest = match encoding {
        Encoding::Protobuf => Message::decode(body).map_err(|err| OtlpError::Malformed {
            encoding: "protobuf",
            detail: err.to_string(),
        })?,
        Encoding::Json => serde_json::from_slice(body).map_err(|err| OtlpError::Malformed {
            encoding: "JSON",
            detail: err.to_string(),
        })?,
    };
    let records = request
        .resource_logs
        .into_iter()
        .flat_map(|resource| resource.scope_logs)
        .flat_map(|scope| scope.log_records);
    let mut users: Vec<(String, String)> = records
        .filter_map(|record| {
            let trace = id(&record.trace_id, 16)?;
            let user = record
                .attributes
                .iter()
                .find(|pair| USER_KEYS.contains(&pair.key.as_str()))?;
            match user.value.as_ref().map(value) {
                Some(Value::String(user)) if !user.is_empty() => Some((trace, user)),
                _ => None,
            }
        })
        .collect();
    users.sort();
    users.dedup_by(|a, b| a.0 == b.0);
    Ok(users)
}

/// The attributes that name the user: the conventions' `user.id`, and the older `enduser.id`.
const USER_KEYS: [&str; 2] = ["user.id", "enduser.id"];

/// Where a span came from: its resource and instrumentation scope.
struct Origin<'a> {
    resource: &'a Map<String, Value>,
    service_name: Option<&'a str>,
    scope: Option<&'a str>,
}

/// The span to store, or why it cannot be (ids of the wrong length, or all zero).
fn record(span: Span, origin: &Origin) -> Result<SpanRecord, String> {
    let trace_id = id(&span.trace_id, 16).ok_or_else(|| {
        format!(
            "span `{}` has no valid trace id (16 bytes, not all zero)",
            span.name
        )
    })?;
    let span_id = id(&span.span_id, 8).ok_or_else(|| {
        format!(
            "span `{}` has no valid span id (8 bytes, not all zero)",
            span.name
        )
    })?;
    let parent_span_id = match span.parent_span_id.len() {
        0 => None,
        _ => Some(
            id(&span.parent_span_id, 8)
                .ok_or_else(|| format!("span `{}` has a parent span id that is not 8 bytes", span.name))?,
        ),
    };
    let own = attributes(&span.attributes);
    let session_id = SESSION_KEYS
        .iter()
        .find_map(|key| own.get(*key))
        .and_then(|value| match value {
            Value::String(text) => Some(text.clone()),
            Value::Number(number) => Some(number.to_string()),
            _ => None,
        });
    let status = span.status.unwrap_or_default();
    Ok(SpanRecord {
        trace_id,
        span_id,
        parent_span_id,
        kind: kind(span.kind),
        start_unix_nano: nanos(span.start_time_unix_nano),
        end_unix_nano: nanos(span.end_time_unix_nano),
        // By the proto's own names (an unknown code reads as unset).
        status: match status.code().as_str_name() {
            "STATUS_CODE_OK" => SpanStatus::Ok,
            "STATUS_CODE_ERROR" => SpanStatus::Error,
            _ => SpanStatus::Unset,
        },
        status_message: Some(status.message).filter(|message| !message.is_empty()),
        service_name: origin.service_name.map(str::to_string),
        session_id,
        scope: origin.scope.map(str::to_string),
        attributes: own,
        events: span
            .events
            .into_iter()
            .map(|event| SpanEvent {
                time_unix_nano: nanos(event.time_unix_nano),
                attributes: attributes(&event.attributes),
                name: event.name,
            })
            .collect(),
        resource: origin.resource.clone(),
        name: span.name,
    })
}

/// An id as lowercase hex, if it has `len` bytes and is not all zero (the specification's
/// invalid id).
fn id(bytes: &[u8], len: usize) -> Option<String> {
    if bytes.len() != len || bytes.iter().all(|&byte| byte == 0) {
        return None;
    }
    Some(hex(bytes))
}

fn hex(bytes: &[u8]) -> String {
    let mut text = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        let _ = write!(text, "{byte:02x}");
    }
    text
}

fn kind(kind: i32) -> SpanKind {
    match span::SpanKind::try_from(kind) {
        Ok(span::SpanKind::Internal) => SpanKind::Internal,
        Ok(span::SpanKind::Server) => SpanKind::Server,
        Ok(span::SpanKind::Client) => SpanKind::Client,
        Ok(span::SpanKind::Producer) => SpanKind::Producer,
        Ok(span::SpanKind::Consumer) => SpanKind::Consumer,
        _ => SpanKind::Unspecified,
    }
}

/// A time in nanoseconds since the epoch as stored (a signed 64-bit integer lasts until 2262).
fn nanos(time: u64) -> i64 {
    i64::try_from(time).unwrap_or(i64::MAX)
}

/// Attributes as a JSON object; a key repeated keeps its last value.
fn attributes(list: &[KeyValue]) -> Map<String, Value> {
    list.iter()
        .map(|pair| (pair.key.clone(), pair.value.as_ref().map_or(Value::Null, value)))
        .collect()
}

/// An attribute's value as JSON: bytes as lowercase hex, a double that JSON cannot hold (NaN, an
/// infinity) as null.
fn value(any: &AnyValue) -> Value {
    match &any.value {
        Some(any_value::Value::StringValue(text)) => Value::String(text.clone()),
        Some(any_value::Value::BoolValue(flag)) => Value::Bool(*flag),
        Some(any_value::Value::IntValue(number)) => Value::from(*number),
        Some(any_value::Value::DoubleValue(number)) => {
            serde_json::Number::from_f64(*number).map_or(Value::Null, Value::Number)
        }
        Some(any_value::Value::ArrayValue(array)) => Value::Array(array.values.iter().map(value).collect()),
        Some(any_value::Value::KvlistValue(list)) => Value::Object(attributes(&list.values)),
        Some(any_value::Value::BytesValue(bytes)) => Value::String(hex(bytes)),
        // A string table index belongs to the profiles signal, never to a span.
        Some(any_value::Value::StringValueStrindex(_)) | None => Value::Null,
    }
}

/// The answer to a traces request: empty when every span was stored, else a partial success
/// naming how many were refused and why.
pub fn traces_response(encoding: Encoding, rejected: usize, problem: Option<&str>) -> Vec<u8> {
    let response = ExportTraceServiceResponse {
        partial_success: (rejected > 0).then(|| ExportTracePartialSuccess {
            rejected_spans: rejected as i64,
            error_message: problem.unwrap_or_default().to_string(),
        }),
    };
    match encoding {
        Encoding::Protobuf => response.encode_to_vec(),
        // A message with nothing set is `{}` (the crate would write `"partialSuccess": null`).
        Encoding::Json if rejected == 0 => b"{}".to_vec(),
        Encoding::Json => serde_json::to_vec(&response).expect("a response serialises"),
    }
}

/// The answer to a request whose data is accepted and dropped (logs, metrics): an empty
/// response message.
pub fn empty_response(encoding: Encoding) -> Vec<u8> {
    match encoding {
        Encoding::Protobuf => Vec::new(),
        Encoding::Json => b"{}".to_vec(),
    }
}

/// `google.rpc.Status`, the body OTLP/HTTP gives every refusal.
#[derive(Clone, PartialEq, prost::Message, serde::Serialize)]
struct RpcStatus {
    #[prost(int32, tag = "1")]
    code: i32,
    #[prost(string, tag = "2")]
    message: String,
}

/// gRPC's INVALID_ARGUMENT, for every refusal of a request.
const INVALID_ARGUMENT: i32 = 3;

/// A refusal's body, in the request's encoding.
pub fn status_body(encoding: Encoding, message: &str) -> Vec<u8> {
    let status = RpcStatus {
        code: INVALID_ARGUMENT,
        message: message.to_string(),
    };
    match encoding {
        Encoding::Protobuf => status.encode_to_vec(),
        Encoding::Json => serde_json::to_vec(&status).expect("a status serialises"),
    }
}

#[cfg(test)]
#[path = "otlp_tests.rs"]
mod tests;
