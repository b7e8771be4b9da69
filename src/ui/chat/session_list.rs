//! The sessions sidebar: the agent picker, "+ New session", and the app's sessions, each
//! deletable after a confirmation.

use super::agent_picker::AgentPicker;
use super::chat_href;
use crate::api::chat::delete_chat_session;
use crate::records::SessionSummary;
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
    let delete = {
        let (app, navigate) = (app.clone(), navigate.clone());
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
    };
    view! {
        <aside class="chat-sessions" aria-label="Sessions">
            <AgentPicker app=app.clone() />
            <a class="button new-session" href=chat_href(&app, None)>"+ New session"</a>
            {move || error.get().map(|message| view! { <ErrorNote message /> })}
            <Transition fallback=|| view! { <p class="muted">"Loading…"</p> }>
                {
                    let delete = delete.clone();
                    move || {
                        let delete = delete.clone();
                        Suspend::new(async move {
                            let list = sessions.await.unwrap_or_default();
                            if list.is_empty() {
                                return view! {
                                    <p class="muted small">"No sessions yet. Say something to the agent to start one."</p>
                                }
                                    .into_any();
                            }
                            view! {
                                <ul class="session-list">
                                    {list
                                        .into_iter()
                                        .map(|s| {
                                            let id = s.id.clone();
                                            let current = move || session_id.get().as_deref() == Some(id.as_str());
                                            let (ask_id, delete_id, is_asking_id) = (s.id.clone(), s.id.clone(), s.id.clone());
                                            let delete = delete.clone();
                                            let title = if s.title.is_empty() { "(empty session)".to_string() } else { s.title.clone() };
                                            view! {
                                                <li class:current=current.clone()>
                                                    <a href=chat_href(&s.app_name, Some(&s.id)) aria-current={
                                                        let current = current.clone();
                                                        move || current().then_some("page")
                                                    }>
                                                        <span class="session-title">{title}</span>
                                                        <span class="muted small">
                                                            {count(s.turn_count, "turn")} " · " {short_time(&s.updated_at)}
                                                        </span>
                                                    </a>
                                                    {move || {
                                                        if confirming.get().as_deref() == Some(is_asking_id.as_str()) {
                                                            let delete = delete.clone();
                                                            let delete_id = delete_id.clone();
                                                            view! {
                                                                <span class="confirm-inline">
                                                                    <button class="danger small" on:click=move |_| delete(delete_id.clone())>
                                                                        "Delete"
                                                                    </button>
                                                                    <button class="small" on:click=move |_| confirming.set(None)>"Keep"</button>
                                                                </span>
                                                            }
                                                                .into_any()
                                                        } else {
                                                            let ask_id = ask_id.clone();
                                                            view! {
                                                                <button
                                                                    class="icon-button"
                                                                    title="Delete this session"
                                                                    aria-label="Delete this session"
                                                                    on:click=move |_| confirming.set(Some(ask_id.clone()))
                                                                >
                                                                    "×"
                                                                </button>
                                                            }
                                                                .into_any()
                                                        }
                                                    }}
                                                </li>
                                            }
                                        })
                                        .collect_view()}
                                </ul>
                            }
                                .into_any()
                        })
                    }
                }
            </Transition>
        </aside>
    }
}
