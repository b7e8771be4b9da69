//! The editor itself: the toolbar (Save, and Ctrl/Cmd+S), what keeps a save from happening, a
//! conflict to settle, and the case's fields. How saving goes is `saving.rs`.

use super::case_fields::{IdAndTags, ScenarioFields, SessionFields};
use super::conflict::ConflictPanel;
use super::fields::{Editing, TOOL_NAMES_LIST};
use super::rubrics::RubricList;
use super::saving::Saving;
use super::turns::TurnList;
use crate::draft::{CaseDraft, Problem};
use crate::records::cases::StoredCase;
use crate::ui::{browser, case_href, error_text, ErrorNote};
use leptos::prelude::*;

#[component]
pub fn Editor(stored: StoredCase, tools: Vec<String>) -> impl IntoView {
    let saving = Saving::new(&stored);
    let editing = Editing {
        draft: saving.draft,
        problems: saving.problems,
    };
    browser::guard_leaving(
        saving.dirty,
        "This case has unsaved changes. Leave without saving?",
    );
    let keys = window_event_listener(leptos::ev::keydown, move |ev| {
        if (ev.ctrl_key() || ev.meta_key()) && ev.key().eq_ignore_ascii_case("s") {
            ev.prevent_default();
            saving.save_now();
        }
    });
    on_cleanup(move || keys.remove());
    view! {
        <EditorToolbar saving />
        {move || {
            saving
                .save
                .value()
                .get()
                .and_then(Result::err)
                .map(|err| view! { <ErrorNote message=format!("Not saved: {}", error_text(&err)) /> })
        }}
        <ProblemsNote problems=saving.problems />
        {move || {
            saving
                .conflict
                .get()
                .map(|(stored, mine)| {
                    view! {
                        <ConflictPanel
                            stored
                            mine
                            opened_version=saving.version.get_untracked()
                            on_reload=Callback::new(move |()| saving.reload())
                            on_overwrite=Callback::new(move |()| saving.overwrite())
                            pending=saving.save.pending().into()
                        />
                    }
                })
        }}
        <ToolSuggestions tools draft=saving.draft />
        <IdAndTags editing />
        <SessionFields editing app=saving.app.get_value() />
        <ScenarioFields editing />
        <TurnList editing />
        <section class="card editor-section">
            <RubricList editing owner=None />
        </section>
    }
}

/// The case's id and version, what its save state is, Close and Save.
#[component]
fn EditorToolbar(saving: Saving) -> impl IntoView {
    let close_href = move || {
        case_href(
            &saving.app.get_value(),
            &saving.set.get_value(),
            &saving.opened_id.get(),
        )
    };
    view! {
        <div class="editor-toolbar">
            <div>
                <h1>"Edit " <span class="mono">{move || saving.opened_id.get()}</span></h1>
                <p class="muted">"Version " {move || saving.version.get()}</p>
            </div>
            <div class="toolbar-actions">
                <span class="save-state" class:unsaved=move || saving.dirty.get() role="status" aria-live="polite">
                    {move || saving.state()}
                </span>
                <a class="button" href=close_href>"Close"</a>
                <button
                    type="button"
                    class="primary"
                    title="Save (Ctrl+S)"
                    disabled=move || !saving.can_save()
                    on:click=move |_| saving.save_now()
                >
                    "Save"
                </button>
            </div>
        </div>
    }
}

/// Why the draft cannot be saved yet, one line per problem, naming its place.
#[component]
fn ProblemsNote(problems: Memo<Vec<Problem>>) -> impl IntoView {
    move || {
        let problems = problems.get();
        (!problems.is_empty()).then(|| {
            let these = match problems.len() {
                1 => "this".to_string(),
                n => format!("these {n}"),
            };
            view! {
                <div class="note note-error problems" role="alert" tabindex="-1">
                    <p>{format!("Fix {these} before saving:")}</p>
                    <ul>
                        {problems
                            .into_iter()
                            .map(|p| view! { <li>{p.place} ": " {p.message}</li> })
                            .collect_view()}
                    </ul>
                </div>
            }
        })
    }
}

/// The tool names a tool call's name field suggests: the agent's tools and the ones the case
/// already names.
#[component]
fn ToolSuggestions(tools: Vec<String>, draft: RwSignal<CaseDraft>) -> impl IntoView {
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
    view! { <datalist id=TOOL_NAMES_LIST>{suggestions}</datalist> }
}
