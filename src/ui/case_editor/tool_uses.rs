//! A turn's steps in the tool_uses form: the expected tool calls (reordered by drag or
//! Alt+↑/↓), the tool responses and the intermediate responses.

use super::drag::Dragging;
use super::fields::{field, move_keys, row_buttons, Editing, FieldKind};
use crate::draft::{
    item_field, move_item, move_to, remove_item, CallDraft, CaseDraft, Key, ResponseDraft, Steps, TextDraft,
};
use leptos::prelude::*;

/// The turn's three lists, for a change to one of them.
fn with_lists(
    draft: &mut CaseDraft,
    turn: Key,
    change: impl FnOnce(&mut Vec<CallDraft>, &mut Vec<ResponseDraft>, &mut Vec<TextDraft>),
) {
    if let Some(Steps::ToolUses {
        calls,
        responses,
        texts,
    }) = draft.turn_mut(turn).map(|t| &mut t.steps)
    {
        change(calls, responses, texts);
    }
}

fn list_keys<T>(
    editing: Editing,
    turn: Key,
    pick: impl Fn(&Steps) -> Option<Vec<T>> + Copy + Send + Sync + 'static,
) -> impl Fn() -> Vec<T> + Copy + Send + Sync + 'static {
    move || {
        editing
            .draft
            .with(|d| d.turn(turn).and_then(|t| pick(&t.steps)))
            .unwrap_or_default()
    }
}

#[component]
pub fn ToolUsesEditor(editing: Editing, turn: Key) -> impl IntoView {
    let calls = list_keys(editing, turn, |steps| match steps {
        Steps::ToolUses { calls, .. } => Some(calls.iter().map(|c| c.key).collect::<Vec<_>>()),
        Steps::Events(_) => None,
    });
    let responses = list_keys(editing, turn, |steps| match steps {
        Steps::ToolUses { responses, .. } => Some(responses.iter().map(|r| r.key).collect::<Vec<_>>()),
        Steps::Events(_) => None,
    });
    let texts = list_keys(editing, turn, |steps| match steps {
        Steps::ToolUses { texts, .. } => Some(texts.iter().map(|t| t.key).collect::<Vec<_>>()),
        Steps::Events(_) => None,
    });
    let dragged = Dragging::new();
    let add_call = move |_| {
        editing.draft.update(|d| {
            let key = d.new_key();
            with_lists(d, turn, |calls, _, _| calls.push(CallDraft::new(key)));
        })
    };
    let add_response = move |_| {
        editing.draft.update(|d| {
            let key = d.new_key();
            with_lists(d, turn, |_, responses, _| responses.push(ResponseDraft::new(key)));
        })
    };
    let add_text = move |_| {
        editing.draft.update(|d| {
            let key = d.new_key();
            let author = d.turn(turn).map(|t| t.last_author()).unwrap_or_default();
            with_lists(d, turn, |_, _, texts| texts.push(TextDraft::new(key, author)));
        })
    };
    view! {
        <section class="steps">
            <h3>"Expected tool calls"</h3>
            <Show when=move || calls().is_empty()>
                <p class="muted">"No tool calls: the agent is expected to answer directly."</p>
            </Show>
            <ol class="call-list">
                <For each=calls key=|key| *key let:call>
                    <CallRow editing turn call dragged />
                </For>
            </ol>
            <button type="button" on:click=add_call>"Add tool call"</button>
        </section>
        <details class="steps">
            <summary>
                "Tool responses (" {move || responses().len()} ") and intermediate responses ("
                {move || texts().len()} ")"
            </summary>
            <ol class="call-list">
                <For each=responses key=|key| *key let:response>
                    <ResponseRow editing turn response />
                </For>
            </ol>
            <button type="button" on:click=add_response>"Add tool response"</button>
            <ol class="call-list">
                <For each=texts key=|key| *key let:text>
                    <TextRow editing turn text />
                </For>
            </ol>
            <button type="button" on:click=add_text>"Add intermediate response"</button>
        </details>
    }
}

