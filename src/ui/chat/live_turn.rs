//! The turn being answered, filled in from the server's stream of agent events.

use crate::agent::AgentEvent;
use crate::api::chat::{stream_chat_message, ChatStreamItem, LineBuffer};
use crate::records::SessionTurn;
use crate::ui::error_text;
use leptos::prelude::*;

/// The turn being answered: the user's message and the agent's events so far.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct LiveTurn {
    pub session_id: String,
    pub user_message: String,
    pub events: Vec<AgentEvent>,
}

/// Reads a turn's stream into `live` as it arrives; the recorded turn at the end.
pub(super) async fn stream_turn(
    app: String,
    session_id: String,
    message: String,
    live: RwSignal<Option<LiveTurn>>,
) -> Result<SessionTurn, String> {
    use futures::StreamExt;
    let mut chunks = stream_chat_message(app, session_id, message)
        .await
        .map_err(|err| error_text(&err))?
        .into_inner();
    let mut lines = LineBuffer::default();
    while let Some(chunk) = chunks.next().await {
        let chunk =
            chunk.map_err(|err| format!("The connection to the server broke: {}", error_text(&err)))?;
        for line in lines.push(&chunk) {
            match serde_json::from_str::<ChatStreamItem>(&line) {
                Ok(ChatStreamItem::Event { event }) => {
                    live.update(|l| l.iter_mut().for_each(|l| l.events.push(event.clone())))
                }
                Ok(ChatStreamItem::Done { turn }) => return Ok(turn),
                Ok(ChatStreamItem::Failed { message }) => return Err(message),
                Err(err) => return Err(format!("The server sent something unexpected: {err}")),
            }
        }
    }
    Err("The server ended the answer early; reload the session to see what was saved.".into())
}
