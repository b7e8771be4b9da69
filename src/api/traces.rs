//! Server functions behind the Traces page: sessions recorded as spans by the `[otlp]` receiver,
//! one of them as a transcript, and saving it as an eval case. The work is `service::traces`
//! and `service::add_session`.

use crate::records::{RecordedSessionsPage, RecordedTranscript, TraceSessionFilter};
use leptos::prelude::*;

#[cfg(feature = "ssr")]
use super::{found, server_error, services};
#[cfg(feature = "ssr")]
use crate::service::{add_session, traces};

/// Page `page` (from 0) of the recorded sessions `filter` keeps, newest first.
#[server]
pub async fn list_recorded_sessions(
    filter: TraceSessionFilter,
    page: i64,
) -> Result<RecordedSessionsPage, ServerFnError> {
    traces::recorded_sessions_page(&services().store, &filter, page)
        .await
        .map_err(server_error)
}

#[server]
pub async fn get_recorded_session(
    app: String,
    session_id: String,
) -> Result<Option<RecordedTranscript>, ServerFnError> {
    found(traces::recorded_transcript(&services().store, &app, &session_id).await)
}

/// Saves the recorded session as case `eval_id` of the app's evalset `eval_set_id` (made first
/// when it does not exist); answers the case's eval id.
#[server]
pub async fn add_recorded_session(
    app: String,
    eval_set_id: String,
    session_id: String,
    eval_id: String,
) -> Result<String, ServerFnError> {
    let stored = add_session::add_trace_session_to_eval_set(
        &services().store,
        add_session::AddSession {
            app: &app,
            eval_set_id: &eval_set_id,
            eval_id: &eval_id,
            user: "",
            session_id: &session_id,
            overwrite: false,
            create_eval_set: true,
        },
    )
    .await
    .map_err(server_error)?;
    Ok(stored.case.eval_id)
}