#[component]
fn CallRow(editing: Editing, turn: Key, call: Key, dragged: Dragging) -> impl IntoView {
    let on_move = move |delta: isize| {
        editing.draft.update(|d| {
            with_lists(d, turn, |calls, _, _| {
                move_item(calls, call, delta);
            })
        })
    };
    let on_duplicate = Callback::new(move |()| editing.draft.update(|d| d.duplicate_call(turn, call)));
    let on_remove = move || {
        editing
            .draft
            .update(|d| with_lists(d, turn, |calls, _, _| remove_item(calls, call)))
    };
    let number = move || {
        editing
            .draft
            .with(|d| {
                d.turn(turn)
                    .and_then(|t| t.calls().iter().position(|c| c.key == call))
            })
            .map(|i| i + 1)
            .unwrap_or_default()
    };
    let name = move || {
        editing
            .draft
            .with(|d| d.turn(turn).and_then(|t| t.call(call)).map(|c| c.name.clone()))
            .unwrap_or_default()
    };
    let on_drop = move |ev: leptos::ev::DragEvent| {
        dragged.drop(&ev, |from| {
            editing.draft.update(|d| {
                with_lists(d, turn, |calls, _, _| {
                    move_to(calls, from, call);
                })
            })
        })
    };
    view! {
        <li
            class="call-row"
            class:dragging=move || dragged.is(call)
            data-call=call
            on:keydown=move_keys(on_move)
            on:dragover=move |ev| dragged.allow(&ev)
            on:drop=on_drop
        >
            <div class="row-head">
                {dragged.handle(call)}
                <span class="row-title">"Call " {number} " " <span class="mono">{name}</span></span>
                {row_buttons("call", on_move, Some(on_duplicate), on_remove)}
            </div>
            {field(
                editing,
                item_field(call, "name"),
                "Tool name".into(),
                FieldKind::ToolName,
                move |d| d.turn(turn)?.call(call).map(|c| c.name.clone()),
                move |d, v| {
                    if let Some(c) = d.turn_mut(turn).and_then(|t| t.call_mut(call)) {
                        c.name = v;
                    }
                },
            )}
            {field(
                editing,
                item_field(call, "args"),
                "Args (JSON object)".into(),
                FieldKind::Json,
                move |d| d.turn(turn)?.call(call).map(|c| c.args.clone()),
                move |d, v| {
                    if let Some(c) = d.turn_mut(turn).and_then(|t| t.call_mut(call)) {
                        c.args = v;
                    }
                },
            )}
        </li>
    }
}

#[component]
fn ResponseRow(editing: Editing, turn: Key, response: Key) -> impl IntoView {
    let on_move = move |delta: isize| {
        editing.draft.update(|d| {
            with_lists(d, turn, |_, responses, _| {
                move_item(responses, response, delta);
            })
        })
    };
    let on_remove = move || {
        editing
            .draft
            .update(|d| with_lists(d, turn, |_, responses, _| remove_item(responses, response)))
    };
    let get =
        move |d: &CaseDraft, pick: fn(&ResponseDraft) -> String| d.turn(turn)?.response(response).map(pick);
    view! {
        <li
            class="call-row"
            on:keydown=move_keys(on_move)
        >
            <div class="row-head">
                <span class="row-title">"Tool response"</span>
                {row_buttons("response", on_move, None, on_remove)}
            </div>
            {field(
                editing,
                item_field(response, "name"),
                "Tool name".into(),
                FieldKind::ToolName,
                move |d| get(d, |r| r.name.clone()),
                move |d, v| {
                    if let Some(r) = d.turn_mut(turn).and_then(|t| t.response_mut(response)) {
                        r.name = v;
                    }
                },
            )}
            {field(
                editing,
                item_field(response, "response"),
                "Response (JSON object; empty for none)".into(),
                FieldKind::Json,
                move |d| get(d, |r| r.response.clone()),
                move |d, v| {
                    if let Some(r) = d.turn_mut(turn).and_then(|t| t.response_mut(response)) {
                        r.response = v;
                    }
                },
            )}
        </li>
    }
}

#[component]
fn TextRow(editing: Editing, turn: Key, text: Key) -> impl IntoView {
    let on_move = move |delta: isize| {
        editing.draft.update(|d| {
            with_lists(d, turn, |_, _, texts| {
                move_item(texts, text, delta);
            })
        })
    };
    let on_remove = move || {
        editing
            .draft
            .update(|d| with_lists(d, turn, |_, _, texts| remove_item(texts, text)))
    };
    let get = move |d: &CaseDraft, pick: fn(&TextDraft) -> String| match &d.turn(turn)?.steps {
        Steps::ToolUses { texts, .. } => texts.iter().find(|t| t.key == text).map(pick),
        Steps::Events(_) => None,
    };
    let set = move |d: &mut CaseDraft, write: &dyn Fn(&mut TextDraft)| {
        with_lists(d, turn, |_, _, texts| {
            if let Some(t) = texts.iter_mut().find(|t| t.key == text) {
                write(t);
            }
        })
    };
    view! {
        <li class="call-row">
            <div class="row-head">
                <span class="row-title">"Intermediate response"</span>
                {row_buttons("response", on_move, None, on_remove)}
            </div>
            {field(
                editing,
                item_field(text, "author"),
                "Author".into(),
                FieldKind::Line,
                move |d| get(d, |t| t.author.clone()),
                move |d, v| set(d, &|t| t.author = v.clone()),
            )}
            {field(
                editing,
                item_field(text, "text"),
                "Text".into(),
                FieldKind::Text,
                move |d| get(d, |t| t.text.clone()),
                move |d, v| set(d, &|t| t.text = v.clone()),
            )}
        </li>
    }
}
