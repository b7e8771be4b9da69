//! The case's own fields: eval_id, tags, the session input and a conversation scenario.

use super::fields::{field, Editing, FieldKind};
use crate::draft::{CaseDraft, ScenarioDraft, SessionDraft};
use crate::evalset::SessionInput;
use leptos::prelude::*;

#[component]
pub fn IdAndTags(editing: Editing) -> impl IntoView {
    view! {
        <section class="card editor-section">
            <div class="field-pair">
                {field(
                    editing,
                    "eval_id".into(),
                    "eval_id (letters, digits, _ - .)".into(),
                    FieldKind::Line,
                    |d| Some(d.eval_id.clone()),
                    |d, v| d.eval_id = v,
                )}
                {field(
                    editing,
                    "tags".into(),
                    "Tags (comma-separated)".into(),
                    FieldKind::Line,
                    |d| Some(d.tags.clone()),
                    |d, v| d.tags = v,
                )}
            </div>
        </section>
    }
}

#[component]
pub fn SessionFields(editing: Editing, app: String) -> impl IntoView {
    let present = move || editing.draft.with(|d| d.session.is_some());
    let add = move |_| {
        let app = app.clone();
        editing.draft.update(|d| {
            d.session = Some(SessionDraft {
                base: SessionInput::default(),
                app_name: app,
                user_id: "user".into(),
                state: "{}".into(),
            })
        })
    };
    let session = |d: &CaseDraft| d.session.clone();
    view! {
        <section class="card editor-section">
            <h2>"Session input"</h2>
            <Show
                when=present
                fallback=move || {
                    let add = add.clone();
                    view! {
                        <p class="muted">"None: the session starts empty."</p>
                        <button type="button" on:click=add>"Add session input"</button>
                    }
                }
            >
                <div class="field-pair">
                    {field(
                        editing,
                        "session.app_name".into(),
                        "app_name".into(),
                        FieldKind::Line,
                        move |d| session(d).map(|s| s.app_name),
                        |d, v| {
                            if let Some(s) = &mut d.session {
                                s.app_name = v;
                            }
                        },
                    )}
                    {field(
                        editing,
                        "session.user_id".into(),
                        "user_id".into(),
                        FieldKind::Line,
                        move |d| d.session.as_ref().map(|s| s.user_id.clone()),
                        |d, v| {
                            if let Some(s) = &mut d.session {
                                s.user_id = v;
                            }
                        },
                    )}
                </div>
                {field(
                    editing,
                    "session.state".into(),
                    "Initial state (JSON object)".into(),
                    FieldKind::Json,
                    |d| d.session.as_ref().map(|s| s.state.clone()),
                    |d, v| {
                        if let Some(s) = &mut d.session {
                            s.state = v;
                        }
                    },
                )}
                <button type="button" class="danger-text" on:click=move |_| editing.draft.update(|d| d.session = None)>
                    "Remove session input"
                </button>
            </Show>
        </section>
    }
}

#[component]
pub fn ScenarioFields(editing: Editing) -> impl IntoView {
    let present = move || editing.draft.with(|d| d.scenario.is_some());
    let add = move |_| {
        editing.draft.update(|d| {
            d.scenario = Some(ScenarioDraft {
                base: Default::default(),
                starting_prompt: String::new(),
                conversation_plan: String::new(),
                persona: String::new(),
            })
        })
    };
    view! {
        <section class="card editor-section">
            <h2>"Conversation scenario"</h2>
            <Show
                when=present
                fallback=move || {
                    view! {
                        <p class="muted">
                            "A scenario lets ADK's user simulator play the conversation instead of scripted turns."
                        </p>
                        <button type="button" on:click=add>"Make this a scenario case"</button>
                    }
                }
            >
                {move || editing.problem("scenario").map(|m| view! { <p class="field-error" role="alert">{m}</p> })}
                {field(
                    editing,
                    "scenario.starting_prompt".into(),
                    "Starting prompt".into(),
                    FieldKind::Text,
                    |d| d.scenario.as_ref().map(|s| s.starting_prompt.clone()),
                    |d, v| {
                        if let Some(s) = &mut d.scenario {
                            s.starting_prompt = v;
                        }
                    },
                )}
                {field(
                    editing,
                    "scenario.conversation_plan".into(),
                    "Conversation plan".into(),
                    FieldKind::Text,
                    |d| d.scenario.as_ref().map(|s| s.conversation_plan.clone()),
                    |d, v| {
                        if let Some(s) = &mut d.scenario {
                            s.conversation_plan = v;
                        }
                    },
                )}
                {field(
                    editing,
                    "scenario.persona".into(),
                    "User persona (JSON; empty for none)".into(),
                    FieldKind::Json,
                    |d| d.scenario.as_ref().map(|s| s.persona.clone()),
                    |d, v| {
                        if let Some(s) = &mut d.scenario {
                            s.persona = v;
                        }
                    },
                )}
                <button type="button" class="danger-text" on:click=move |_| editing.draft.update(|d| d.scenario = None)>
                    "Remove scenario"
                </button>
            </Show>
        </section>
    }
}
