//! Production traces: the spans an agent's OpenTelemetry exporter sends to `/v1/traces`, stored
//! as they arrive, and pruned to the `[otlp]` retention.

use super::add_session::{recorded_session, AddSessionError, Recorded};
use super::errors::{DomainError, ErrorKind};
use super::Services;
use crate::agent::to_eval_case::session_to_eval_case;
use crate::clock::now_seconds;
use crate::evalset::Invocation;
use crate::records::traces::{
    RecordedSessionsPage, RecordedTranscript, RecordedTurnView, TraceSessionFilter, TraceSessionSummary,
};
use crate::store::{Store, StoreError};
use crate::traces::otlp::{decode_log_users, decode_traces, decompress, traces_response};
pub use crate::traces::otlp::{empty_response, status_body, Encoding, OtlpError};
pub use crate::traces::sessions::CONTENT_SETTING;
use std::borrow::Cow;

/// The receiver's settings, from evalstudio.toml's `[otlp]`.
#[derive(Debug, Clone, PartialEq)]
pub struct OtlpSettings {
    /// A request's body once gzip is undone.
    pub max_body_bytes: usize,
    /// Spans received longer ago than this are deleted ...
    pub retention_seconds: f64,
    /// ... and so are all but the newest this many.
    pub keep_spans: i64,
    /// A session is taken as whole once no span of it has arrived for this long.
    pub quiet_seconds: f64,
}

/// A traces request as it arrived.
pub struct OtlpRequest<'a> {
    pub content_type: &'a str,
    pub content_encoding: Option<&'a str>,
    pub body: &'a [u8],
}

