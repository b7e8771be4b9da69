//! Server functions behind the Traces page: sessions recorded as spans by the `[otlp]` receiver,
//! one of them as a transcript, and saving it as an eval case. The work is `service::traces`
//! and `service::add_session`.

use crate::records::{RecordedTranscript, TraceSessionSummary};
use leptos::prelude::*;

#[cfg(feature = "ssr")]
use super::{found, server_error, services};
#[cfg(feature = "ssr")]
use crate::service::{add_session, traces};

/// The newest recorded sessions, of every app.
#[server]
pub async fn list_recorded_sessions() -> Result<Vec<TraceSessionSummary>, ServerFnError> {
    traces::list_trace_sessions(&services().store, None, 0, traces::MAX_SESSIONS_PER_PAGE)
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
