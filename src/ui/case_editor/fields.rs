//! The editor's fields: a text box bound to one string of the draft, with the problem that
//! field has (from the draft's own check) shown under it.

use crate::draft::{CaseDraft, Problem};
use crate::ui::browser;
use leptos::prelude::*;

/// What every part of the editor reaches: the draft and its problems.
#[derive(Clone, Copy)]
pub struct Editing {
    pub draft: RwSignal<CaseDraft>,
    pub problems: Memo<Vec<Problem>>,
}

impl Editing {
    pub fn problem(&self, field: &str) -> Option<String> {
        self.problems.with(|problems| {
            problems
                .iter()
                .find(|p| p.field == field)
                .map(|p| p.message.clone())
        })
    }
}

/// The datalist of tool names the name fields suggest from.
pub const TOOL_NAMES_LIST: &str = "tool-name-suggestions";

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum FieldKind {
    /// One line of text.
    Line,
    /// A tool name, with suggestions.
    ToolName,
    /// Multi-line text.
    Text,
    /// JSON, monospace.
    Json,
}

/// The element id of a draft field (`7.args` -> `field-7-args`).
pub fn dom_id(field: &str) -> String {
    format!("field-{}", field.replace('.', "-"))
}

/// A labelled field bound to the string `get` reads and `set` writes.
pub fn field(
    editing: Editing,
    field: String,
    label: String,
    kind: FieldKind,
    get: impl Fn(&CaseDraft) -> Option<String> + Copy + Send + Sync + 'static,
    set: impl Fn(&mut CaseDraft, String) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let id = dom_id(&field);
    let error_id = format!("{id}-error");
    let value = move || editing.draft.with(|d| get(d)).unwrap_or_default();
    let on_input = move |ev| {
        let text = event_target_value(&ev);
        editing.draft.update(|d| set(d, text));
    };
    let problem = {
        let field = field.clone();
        move || editing.problem(&field)
    };
    let invalid = {
        let problem = problem.clone();
        move || if problem().is_some() { "true" } else { "false" }
    };
    let described = error_id.clone();
    let control = match kind {
        FieldKind::Line | FieldKind::ToolName => view! {
            <input
                type="text"
                id=id.clone()
                class=if kind == FieldKind::ToolName { "mono" } else { "" }
                list=(kind == FieldKind::ToolName).then_some(TOOL_NAMES_LIST)
                autocomplete="off"
                spellcheck="false"
                prop:value=value
                on:input=on_input
                aria-invalid=invalid
                aria-describedby=described
            />
        }
        .into_any(),
        FieldKind::Text | FieldKind::Json => {
            let rows = move || value().lines().count().clamp(2, 18);
            view! {
                <textarea
                    id=id.clone()
                    class=if kind == FieldKind::Json { "mono" } else { "" }
                    rows=rows
                    spellcheck=if kind == FieldKind::Json { "false" } else { "true" }
                    prop:value=value
                    on:input=on_input
                    aria-invalid=invalid
                    aria-describedby=described
                ></textarea>
            }
            .into_any()
        }
    };
    view! {
        <div class="field">
            <label for=id>{label}</label>
            {control}
            {move || {
                problem()
                    .map(|message| {
                        view! {
                            <p class="field-error" id=error_id.clone() role="alert">
                                {message}
                            </p>
                        }
                    })
            }}
        </div>
    }
}

/// A row's keydown handler: Alt+↑ / Alt+↓ move the row (−1 / +1), keeping the focus in it.
pub fn move_keys(
    on_move: impl Fn(isize) + Copy + Send + Sync + 'static,
) -> impl Fn(leptos::ev::KeyboardEvent) + Copy + 'static {
    move |ev| {
        if !ev.alt_key() {
            return;
        }
        let delta = match ev.key().as_str() {
            "ArrowUp" => -1,
            "ArrowDown" => 1,
            _ => return,
        };
        ev.prevent_default();
        browser::keeping_focus(|| on_move(delta));
    }
}

/// The small buttons of a row: up, down, duplicate (when given), remove.
pub fn row_buttons(
    what: &'static str,
    on_move: impl Fn(isize) + Copy + Send + Sync + 'static,
    on_duplicate: Option<Callback<()>>,
    on_remove: impl Fn() + Copy + Send + Sync + 'static,
) -> impl IntoView {
    view! {
        <div class="row-actions">
            <button
                type="button"
                class="icon"
                title=format!("Move {what} up (Alt+↑)")
                aria-label=format!("Move {what} up")
                on:click=move |_| browser::keeping_focus(|| on_move(-1))
            >
                "↑"
            </button>
            <button
                type="button"
                class="icon"
                title=format!("Move {what} down (Alt+↓)")
                aria-label=format!("Move {what} down")
                on:click=move |_| browser::keeping_focus(|| on_move(1))
            >
                "↓"
            </button>
            {on_duplicate
                .map(|duplicate| {
                    view! {
                        <button type="button" on:click=move |_| duplicate.run(())>
                            "Duplicate"
                        </button>
                    }
                })}
            <button type="button" class="danger-text" on:click=move |_| on_remove()>
                {format!("Remove {what}")}
            </button>
        </div>
    }
}
