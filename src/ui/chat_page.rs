//! The chat page: sessions on the left, the transcript with its tool calls in the middle, and
//! the Eval panel on the right, where "Add current session" saves the session as an eval case.

use super::json_view::JsonView;
use super::markdown::render_markdown;
use super::{case_href, error_text, short_time, ErrorNote};
use crate::agent::{AgentEvent, STOPPED_MESSAGE};
use crate::api::chat::list_agent_profiles;
use crate::api::chat::{
    add_chat_session_to_eval_set, delete_chat_session, get_chat_session, list_chat_sessions,
    new_chat_session, rename_chat_session, stop_chat_turn, stream_chat_message, suggested_eval_id,
    validate_eval_id, AddSessionOutcome, ChatStreamItem, LineBuffer,
};
use crate::api::{list_eval_sets, DEFAULT_APP};
use crate::records::{SessionRecord, SessionSummary, SessionTurn};
use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::hooks::{use_navigate, use_query_map};
use serde_json::{Map, Value};

/// The turn being answered: the user's message and the agent's events so far.
#[derive(Debug, Clone, PartialEq)]
struct LiveTurn {
    session_id: String,
    user_message: String,
    events: Vec<AgentEvent>,
}

fn chat_href(app: &str, session_id: Option<&str>) -> String {
    match session_id {
        Some(id) => format!("/chat?app={app}&session={}", super::encode_query_value(id)),
        None => format!("/chat?app={app}"),
    }
}

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
    Effect::watch(
        move || session_id.get(),
        move |_, _, _| new_turns.set(Vec::new()),
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
                <Composer live on_send=send on_stop=stop />
            </section>
            <Transition fallback=|| ()>
                {
                    let app = app.clone();
                    move || {
                        let app = app.clone();
                        Suspend::new(async move {
                            let record = session.await.ok().flatten();
                            view! { <EvalPanel app record new_turns /> }
                        })
                    }
                }
            </Transition>
        </div>
    }
}

/// Chooses the agent profile to chat with. A change reloads the page for that app.
#[component]
fn AgentPicker(app: String) -> impl IntoView {
    let profiles = Resource::new(|| (), |_| list_agent_profiles());
    view! {
        <label class="small muted" for="agent-picker">"Agent"</label>
        <Transition fallback=|| ()>
            {
                let app = app.clone();
                move || {
                    let app = app.clone();
                    Suspend::new(async move {
                        let names: Vec<String> =
                            profiles.await.unwrap_or_default().into_iter().map(|p| p.name).collect();
                        view! {
                            <select
                                id="agent-picker"
                                on:change=move |ev| {
                                    let _ = window().location().set_href(&chat_href(&event_target_value(&ev), None));
                                }
                            >
                                {names
                                    .into_iter()
                                    .map(|name| {
                                        let selected = name == app;
                                        view! { <option value=name.clone() selected=selected>{name.clone()}</option> }
                                    })
                                    .collect_view()}
                            </select>
                        }
                    })
                }
            }
        </Transition>
    }
}

