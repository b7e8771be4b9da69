//! Production traces: the spans an agent's OpenTelemetry exporter sends to `/v1/traces`, stored
//! as they arrive, and pruned to the `[otlp]` retention.

use super::errors::{DomainError, ErrorKind};
use crate::clock::now_seconds;
use crate::store::{Store, StoreError};
use crate::traces::otlp::{decode_traces, decompress, traces_response};
pub use crate::traces::otlp::{empty_response, status_body, Encoding, OtlpError};

/// The receiver's settings, from evalstudio.toml's `[otlp]`.
#[derive(Debug, Clone, PartialEq)]
pub struct OtlpSettings {
    /// A request's body once gzip is undone.
    pub max_body_bytes: usize,
    /// Spans received longer ago than this are deleted ...
    pub retention_seconds: f64,
    /// ... and so are all but the newest this many.
    pub keep_spans: i64,
}

/// A traces request as it arrived.
pub struct OtlpRequest<'a> {
    pub content_type: &'a str,
    pub content_encoding: Option<&'a str>,
    pub body: &'a [u8],
}

#[derive(Debug, thiserror::Error)]
pub enum IngestError {
    #[error("this server does not receive traces: add an [otlp] table to its evalstudio.toml")]
    Off,
    #[error(transparent)]
    Refused(#[from] OtlpError),
    #[error(transparent)]
    Fault(#[from] StoreError),
}

impl DomainError for IngestError {
    fn kind(&self) -> ErrorKind {
        match self {
            IngestError::Off => ErrorKind::NotFound,
            IngestError::Refused(_) => ErrorKind::Invalid,
            IngestError::Fault(_) => ErrorKind::Fault,
        }
    }
}

/// Stores the spans of an OTLP ExportTraceServiceRequest; answers the response body to send
/// (a partial success when some spans could not be read). A request that cannot be read at all
/// stores nothing.
pub async fn ingest_traces(
    store: &Store,
    settings: Option<&OtlpSettings>,
    request: &OtlpRequest<'_>,
) -> Result<(Encoding, Vec<u8>), IngestError> {
    let settings = settings.ok_or(IngestError::Off)?;
    let encoding = Encoding::of_content_type(request.content_type)?;
    let body = decompress(request.body, request.content_encoding, settings.max_body_bytes)?;
    let decoded = decode_traces(&body, encoding)?;
    if !decoded.spans.is_empty() {
        store.insert_spans(&decoded.spans, now_seconds()).await?;
    }
    Ok((
        encoding,
        traces_response(encoding, decoded.rejected, decoded.problem.as_deref()),
    ))
}

/// Checks a logs or metrics request, which is accepted and dropped (ADK sends them beside its
/// traces): the answer an exporter expects, or why it is refused.
pub fn accept_other_signal(
    settings: Option<&OtlpSettings>,
    request: &OtlpRequest<'_>,
) -> Result<Encoding, IngestError> {
    let settings = settings.ok_or(IngestError::Off)?;
    let encoding = Encoding::of_content_type(request.content_type)?;
    decompress(request.body, request.content_encoding, settings.max_body_bytes)?;
    Ok(encoding)
}

/// Deletes the spans the retention setting no longer keeps; answers how many went.
pub async fn prune_spans(store: &Store, settings: &OtlpSettings) -> Result<u64, StoreError> {
    store
        .prune_spans(now_seconds() - settings.retention_seconds, settings.keep_spans)
        .await
}

/// How often the retention setting is applied.
pub const PRUNE_EVERY: std::time::Duration = std::time::Duration::from_secs(60);

/// Applies the retention setting now and every [`PRUNE_EVERY`], for as long as it is awaited.
pub async fn keep_pruning(store: Store, settings: OtlpSettings) {
    let mut ticks = tokio::time::interval(PRUNE_EVERY);
    loop {
        ticks.tick().await;
        match prune_spans(&store, &settings).await {
            Ok(0) => {}
            Ok(deleted) => tracing::info!("deleted {deleted} spans past the [otlp] retention"),
            Err(err) => tracing::warn!("could not delete spans past the [otlp] retention: {err}"),
        }
    }
}
