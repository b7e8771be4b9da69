//! A turn's agent events as the transcript shows them: text, tool calls with their results,
//! sub-agent hand-overs and errors, in order.

use super::tool_card::ToolCard;
use crate::agent::{AgentEvent, STOPPED_MESSAGE};
use crate::ui::markdown::render_markdown;
use crate::ui::ErrorNote;
use leptos::prelude::*;
use serde_json::{Map, Value};

/// What a turn shows, in order: text (as markdown), tool calls with their results, errors.
#[derive(Debug, Clone, PartialEq)]
enum TurnItem {
    Text(String),
    Tool {
        name: String,
        args: Map<String, Value>,
        /// The response and how long the call took, once it has come back.
        result: Option<(Map<String, Value>, u64)>,
    },
    /// A sub-agent took over (multi-agent ADK apps).
    Author(String),
    Error(String),
}

fn turn_items(events: &[AgentEvent]) -> Vec<TurnItem> {
    let mut items = Vec::new();
    let mut text = String::new();
    let mut call_ids: Vec<(String, usize)> = Vec::new();
    let flush = |text: &mut String, items: &mut Vec<TurnItem>| {
        if !text.trim().is_empty() {
            items.push(TurnItem::Text(std::mem::take(text)));
        }
        text.clear();
    };
    for event in events {
        match event {
            AgentEvent::TextDelta { text: delta } => text.push_str(delta),
            AgentEvent::FinalResponse { text: answer } => text = answer.clone(),
            AgentEvent::ToolCall { id, name, args } => {
                flush(&mut text, &mut items);
                call_ids.push((id.clone(), items.len()));
                items.push(TurnItem::Tool {
                    name: name.clone(),
                    args: args.clone(),
                    result: None,
                });
            }
            AgentEvent::ToolResult {
                id,
                response,
                duration_ms,
                ..
            } => {
                let at = call_ids.iter().find(|(call, _)| call == id).map(|(_, at)| *at);
                if let Some(TurnItem::Tool { result, .. }) = at.and_then(|at| items.get_mut(at)) {
                    *result = Some((response.clone(), *duration_ms));
                }
            }
            AgentEvent::Author { name } => {
                flush(&mut text, &mut items);
                items.push(TurnItem::Author(name.clone()));
            }
            AgentEvent::Error { message } => {
                flush(&mut text, &mut items);
                items.push(TurnItem::Error(message.clone()));
            }
            AgentEvent::Usage { .. } | AgentEvent::ModelCall { .. } => {}
        }
    }
    flush(&mut text, &mut items);
    items
}

#[component]
pub(crate) fn TurnItems(events: Vec<AgentEvent>, #[prop(optional)] live: bool) -> impl IntoView {
    turn_items(&events)
        .into_iter()
        .map(|item| match item {
            TurnItem::Text(text) => view! {
                <div class="bubble bubble-agent markdown" inner_html=render_markdown(&text)></div>
            }
            .into_any(),
            TurnItem::Tool { name, args, result } => {
                view! { <ToolCard name args result pending=live /> }.into_any()
            }
            TurnItem::Author(name) => view! {
                <p class="author-note muted small">"→ " <span class="mono">{name}</span> " answers"</p>
            }
            .into_any(),
            TurnItem::Error(message) if message == STOPPED_MESSAGE => view! {
                <p class="note note-warning small" role="status">"Stopped. What the agent did until then is kept."</p>
            }
            .into_any(),
            TurnItem::Error(message) => {
                view! { <ErrorNote message=format!("The agent failed: {message}") /> }.into_any()
            }
        })
        .collect_view()
}
