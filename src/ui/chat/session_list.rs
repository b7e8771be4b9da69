//! The sessions sidebar: the agent picker, "+ New session", and the app's sessions, each
//! deletable after a confirmation.

use super::agent_picker::AgentPicker;
use super::chat_href;
use crate::api::chat::delete_chat_session;
use crate::records::sessions::SessionSummary;
use crate::ui::{count, error_text, short_time, ErrorNote};
use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::hooks::use_navigate;

#[component]
pub(super) fn SessionList(
    app: String,
    sessions: Resource<Result<Vec<SessionSummary>, ServerFnError>>,
    session_id: Memo<Option<String>>,
    sessions_changed: RwSignal<u32>,
) -> impl IntoView {
    let navigate = use_navigate();
    let confirming = RwSignal::new(None::<String>);
    let error = RwSignal::new(None::<String>);
    let delete = Callback::new({
        let app = app.clone();
        move |id: String| {
            let (app, navigate) = (app.clone(), navigate.clone());
            spawn_local(async move {
                match delete_chat_session(app.clone(), id.clone()).await {
                    Ok(()) => {
                        if session_id.get_untracked().as_deref() == Some(id.as_str()) {
                            navigate(&chat_href(&app, None), Default::default());
                        }
                        sessions_changed.update(|n| *n += 1);
                    }
                    Err(err) => error.set(Some(error_text(&err))),
                }
                confirming.set(None);
            });
        }
    });
    view! {
        <aside class="chat-sessions" aria-label="Sessions">
            <AgentPicker app=app.clone() />
            <a class="button new-session" href=chat_href(&app, None)>"+ New session"</a>
            {move || error.get().map(|message| view! { <ErrorNote message /> })}
            <Transition fallback=|| view! { <p class="muted">"Loading…"</p> }>
                {move || Suspend::new(async move {
                    let list = sessions.await.unwrap_or_default();
                    if list.is_empty() {
                        return view! {
                            <p class="muted small">"No sessions yet. Say something to the agent to start one."</p>
                        }
                            .into_any();
                    }
                    let rows = list
                        .into_iter()
                        .map(|session| view! { <SessionRow session session_id confirming delete /> })
                        .collect_view();
                    view! { <ul class="session-list">{rows}</ul> }.into_any()
                })}
            </Transition>
        </aside>
    }
}

/// A session's link (marked while shown), with its turns and time, and its delete button.
#[component]
fn SessionRow(
    session: SessionSummary,
    session_id: Memo<Option<String>>,
    confirming: RwSignal<Option<String>>,
    delete: Callback<String>,
) -> impl IntoView {
    let current = {
        let id = session.id.clone();
        Signal::derive(move || session_id.get().as_deref() == Some(id.as_str()))
    };
    let title = if session.title.is_empty() {
        "(empty session)".to_string()
    } else {
        session.title.clone()
    };
    view! {
        <li class:current=current>
            <a href=chat_href(&session.app_name, Some(&session.id)) aria-current=move || current.get().then_some("page")>
                <span class="session-title">{title}</span>
                <span class="muted small">
                    {count(session.turn_count, "turn")} " · " {short_time(&session.updated_at)}
                </span>
            </a>
            <DeleteSession id=session.id confirming delete />
        </li>
    }
}

/// "×", then Delete or Keep: a session is deleted only once confirmed.
#[component]
fn DeleteSession(
    id: String,
    confirming: RwSignal<Option<String>>,
    delete: Callback<String>,
) -> impl IntoView {
    move || {
        let id = id.clone();
        if confirming.get().as_deref() == Some(id.as_str()) {
            view! {
                <span class="confirm-inline">
                    <button class="danger small" on:click=move |_| delete.run(id.clone())>
                        "Delete"
                    </button>
                    <button class="small" on:click=move |_| confirming.set(None)>"Keep"</button>
                </span>
            }
            .into_any()
        } else {
            view! {
                <button
                    class="icon-button"
                    title="Delete this session"
                    aria-label="Delete this session"
                    on:click=move |_| confirming.set(Some(id.clone()))
                >
                    "×"
                </button>
            }
            .into_any()
        }
    }
}
