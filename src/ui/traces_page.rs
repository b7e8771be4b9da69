//! Traces: the sessions an agent's OpenTelemetry exporter sent (the `[otlp]` receiver), newest
//! first; one opens as a transcript drawn as the chat draws a turn, and "Add to evalset" saves it
//! as a case exactly as Add current session does. The session shown is in the URL.

use crate::api::evalsets::list_eval_sets;
use crate::api::traces::{add_recorded_session, get_recorded_session, list_recorded_sessions};
use crate::records::{RecordedSessionsPage, RecordedTranscript, TraceSessionFilter, TraceSessionSummary};
use crate::ui::chat::TurnItems;
use crate::ui::{edit_href, encode_query_value, error_text, short_time_seconds, ErrorNote};
use leptos::prelude::*;
use leptos_router::hooks::use_query_map;
use leptos_router::params::ParamsMap;

/// The list's filters and page, as the URL has them.
#[derive(Clone, PartialEq)]
struct ListAddress {
    filter: TraceSessionFilter,
    page: i64,
}

impl ListAddress {
    fn of(query: &ParamsMap) -> ListAddress {
        ListAddress {
            filter: TraceSessionFilter {
                app: query.get("app").filter(|app| !app.is_empty()),
                errors_only: query.get("errors").is_some_and(|on| on == "1"),
            },
            page: query.get("page").and_then(|page| page.parse().ok()).unwrap_or(0),
        }
    }

    fn href(&self) -> String {
        let mut query = Vec::new();
        if let Some(app) = &self.filter.app {
            query.push(format!("app={}", encode_query_value(app)));
        }
        if self.filter.errors_only {
            query.push("errors=1".to_string());
        }
        if self.page > 0 {
            query.push(format!("page={}", self.page));
        }
        format!("/traces?{}", query.join("&"))
    }
}

#[component]
pub fn TracesPage() -> impl IntoView {
    let query = use_query_map();
    let address = move || ListAddress::of(&query.read());
    let opened = move || {
        let query = query.read();
        Some((query.get("app")?, query.get("session")?))
    };
    let sessions = Resource::new(address, |at| list_recorded_sessions(at.filter, at.page));
    view! {
        <div class="page-header">
            <div>
                <h1>"Traces"</h1>
                <p class="muted">"Sessions your agent's OpenTelemetry exporter sent to " <code>"/v1/traces"</code></p>
            </div>
        </div>
        <Transition fallback=|| view! { <p class="muted">"Loading sessions…"</p> }>
            {move || Suspend::new(async move {
                match sessions.await {
                    Ok(list) if list.sessions.is_empty() && list.apps.is_empty() => view! { <NoTraces /> }.into_any(),
                    Ok(list) => view! { <SessionsList list at=address() query /> }.into_any(),
                    Err(err) => view! { <ErrorNote message=error_text(&err) /> }.into_any(),
                }
            })}
        </Transition>
        {move || opened().map(|(app, session_id)| view! { <RecordedSession app session_id /> })}
    }
}

/// The filters, a page of sessions and the way to the next.
#[component]
fn SessionsList(list: RecordedSessionsPage, at: ListAddress, query: Memo<ParamsMap>) -> impl IntoView {
    let navigate = leptos_router::hooks::use_navigate();
    // A filter changes the address as it is now, not as this list was drawn: a change made
    // while the last one's list is still loading must keep it. (The page's query, which
    // outlives this list.)
    let go = move |change: &dyn Fn(&mut TraceSessionFilter)| {
        let mut address = ListAddress::of(&query.read_untracked());
        change(&mut address.filter);
        address.page = 0;
        navigate(&address.href(), Default::default());
    };
    let choose_app = {
        let go = go.clone();
        move |ev| {
            let app = event_target_value(&ev);
            go(&|filter| filter.app = (!app.is_empty()).then(|| app.clone()));
        }
    };
    let toggle_errors = move |ev| {
        let errors_only = event_target_checked(&ev);
        go(&|filter| filter.errors_only = errors_only);
    };
    let chosen = at.filter.app.clone().unwrap_or_default();
    let apps = list
        .apps
        .iter()
        .map(|app| view! { <option value=app.clone() selected=*app == chosen>{app.clone()}</option> })
        .collect_view();
    let older = list.has_more.then(|| {
        ListAddress {
            page: at.page + 1,
            ..at.clone()
        }
        .href()
    });
    let newer = (at.page > 0).then(|| {
        ListAddress {
            page: at.page - 1,
            ..at.clone()
        }
        .href()
    });
    view! {
        <div class="toolbar trace-filters">
            <label for="trace-app">"App"</label>
            <select id="trace-app" on:change=choose_app>
                <option value="" selected=chosen.is_empty()>"Every app"</option>
                {apps}
            </select>
            <label><input type="checkbox" prop:checked=at.filter.errors_only on:change=toggle_errors /> " With errors only"</label>
        </div>
        {if list.sessions.is_empty() {
            view! { <p class="muted">"No session matches."</p> }.into_any()
        } else {
            view! { <SessionsTable rows=list.sessions /> }.into_any()
        }}
        <nav class="pager" aria-label="Pages of sessions">
            {newer.map(|href| view! { <a href=href>"← Newer"</a> })}
            {older.map(|href| view! { <a href=href>"Older →"</a> })}
        </nav>
    }
}

#[component]
fn NoTraces() -> impl IntoView {
    view! {
        <div class="empty-state">
            <h2>"No traces yet"</h2>
            <p>
                "Add an " <code>"[otlp]"</code> " table to evalstudio.toml, then run your agent with "
                <code>"OTEL_EXPORTER_OTLP_ENDPOINT"</code> " set to this server's address and "
                <code>"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY"</code> "."
            </p>
        </div>
    }
}

