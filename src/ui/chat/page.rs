//! The chat page: sessions on the left, the transcript with its tool calls in the middle, and
//! the Eval panel on the right, where "Add current session" saves the session as an eval case.
//! The page owns the state its parts share: the session shown, the turns answered since it
//! loaded, and the turn being answered now.

use super::add_session_panel::{AddSessionForm, AddSessionPanel};
use super::chat_href;
use super::composer::Composer;
use super::follow_latest::FollowLatest;
use super::live_turn::{stream_turn, LiveTurn};
use super::session_list::SessionList;
use super::session_title::SessionTitle;
use super::transcript::Transcript;
use crate::api::chat::{get_chat_session, list_chat_sessions, new_chat_session, stop_chat_turn};
use crate::api::DEFAULT_APP;
use crate::records::SessionTurn;
use crate::ui::{error_text, ErrorNote};
use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::hooks::{use_navigate, use_query_map};

#[component]
pub fn ChatPage() -> impl IntoView {
    let query = use_query_map();
    // Switching agents reloads the page (see AgentPicker), so the app is read once.
    let app = query
        .read_untracked()
        .get("app")
        .unwrap_or_else(|| DEFAULT_APP.to_string());
    let session_id = Memo::new(move |_| query.read().get("session"));
    let sessions_changed = RwSignal::new(0u32);
    let sessions = {
        let app = app.clone();
        Resource::new(
            move || sessions_changed.get(),
            move |_| list_chat_sessions(app.clone()),
        )
    };
    let session = {
        let app = app.clone();
        Resource::new(
            move || session_id.get(),
            move |id| {
                let app = app.clone();
                async move {
                    match id {
                        Some(id) => get_chat_session(app, id).await.map(Some),
                        None => Ok(None),
                    }
                }
            },
        )
    };
    // Turns answered since the session was loaded, and the turn being answered now.
    let new_turns = RwSignal::new(Vec::<SessionTurn>::new());
    let live = RwSignal::new(None::<LiveTurn>);
    let send_error = RwSignal::new(None::<String>);
    let add_form = AddSessionForm::new();
    Effect::watch(
        move || session_id.get(),
        move |_, _, _| {
            new_turns.set(Vec::new());
            add_form.session_changed();
        },
        false,
    );

    let navigate = use_navigate();
    let send = {
        let app = app.clone();
        move |message: String| {
            let (app, navigate) = (app.clone(), navigate.clone());
            send_error.set(None);
            live.set(Some(LiveTurn {
                session_id: session_id.get_untracked().unwrap_or_default(),
                user_message: message.clone(),
                events: Vec::new(),
            }));
            spawn_local(async move {
                let (id, created) = match session_id.get_untracked() {
                    Some(id) => (id, false),
                    None => match new_chat_session(app.clone()).await {
                        Ok(created) => {
                            let id = created.summary.id;
                            live.update(|l| l.iter_mut().for_each(|l| l.session_id = id.clone()));
                            add_form.adopt_new_session();
                            navigate(&chat_href(&app, Some(&id)), Default::default());
                            (id, true)
                        }
                        Err(err) => {
                            live.set(None);
                            send_error.set(Some(error_text(&err)));
                            return;
                        }
                    },
                };
                match stream_turn(app, id, message, live).await {
                    // A new session is loaded afresh (the navigation above started that), so
                    // its first turn comes from the store rather than being appended twice.
                    Ok(_) if created => session.refetch(),
                    Ok(turn) => new_turns.update(|turns| turns.push(turn)),
                    Err(message) => send_error.set(Some(message)),
                }
                live.set(None);
                sessions_changed.update(|n| *n += 1);
            });
        }
    };
    let stop = move || {
        if let Some(id) = live.with_untracked(|l| l.as_ref().map(|l| l.session_id.clone())) {
            spawn_local(async move {
                if let Err(err) = stop_chat_turn(id).await {
                    send_error.set(Some(error_text(&err)));
                }
            });
        }
    };

    let app_for_title = app.clone();
    view! {
        <div class="chat-layout">
            <SessionList sessions session_id sessions_changed app=app.clone() />
            <section class="chat-main" aria-label="Conversation">
                <Transition fallback=|| view! { <p class="muted">"Loading session…"</p> }>
                    {move || {
                        let app_for_title = app_for_title.clone();
                        Suspend::new(async move {
                        match session.await {
                            Err(err) => view! { <ErrorNote message=error_text(&err) /> }.into_any(),
                            Ok(record) => {
                                view! {
                                    <SessionTitle app=app_for_title.clone() record=record.clone() sessions_changed />
                                    <Transcript record new_turns live />
                                }
                                    .into_any()
                            }
                        }
                    })
                    }}
                </Transition>
                {move || send_error.get().map(|message| view! { <ErrorNote message /> })}
                <FollowLatest new_turns live loaded=Signal::derive(move || session.track()) />
                <Composer live on_send=send on_stop=stop />
            </section>
            <Transition fallback=|| ()>
                {
                    let app = app.clone();
                    move || {
                        let app = app.clone();
                        Suspend::new(async move {
                            let record = session.await.ok().flatten();
                            view! { <AddSessionPanel app record new_turns form=add_form /> }
                        })
                    }
                }
            </Transition>
        </div>
    }
}
