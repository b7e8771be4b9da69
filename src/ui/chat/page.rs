//! The chat page: sessions on the left, the transcript with its tool calls in the middle, and
//! the Eval panel on the right, where "Add current session" saves the session as an eval case.
//! The page owns the state its parts share: the session shown, the turns answered since it
//! loaded, and the turn being answered now.

use super::add_session_panel::{AddSessionForm, AddSessionPanel};
use super::chat_href;
use super::composer::Composer;
use super::follow_latest::FollowLatest;
use super::live_turn::{follow_turn, stream_turn, LiveTurn};
use super::session_list::SessionList;
use super::session_title::SessionTitle;
use super::transcript::Transcript;
use crate::api::chat::{get_chat_session, list_chat_sessions, new_chat_session, stop_chat_turn};
use crate::api::DEFAULT_APP;
use crate::records::sessions::{SessionRecord, SessionTurn};
use crate::ui::{error_text, ErrorNote};
use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::hooks::{use_navigate, use_query_map};
use leptos_router::NavigateOptions;

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
    let chat = ChatState::new(app.clone(), session_id, sessions_changed);
    let navigate = use_navigate();
    let send = {
        let app = app.clone();
        move |message: String| spawn_local(chat.send(app.clone(), message, navigate.clone()))
    };
    view! {
        <div class="chat-layout">
            <SessionList sessions session_id sessions_changed app=app.clone() />
            <section class="chat-main" aria-label="Conversation">
                <ShownSession app=app.clone() chat />
                {move || chat.send_error.get().map(|message| view! { <ErrorNote message /> })}
                <FollowLatest
                    new_turns=chat.new_turns
                    live=chat.live
                    loaded=Signal::derive(move || chat.session.track())
                />
                <Composer live=chat.live on_send=send on_stop=move || chat.stop() />
            </section>
            <Transition fallback=|| ()>
                {move || {
                    let app = app.clone();
                    Suspend::new(async move {
                        let record = chat.session.await.ok().flatten();
                        view! { <AddSessionPanel app record new_turns=chat.new_turns form=chat.add_form /> }
                    })
                }}
            </Transition>
        </div>
    }
}

/// What the page's parts share: the session shown, the turns answered since it loaded, the
/// turn being answered now, and what sending one found. Every part a signal, so it is `Copy`.
#[derive(Clone, Copy)]
struct ChatState {
    session_id: Memo<Option<String>>,
    session: Resource<Result<Option<SessionRecord>, ServerFnError>>,
    new_turns: RwSignal<Vec<SessionTurn>>,
    live: RwSignal<Option<LiveTurn>>,
    send_error: RwSignal<Option<String>>,
    add_form: AddSessionForm,
    sessions_changed: RwSignal<u32>,
}

impl ChatState {
    fn new(app: String, session_id: Memo<Option<String>>, sessions_changed: RwSignal<u32>) -> Self {
        let app_name = app.clone();
        let session = Resource::new(
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
        );
        let chat = ChatState {
            session_id,
            session,
            new_turns: RwSignal::new(Vec::new()),
            live: RwSignal::new(None),
            send_error: RwSignal::new(None),
            add_form: AddSessionForm::new(),
            sessions_changed,
        };
        Effect::watch(
            move || session_id.get(),
            move |id, previous, _| {
                if previous.is_some() {
                    chat.new_turns.set(Vec::new());
                    chat.add_form.session_changed();
                }
                // A turn found under way belongs to the session it was found in.
                if chat
                    .live
                    .with_untracked(|l| l.as_ref().is_some_and(|l| l.followed))
                {
                    chat.live.set(None);
                }
                // Not while this page sends one (a new session's first turn names it).
                if let Some(id) = id.clone().filter(|_| chat.live.with_untracked(Option::is_none)) {
                    spawn_local(chat.follow(app_name.clone(), id));
                }
            },
            true,
        );
        chat
    }

    /// Follows the session's turn under way, if one is (sent from another tab or browser).
    async fn follow(self, app: String, session_id: String) {
        let outcome = follow_turn(app, session_id.clone(), self.live).await;
        let still_shown = self.session_id.get_untracked().as_deref() == Some(session_id.as_str());
        match outcome {
            Ok(None) => return,
            Ok(Some(turn)) if still_shown => self.new_turns.update(|turns| turns.push(turn)),
            Ok(Some(_)) => {}
            Err(message) if still_shown => self.send_error.set(Some(message)),
            Err(_) => {}
        }
        if self.live.with_untracked(|l| {
            l.as_ref()
                .is_some_and(|l| l.followed && l.session_id == session_id)
        }) {
            self.live.set(None);
        }
        self.sessions_changed.update(|n| *n += 1);
    }

    /// Sends `message` as the next turn, in a new session when none is shown (the address then
    /// names it), and follows the answer as it streams.
    async fn send(self, app: String, message: String, navigate: impl Fn(&str, NavigateOptions)) {
        self.send_error.set(None);
        self.live.set(Some(LiveTurn {
            session_id: self.session_id.get_untracked().unwrap_or_default(),
            user_message: message.clone(),
            events: Vec::new(),
            followed: false,
        }));
        let (id, created) = match self.session_id.get_untracked() {
            Some(id) => (id, false),
            None => match new_chat_session(app.clone()).await {
                Ok(created) => {
                    let id = created.summary.id;
                    self.live
                        .update(|l| l.iter_mut().for_each(|l| l.session_id = id.clone()));
                    self.add_form.adopt_new_session();
                    navigate(&chat_href(&app, Some(&id)), Default::default());
                    (id, true)
                }
                Err(err) => {
                    self.live.set(None);
                    self.send_error.set(Some(error_text(&err)));
                    return;
                }
            },
        };
        match stream_turn(app, id, message, self.live).await {
            // A new session is loaded afresh (the navigation above started that), so its first
            // turn comes from the store rather than being appended twice.
            Ok(_) if created => self.session.refetch(),
            Ok(turn) => self.new_turns.update(|turns| turns.push(turn)),
            Err(message) => self.send_error.set(Some(message)),
        }
        self.live.set(None);
        self.sessions_changed.update(|n| *n += 1);
    }

    /// Stops the turn being answered.
    fn stop(self) {
        if let Some(id) = self
            .live
            .with_untracked(|l| l.as_ref().map(|l| l.session_id.clone()))
        {
            spawn_local(async move {
                if let Err(err) = stop_chat_turn(id).await {
                    self.send_error.set(Some(error_text(&err)));
                }
            });
        }
    }
}

/// The session shown: its title and its transcript, with the turns answered since it loaded.
#[component]
fn ShownSession(app: String, chat: ChatState) -> impl IntoView {
    view! {
        <Transition fallback=|| view! { <p class="muted">"Loading session…"</p> }>
            {move || {
                let app = app.clone();
                Suspend::new(async move {
                    match chat.session.await {
                        Err(err) => view! { <ErrorNote message=error_text(&err) /> }.into_any(),
                        Ok(record) => {
                            view! {
                                <SessionTitle app record=record.clone() sessions_changed=chat.sessions_changed />
                                <Transcript record new_turns=chat.new_turns live=chat.live />
                            }
                                .into_any()
                        }
                    }
                })
            }}
        </Transition>
    }
}