#[component]
fn SessionsTable(rows: Vec<TraceSessionSummary>) -> impl IntoView {
    let body = rows
        .into_iter()
        .map(|row| {
            let href = format!(
                "/traces?app={}&session={}",
                encode_query_value(&row.app),
                encode_query_value(&row.session_id)
            );
            let seconds = (row.ended_unix_nano - row.started_unix_nano) as f64 / 1e9;
            view! {
                <tr>
                    <td><a href=href class="mono">{row.session_id.clone()}</a></td>
                    <td>{row.app.clone()}</td>
                    <td class="mono small">{short_time_seconds(row.started_unix_nano as f64 / 1e9)}</td>
                    <td class="num">{row.turns}</td>
                    <td class="num">{row.tool_calls}</td>
                    <td class="num">{row.errors}</td>
                    <td class="num">{format!("{seconds:.2} s")}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <table class="data-table trace-sessions">
            <thead>
                <tr><th>"Session"</th><th>"App"</th><th>"Started"</th><th class="num">"Turns"</th><th class="num">"Tool calls"</th><th class="num">"Errors"</th><th class="num">"Duration"</th></tr>
            </thead>
            <tbody>{body}</tbody>
        </table>
    }
}

/// A session as a transcript, with what it needs to become a case.
#[component]
fn RecordedSession(app: String, session_id: String) -> impl IntoView {
    let transcript = Resource::new(
        move || (app.clone(), session_id.clone()),
        |(app, session_id)| get_recorded_session(app, session_id),
    );
    view! {
        <Transition fallback=|| view! { <p class="muted">"Loading the session…"</p> }>
            {move || Suspend::new(async move {
                match transcript.await {
                    Ok(Some(transcript)) => view! { <TranscriptView transcript /> }.into_any(),
                    Ok(None) => view! { <ErrorNote message="No spans of this session were received.".to_string() /> }.into_any(),
                    Err(err) => view! { <ErrorNote message=error_text(&err) /> }.into_any(),
                }
            })}
        </Transition>
    }
}

#[component]
fn TranscriptView(transcript: RecordedTranscript) -> impl IntoView {
    let notes = (!transcript.complete)
        .then(|| view! { <p class="note note-warning">"Some spans of this session have not arrived: it is incomplete."</p> });
    let content = transcript.content_setting.clone().map(|setting| {
        view! { <p class="note note-warning">"Its spans carry no messages. Run the agent with " <code>{setting}</code> "."</p> }
    });
    let addable = transcript.complete && transcript.content_setting.is_none();
    let turns = transcript
        .turns
        .into_iter()
        .map(|turn| {
            view! {
                <div class="turn-block">
                    <div class="bubble bubble-user">{turn.user_message}</div>
                    <TurnItems events=turn.events />
                </div>
            }
        })
        .collect_view();
    view! {
        <section class="card recorded-session" aria-label="Recorded session">
            <h2>"Session " <code>{transcript.session_id.clone()}</code> " · " {transcript.app.clone()}</h2>
            {notes}
            {content}
            <div class="transcript">{turns}</div>
            {addable.then(|| view! { <AddToEvalSet app=transcript.app.clone() session_id=transcript.session_id.clone() /> })}
        </section>
    }
}

/// "Add to evalset": the evalset (made when new) and the case's id.
#[component]
fn AddToEvalSet(app: String, session_id: String) -> impl IntoView {
    let eval_set_id = RwSignal::new("production".to_string());
    let eval_id = RwSignal::new(format!(
        "session_{}",
        session_id.replace(|c: char| !c.is_ascii_alphanumeric(), "_")
    ));
    let sets = Resource::new(
        {
            let app = app.clone();
            move || app.clone()
        },
        list_eval_sets,
    );
    let add = Action::new(
        move |(app, set, id, session): &(String, String, String, String)| {
            add_recorded_session(app.clone(), set.clone(), session.clone(), id.clone())
        },
    );
    let submit = {
        let app = app.clone();
        move |ev: leptos::ev::SubmitEvent| {
            ev.prevent_default();
            add.dispatch((app.clone(), eval_set_id.get(), eval_id.get(), session_id.clone()));
        }
    };
    let outcome = move || {
        add.value().get().map(|saved| match saved {
            Ok(id) => view! {
                <p class="note note-passed" role="status">
                    "Saved as " <a href=edit_href(&app, &eval_set_id.get_untracked(), &id)>{id.clone()}</a> "."
                </p>
            }
            .into_any(),
            Err(err) => view! { <ErrorNote message=error_text(&err) /> }.into_any(),
        })
    };
    view! {
        <form class="add-recorded" on:submit=submit>
            <label for="trace-eval-set">"Evalset"</label>
            <input id="trace-eval-set" list="trace-eval-sets" prop:value=move || eval_set_id.get()
                on:input=move |ev| eval_set_id.set(event_target_value(&ev)) />
            <datalist id="trace-eval-sets">
                <Transition>
                    {move || Suspend::new(async move {
                        sets.await.unwrap_or_default().into_iter()
                            .map(|set| view! { <option value=set.eval_set_id /> })
                            .collect_view()
                    })}
                </Transition>
            </datalist>
            <label for="trace-eval-id">"Eval id"</label>
            <input id="trace-eval-id" prop:value=move || eval_id.get()
                on:input=move |ev| eval_id.set(event_target_value(&ev)) />
            <button type="submit" disabled=move || add.pending().get()>"Add to evalset"</button>
        </form>
        {outcome}
    }
}
