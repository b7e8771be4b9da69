//! A turn's steps in the invocation_events form: each event's author and parts (tool calls,
//! tool responses, text), reordered with Alt+↑/↓. Parts the editor does not edit are listed
//! and kept as they are.

use super::drag::Dragging;
use super::fields::{field, move_keys, row_buttons, Editing, FieldKind};
use crate::draft::{
    item_field, move_item, move_to, remove_item, CallDraft, CaseDraft, EventDraft, Key, PartDraft,
    ResponseDraft, Steps,
};
use leptos::prelude::*;

fn with_events(draft: &mut CaseDraft, turn: Key, change: impl FnOnce(&mut Vec<EventDraft>)) {
    if let Some(Steps::Events(events)) = draft.turn_mut(turn).map(|t| &mut t.steps) {
        change(events);
    }
}

fn event(draft: &CaseDraft, turn: Key, key: Key) -> Option<&EventDraft> {
    match &draft.turn(turn)?.steps {
        Steps::Events(events) => events.iter().find(|e| e.key == key),
        Steps::ToolUses { .. } => None,
    }
}

/// What a new event holds.
#[derive(Clone, Copy)]
enum NewPart {
    Call,
    Response,
    Text,
}

#[component]
pub fn EventsEditor(editing: Editing, turn: Key) -> impl IntoView {
    let events = move || {
        editing.draft.with(|d| match d.turn(turn).map(|t| &t.steps) {
            Some(Steps::Events(events)) => events.iter().map(|e| e.key).collect::<Vec<_>>(),
            _ => Vec::new(),
        })
    };
    let dragged = Dragging::new();
    let add = move |what: NewPart| {
        editing.draft.update(|d| {
            let (part_key, event_key) = (d.new_key(), d.new_key());
            let author = d.turn(turn).map(|t| t.last_author()).unwrap_or_default();
            let part = match what {
                NewPart::Call => PartDraft::Call(CallDraft::new(part_key)),
                NewPart::Response => PartDraft::Response(ResponseDraft::new(part_key)),
                NewPart::Text => PartDraft::Text {
                    key: part_key,
                    base: Default::default(),
                    text: String::new(),
                },
            };
            with_events(d, turn, |events| {
                events.push(EventDraft::new(event_key, author, part))
            });
        })
    };
    view! {
        <section class="steps">
            <h3>"Expected events"</h3>
            <p class="muted">"Tool calls, their responses and the agents' text, in order (ADK's invocation_events)."</p>
            <Show when=move || events().is_empty()>
                <p class="muted">"No events: the agent is expected to answer directly."</p>
            </Show>
            <ol class="call-list">
                <For each=events key=|key| *key let:event>
                    <EventRow editing turn event dragged />
                </For>
            </ol>
            <div class="button-row">
                <button type="button" on:click=move |_| add(NewPart::Call)>"Add tool call"</button>
                <button type="button" on:click=move |_| add(NewPart::Response)>"Add tool response"</button>
                <button type="button" on:click=move |_| add(NewPart::Text)>"Add text"</button>
            </div>
        </section>
    }
}

#[component]
fn EventRow(editing: Editing, turn: Key, event: Key, dragged: Dragging) -> impl IntoView {
    let on_move = move |delta: isize| {
        editing.draft.update(|d| {
            with_events(d, turn, |events| {
                move_item(events, event, delta);
            })
        })
    };
    let on_remove = move || {
        editing
            .draft
            .update(|d| with_events(d, turn, |events| remove_item(events, event)))
    };
    // The parts do not change shape while the event is shown (only their text does).
    let parts = editing
        .draft
        .with_untracked(|d| super::events::event(d, turn, event).map(|e| e.parts.clone()))
        .unwrap_or_default();
    let on_drop = move |ev: leptos::ev::DragEvent| {
        dragged.drop(&ev, |from| {
            editing.draft.update(|d| {
                with_events(d, turn, |events| {
                    move_to(events, from, event);
                })
            })
        })
    };
    view! {
        <li
            class="call-row"
            class:dragging=move || dragged.is(event)
            on:keydown=move_keys(on_move)
            on:dragover=move |ev| dragged.allow(&ev)
            on:drop=on_drop
        >
            <div class="row-head">
                {dragged.handle(event)}
                <span class="row-title">"Event"</span>
                {row_buttons("event", on_move, None, on_remove)}
            </div>
            {field(
                editing,
                item_field(event, "author"),
                "Author".into(),
                FieldKind::Line,
                move |d| super::events::event(d, turn, event).map(|e| e.author.clone()),
                move |d, v| {
                    with_events(d, turn, |events| {
                        if let Some(e) = events.iter_mut().find(|e| e.key == event) {
                            e.author = v;
                        }
                    })
                },
            )}
            {parts.into_iter().map(|part| part_fields(editing, turn, part)).collect_view()}
        </li>
    }
}

fn part_fields(editing: Editing, turn: Key, part: PartDraft) -> AnyView {
    match part {
        PartDraft::Call(call) => {
            let key = call.key;
            view! {
                {field(
                    editing,
                    item_field(key, "name"),
                    "Tool call: name".into(),
                    FieldKind::ToolName,
                    move |d| d.turn(turn)?.call(key).map(|c| c.name.clone()),
                    move |d, v| {
                        if let Some(c) = d.turn_mut(turn).and_then(|t| t.call_mut(key)) {
                            c.name = v;
                        }
                    },
                )}
                {field(
                    editing,
                    item_field(key, "args"),
                    "Args (JSON object)".into(),
                    FieldKind::Json,
                    move |d| d.turn(turn)?.call(key).map(|c| c.args.clone()),
                    move |d, v| {
                        if let Some(c) = d.turn_mut(turn).and_then(|t| t.call_mut(key)) {
                            c.args = v;
                        }
                    },
                )}
            }
            .into_any()
        }
        PartDraft::Response(response) => {
            let key = response.key;
            let read = move |d: &CaseDraft, pick: fn(&ResponseDraft) -> String| {
                d.turn(turn)?.response(key).map(pick)
            };
            view! {
                {field(
                    editing,
                    item_field(key, "name"),
                    "Tool response: name".into(),
                    FieldKind::ToolName,
                    move |d| read(d, |r| r.name.clone()),
                    move |d, v| {
                        if let Some(r) = d.turn_mut(turn).and_then(|t| t.response_mut(key)) {
                            r.name = v;
                        }
                    },
                )}
                {field(
                    editing,
                    item_field(key, "response"),
                    "Response (JSON object; empty for none)".into(),
                    FieldKind::Json,
                    move |d| read(d, |r| r.response.clone()),
                    move |d, v| {
                        if let Some(r) = d.turn_mut(turn).and_then(|t| t.response_mut(key)) {
                            r.response = v;
                        }
                    },
                )}
            }
            .into_any()
        }
        PartDraft::Text { key, .. } => field(
            editing,
            item_field(key, "text"),
            "Text".into(),
            FieldKind::Text,
            move |d| d.turn(turn)?.text(key).map(str::to_string),
            move |d, v| {
                if let Some(t) = d.turn_mut(turn).and_then(|t| t.text_mut(key)) {
                    *t = v;
                }
            },
        )
        .into_any(),
        PartDraft::Kept { base, .. } => {
            let kind = serde_json::to_value(&base)
                .ok()
                .and_then(|v| {
                    v.as_object()
                        .map(|m| m.keys().cloned().collect::<Vec<_>>().join(", "))
                })
                .unwrap_or_default();
            view! { <p class="muted kept-part">"Kept as it is: " <span class="mono">{kind}</span></p> }
                .into_any()
        }
    }
}
