//! "Add current session": a recorded chat session becomes an eval case whose expected
//! trajectory is what the agent did.

use super::errors::{store_refusals, DomainError, ErrorKind};
use crate::agent::to_eval_case::{session_to_eval_case, RecordedTurn, SessionOrigin};
use crate::agent::Turn;
use crate::clock::now_seconds;
use crate::evalset::{validate_eval_id, validate_eval_set_id, EvalCase};
use crate::records::cases::StoredCase;
use crate::records::traces::{session_eval_id, SessionsAdded};
use crate::service::auth::actor::current_user;
use crate::service::Services;
use crate::store::{Store, StoreError};
use crate::traces::recorded_cases::{check_usable, Unscorable};
use crate::traces::sessions::{trace_session, TraceSession};

#[derive(Debug, thiserror::Error)]
pub enum AddSessionError {
    #[error("{0}")]
    InvalidId(String),
    #[error("session `{0}` has no turns yet")]
    EmptySession(String),
    /// A recorded session that cannot become a case: spans missing or still arriving, no
    /// messages.
    #[error(transparent)]
    Unusable(#[from] Unscorable),
    /// The evalset has a case of that id and the caller did not ask to overwrite it.
    #[error("eval set `{eval_set_id}` already has a case `{eval_id}`; send overwrite: true to replace it")]
    EvalIdTaken { eval_set_id: String, eval_id: String },
    #[error("{0}")]
    NotFound(String),
    /// An id already taken.
    #[error("{0}")]
    Conflict(String),
    #[error(transparent)]
    Fault(StoreError),
}

impl DomainError for AddSessionError {
    fn kind(&self) -> ErrorKind {
        match self {
            AddSessionError::InvalidId(_)
            | AddSessionError::EmptySession(_)
            | AddSessionError::Unusable(_) => ErrorKind::Invalid,
            AddSessionError::NotFound(_) => ErrorKind::NotFound,
            AddSessionError::EvalIdTaken { .. } | AddSessionError::Conflict(_) => ErrorKind::Conflict,
            AddSessionError::Fault(_) => ErrorKind::Fault,
        }
    }
}

store_refusals!(AddSessionError);

/// Where the new case goes and what it is called.
pub struct AddSession<'a> {
    pub app: &'a str,
    pub eval_set_id: &'a str,
    /// Surrounding spaces are trimmed; the rest must pass `validate_eval_id`.
    pub eval_id: &'a str,
    pub user: &'a str,
    pub session_id: &'a str,
    /// Replace a case of the same id instead of refusing.
    pub overwrite: bool,
    /// Create the evalset first if it does not exist.
    pub create_eval_set: bool,
}

/// Saves the session as an eval case (one invocation per turn).
pub async fn add_session_to_eval_set(
    store: &Store,
    add: AddSession<'_>,
) -> Result<StoredCase, AddSessionError> {
    let (eval_set_id, eval_id) = prepare(store, &add).await?;
    let session = store.get_session(add.app, add.user, add.session_id).await?;
    if session.turns.is_empty() {
        return Err(AddSessionError::EmptySession(add.session_id.to_string()));
    }
    let origin = SessionOrigin {
        app_name: add.app.to_string(),
        user_id: add.user.to_string(),
        state: session.state.clone(),
        agent_name: add.app.to_string(),
    };
    let turns: Vec<RecordedTurn> = session
        .turns
        .iter()
        .map(|t| RecordedTurn {
            invocation_id: t.invocation_id.clone(),
            timestamp: t.started_at,
            turn: Turn {
                user: t.user_message.clone(),
                events: t.events.clone(),
            },
        })
        .collect();
    let case = session_to_eval_case(eval_id, &origin, &turns, now_seconds());
    save(store, &add, eval_set_id, &case).await
}

/// Saves a session recorded as OpenTelemetry spans (the `[otlp]` receiver) as an eval case,
/// exactly as Add current session saves one run in Evalstudio: `add.session_id` is the spans'
/// session id, `add.user` unused (the spans say who).
pub async fn add_trace_session_to_eval_set(
    services: &Services,
    add: AddSession<'_>,
) -> Result<StoredCase, AddSessionError> {
    let store = &services.store;
    let session = recorded_session(services, add.app, add.session_id)
        .await?
        .settled()?;
    check_usable(&session)?;
    let (eval_set_id, eval_id) = prepare(store, &add).await?;
    let case = session_to_eval_case(eval_id, &session.origin, &session.turns, now_seconds());
    save(store, &add, eval_set_id, &case).await
}

