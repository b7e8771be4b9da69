//! Chat turns: one turn at a time per session (across every server sharing the store), run
//! through the app's agent in a task of its own, streamed to whoever listens and recorded when
//! it ends, even if nobody listens any more (a closed browser tab loses nothing). Its events
//! are stored as they arrive, so a browser on any server can follow it (`follow_turn`), and it
//! can be stopped from any server.

use super::errors::{store_refusals, DomainError, ErrorKind};
use super::Services;
use crate::agent::{AgentEvent, SessionContext, Turn, STOPPED_MESSAGE};
use crate::clock::now_seconds;
use crate::records::sessions::SessionTurn;
use crate::store::{Store, StoreError};
use futures::StreamExt;
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, oneshot};

#[derive(Debug, thiserror::Error)]
pub enum TurnError {
    #[error("no agent profile is named `{0}`")]
    UnknownApp(String),
    #[error("the message is empty")]
    EmptyMessage,
    #[error("session `{0}` is already running a turn; wait for it or stop it")]
    Busy(String),
    /// The turn's task ended without recording it (it panicked or the runtime shut down).
    #[error("the agent's turn was aborted")]
    Aborted,
    #[error("{0}")]
    NotFound(String),
    /// An id already taken.
    #[error("{0}")]
    Conflict(String),
    #[error(transparent)]
    Fault(StoreError),
}

impl DomainError for TurnError {
    fn kind(&self) -> ErrorKind {
        match self {
            TurnError::EmptyMessage => ErrorKind::Invalid,
            TurnError::UnknownApp(_) | TurnError::NotFound(_) => ErrorKind::NotFound,
            TurnError::Busy(_) | TurnError::Conflict(_) => ErrorKind::Conflict,
            TurnError::Aborted | TurnError::Fault(_) => ErrorKind::Fault,
        }
    }
}

store_refusals!(TurnError);

/// A turn under way: its events as the agent produces them, then the recorded turn.
pub struct TurnHandle {
    pub invocation_id: String,
    pub events: mpsc::Receiver<AgentEvent>,
    pub done: oneshot::Receiver<Result<SessionTurn, StoreError>>,
}

impl TurnHandle {
    /// Waits for the recorded turn (the events not read are dropped).
    pub async fn recorded(self) -> Result<SessionTurn, TurnError> {
        match self.done.await {
            Ok(recorded) => Ok(recorded?),
            Err(_) => Err(TurnError::Aborted),
        }
    }
}

/// What a turn is: who says what in which session.
pub struct NewTurn {
    pub app: String,
    pub user: String,
    pub session_id: String,
    pub message: String,
}

