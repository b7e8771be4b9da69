//! OTLP/HTTP's receiver: `/v1/traces` stores what an agent's exporter sends; of `/v1/logs`,
//! which ADK sends beside it, only the users its records name are kept; `/v1/metrics` is
//! accepted and dropped. Answers are OTLP's own:
//! the response message in the request's encoding, or a `google.rpc.Status` with a 4xx.

use crate::access::Role::Ingest;
use crate::api::access::Routes;
use crate::api::AppState;
use crate::service::traces::{
    accept_other_signal, empty_response, ingest_logs, ingest_traces, status_body, Encoding, OtlpError,
    OtlpRequest, TraceError,
};
use axum::body::Bytes;
use axum::extract::State;
use axum::http::header::{CONTENT_ENCODING, CONTENT_TYPE};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};

/// The paths OTLP exporters append to their endpoint.
pub fn routes() -> Routes {
    Routes::new()
        .post("/v1/traces", Ingest, receive_traces)
        .post("/v1/logs", Ingest, receive_logs)
        .post("/v1/metrics", Ingest, receive_other_signal)
}

async fn receive_traces(State(state): State<AppState>, headers: HeaderMap, body: Bytes) -> Response {
    let request = request(&headers, &body);
    match ingest_traces(&state.services.store, state.services.otlp.as_ref(), &request).await {
        Ok((encoding, answer)) => answered(StatusCode::OK, encoding, answer),
        Err(err) => refused(&request, err),
    }
}

async fn receive_logs(State(state): State<AppState>, headers: HeaderMap, body: Bytes) -> Response {
    let request = request(&headers, &body);
    match ingest_logs(&state.services.store, state.services.otlp.as_ref(), &request).await {
        Ok((encoding, answer)) => answered(StatusCode::OK, encoding, answer),
        Err(err) => refused(&request, err),
    }
}

async fn receive_other_signal(State(state): State<AppState>, headers: HeaderMap, body: Bytes) -> Response {
    let request = request(&headers, &body);
    match accept_other_signal(state.services.otlp.as_ref(), &request) {
        Ok(encoding) => answered(StatusCode::OK, encoding, empty_response(encoding)),
        Err(err) => refused(&request, err),
    }
}

fn request<'a>(headers: &'a HeaderMap, body: &'a [u8]) -> OtlpRequest<'a> {
    let header = |name| headers.get(name).and_then(|value| value.to_str().ok());
    OtlpRequest {
        content_type: header(CONTENT_TYPE).unwrap_or_default(),
        content_encoding: header(CONTENT_ENCODING),
        body,
    }
}

fn answered(status: StatusCode, encoding: Encoding, body: Vec<u8>) -> Response {
    (status, [(CONTENT_TYPE, encoding.content_type())], body).into_response()
}

/// A refusal as OTLP/HTTP answers one: a Status in the request's encoding (JSON when that is
/// what was wrong), with the status code the specification gives its cause.
fn refused(request: &OtlpRequest, err: TraceError) -> Response {
    let encoding = Encoding::of_content_type(request.content_type).unwrap_or(Encoding::Json);
    let status = match &err {
        TraceError::Off => StatusCode::NOT_FOUND,
        TraceError::Refused(OtlpError::TooLarge { .. }) => StatusCode::PAYLOAD_TOO_LARGE,
        TraceError::Refused(OtlpError::UnsupportedContentType(_) | OtlpError::UnsupportedEncoding(_)) => {
            StatusCode::UNSUPPORTED_MEDIA_TYPE
        }
        TraceError::Refused(_) | TraceError::Page(_) => StatusCode::BAD_REQUEST,
        TraceError::Fault(cause) => {
            let id = crate::api::log_fault(cause);
            let message = format!("internal error (id {id}); retry later");
            return answered(
                StatusCode::SERVICE_UNAVAILABLE,
                encoding,
                status_body(encoding, &message),
            );
        }
    };
    answered(status, encoding, status_body(encoding, &err.to_string()))
}
