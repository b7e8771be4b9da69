//! The chat page: sessions on the left, the transcript with its tool calls in the middle, and
//! the Eval panel on the right, where "Add current session" saves the session as an eval case.

use super::json_view::JsonView;
use super::{case_href, error_text, short_time, ErrorNote};
use crate::agent::AgentEvent;
use crate::api::chat::list_agent_profiles;
use crate::api::chat::{
    add_chat_session_to_eval_set, delete_chat_session, get_chat_session, list_chat_sessions,
    new_chat_session, rename_chat_session, send_chat_message, suggested_eval_id, validate_eval_id,
    AddSessionOutcome,
};
use crate::api::{list_eval_sets, DEFAULT_APP};
use crate::store::{SessionRecord, SessionSummary, SessionTurn};
use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::hooks::{use_navigate, use_query_map};
use serde_json::Value;

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
    // Turns answered since the session was loaded, and the message being answered now.
    let new_turns = RwSignal::new(Vec::<SessionTurn>::new());
    let pending = RwSignal::new(None::<String>);
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
            pending.set(Some(message.clone()));
            send_error.set(None);
            spawn_local(async move {
                let (id, created) = match session_id.get_untracked() {
                    Some(id) => (id, false),
                    None => match new_chat_session(app.clone()).await {
                        Ok(created) => {
                            navigate(&chat_href(&app, Some(&created.summary.id)), Default::default());
                            (created.summary.id, true)
                        }
                        Err(err) => {
                            pending.set(None);
                            send_error.set(Some(error_text(&err)));
                            return;
                        }
                    },
                };
                match send_chat_message(app, id, message).await {
                    // A new session is loaded afresh (the navigation above started that), so
                    // its first turn comes from the store rather than being appended twice.
                    Ok(_) if created => session.refetch(),
                    Ok(turn) => new_turns.update(|turns| turns.push(turn)),
                    Err(err) => send_error.set(Some(error_text(&err))),
                }
                pending.set(None);
                sessions_changed.update(|n| *n += 1);
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
                                    <Transcript record new_turns pending />
                                }
                                    .into_any()
                            }
                        }
                    })
                    }}
                </Transition>
                {move || send_error.get().map(|message| view! { <ErrorNote message /> })}
                <Composer pending on_send=send />
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

#[component]
fn Transcript(
    record: Option<SessionRecord>,
    new_turns: RwSignal<Vec<SessionTurn>>,
    pending: RwSignal<Option<String>>,
) -> impl IntoView {
    let loaded = record.map(|r| r.turns).unwrap_or_default();
    let empty = loaded.is_empty();
    view! {
        <div class="transcript" aria-live="polite">
            {(empty)
                .then(|| {
                    view! {
                        <div class="chat-empty muted" class:hidden=move || !new_turns.read().is_empty() || pending.read().is_some()>
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
                pending
                    .get()
                    .map(|message| {
                        view! {
                            <div class="bubble bubble-user">{message}</div>
                            <p class="thinking muted" role="status">"The agent is working…"</p>
                        }
                    })
            }}
        </div>
    }
}

#[component]
fn TurnView(turn: SessionTurn) -> impl IntoView {
    let results: Vec<(String, serde_json::Map<String, Value>, u64)> = turn
        .events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ToolResult {
                id,
                response,
                duration_ms,
                ..
            } => Some((id.clone(), response.clone(), *duration_ms)),
            _ => None,
        })
        .collect();
    let items = turn
        .events
        .iter()
        .filter_map(|event| match event {
            AgentEvent::ToolCall { id, name, args } => {
                let result = results.iter().find(|(rid, ..)| rid == id).cloned();
                Some(view! { <ToolCard name=name.clone() args=args.clone() result /> }.into_any())
            }
            AgentEvent::FinalResponse { text } => {
                Some(view! { <div class="bubble bubble-agent">{text.clone()}</div> }.into_any())
            }
            AgentEvent::Error { message } => {
                Some(view! { <ErrorNote message=format!("The agent failed: {message}") /> }.into_any())
            }
            _ => None,
        })
        .collect_view();
    view! {
        <div class="turn-block">
            <div class="bubble bubble-user">{turn.user_message.clone()}</div>
            {items}
            <p class="turn-meta muted small">{format!("{} ms", turn.latency_ms)}</p>
        </div>
    }
}

#[component]
fn ToolCard(
    name: String,
    args: serde_json::Map<String, Value>,
    result: Option<(String, serde_json::Map<String, Value>, u64)>,
) -> impl IntoView {
    let failed = result.as_ref().is_some_and(|(_, r, _)| r.contains_key("error"));
    let duration = result
        .as_ref()
        .map(|(_, _, ms)| format!("{ms} ms"))
        .unwrap_or_else(|| "no result".into());
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
            {result.map(|(_, response, _)| view! { <h4>"Result"</h4> <JsonView value=Value::Object(response) /> })}
        </details>
    }
}

#[component]
fn Composer(pending: RwSignal<Option<String>>, #[prop(into)] on_send: Callback<String>) -> impl IntoView {
    let text = RwSignal::new(String::new());
    let submit = move || {
        let message = text.get_untracked();
        if message.trim().is_empty() || pending.get_untracked().is_some() {
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
            <button type="submit" disabled=move || pending.get().is_some()>
                {move || if pending.get().is_some() { "Sending…" } else { "Send" }}
            </button>
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
