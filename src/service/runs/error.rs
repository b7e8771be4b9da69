//! What can go wrong with a run, and the limits a run is held to: the bottom of `runs`, which
//! every file above names.

use crate::eval::config::ConfigError;
use crate::service::errors::{store_refusals, DomainError, ErrorKind};
use crate::store::StoreError;
use crate::traces::recorded_cases::Unscorable;

/// Most runs of each case one run may ask for.
pub const MAX_RUNS_PER_CASE: usize = 100;

/// Most sessions one request scores.
pub const MAX_RECORDED_SESSIONS: usize = 200;

/// The longest label a run may have.
pub const MAX_LABEL_CHARS: usize = 100;

/// Something stored for a run that no longer parses: a bug, or a damaged database.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UnreadableRun(pub String);

/// Why a run stopped before it ended; what was stored stays, and it can be resumed.
#[derive(Debug, thiserror::Error)]
pub enum RunFailure {
    #[error(transparent)]
    Unreadable(#[from] UnreadableRun),
    #[error("eval result `{0}`: another worker holds this one's cases now (its lease ran out)")]
    LeaseLost(String),
    #[error("the run panicked: {0}")]
    Panicked(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

#[derive(Debug, thiserror::Error)]
pub enum EvalRunError {
    #[error("choose at least one metric to score")]
    NoMetrics,
    #[error("num_runs: expected 1 to {MAX_RUNS_PER_CASE}")]
    BadNumRuns,
    /// No profile of that name; the message names the profiles there are.
    #[error("{0}")]
    UnknownAgent(String),
    #[error("eval case `{eval_id}` is not in eval set `{eval_set_id}`")]
    UnknownCase { eval_set_id: String, eval_id: String },
    #[error("eval set `{0}` has no cases to run")]
    NoCases(String),
    #[error("eval result `{0}` is not running")]
    NotRunning(String),
    #[error("eval result `{0}` is already running")]
    AlreadyRunning(String),
    #[error("select the cases to run in the list first")]
    NothingSelected,
    #[error("label: at most {MAX_LABEL_CHARS} characters, found {0}")]
    LabelTooLong(usize),
    #[error("no case of eval set `{0}` failed in its latest run")]
    NoneFailed(String),
    /// The metrics or simulator settings asked for; the message names the field.
    #[error("{0}")]
    BadConfig(String),
    #[error(
        "tool replay answers tool calls inside Evalstudio, and the `{0}` profile's tools run on its \
         ADK api_server; run it with live tools"
    )]
    ReplayUnsupported(String),
    /// Finished runs cannot be resumed; the message says why.
    #[error("{0}")]
    NotResumable(String),
    /// A recorded session chosen to score whose spans cannot be (missing, without messages).
    #[error(transparent)]
    Unscorable(#[from] Unscorable),
    #[error("select the sessions to score first")]
    NoSessions,
    #[error("at most {MAX_RECORDED_SESSIONS} sessions are scored at once, {0} were chosen")]
    TooManySessions(usize),
    #[error(
        "the filters keep more than {MAX_RECORDED_SESSIONS} sessions: narrow them (a day, a tool, a text)"
    )]
    FilterTooWide,
    /// Every session the filters keep is still arriving, misses spans or carries no messages.
    #[error("none of the sessions the filters keep can be scored ({0} kept: still arriving, spans missing, or no messages)")]
    NothingScorable(usize),
    #[error(transparent)]
    Unreadable(#[from] UnreadableRun),
    /// A criterion naming its own `url` on a server, which calls only declared evaluators.
    #[error("the criterion of `{0}` names a url: {UNDECLARED_URL}", UNDECLARED_URL = crate::eval::evaluators::UNDECLARED_URL)]
    UndeclaredUrl(String),
    #[error("{0}")]
    NotFound(String),
    /// An id already taken.
    #[error("{0}")]
    Conflict(String),
    #[error(transparent)]
    Fault(StoreError),
}

impl DomainError for EvalRunError {
    fn kind(&self) -> ErrorKind {
        match self {
            EvalRunError::NoMetrics
            | EvalRunError::BadNumRuns
            | EvalRunError::UnknownAgent(_)
            | EvalRunError::UnknownCase { .. }
            | EvalRunError::NoCases(_)
            | EvalRunError::NothingSelected
            | EvalRunError::NoneFailed(_)
            | EvalRunError::LabelTooLong(_)
            | EvalRunError::BadConfig(_)
            | EvalRunError::ReplayUnsupported(_)
            | EvalRunError::Unscorable(_)
            | EvalRunError::NoSessions
            | EvalRunError::TooManySessions(_)
            | EvalRunError::FilterTooWide
            | EvalRunError::UndeclaredUrl(_)
            | EvalRunError::NothingScorable(_) => ErrorKind::Invalid,
            EvalRunError::NotFound(_) => ErrorKind::NotFound,
            EvalRunError::NotRunning(_)
            | EvalRunError::AlreadyRunning(_)
            | EvalRunError::NotResumable(_)
            | EvalRunError::Conflict(_) => ErrorKind::Conflict,
            EvalRunError::Unreadable(_) | EvalRunError::Fault(_) => ErrorKind::Fault,
        }
    }
}

store_refusals!(EvalRunError);

impl From<ConfigError> for EvalRunError {
    fn from(error: ConfigError) -> Self {
        EvalRunError::BadConfig(error.to_string())
    }
}
