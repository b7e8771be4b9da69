//! Server functions behind the Traces page: sessions recorded as spans by the `[otlp]` receiver,
//! one of them as a transcript, saving it as an eval case, and scoring chosen ones without
//! running the agent. The work is `service::traces`, `service::add_session` and
//! `service::runs::recorded`.

use crate::records::runs::MetricChoice;
use crate::records::traces::{RecordedSessionsPage, RecordedTranscript, SessionsAdded, TraceSessionFilter};
use leptos::prelude::*;

#[cfg(feature = "ssr")]
use super::{found, server_error, services};
#[cfg(feature = "ssr")]
use crate::service::runs::{plan::RunMetrics, recorded};
#[cfg(feature = "ssr")]
use crate::service::{add_session, traces};
#[cfg(feature = "ssr")]
use crate::{access::Role, api::access::require};

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
    found(traces::recorded_transcript(&services(), &app, &session_id).await)
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
    require(Role::Editor)?;
    let stored = add_session::add_trace_session_to_eval_set(
        &services(),
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

/// "Add selected": each recorded session saved as a case of `eval_set_id` (made first when it
/// does not exist); what was saved and what was not, and why.
#[server(input = leptos::server_fn::codec::Json)]
pub async fn add_recorded_sessions(
    app: String,
    eval_set_id: String,
    session_ids: Vec<String>,
) -> Result<SessionsAdded, ServerFnError> {
    require(Role::Editor)?;
    add_session::add_trace_sessions_to_eval_set(&services(), &app, &eval_set_id, &session_ids)
        .await
        .map_err(server_error)
}

/// Scores the app's recorded sessions `session_ids` (or, without them, those `filter` keeps)
/// with `metrics`, against the cases of eval set `eval_set_id` they match; answers the new
/// run's result id, and the sessions a filter kept that were left out, with why.
#[server(input = leptos::server_fn::codec::Json)]
pub async fn score_recorded_sessions(
    app: String,
    eval_set_id: String,
    session_ids: Option<Vec<String>>,
    filter: TraceSessionFilter,
    metrics: Vec<MetricChoice>,
    label: Option<String>,
) -> Result<(String, Vec<(String, String)>), ServerFnError> {
    require(Role::Editor)?;
    let sessions = match session_ids {
        Some(ids) => recorded::RecordedSessions::Chosen(ids),
        None => recorded::RecordedSessions::Filtered(filter),
    };
    let request = recorded::RecordedRunRequest {
        app_name: app,
        eval_set_id,
        sessions,
        metrics: RunMetrics::Picked(metrics),
        label,
    };
    let scored = recorded::score_recorded_sessions(&services(), request)
        .await
        .map_err(server_error)?;
    Ok((scored.run.result_id, scored.left_out))
}
