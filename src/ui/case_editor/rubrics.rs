//! Rubrics, the case's or one turn's: ADK's rubric_id, its text property and optional type.

use super::fields::{field, move_keys, row_buttons, Editing, FieldKind};
use crate::draft::{item_field, move_item, remove_item, CaseDraft, Key, RubricDraft};
use leptos::prelude::*;

/// Whose rubrics: the case's (None) or one turn's.
fn rubrics(draft: &CaseDraft, owner: Option<Key>) -> Option<&Vec<RubricDraft>> {
    match owner {
        None => Some(&draft.rubrics),
        Some(turn) => draft.turn(turn).map(|t| &t.rubrics),
    }
}

fn rubrics_mut(draft: &mut CaseDraft, owner: Option<Key>) -> Option<&mut Vec<RubricDraft>> {
    match owner {
        None => Some(&mut draft.rubrics),
        Some(turn) => draft.turn_mut(turn).map(|t| &mut t.rubrics),
    }
}

#[component]
pub fn RubricList(editing: Editing, owner: Option<Key>) -> impl IntoView {
    let keys = move || {
        editing
            .draft
            .with(|d| rubrics(d, owner).map(|list| list.iter().map(|r| r.key).collect::<Vec<_>>()))
            .unwrap_or_default()
    };
    let add = move |_| {
        editing.draft.update(|d| {
            let key = d.new_key();
            if let Some(list) = rubrics_mut(d, owner) {
                let id = format!("rubric_{}", list.len() + 1);
                list.push(RubricDraft::new(key, id));
            }
        })
    };
    let title = if owner.is_some() {
        "Turn rubrics"
    } else {
        "Case rubrics"
    };
    view! {
        <section class="rubrics">
            <h3>{title}</h3>
            <Show when=move || keys().is_empty()>
                <p class="muted">"None. A rubric is a yes/no property a judge checks the response against."</p>
            </Show>
            <ol class="call-list">
                <For each=keys key=|key| *key let:rubric>
                    <RubricRow editing owner rubric />
                </For>
            </ol>
            <button type="button" on:click=add>"Add rubric"</button>
        </section>
    }
}

#[component]
fn RubricRow(editing: Editing, owner: Option<Key>, rubric: Key) -> impl IntoView {
    let on_move = move |delta: isize| {
        editing.draft.update(|d| {
            if let Some(list) = rubrics_mut(d, owner) {
                move_item(list, rubric, delta);
            }
        })
    };
    let on_remove = move || {
        editing.draft.update(|d| {
            if let Some(list) = rubrics_mut(d, owner) {
                remove_item(list, rubric);
            }
        })
    };
    let get = move |d: &CaseDraft, pick: fn(&RubricDraft) -> String| {
        rubrics(d, owner)?.iter().find(|r| r.key == rubric).map(pick)
    };
    let set = move |d: &mut CaseDraft, write: &dyn Fn(&mut RubricDraft)| {
        if let Some(r) = rubrics_mut(d, owner).and_then(|list| list.iter_mut().find(|r| r.key == rubric)) {
            write(r);
        }
    };
    view! {
        <li
            class="call-row"
            on:keydown=move_keys(on_move)
        >
            <div class="row-head">
                <span class="row-title">"Rubric"</span>
                {row_buttons("rubric", on_move, None, on_remove)}
            </div>
            <div class="field-pair">
                {field(
                    editing,
                    item_field(rubric, "id"),
                    "rubric_id".into(),
                    FieldKind::Line,
                    move |d| get(d, |r| r.id.clone()),
                    move |d, v| set(d, &|r| r.id = v.clone()),
                )}
                {field(
                    editing,
                    item_field(rubric, "kind"),
                    "Type (optional)".into(),
                    FieldKind::Line,
                    move |d| get(d, |r| r.kind.clone()),
                    move |d, v| set(d, &|r| r.kind = v.clone()),
                )}
            </div>
            {field(
                editing,
                item_field(rubric, "text"),
                "Property the response must have".into(),
                FieldKind::Text,
                move |d| get(d, |r| r.text.clone()),
                move |d, v| set(d, &|r| r.text = v.clone()),
            )}
        </li>
    }
}
