//! Following a chat turn under way from the store, wherever it runs: what the user said, the
//! agent's events as the running server stores them, then the turn as recorded. A browser
//! that loads a session on another server (no sticky load balancer) or in a second tab sees
//! the turn go on.

use super::turns::TurnError;
use super::Services;
use crate::agent::AgentEvent;
use crate::records::sessions::SessionTurn;
use crate::store::Store;
use futures::stream::{self, Stream};
use std::collections::VecDeque;
use std::time::Duration;

/// How often a follower reads the store for new events.
const FOLLOW_POLL: Duration = Duration::from_millis(150);

/// What a follower sees, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum Followed {
    Started {
        user_message: String,
    },
    Event(AgentEvent),
    Recorded(SessionTurn),
    /// The turn ended without being recorded; says why.
    Lost(String),
}

/// Follows the session's turn under way; an empty stream when none is.
pub async fn follow_turn(
    services: &Services,
    app: &str,
    user: &str,
    session_id: &str,
) -> Result<impl Stream<Item = Followed>, TurnError> {
    // The session must be the user's: its id alone shows nothing.
    services.store.get_session(app, user, session_id).await?;
    let following = Following {
        store: services.store.clone(),
        app: app.to_string(),
        user: user.to_string(),
        session_id: session_id.to_string(),
        after: -1,
        invocation_id: None,
        seen: VecDeque::new(),
        over: false,
    };
    Ok(stream::unfold(following, Following::next))
}

struct Following {
    store: Store,
    app: String,
    user: String,
    session_id: String,
    /// The position of the last event read.
    after: i64,
    /// The turn followed, once one was found.
    invocation_id: Option<String>,
    seen: VecDeque<Followed>,
    over: bool,
}

impl Following {
    async fn next(mut self) -> Option<(Followed, Self)> {
        loop {
            if let Some(item) = self.seen.pop_front() {
                return Some((item, self));
            }
            if self.over {
                return None;
            }
            self.read().await;
        }
    }

    /// Reads what was stored since the last read (waiting a while first when nothing was).
    async fn read(&mut self) {
        let live = match self.store.live_turn(&self.session_id, self.after).await {
            Ok(live) => live,
            Err(error) => {
                tracing::warn!(session_id = self.session_id, "following a chat turn: {error}");
                return self.lose("the turn could not be read from the database; reload to see it");
            }
        };
        let Some(live) = live.filter(|live| {
            self.invocation_id
                .as_ref()
                .is_none_or(|id| *id == live.invocation_id)
        }) else {
            // Over (or another turn began): the followed turn is recorded, or was lost.
            self.over = true;
            if let Some(invocation_id) = self.invocation_id.clone() {
                self.seen.push_back(self.recorded(&invocation_id).await);
            }
            return;
        };
        if self.invocation_id.is_none() {
            self.invocation_id = Some(live.invocation_id);
            self.seen.push_back(Followed::Started {
                user_message: live.user_message,
            });
        }
        for (position, event) in live.events {
            self.after = position;
            self.seen.push_back(Followed::Event(event));
        }
        if live.abandoned {
            return self.lose("the server running this turn stopped answering; what it did was not saved");
        }
        if self.seen.is_empty() {
            tokio::time::sleep(FOLLOW_POLL).await;
        }
    }

    async fn recorded(&self, invocation_id: &str) -> Followed {
        let session = self
            .store
            .get_session(&self.app, &self.user, &self.session_id)
            .await;
        let turn = session.ok().and_then(|session| {
            session
                .turns
                .into_iter()
                .find(|t| t.invocation_id == invocation_id)
        });
        match turn {
            Some(turn) => Followed::Recorded(turn),
            None => Followed::Lost("the turn ended without being saved".into()),
        }
    }

    fn lose(&mut self, why: &str) {
        self.over = true;
        self.seen.push_back(Followed::Lost(why.into()));
    }
}
