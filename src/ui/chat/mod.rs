//! The chat page (`/chat?app=&session=`) and its parts, one file each.

mod add_session_panel;
mod agent_picker;
mod composer;
mod follow_latest;
mod live_turn;
mod page;
mod session_list;
mod session_title;
mod tool_card;
mod transcript;
mod turn_items;

pub use page::ChatPage;
pub(crate) use turn_items::TurnItems;

/// Link to the chat with an app's agent: a session of it, or a new one.
fn chat_href(app: &str, session_id: Option<&str>) -> String {
    match session_id {
        Some(id) => format!("/chat?app={app}&session={}", super::encode_query_value(id)),
        None => format!("/chat?app={app}"),
    }
}