/// Saves each recorded session as a case of `eval_set_id` (made first when it does not exist)
/// named by [`session_eval_id`]; a session that cannot be saved is said and the others saved.
pub async fn add_trace_sessions_to_eval_set(
    services: &Services,
    app: &str,
    eval_set_id: &str,
    session_ids: &[String],
) -> Result<SessionsAdded, AddSessionError> {
    validate_eval_set_id(eval_set_id.trim()).map_err(AddSessionError::InvalidId)?;
    if session_ids.is_empty() {
        return Err(AddSessionError::InvalidId(
            "select the sessions to add first".into(),
        ));
    }
    let mut outcome = SessionsAdded::default();
    for session_id in session_ids {
        let eval_id = session_eval_id(session_id);
        let add = AddSession {
            app,
            eval_set_id,
            eval_id: &eval_id,
            user: "",
            session_id,
            overwrite: false,
            create_eval_set: true,
        };
        match add_trace_session_to_eval_set(services, add).await {
            Ok(stored) => outcome.added.push(stored.case.eval_id),
            Err(fault @ AddSessionError::Fault(_)) => return Err(fault),
            // Said as the page can act on it: there is no overwrite there.
            Err(AddSessionError::EvalIdTaken { eval_set_id, eval_id }) => outcome.refused.push((
                session_id.clone(),
                format!("eval set `{eval_set_id}` already has a case `{eval_id}`"),
            )),
            Err(refused) => outcome.refused.push((session_id.clone(), refused.to_string())),
        }
    }
    Ok(outcome)
}

/// A recorded session, and whether spans of it arrived within the receiver's quiet period
/// (OTLP has no "trace complete": a session is taken as whole once none has for that long).
pub struct Recorded {
    pub session: TraceSession,
    pub arriving: bool,
}

impl Recorded {
    /// The session, once no span of it has arrived within the quiet period.
    pub fn settled(self) -> Result<TraceSession, Unscorable> {
        if self.arriving {
            return Err(Unscorable::Arriving(self.session.session_id));
        }
        Ok(self.session)
    }
}

/// The session `session_id` of `app` as its spans tell it; NotFound when no span of it arrived.
pub async fn recorded_session(
    services: &Services,
    app: &str,
    session_id: &str,
) -> Result<Recorded, AddSessionError> {
    let store = &services.store;
    let spans = store.session_spans(session_id).await?;
    let mut session = trace_session(session_id, &spans);
    let summary = store.trace_session_summary(session_id).await?;
    let Some(summary) = summary.filter(|_| !spans.is_empty() && session.origin.app_name == app) else {
        return Err(AddSessionError::NotFound(format!(
            "no spans of session `{session_id}` of app `{app}` were received"
        )));
    };
    // The user the log records named, which the spans do not.
    if let Some(user) = summary.user_id {
        session.origin.user_id = user;
    }
    let quiet = services.otlp.as_ref().map_or(0.0, |otlp| otlp.quiet_seconds);
    Ok(Recorded {
        session,
        arriving: now_seconds() - summary.last_received_at < quiet,
    })
}

/// The checked evalset and eval ids (the evalset made first when asked).
async fn prepare<'a>(store: &Store, add: &AddSession<'a>) -> Result<(&'a str, &'a str), AddSessionError> {
    let eval_id = add.eval_id.trim();
    validate_eval_id(eval_id).map_err(AddSessionError::InvalidId)?;
    let eval_set_id = add.eval_set_id.trim();
    if add.create_eval_set {
        validate_eval_set_id(eval_set_id).map_err(AddSessionError::InvalidId)?;
        match store.create_eval_set(add.app, eval_set_id, now_seconds()).await {
            // Someone made it meanwhile: adding to it is what the user wants.
            Ok(()) | Err(StoreError::Conflict(_)) => {}
            Err(other) => return Err(other.into()),
        }
    }
    Ok((eval_set_id, eval_id))
}

/// Adds the case, or replaces the one of its id when the caller asked to overwrite.
async fn save(
    store: &Store,
    add: &AddSession<'_>,
    eval_set_id: &str,
    case: &EvalCase,
) -> Result<StoredCase, AddSessionError> {
    let eval_id = case.eval_id.as_str();
    match store
        .add_case(add.app, eval_set_id, case, current_user().as_deref())
        .await
    {
        Err(StoreError::Conflict(_)) if add.overwrite => {
            let current = store.get_case(add.app, eval_set_id, eval_id).await?;
            Ok(store
                .update_case(
                    add.app,
                    eval_set_id,
                    eval_id,
                    case,
                    current.version,
                    current_user().as_deref(),
                )
                .await?)
        }
        Err(StoreError::Conflict(_)) => Err(AddSessionError::EvalIdTaken {
            eval_set_id: eval_set_id.to_string(),
            eval_id: eval_id.to_string(),
        }),
        other => Ok(other?),
    }
}