#[component]
fn SessionList(
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
                                                            {super::count(s.turn_count, "turn")} " · " {short_time(&s.updated_at)}
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

/// The session's title, renamed in place (Enter saves, Esc cancels).
#[component]
fn SessionTitle(
    app: String,
    record: Option<SessionRecord>,
    sessions_changed: RwSignal<u32>,
) -> impl IntoView {
    let record = record?;
    let id = record.summary.id.clone();
    let title = RwSignal::new(record.summary.title.clone());
    let draft = RwSignal::new(None::<String>);
    let error = RwSignal::new(None::<String>);
    let save = move || {
        let Some(new_title) = draft.get_untracked() else {
            return;
        };
        let (app, id) = (app.clone(), id.clone());
        spawn_local(async move {
            match rename_chat_session(app, id, new_title.clone()).await {
                Ok(()) => {
                    title.set(new_title.trim().to_string());
                    draft.set(None);
                    error.set(None);
                    sessions_changed.update(|n| *n += 1);
                }
                Err(err) => error.set(Some(error_text(&err))),
            }
        });
    };
    Some(view! {
        <header class="session-header">
            {move || match draft.get() {
                None => view! {
                    <h1 class="session-name">
                        {move || { let t = title.get(); if t.is_empty() { "New session".to_string() } else { t } }}
                    </h1>
                    <button class="small" on:click=move |_| draft.set(Some(title.get_untracked()))>"Rename"</button>
                }
                .into_any(),
                Some(_) => {
                    let save = save.clone();
                    let save_on_enter = save.clone();
                    view! {
                        <label class="visually-hidden" for="session-title">"Session title"</label>
                        <input
                            id="session-title"
                            prop:value=move || draft.get().unwrap_or_default()
                            on:input=move |ev| draft.set(Some(event_target_value(&ev)))
                            on:keydown=move |ev| match ev.key().as_str() {
                                "Enter" => save_on_enter(),
                                "Escape" => draft.set(None),
                                _ => {}
                            }
                        />
                        <button class="small primary" on:click=move |_| save()>"Save"</button>
                        <button class="small" on:click=move |_| draft.set(None)>"Cancel"</button>
                    }
                    .into_any()
                }
            }}
            {move || error.get().map(|message| view! { <ErrorNote message /> })}
        </header>
    })
}

/// Reads a turn's stream into `live` as it arrives; the recorded turn at the end.
async fn stream_turn(
    app: String,
    session_id: String,
    message: String,
    live: RwSignal<Option<LiveTurn>>,
) -> Result<SessionTurn, String> {
    use futures::StreamExt;
    let mut chunks = stream_chat_message(app, session_id, message)
        .await
        .map_err(|err| error_text(&err))?
        .into_inner();
    let mut lines = LineBuffer::default();
    while let Some(chunk) = chunks.next().await {
        let chunk =
            chunk.map_err(|err| format!("The connection to the server broke: {}", error_text(&err)))?;
        for line in lines.push(&chunk) {
            match serde_json::from_str::<ChatStreamItem>(&line) {
                Ok(ChatStreamItem::Event { event }) => {
                    live.update(|l| l.iter_mut().for_each(|l| l.events.push(event.clone())))
                }
                Ok(ChatStreamItem::Done { turn }) => return Ok(turn),
                Ok(ChatStreamItem::Failed { message }) => return Err(message),
                Err(err) => return Err(format!("The server sent something unexpected: {err}")),
            }
        }
    }
    Err("The server ended the answer early; reload the session to see what was saved.".into())
}

#[component]
fn Transcript(
    record: Option<SessionRecord>,
    new_turns: RwSignal<Vec<SessionTurn>>,
    live: RwSignal<Option<LiveTurn>>,
) -> impl IntoView {
    let loaded = record.map(|r| r.turns).unwrap_or_default();
    let empty = loaded.is_empty();
    view! {
        <div class="transcript" aria-live="polite">
            {(empty)
                .then(|| {
                    view! {
                        <div class="chat-empty muted" class:hidden=move || !new_turns.read().is_empty() || live.read().is_some()>
                            <p>"Ask the demo agent something, for example:"</p>
                            <ul>
                                <li>"What's the weather in Paris, and 20 EUR in USD?"</li>
                                <li>"Where is my order A1003?"</li>
                                <li>"How do I reset my password?"</li>
                            </ul>
                        </div>
                    }
                })}
            {loaded.into_iter().map(|turn| view! { <TurnView turn /> }).collect_view()}
            {move || new_turns.get().into_iter().map(|turn| view! { <TurnView turn /> }).collect_view()}
            {move || {
                live.get()
                    .map(|turn| {
                        let working = !turn.events.iter().any(|e| matches!(e, AgentEvent::TextDelta { .. }));
                        view! {
                            <div class="turn-block live">
                                <div class="bubble bubble-user">{turn.user_message.clone()}</div>
                                <TurnItems events=turn.events live=true />
                                {working.then(|| view! { <p class="thinking muted" role="status">"The agent is working…"</p> })}
                            </div>
                        }
                    })
            }}
        </div>
    }
}

/// What a turn shows, in order: text (as markdown), tool calls with their results, errors.
#[derive(Debug, Clone, PartialEq)]
enum TurnItem {
    Text(String),
    Tool {
        name: String,
        args: Map<String, Value>,
        /// The response and how long the call took, once it has come back.
        result: Option<(Map<String, Value>, u64)>,
    },
    /// A sub-agent took over (multi-agent ADK apps).
    Author(String),
    Error(String),
}

fn turn_items(events: &[AgentEvent]) -> Vec<TurnItem> {
    let mut items = Vec::new();
    let mut text = String::new();
    let mut call_ids: Vec<(String, usize)> = Vec::new();
    let flush = |text: &mut String, items: &mut Vec<TurnItem>| {
        if !text.trim().is_empty() {
            items.push(TurnItem::Text(std::mem::take(text)));
        }
        text.clear();
    };
    for event in events {
        match event {
            AgentEvent::TextDelta { text: delta } => text.push_str(delta),
            AgentEvent::FinalResponse { text: answer } => text = answer.clone(),
            AgentEvent::ToolCall { id, name, args } => {
                flush(&mut text, &mut items);
                call_ids.push((id.clone(), items.len()));
                items.push(TurnItem::Tool {
                    name: name.clone(),
                    args: args.clone(),
                    result: None,
                });
            }
            AgentEvent::ToolResult {
                id,
                response,
                duration_ms,
                ..
            } => {
                let at = call_ids.iter().find(|(call, _)| call == id).map(|(_, at)| *at);
                if let Some(TurnItem::Tool { result, .. }) = at.and_then(|at| items.get_mut(at)) {
                    *result = Some((response.clone(), *duration_ms));
                }
            }
            AgentEvent::Author { name } => {
                flush(&mut text, &mut items);
                items.push(TurnItem::Author(name.clone()));
            }
            AgentEvent::Error { message } => {
                flush(&mut text, &mut items);
                items.push(TurnItem::Error(message.clone()));
            }
            AgentEvent::Usage { .. } | AgentEvent::ModelCall { .. } => {}
        }
    }
    flush(&mut text, &mut items);
    items
}

#[component]
fn TurnItems(events: Vec<AgentEvent>, #[prop(optional)] live: bool) -> impl IntoView {
    turn_items(&events)
        .into_iter()
        .map(|item| match item {
            TurnItem::Text(text) => view! {
                <div class="bubble bubble-agent markdown" inner_html=render_markdown(&text)></div>
            }
            .into_any(),
            TurnItem::Tool { name, args, result } => {
                view! { <ToolCard name args result pending=live /> }.into_any()
            }
            TurnItem::Author(name) => view! {
                <p class="author-note muted small">"→ " <span class="mono">{name}</span> " answers"</p>
            }
            .into_any(),
            TurnItem::Error(message) if message == STOPPED_MESSAGE => view! {
                <p class="note note-warning small" role="status">"Stopped. What the agent did until then is kept."</p>
            }
            .into_any(),
            TurnItem::Error(message) => {
                view! { <ErrorNote message=format!("The agent failed: {message}") /> }.into_any()
            }
        })
        .collect_view()
}

#[component]
fn TurnView(turn: SessionTurn) -> impl IntoView {
    let (prompt_tokens, completion_tokens) = turn.token_usage();
    let tokens = if prompt_tokens + completion_tokens > 0 {
        format!(" · {prompt_tokens} + {completion_tokens} tokens")
    } else {
        String::new()
    };
    view! {
        <div class="turn-block">
            <div class="bubble bubble-user">{turn.user_message.clone()}</div>
            <TurnItems events=turn.events.clone() />
            <p class="turn-meta muted small">{format!("{} ms{tokens}", turn.latency_ms)}</p>
        </div>
    }
}

#[component]
fn ToolCard(
    name: String,
    args: Map<String, Value>,
    result: Option<(Map<String, Value>, u64)>,
    /// The turn is still running, so a missing result may yet come.
    pending: bool,
) -> impl IntoView {
    let failed = result.as_ref().is_some_and(|(r, _)| r.contains_key("error"));
    let duration = match &result {
        Some((_, ms)) => format!("{ms} ms"),
        None if pending => "running…".into(),
        None => "no result".into(),
    };
    view! {
        <details class="tool-card" class:tool-failed=failed>
            <summary>
                <span class="tool-icon" aria-hidden="true">"⚙"</span>
                <span class="tool-name mono">{name}</span>
                <span class="tool-args mono muted small">{super::preview(&Value::Object(args.clone()).to_string(), 80)}</span>
                <span class="muted small">{if failed { format!("error · {duration}") } else { duration }}</span>
            </summary>
            <h4>"Arguments"</h4>
            <JsonView value=Value::Object(args) />
            {result.map(|(response, _)| view! { <h4>"Result"</h4> <JsonView value=Value::Object(response) /> })}
        </details>
    }
}

#[component]
fn Composer(
    live: RwSignal<Option<LiveTurn>>,
    #[prop(into)] on_send: Callback<String>,
    #[prop(into)] on_stop: Callback<()>,
) -> impl IntoView {
    let text = RwSignal::new(String::new());
    let running = move || live.with(Option::is_some);
    let submit = move || {
        let message = text.get_untracked();
        if message.trim().is_empty() || live.with_untracked(Option::is_some) {
            return;
        }
        text.set(String::new());
        on_send.run(message);
    };
    view! {
        <form
            class="composer"
            on:submit=move |ev| {
                ev.prevent_default();
                submit();
            }
        >
            <label class="visually-hidden" for="chat-input">"Message"</label>
            <textarea
                id="chat-input"
                rows="2"
                placeholder="Message the agent (Enter to send, Shift+Enter for a new line)"
                prop:value=move || text.get()
                on:input=move |ev| text.set(event_target_value(&ev))
                on:keydown=move |ev| {
                    if ev.key() == "Enter" && !ev.shift_key() && !ev.is_composing() {
                        ev.prevent_default();
                        submit();
                    }
                }
            ></textarea>
            {move || {
                if running() {
                    view! {
                        <button type="button" class="danger" on:click=move |_| on_stop.run(())>
                            "Stop"
                        </button>
                    }
                        .into_any()
                } else {
                    view! { <button type="submit">"Send"</button> }.into_any()
                }
            }}
        </form>
    }
}

/// "Add current session": pick or create an evalset, name the case, save.
#[component]
fn EvalPanel(
    app: String,
    record: Option<SessionRecord>,
    new_turns: RwSignal<Vec<SessionTurn>>,
) -> impl IntoView {
    const NEW: &str = "__new__";
    let session_id = record.as_ref().map(|r| r.summary.id.clone());
    let first_message = record
        .as_ref()
        .and_then(|r| r.turns.first())
        .map(|t| t.user_message.clone());
    let has_turns = {
        let loaded = record.as_ref().is_some_and(|r| !r.turns.is_empty());
        move || loaded || !new_turns.read().is_empty()
    };
    let eval_sets = {
        let app = app.clone();
        Resource::new(|| (), move |_| list_eval_sets(app.clone()))
    };
    let chosen = RwSignal::new(String::new());
    let new_set_id = RwSignal::new(String::from("my_evalset"));
    let eval_id = RwSignal::new(
        first_message
            .as_deref()
            .map(suggested_eval_id)
            .unwrap_or_default(),
    );
    // A session's first answer arrives after the panel is drawn: suggest an id from it then.
    Effect::new(move |_| {
        if eval_id.get_untracked().is_empty() {
            if let Some(turn) = new_turns.read().first() {
                eval_id.set(suggested_eval_id(&turn.user_message));
            }
        }
    });
    let outcome = RwSignal::new(None::<Result<AddSessionOutcome, String>>);
    let saving = RwSignal::new(false);
    let id_problem = move || validate_eval_id(&eval_id.get()).err();

    let save = {
        let app = app.clone();
        move |overwrite: bool| {
            let Some(session_id) = session_id.clone() else {
                return;
            };
            let app = app.clone();
            let creating = chosen.get_untracked() == NEW || chosen.get_untracked().is_empty();
            let set_id = if creating {
                new_set_id.get_untracked()
            } else {
                chosen.get_untracked()
            };
            saving.set(true);
            spawn_local(async move {
                let result = add_chat_session_to_eval_set(
                    app,
                    set_id.clone(),
                    creating,
                    eval_id.get_untracked(),
                    session_id,
                    overwrite,
                )
                .await
                .map_err(|err| error_text(&err));
                if matches!(result, Ok(AddSessionOutcome::Added(_))) && creating {
                    eval_sets.refetch();
                    chosen.set(set_id);
                }
                outcome.set(Some(result));
                saving.set(false);
            });
        }
    };
    let save_new = save.clone();

    view! {
        <aside class="eval-panel card" aria-label="Eval">
            <h2>"Eval"</h2>
            <p class="muted small">"Save this session as an eval case: its tool calls become the expected trajectory."</p>
            <label for="eval-set-select">"Evalset"</label>
            <Transition fallback=|| view! { <p class="muted small">"Loading evalsets…"</p> }>
                {move || Suspend::new(async move {
                    let sets = eval_sets.await.unwrap_or_default();
                    if chosen.get_untracked().is_empty() {
                        chosen.set(sets.first().map(|s| s.eval_set_id.clone()).unwrap_or_else(|| NEW.to_string()));
                    }
                    view! {
                        <select
                            id="eval-set-select"
                            on:change=move |ev| chosen.set(event_target_value(&ev))
                            prop:value=move || chosen.get()
                        >
                            {sets
                                .into_iter()
                                .map(|s| {
                                    let id = s.eval_set_id.clone();
                                    view! { <option value=id.clone() selected=move || chosen.get() == id>{s.eval_set_id.clone()}</option> }
                                })
                                .collect_view()}
                            <option value=NEW selected=move || chosen.get() == NEW>
                                "+ New evalset…"
                            </option>
                        </select>
                        // Inside the Suspend, like the choice it depends on, so server and browser draw the same.
                        {move || {
                            (chosen.get() == NEW)
                                .then(|| {
                                    view! {
                                        <label for="new-eval-set">"New evalset id"</label>
                                        <input
                                            id="new-eval-set"
                                            prop:value=move || new_set_id.get()
                                            on:input=move |ev| new_set_id.set(event_target_value(&ev))
                                        />
                                    }
                                })
                        }}
                    }
                })}
            </Transition>
            <label for="eval-id">"Eval id"</label>
            <input id="eval-id" prop:value=move || eval_id.get() on:input=move |ev| eval_id.set(event_target_value(&ev)) />
            {move || id_problem().map(|problem| view! { <p class="field-error small">{problem}</p> })}
            <button
                type="button"
                class="primary"
                disabled=move || !has_turns() || saving.get() || id_problem().is_some()
                on:click=move |_| save_new(false)
            >
                {move || if saving.get() { "Saving…" } else { "Add current session" }}
            </button>
            {move || (!has_turns()).then(|| view! { <p class="muted small">"Chat first: an empty session has nothing to save."</p> })}
            {move || {
                let save = save.clone();
                outcome
                    .get()
                    .map(|result| match result {
                        Ok(AddSessionOutcome::Added(stored)) => {
                            let stored = *stored;
                            let href = case_href(&stored.app_name, &stored.eval_set_id, &stored.case.eval_id);
                            view! {
                                <p class="note note-passed" role="status">
                                    <span class="status-icon" aria-hidden="true">"✓"</span>
                                    "Saved as " <a href=href>{stored.case.eval_id.clone()}</a> " in "
                                    <code>{stored.eval_set_id.clone()}</code> "."
                                </p>
                            }
                                .into_any()
                        }
                        Ok(AddSessionOutcome::Exists { eval_id: taken }) => view! {
                            <div class="note note-warning" role="alert">
                                <span class="status-icon" aria-hidden="true">"!"</span>
                                "A case " <code>{taken}</code> " already exists in this evalset."
                                <button class="danger small" on:click=move |_| save(true)>"Overwrite it"</button>
                                <button class="small" on:click=move |_| outcome.set(None)>"Cancel"</button>
                            </div>
                        }
                        .into_any(),
                        Err(message) => view! { <ErrorNote message /> }.into_any(),
                    })
            }}
        </aside>
    }
}