#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    #[error("this server does not receive traces: add an [otlp] table to its evalstudio.toml")]
    Off,
    #[error(transparent)]
    Refused(#[from] OtlpError),
    /// A page of sessions that cannot be given.
    #[error("{0}")]
    Page(String),
    #[error(transparent)]
    Fault(#[from] StoreError),
}

impl DomainError for TraceError {
    fn kind(&self) -> ErrorKind {
        match self {
            TraceError::Off => ErrorKind::NotFound,
            TraceError::Refused(_) | TraceError::Page(_) => ErrorKind::Invalid,
            TraceError::Fault(_) => ErrorKind::Fault,
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
) -> Result<(Encoding, Vec<u8>), TraceError> {
    let (encoding, body) = opened(settings, request)?;
    let decoded = decode_traces(&body, encoding)?;
    if !decoded.spans.is_empty() {
        store.insert_spans(&decoded.spans, now_seconds()).await?;
    }
    Ok((
        encoding,
        traces_response(encoding, decoded.rejected, decoded.problem.as_deref()),
    ))
}

/// Reads a logs request for the users its records name (ADK's inference log events carry
/// `user.id`), which the sessions of their traces take up; the rest of it is dropped. Answers
/// the empty response an exporter expects.
pub async fn ingest_logs(
    store: &Store,
    settings: Option<&OtlpSettings>,
    request: &OtlpRequest<'_>,
) -> Result<(Encoding, Vec<u8>), TraceError> {
    let (encoding, body) = opened(settings, request)?;
    let users = decode_log_users(&body, encoding)?;
    if !users.is_empty() {
        store.insert_trace_users(&users, now_seconds()).await?;
    }
    Ok((encoding, empty_response(encoding)))
}

/// Checks a metrics request, which is accepted and dropped (ADK sends them beside its
/// traces): the answer an exporter expects, or why it is refused.
pub fn accept_other_signal(
    settings: Option<&OtlpSettings>,
    request: &OtlpRequest<'_>,
) -> Result<Encoding, TraceError> {
    Ok(opened(settings, request)?.0)
}

/// What every OTLP request goes through: the receiver on, its encoding known, its body with
/// gzip undone within the limit.
fn opened<'a>(
    settings: Option<&OtlpSettings>,
    request: &OtlpRequest<'a>,
) -> Result<(Encoding, Cow<'a, [u8]>), TraceError> {
    let settings = settings.ok_or(TraceError::Off)?;
    let encoding = Encoding::of_content_type(request.content_type)?;
    let body = decompress(request.body, request.content_encoding, settings.max_body_bytes)?;
    Ok((encoding, body))
}

/// Most sessions a page lists.
pub const MAX_SESSIONS_PER_PAGE: i64 = 200;

/// The recorded sessions `filter` keeps, newest first: `limit` of them (at most
/// [`MAX_SESSIONS_PER_PAGE`]) from `offset`.
pub async fn list_trace_sessions(
    store: &Store,
    filter: &TraceSessionFilter,
    offset: i64,
    limit: i64,
) -> Result<Vec<TraceSessionSummary>, TraceError> {
    if offset < 0 || !(1..=MAX_SESSIONS_PER_PAGE).contains(&limit) {
        return Err(TraceError::Page(format!(
            "offset must be 0 or more and limit between 1 and {MAX_SESSIONS_PER_PAGE}"
        )));
    }
    Ok(store.trace_sessions(filter, offset, limit).await?)
}

/// Sessions a page of the Traces list shows.
pub const SESSIONS_PER_PAGE: i64 = 50;

/// Page `page` (from 0) of the Traces list, with the apps to filter by.
pub async fn recorded_sessions_page(
    store: &Store,
    filter: &TraceSessionFilter,
    page: i64,
) -> Result<RecordedSessionsPage, TraceError> {
    let page = page.max(0);
    let mut sessions =
        list_trace_sessions(store, filter, page * SESSIONS_PER_PAGE, SESSIONS_PER_PAGE + 1).await?;
    let has_more = sessions.len() as i64 > SESSIONS_PER_PAGE;
    sessions.truncate(SESSIONS_PER_PAGE as usize);
    Ok(RecordedSessionsPage {
        sessions,
        apps: store.trace_apps().await?,
        page,
        has_more,
    })
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

/// A recorded session as the API shows it: its turns as the invocations of the case it makes.
#[derive(Debug, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RecordedSession {
    pub session_id: String,
    pub app_name: String,
    pub user_id: String,
    /// Whether every span of it has arrived: no trace misses its root or a parent, and none
    /// arrived within the receiver's quiet period.
    pub complete: bool,
    /// Whether spans of it arrived within the quiet period: more may follow.
    pub arriving: bool,
    /// Whether its spans carry no messages; `contentSetting` is what the agent needs then.
    pub content_missing: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content_setting: Option<&'static str>,
    pub invocations: Vec<Invocation>,
}

/// The session `session_id` of `app` from its spans.
pub async fn recorded_session_view(
    services: &Services,
    app: &str,
    session_id: &str,
) -> Result<RecordedSession, AddSessionError> {
    let Recorded { session, arriving } = recorded_session(services, app, session_id).await?;
    let case = session_to_eval_case(session_id, &session.origin, &session.turns, 0.0);
    Ok(RecordedSession {
        session_id: session.session_id,
        app_name: session.origin.app_name,
        user_id: session.origin.user_id,
        complete: session.complete && !arriving,
        arriving,
        content_missing: session.content_missing,
        content_setting: session.content_missing.then_some(CONTENT_SETTING),
        invocations: case.conversation.unwrap_or_default(),
    })
}

/// The session `session_id` of `app` as the Traces page shows it: each turn's message and what
/// the agent did, in the chat's own events.
pub async fn recorded_transcript(
    services: &Services,
    app: &str,
    session_id: &str,
) -> Result<RecordedTranscript, AddSessionError> {
    let Recorded { session, arriving } = recorded_session(services, app, session_id).await?;
    Ok(RecordedTranscript {
        session_id: session.session_id,
        app: session.origin.app_name,
        complete: session.complete,
        arriving,
        content_setting: session.content_missing.then(|| CONTENT_SETTING.to_string()),
        turns: session
            .turns
            .into_iter()
            .map(|turn| RecordedTurnView {
                user_message: turn.turn.user,
                events: turn.turn.events,
                started_at: turn.timestamp,
            })
            .collect(),
    })
}
