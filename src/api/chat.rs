//! Server functions behind the chat page. The browser is one local user, [`BROWSER_USER`].

use crate::agent::AgentEvent;
use crate::records::cases::StoredCase;
use crate::records::sessions::{SessionRecord, SessionSummary, SessionTurn};
use leptos::prelude::*;
use leptos::server_fn::codec::{ByteStream, Streaming};
use serde::{Deserialize, Serialize};

#[cfg(feature = "ssr")]
use super::server_error;
#[cfg(feature = "ssr")]
use super::services;
#[cfg(feature = "ssr")]
use crate::service::{add_session, sessions, turns};
#[cfg(feature = "ssr")]
use crate::{access::Role, api::access::require};

/// The user id the browser's sessions belong to (ADK's web UI uses a fixed one too).
pub const BROWSER_USER: &str = "user";

#[server]
pub async fn list_chat_sessions(app: String) -> Result<Vec<SessionSummary>, ServerFnError> {
    sessions::list_sessions(&services().store, &app, BROWSER_USER)
        .await
        .map_err(server_error)
}

#[server]
pub async fn new_chat_session(app: String) -> Result<SessionRecord, ServerFnError> {
    require(Role::Editor)?;
    let services = services();
    if services.profiles.get(&app).is_none() {
        return Err(ServerFnError::new(format!("no agent profile is named `{app}`")));
    }
    sessions::create_session(&services.store, &app, BROWSER_USER, None, &Default::default())
        .await
        .map_err(server_error)
}

#[server]
pub async fn get_chat_session(app: String, session_id: String) -> Result<SessionRecord, ServerFnError> {
    sessions::get_session(&services().store, &app, BROWSER_USER, &session_id)
        .await
        .map_err(server_error)
}

/// One line of [`stream_chat_message`]'s answer (newline-delimited JSON): the agent's events as
/// they happen, then the recorded turn, or why it could not be recorded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ChatStreamItem {
    /// A followed turn (see [`follow_chat_turn`]) begins with what the user said.
    Started {
        user_message: String,
    },
    Event {
        event: AgentEvent,
    },
    Done {
        turn: SessionTurn,
    },
    Failed {
        message: String,
    },
}

/// Runs one turn, streaming its events as they happen. The turn is recorded even if the
/// browser goes away; [`stop_chat_turn`] ends it early.
#[server(output = Streaming)]
pub async fn stream_chat_message(
    app: String,
    session_id: String,
    message: String,
) -> Result<ByteStream, ServerFnError> {
    require(Role::Editor)?;
    use futures::StreamExt;
    let turn = turns::NewTurn {
        app,
        user: BROWSER_USER.into(),
        session_id,
        message,
    };
    let handle = turns::start_turn(&services(), turn).await.map_err(server_error)?;
    let events = futures::stream::unfold(handle.events, |mut events| async move {
        let event = events.recv().await?;
        Some((ChatStreamItem::Event { event }, events))
    });
    let done = handle.done;
    let end = futures::stream::once(async move {
        match done.await {
            Ok(Ok(turn)) => ChatStreamItem::Done { turn },
            Ok(Err(err)) => ChatStreamItem::Failed {
                message: err.to_string(),
            },
            Err(_) => ChatStreamItem::Failed {
                message: "the agent's turn was aborted".into(),
            },
        }
    });
    Ok(ByteStream::new(events.chain(end).map(stream_line)))
}

/// Follows the session's turn under way, wherever it runs, in [`stream_chat_message`]'s lines
/// (beginning with `Started`); nothing when no turn is under way.
#[server(output = Streaming, endpoint = "follow_chat_turn")]
pub async fn follow_chat_turn(app: String, session_id: String) -> Result<ByteStream, ServerFnError> {
    use crate::service::turn_following::{follow_turn, Followed};
    use futures::StreamExt;
    let followed = follow_turn(&services(), &app, BROWSER_USER, &session_id)
        .await
        .map_err(server_error)?;
    let items = followed.map(|followed| match followed {
        Followed::Started { user_message } => ChatStreamItem::Started { user_message },
        Followed::Event(event) => ChatStreamItem::Event { event },
        Followed::Recorded(turn) => ChatStreamItem::Done { turn },
        Followed::Lost(message) => ChatStreamItem::Failed { message },
    });
    Ok(ByteStream::new(items.map(stream_line)))
}

#[cfg(feature = "ssr")]
fn stream_line(item: ChatStreamItem) -> Result<String, ServerFnError> {
    let mut line = serde_json::to_string(&item).expect("chat stream items serialize");
    line.push('\n');
    Ok(line)
}

/// Stops the session's running turn, wherever it runs, keeping what the agent did so far.
/// False if none ran.
#[server(endpoint = "stop_chat_turn")]
pub async fn stop_chat_turn(session_id: String) -> Result<bool, ServerFnError> {
    require(Role::Editor)?;
    turns::stop_turn(&services(), &session_id)
        .await
        .map_err(server_error)
}

/// Splits a byte stream into lines; a line may arrive in pieces, cut anywhere (even inside a
/// UTF-8 character).
#[derive(Debug, Default)]
pub struct LineBuffer {
    pending: Vec<u8>,
}

impl LineBuffer {
    /// The lines `bytes` completes, without their newlines.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<String> {
        self.pending.extend_from_slice(bytes);
        let mut lines = Vec::new();
        while let Some(end) = self.pending.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.pending.drain(..=end).collect();
            lines.push(String::from_utf8_lossy(&line[..end]).into_owned());
        }
        lines
    }
}