/// Starts one turn of a session through its app's agent. The turn runs to the end and is
/// recorded even if nobody reads the events; [`stop_turn`] ends it early from any server,
/// keeping what the agent did so far. Another turn of the session, asked of any server while
/// this one runs, is refused (`Busy`).
pub async fn start_turn(services: &Services, turn: NewTurn) -> Result<TurnHandle, TurnError> {
    let NewTurn {
        app,
        user,
        session_id,
        message,
    } = turn;
    if message.trim().is_empty() {
        return Err(TurnError::EmptyMessage);
    }
    let agent = services
        .profiles
        .agent(&app)
        .ok_or_else(|| TurnError::UnknownApp(app.clone()))?;
    let store = services.store.clone();
    let session = store.get_session(&app, &user, &session_id).await?;
    let (mut stop, claim) = services
        .turns
        .claim(&session_id)
        .ok_or_else(|| TurnError::Busy(session_id.clone()))?;
    let history: Vec<Turn> = session
        .turns
        .iter()
        .map(|t| Turn {
            user: t.user_message.clone(),
            events: t.events.clone(),
        })
        .collect();
    let invocation_id = format!("e-{}", uuid::Uuid::new_v4());
    if !store
        .begin_live_turn(&session_id, &invocation_id, &message)
        .await?
    {
        return Err(TurnError::Busy(session_id));
    }
    let (event_tx, events) = mpsc::channel(64);
    let (done_tx, done) = oneshot::channel();
    let handle = TurnHandle {
        invocation_id: invocation_id.clone(),
        events,
        done,
    };
    tokio::spawn(async move {
        let _claim = claim;
        let started_at = now_seconds();
        let clock = Instant::now();
        let live = Live {
            store: &store,
            session_id: &session_id,
            invocation_id: &invocation_id,
        };
        let mut recorded = Vec::new();
        let mut offsets = Vec::new();
        let context = SessionContext {
            user_id: &user,
            session_id: &session_id,
            state: &session.state,
            replay: None,
        };
        let mut stream = agent.run_turn(context, &history, &message);
        let mut renewals = tokio::time::interval(RENEW_TURN_EVERY);
        renewals.tick().await;
        loop {
            // Each event, and whether the turn ends with it (a stop).
            let (event, last) = tokio::select! {
                event = stream.next() => match event {
                    Some(event) => (event, false),
                    None => break,
                },
                // The sender lives as long as the claim this task holds, so this waits for a stop.
                _ = async { drop(stop.wait_for(|&stopped| stopped).await) } => (stopped(), true),
                _ = renewals.tick() => match live.asked_to_stop().await {
                    true => (stopped(), true),
                    false => continue,
                },
            };
            offsets.push(clock.elapsed().as_millis() as u64);
            live.push(recorded.len(), &event).await;
            // A listener that went away does not stop the turn.
            let _ = event_tx.send(event.clone()).await;
            recorded.push(event);
            if last {
                break;
            }
        }
        drop(stream);
        let turn = SessionTurn {
            invocation_id: invocation_id.clone(),
            author: app.clone(),
            user_message: message,
            events: recorded,
            event_offsets_ms: offsets,
            started_at,
            latency_ms: clock.elapsed().as_millis() as i64,
        };
        let result = store
            .append_turn(&app, &user, &session_id, &turn)
            .await
            .map(|()| turn);
        let _ = done_tx.send(result);
    });
    Ok(handle)
}

/// How often a running turn renews its hold on the session and looks whether it was asked to
/// stop from another server.
const RENEW_TURN_EVERY: Duration = Duration::from_secs(1);

/// The event a stopped turn ends with.
fn stopped() -> AgentEvent {
    AgentEvent::Error {
        message: STOPPED_MESSAGE.into(),
    }
}

/// A running turn as the store holds it.
struct Live<'a> {
    store: &'a Store,
    session_id: &'a str,
    invocation_id: &'a str,
}

impl Live<'_> {
    /// Stores the event for followers; a failed write only costs them the event (the turn is
    /// recorded whole at its end).
    async fn push(&self, position: usize, event: &AgentEvent) {
        let pushed = self
            .store
            .push_live_event(self.session_id, self.invocation_id, position as i64, event)
            .await;
        if let Err(error) = pushed {
            tracing::warn!(
                session_id = self.session_id,
                "storing a chat event for followers: {error}"
            );
        }
    }

    /// Renews the hold; true when a stop was asked from any server, or the hold was lost.
    async fn asked_to_stop(&self) -> bool {
        match self
            .store
            .renew_live_turn(self.session_id, self.invocation_id)
            .await
        {
            Ok(stop) => stop,
            Err(error) => {
                tracing::warn!(session_id = self.session_id, "renewing a chat turn: {error}");
                false
            }
        }
    }
}

/// Stops the session's turn under way, wherever it runs, keeping what the agent did so far;
/// false when none is.
pub async fn stop_turn(services: &Services, session_id: &str) -> Result<bool, TurnError> {
    if services.turns.stop(session_id) {
        return Ok(true);
    }
    Ok(services.store.request_turn_stop(session_id).await?)
}

/// Runs one turn of a session to its end and returns it as recorded.
pub async fn run_turn(services: &Services, turn: NewTurn) -> Result<SessionTurn, TurnError> {
    let mut handle = start_turn(services, turn).await?;
    while handle.events.recv().await.is_some() {}
    handle.recorded().await
}
