//! The editor itself: the draft, its problems and unsaved state, Save (and Ctrl/Cmd+S) with
//! the version the case was opened at, and what a save found.

use super::case_fields::{IdAndTags, ScenarioFields, SessionFields};
use super::conflict::ConflictPanel;
use super::fields::{Editing, TOOL_NAMES_LIST};
use super::rubrics::RubricList;
use super::turns::TurnList;
use crate::api::cases::{SaveCase, SaveOutcome};
use crate::draft::CaseDraft;
use crate::evalset::EvalCase;
use crate::records::StoredCase;
use crate::ui::{browser, case_href, edit_href, error_text, ErrorNote};
use leptos::prelude::*;

#[component]
pub fn Editor(stored: StoredCase, tools: Vec<String>) -> impl IntoView {
    let app = StoredValue::new(stored.app_name.clone());
    let set = StoredValue::new(stored.eval_set_id.clone());
    // The id the case is stored under: a saved rename changes it.
    let opened_id = RwSignal::new(stored.case.eval_id.clone());
    let opened = CaseDraft::from_case(&stored.case);
    let draft = RwSignal::new(opened.clone());
    // The draft as last saved (or opened): the page has unsaved changes when they differ.
    let saved = RwSignal::new(opened);
    let version = RwSignal::new(stored.version);
    let problems = Memo::new(move |_| draft.with(CaseDraft::problems));
    let dirty = Memo::new(move |_| draft.with(|d| saved.with(|s| d != s)));
    let editing = Editing { draft, problems };
    browser::guard_leaving(dirty, "This case has unsaved changes. Leave without saving?");

    let save = ServerAction::<SaveCase>::new();
    // What the pending save sent, which becomes the saved state when it succeeds.
    let sent = StoredValue::new(None::<(CaseDraft, EvalCase)>);
    let conflict = RwSignal::new(None::<(StoredCase, EvalCase)>);
    let saved_version = RwSignal::new(None::<i64>);
    let send = move |at_version: i64| {
        let Ok(case) = draft.with_untracked(CaseDraft::build) else {
            return;
        };
        sent.set_value(Some((draft.get_untracked(), case.clone())));
        save.dispatch(SaveCase {
            app: app.get_value(),
            eval_set_id: set.get_value(),
            eval_id: opened_id.get_untracked(),
            case,
            version: at_version,
        });
    };
    let can_save = move || dirty.get() && problems.with(Vec::is_empty) && !save.pending().get();
    Effect::new(move |_| match save.value().get() {
        Some(Ok(SaveOutcome::Saved {
            eval_id,
            version: new,
        })) => {
            if let Some((sent_draft, _)) = sent.try_update_value(Option::take).flatten() {
                saved.set(sent_draft);
            }
            version.set(new);
            saved_version.set(Some(new));
            conflict.set(None);
            if eval_id != opened_id.get_untracked() {
                // Renamed: the address follows the case, without the router reading it again
                // (which would drop what was typed since the save).
                browser::replace_address(&edit_href(&app.get_value(), &set.get_value(), &eval_id));
                opened_id.set(eval_id);
            }
        }
        Some(Ok(SaveOutcome::Changed(stored))) => {
            let mine = sent.with_value(|s| s.as_ref().map(|(_, case)| case.clone()));
            if let Some(mine) = mine {
                conflict.set(Some((*stored, mine)));
            }
        }
        _ => {}
    });
    let on_save = move || {
        if !problems.with_untracked(Vec::is_empty) {
            // Saving is refused until these are fixed: show them, wherever the user is.
            browser::reveal(".problems");
        } else if dirty.get_untracked() && !save.pending().get_untracked() {
            send(version.get_untracked());
        }
    };
    let keys = window_event_listener(leptos::ev::keydown, move |ev| {
        if (ev.ctrl_key() || ev.meta_key()) && ev.key().eq_ignore_ascii_case("s") {
            ev.prevent_default();
            on_save();
        }
    });
    on_cleanup(move || keys.remove());

    let on_reload = Callback::new(move |()| {
        if let Some((stored, _)) = conflict.get_untracked() {
            let fresh = CaseDraft::from_case_after(&stored.case, draft.with_untracked(|d| d.next_key));
            draft.set(fresh.clone());
            saved.set(fresh);
            version.set(stored.version);
            saved_version.set(None);
            conflict.set(None);
        }
    });
    let on_overwrite = Callback::new(move |()| {
        if let Some((stored, _)) = conflict.get_untracked() {
            send(stored.version);
        }
    });
    let state = move || {
        if save.pending().get() {
            "Saving…".to_string()
        } else if conflict.with(Option::is_some) {
            "Not saved: the case changed since you opened it".into()
        } else if dirty.get() {
            "Unsaved changes".into()
        } else if let Some(v) = saved_version.get() {
            format!("Saved · version {v}")
        } else {
            "No changes".into()
        }
    };
    // Recomputed when a tool name changes, not on every keystroke elsewhere.
    let draft_tools = Memo::new(move |_| draft.with(CaseDraft::tool_names));
    let suggestions = move || {
        let mut names = tools.clone();
        names.extend(draft_tools.get());
        names.sort();
        names.dedup();
        names
            .into_iter()
            .map(|name| view! { <option value=name></option> })
            .collect_view()
    };
    let close_href = move || case_href(&app.get_value(), &set.get_value(), &opened_id.get());
    view! {
        <div class="editor-toolbar">
            <div>
                <h1>"Edit " <span class="mono">{move || opened_id.get()}</span></h1>
                <p class="muted">"Version " {move || version.get()}</p>
            </div>
            <div class="toolbar-actions">
                <span class="save-state" class:unsaved=move || dirty.get() role="status" aria-live="polite">
                    {state}
                </span>
                <a class="button" href=close_href>"Close"</a>
                <button
                    type="button"
                    class="primary"
                    title="Save (Ctrl+S)"
                    disabled=move || !can_save()
                    on:click=move |_| on_save()
                >
                    "Save"
                </button>
            </div>
        </div>
        {move || {
            save.value()
                .get()
                .and_then(Result::err)
                .map(|err| view! { <ErrorNote message=format!("Not saved: {}", error_text(&err)) /> })
        }}
        {move || {
            let problems = problems.get();
            (!problems.is_empty())
                .then(|| {
                    view! {
                        <div class="note note-error problems" role="alert" tabindex="-1">
                            <p>
                                {format!(
                                    "Fix {} before saving:",
                                    if problems.len() == 1 { "this".to_string() } else { format!("these {}", problems.len()) },
                                )}
                            </p>
                            <ul>
                                {problems
                                    .into_iter()
                                    .map(|p| view! { <li>{p.place} ": " {p.message}</li> })
                                    .collect_view()}
                            </ul>
                        </div>
                    }
                })
        }}
        {move || {
            conflict
                .get()
                .map(|(stored, mine)| {
                    view! {
                        <ConflictPanel
                            stored
                            mine
                            opened_version=version.get_untracked()
                            on_reload
                            on_overwrite
                            pending=save.pending().into()
                        />
                    }
                })
        }}
        <datalist id=TOOL_NAMES_LIST>{suggestions}</datalist>
        <IdAndTags editing />
        <SessionFields editing app=app.get_value() />
        <ScenarioFields editing />
        <TurnList editing />
        <section class="card editor-section">
            <RubricList editing owner=None />
        </section>
    }
}
