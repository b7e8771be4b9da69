//! The conversation: the session's recorded turns, those answered since it loaded, and the
//! turn being answered now.

use super::live_turn::LiveTurn;
use super::turn_items::TurnItems;
use crate::agent::AgentEvent;
use crate::records::sessions::{SessionRecord, SessionTurn};
use leptos::prelude::*;

#[component]
pub(super) fn Transcript(
    record: Option<SessionRecord>,
    new_turns: RwSignal<Vec<SessionTurn>>,
    live: RwSignal<Option<LiveTurn>>,
) -> impl IntoView {
    let loaded = record.map(|r| r.turns).unwrap_or_default();
    let empty = loaded.is_empty();
    view! {
        <div class="transcript" aria-live="polite">
            {(empty)
                .then(|| {
                    view! {
                        <div class="chat-empty muted" class:hidden=move || !new_turns.read().is_empty() || live.read().is_some()>
                            <p>"Ask the demo agent something, for example:"</p>
                            <ul>
                                <li>"What's the weather in Paris, and 20 EUR in USD?"</li>
                                <li>"Where is my order A1003?"</li>
                                <li>"How do I reset my password?"</li>
                            </ul>
                        </div>
                    }
                })}
            {loaded.into_iter().map(|turn| view! { <TurnView turn /> }).collect_view()}
            {move || new_turns.get().into_iter().map(|turn| view! { <TurnView turn /> }).collect_view()}
            {move || {
                live.get()
                    .map(|turn| {
                        let working = !turn.events.iter().any(|e| matches!(e, AgentEvent::TextDelta { .. }));
                        view! {
                            <div class="turn-block live">
                                <div class="bubble bubble-user">{turn.user_message.clone()}</div>
                                <TurnItems events=turn.events live=true />
                                {working.then(|| view! { <p class="thinking muted" role="status">"The agent is working…"</p> })}
                            </div>
                        }
                    })
            }}
        </div>
    }
}

/// A recorded turn: the user's message, what the agent did, its latency and tokens.
#[component]
fn TurnView(turn: SessionTurn) -> impl IntoView {
    let (prompt_tokens, completion_tokens) = turn.token_usage();
    let tokens = if prompt_tokens + completion_tokens > 0 {
        format!(" · {prompt_tokens} + {completion_tokens} tokens")
    } else {
        String::new()
    };
    view! {
        <div class="turn-block">
            <div class="bubble bubble-user">{turn.user_message.clone()}</div>
            <TurnItems events=turn.events.clone() />
            <p class="turn-meta muted small">{format!("{} ms{tokens}", turn.latency_ms)}</p>
        </div>
    }
}
