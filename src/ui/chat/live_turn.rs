//! The turn being answered, filled in from the server's stream of agent events: the one this
//! page sent, or one under way when the session was opened (sent from another tab or browser,
//! run by whichever server), followed from the store.

use crate::agent::AgentEvent;
use crate::api::chat::{follow_chat_turn, stream_chat_message, ChatStreamItem, LineBuffer};
use crate::records::sessions::SessionTurn;
use crate::ui::error_text;
use leptos::prelude::*;
use leptos::server_fn::codec::ByteStream;
use leptos::server_fn::ServerFnError;

/// The turn being answered: the user's message and the agent's events so far.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct LiveTurn {
    pub session_id: String,
    pub user_message: String,
    pub events: Vec<AgentEvent>,
    /// Found under way rather than sent from this page.
    pub followed: bool,
}

/// Reads a turn this page sends into `live` as it arrives; the recorded turn at the end.
pub(super) async fn stream_turn(
    app: String,
    session_id: String,
    message: String,
    live: RwSignal<Option<LiveTurn>>,
) -> Result<SessionTurn, String> {
    let stream = stream_chat_message(app, session_id.clone(), message).await;
    read_turn(stream, &session_id, live)
        .await?
        .ok_or_else(|| "The server ended the answer early; reload the session to see what was saved.".into())
}

/// Follows the session's turn under way, if any, into `live`; the recorded turn at the end,
/// `None` when no turn was under way.
pub(super) async fn follow_turn(
    app: String,
    session_id: String,
    live: RwSignal<Option<LiveTurn>>,
) -> Result<Option<SessionTurn>, String> {
    read_turn(follow_chat_turn(app, session_id.clone()).await, &session_id, live).await
}

async fn read_turn(
    stream: Result<ByteStream, ServerFnError>,
    session_id: &str,
    live: RwSignal<Option<LiveTurn>>,
) -> Result<Option<SessionTurn>, String> {
    use futures::StreamExt;
    let mut chunks = stream.map_err(|err| error_text(&err))?.into_inner();
    let mut lines = LineBuffer::default();
    while let Some(chunk) = chunks.next().await {
        let chunk =
            chunk.map_err(|err| format!("The connection to the server broke: {}", error_text(&err)))?;
        for line in lines.push(&chunk) {
            match serde_json::from_str::<ChatStreamItem>(&line) {
                Ok(ChatStreamItem::Started { user_message }) => live.set(Some(LiveTurn {
                    session_id: session_id.to_string(),
                    user_message,
                    events: Vec::new(),
                    followed: true,
                })),
                // Only the live turn of this session is filled in (the page may have moved on).
                Ok(ChatStreamItem::Event { event }) => live.update(|l| {
                    if let Some(l) = l.as_mut().filter(|l| l.session_id == session_id) {
                        l.events.push(event)
                    }
                }),
                Ok(ChatStreamItem::Done { turn }) => return Ok(Some(turn)),
                Ok(ChatStreamItem::Failed { message }) => return Err(message),
                Err(err) => return Err(format!("The server sent something unexpected: {err}")),
            }
        }
    }
    Ok(None)
}
