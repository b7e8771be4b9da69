//! Recorded sessions (spans grouped by conversation): the Traces list, its filter and pages, a
//! session's transcript, and what adding sessions as cases did.

use crate::agent::AgentEvent;
use serde::{Deserialize, Serialize};

/// A recorded session as the trace list shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TraceSessionSummary {
    pub session_id: String,
    /// The root agent's name.
    pub app: String,
    /// When its first span started and its last ended, in Unix nanoseconds.
    pub started_unix_nano: i64,
    pub ended_unix_nano: i64,
    /// Its traces: one per turn.
    pub turns: i64,
    /// Its spans that ran a tool (`execute_tool`, or OpenInference's TOOL).
    pub tool_calls: i64,
    /// Its spans whose status is an error.
    pub errors: i64,
    /// The user, when a log record of it names one (ADK's inference log events do).
    #[serde(default)]
    pub user_id: Option<String>,
    /// Tokens its model calls used, as their spans report them; None when none did.
    #[serde(default)]
    pub input_tokens: Option<i64>,
    #[serde(default)]
    pub output_tokens: Option<i64>,
    /// When its last span arrived (seconds since the epoch).
    #[serde(default)]
    pub last_received_at: f64,
}

/// The eval id a recorded session is saved under unless the user names it: `session_` and its
/// id, with anything but ASCII letters and digits made `_`.
pub fn session_eval_id(session_id: &str) -> String {
    format!(
        "session_{}",
        session_id.replace(|c: char| !c.is_ascii_alphanumeric(), "_")
    )
}

/// What "Add selected" did: the eval ids of the cases saved, and each session not saved with
/// why (spans missing, no messages, its eval id taken).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SessionsAdded {
    pub added: Vec<String>,
    pub refused: Vec<(String, String)>,
}

/// A page of the Traces list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedSessionsPage {
    pub sessions: Vec<TraceSessionSummary>,
    /// Every app with recorded sessions, for the filter.
    pub apps: Vec<String>,
    /// From 0.
    pub page: i64,
    pub has_more: bool,
}

/// Which recorded sessions a page lists.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TraceSessionFilter {
    /// Only this app's (its root agent's name); every app's when `None`.
    pub app: Option<String>,
    /// Only those with a span in error.
    pub errors_only: bool,
    /// Only those that started at or after this, and before that (Unix nanoseconds).
    #[serde(default)]
    pub started_from: Option<i64>,
    #[serde(default)]
    pub started_before: Option<i64>,
    /// Only those that called this tool.
    #[serde(default)]
    pub tool: Option<String>,
    /// Only those with this text (any case) in a span's attributes: a message, a tool's
    /// arguments or response.
    #[serde(default)]
    pub text: Option<String>,
}

/// A recorded session as the Traces page shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedTranscript {
    pub session_id: String,
    pub app: String,
    /// Whether every span of it has arrived.
    pub complete: bool,
    /// Whether spans of it arrived within the receiver's quiet period: more may follow.
    #[serde(default)]
    pub arriving: bool,
    /// When its spans carry no messages: the setting the agent needs.
    pub content_setting: Option<String>,
    pub turns: Vec<RecordedTurnView>,
}

/// One recorded turn: the user's message and what the agent did, as the chat shows a turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedTurnView {
    pub user_message: String,
    pub events: Vec<AgentEvent>,
    /// Seconds since the epoch.
    pub started_at: f64,
}
