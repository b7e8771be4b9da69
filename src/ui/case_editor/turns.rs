//! The turns: each one's user message, expected steps (in the form the file used), expected
//! final response and rubrics; add, duplicate, remove and reorder turns.

use super::events::EventsEditor;
use super::fields::{field, row_buttons, Editing, FieldKind};
use super::rubrics::RubricList;
use super::tool_uses::ToolUsesEditor;
use crate::draft::{item_field, move_item, remove_item, Key, Steps};
use leptos::prelude::*;

#[component]
pub fn TurnList(editing: Editing) -> impl IntoView {
    let keys = move || {
        editing
            .draft
            .with(|d| d.turns.iter().map(|t| t.key).collect::<Vec<_>>())
    };
    let scenario = move || editing.draft.with(|d| d.scenario.is_some());
    let add = move |_| {
        editing.draft.update(|d| {
            d.add_turn();
        })
    };
    view! {
        <Show when=move || !keys().is_empty() || !scenario()>
            <ol class="turns">
                <For each=keys key=|key| *key let:turn>
                    <TurnEditor editing turn />
                </For>
            </ol>
            <Show when=move || keys().is_empty()>
                <p class="muted">"No turns yet: add the first user message."</p>
            </Show>
            <button type="button" on:click=add>"Add turn"</button>
        </Show>
    }
}

#[component]
fn TurnEditor(editing: Editing, turn: Key) -> impl IntoView {
    let number = move || {
        editing
            .draft
            .with(|d| d.turns.iter().position(|t| t.key == turn))
            .map(|i| i + 1)
            .unwrap_or_default()
    };
    let on_move = move |delta: isize| {
        editing.draft.update(|d| {
            move_item(&mut d.turns, turn, delta);
        })
    };
    let on_duplicate = Callback::new(move |()| editing.draft.update(|d| d.duplicate_turn(turn)));
    let on_remove = move || editing.draft.update(|d| remove_item(&mut d.turns, turn));
    // A turn keeps the form it was opened in.
    let events = editing
        .draft
        .with_untracked(|d| d.turn(turn).map(|t| matches!(t.steps, Steps::Events(_))))
        .unwrap_or_default();
    view! {
        <li class="card turn-editor" id=format!("turn-{turn}")>
            <div class="row-head">
                <h2 class="turn-title">"Turn " {number}</h2>
                {row_buttons("turn", on_move, Some(on_duplicate), on_remove)}
            </div>
            {field(
                editing,
                item_field(turn, "user"),
                "User message".into(),
                FieldKind::Text,
                move |d| d.turn(turn).map(|t| t.user.clone()),
                move |d, v| {
                    if let Some(t) = d.turn_mut(turn) {
                        t.user = v;
                    }
                },
            )}
            {if events {
                view! { <EventsEditor editing turn /> }.into_any()
            } else {
                view! { <ToolUsesEditor editing turn /> }.into_any()
            }}
            {field(
                editing,
                item_field(turn, "final_response"),
                "Expected final response".into(),
                FieldKind::Text,
                move |d| d.turn(turn).map(|t| t.final_response.clone()),
                move |d, v| {
                    if let Some(t) = d.turn_mut(turn) {
                        t.final_response = v;
                    }
                },
            )}
            <RubricList editing owner=Some(turn) />
        </li>
    }
}