#[server]
pub async fn rename_chat_session(
    app: String,
    session_id: String,
    title: String,
) -> Result<(), ServerFnError> {
    require(Role::Editor)?;
    sessions::rename_session(&services().store, &app, BROWSER_USER, &session_id, &title)
        .await
        .map_err(server_error)
}

#[server]
pub async fn delete_chat_session(app: String, session_id: String) -> Result<(), ServerFnError> {
    require(Role::Editor)?;
    sessions::delete_session(&services().store, &app, BROWSER_USER, &session_id)
        .await
        .map_err(server_error)
}

/// What "Add current session" gets back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum AddSessionOutcome {
    Added(Box<StoredCase>),
    /// The eval id is taken in that evalset; the user may overwrite it.
    Exists {
        eval_id: String,
    },
}

/// Saves the session as an eval case, creating the evalset first when `create_eval_set`.
#[server]
pub async fn add_chat_session_to_eval_set(
    app: String,
    eval_set_id: String,
    create_eval_set: bool,
    eval_id: String,
    session_id: String,
    overwrite: bool,
) -> Result<AddSessionOutcome, ServerFnError> {
    require(Role::Editor)?;
    use add_session::{add_session_to_eval_set, AddSession, AddSessionError};
    let added = add_session_to_eval_set(
        &services().store,
        AddSession {
            app: &app,
            eval_set_id: &eval_set_id,
            eval_id: &eval_id,
            user: BROWSER_USER,
            session_id: &session_id,
            overwrite,
            create_eval_set,
        },
    )
    .await;
    match added {
        Ok(stored) => Ok(AddSessionOutcome::Added(Box::new(stored))),
        Err(AddSessionError::EvalIdTaken { eval_id, .. }) => Ok(AddSessionOutcome::Exists { eval_id }),
        Err(err) => Err(server_error(err)),
    }
}

/// An eval id from a first message: lowercase words joined by `_`, at most 48 characters.
pub fn suggested_eval_id(first_message: &str) -> String {
    let mut id = String::new();
    for word in first_message
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        if id.len() + word.len() + 1 > 48 {
            break;
        }
        if !id.is_empty() {
            id.push('_');
        }
        id.push_str(&word.to_lowercase());
    }
    if id.is_empty() {
        "session".to_string()
    } else {
        id
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eval_ids_come_from_the_first_message() {
        assert_eq!(
            suggested_eval_id("Weather in Paris, and 20 EUR in USD?"),
            "weather_in_paris_and_20_eur_in_usd"
        );
        assert_eq!(suggested_eval_id("¿Qué tal? 天气"), "qué_tal_天气");
        assert_eq!(suggested_eval_id("!!!"), "session");
        assert!(suggested_eval_id(&"word ".repeat(40)).len() <= 48);
    }

    #[test]
    fn lines_are_rebuilt_from_arbitrary_pieces() {
        let text = "{\"a\":\"天气 🌍\"}\n{\"b\":1}\n";
        let bytes = text.as_bytes();
        for cut in 1..bytes.len() {
            let mut buffer = LineBuffer::default();
            let mut lines = buffer.push(&bytes[..cut]);
            lines.extend(buffer.push(&bytes[cut..]));
            assert_eq!(lines, ["{\"a\":\"天气 🌍\"}", "{\"b\":1}"], "cut at {cut}");
        }
    }
}

/// An agent profile as the browser may see it: never the key, only whether its variable is set;
/// its `base_url` without userinfo, query or fragment (`redact::redacted_url`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProfileView {
    pub name: String,
    pub kind: String,
    pub model: Option<String>,
    pub base_url: Option<String>,
    pub api_key_env: Option<String>,
    pub api_key_set: bool,
    pub system_prompt: Option<String>,
    /// The built-in tools its model is offered (none for `adk`: those live on its server).
    pub tools: Vec<String>,
    /// The MCP servers whose tools its model is offered too.
    pub mcp_servers: Vec<String>,
    /// For an `adk` profile: the api_server's app it runs.
    pub adk_app: Option<String>,
    /// For `openai`: whether answers stream, and the first reply's tool_choice if set.
    pub stream: bool,
    pub tool_choice: Option<String>,
    /// What talking to its model server found out (features it lacks and the fallback).
    pub detected: Vec<String>,
}

#[server]
pub async fn list_agent_profiles() -> Result<Vec<ProfileView>, ServerFnError> {
    let services = services();
    Ok(services
        .profiles
        .iter()
        .map(|p| ProfileView {
            name: p.name.clone(),
            kind: format!("{:?}", p.kind).to_lowercase(),
            model: p.model.clone(),
            base_url: p.base_url.as_deref().map(crate::redact::redacted_url),
            api_key_env: p.api_key_env.clone(),
            api_key_set: p
                .api_key_env
                .as_deref()
                .is_some_and(|var| std::env::var_os(var).is_some_and(|v| !v.is_empty())),
            system_prompt: p.system_prompt.clone(),
            tools: p.tool_names(),
            mcp_servers: p.mcp_servers.clone(),
            stream: p.stream.unwrap_or(true),
            tool_choice: p.tool_choice.clone(),
            detected: services
                .profiles
                .agent(&p.name)
                .map(|agent| agent.detected())
                .unwrap_or_default(),
            adk_app: (p.kind == crate::agent::AgentKind::Adk)
                .then(|| p.adk_app.clone().unwrap_or_else(|| p.name.clone())),
        })
        .collect())
}
