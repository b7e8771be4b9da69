//! Traces: the sessions an agent's OpenTelemetry exporter sent (the `[otlp]` receiver), newest
//! first; one opens as a transcript (`session`), and the ones ticked in an app's list are added
//! or scored together (`selection`). The filters, the page and the session shown are in the URL.

mod filters;
mod selection;
mod session;

use crate::api::traces::list_recorded_sessions;
use crate::records::traces::{RecordedSessionsPage, TraceSessionFilter, TraceSessionSummary};
use crate::ui::{encode_query_value, error_text, short_time_seconds, ErrorNote};
use filters::{Filters, ListAddress};
use leptos::prelude::*;
use leptos_router::hooks::use_query_map;
use leptos_router::params::ParamsMap;
use selection::SelectionBar;
use session::RecordedSession;
use std::collections::BTreeSet;

#[component]
pub fn TracesPage() -> impl IntoView {
    let query = use_query_map();
    let address = move || ListAddress::of(&query.read());
    let opened = move || {
        let query = query.read();
        Some((query.get("app")?, query.get("session")?))
    };
    let sessions = Resource::new(address, |at| list_recorded_sessions(at.filter, at.page));
    // Kept while a session is opened or another page read; a case or a run is of one app, so
    // another app starts afresh.
    let selected = RwSignal::new(BTreeSet::<String>::new());
    let app = Memo::new(move |_| address().filter.app);
    Effect::new(move |before: Option<Option<String>>| {
        let now = app.get();
        if before.is_some_and(|before| before != now) {
            selected.set(BTreeSet::new());
        }
        now
    });
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
                    // The list as its address was (opening a session changes the query, not it).
                    Ok(list) => view! { <SessionsList list at=untrack(address) query selected /> }.into_any(),
                    Err(err) => view! { <ErrorNote message=error_text(&err) /> }.into_any(),
                }
            })}
        </Transition>
        {move || opened().map(|(app, session_id)| view! { <RecordedSession app session_id /> })}
    }
}

/// The filters, a page of sessions and the way to the next.
#[component]
fn SessionsList(
    list: RecordedSessionsPage,
    at: ListAddress,
    query: Memo<ParamsMap>,
    selected: RwSignal<BTreeSet<String>>,
) -> impl IntoView {
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
        <Filters at=at.clone() apps=list.apps query />
        {at.filter.app.clone().map(|app| view! { <SelectionBar app selected filter=at.filter.clone() /> })}
        {if list.sessions.is_empty() {
            view! { <p class="muted">"No session matches."</p> }.into_any()
        } else {
            // Sessions are ticked within one app's list: a case or a run belongs to one app.
            let selectable = at.filter.app.is_some().then_some(selected);
            view! { <SessionsTable rows=list.sessions selected=selectable at=at.clone() /> }.into_any()
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
                <code>"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_AND_EVENT"</code>
                " (" <code>"SPAN_ONLY"</code> " records what was said but not who said it)."
            </p>
        </div>
    }
}

#[component]
fn SessionsTable(
    rows: Vec<TraceSessionSummary>,
    selected: Option<RwSignal<BTreeSet<String>>>,
    at: ListAddress,
) -> impl IntoView {
    let on_page: Vec<String> = rows.iter().map(|row| row.session_id.clone()).collect();
    let body = rows
        .into_iter()
        .map(|row| {
            let href = opened_href(&at, &row);
            view! { <SessionRow row selected href /> }
        })
        .collect_view();
    let all = selected.map(|selected| {
        let every = {
            let on_page = on_page.clone();
            move || !on_page.is_empty() && selected.with(|s| on_page.iter().all(|id| s.contains(id)))
        };
        let toggle = {
            let every = every.clone();
            move |_| {
                let tick = !every();
                selected.update(|s| on_page.iter().for_each(|id| {
                    if tick { s.insert(id.clone()); } else { s.remove(id); }
                }));
            }
        };
        view! { <th class="select"><input type="checkbox" aria-label="Select every session on this page" prop:checked=every on:change=toggle /></th> }
    });
    view! {
        <table class="data-table trace-sessions">
            <thead>
                <tr>{all}<th>"Session"</th><th>"App"</th><th>"User"</th><th>"Started"</th><th class="num">"Turns"</th><th class="num">"Tool calls"</th><th class="num">"Errors"</th><th class="num">"Duration"</th><th class="num">"Tokens in / out"</th></tr>
            </thead>
            <tbody>{body}</tbody>
        </table>
    }
}

#[component]
fn SessionRow(
    row: TraceSessionSummary,
    selected: Option<RwSignal<BTreeSet<String>>>,
    href: String,
) -> impl IntoView {
    let seconds = (row.ended_unix_nano - row.started_unix_nano) as f64 / 1e9;
    let tick = selected.map(|selected| {
        let id = row.session_id.clone();
        let ticked = {
            let id = id.clone();
            move || selected.with(|s| s.contains(&id))
        };
        let label = format!("Select session {id}");
        let toggle = move |ev| {
            let on = event_target_checked(&ev);
            selected.update(|s| {
                if on { s.insert(id.clone()); } else { s.remove(&id); }
            });
        };
        view! { <td class="select"><input type="checkbox" aria-label=label prop:checked=ticked on:change=toggle /></td> }
    });
    view! {
        <tr>
            {tick}
            <td><a href=href class="mono">{row.session_id.clone()}</a></td>
            <td class="app-name">{row.app.clone()}</td>
            <td class="mono small">{row.user_id.clone().unwrap_or_else(|| "–".into())}</td>
            <td class="mono small">{short_time_seconds(row.started_unix_nano as f64 / 1e9)}</td>
            <td class="num">{row.turns}</td>
            <td class="num">{row.tool_calls}</td>
            <td class="num">{row.errors}</td>
            <td class="num">{format!("{seconds:.2} s")}</td>
            <td class="num">{tokens(&row)}</td>
        </tr>
    }
}

/// The list as it is, its app's, with `row`'s session opened below it.
fn opened_href(at: &ListAddress, row: &TraceSessionSummary) -> String {
    let same_app = at.filter.app.as_deref() == Some(row.app.as_str());
    let list = ListAddress {
        filter: TraceSessionFilter {
            app: Some(row.app.clone()),
            ..at.filter.clone()
        },
        page: if same_app { at.page } else { 0 },
    };
    format!("{}&session={}", list.href(), encode_query_value(&row.session_id))
}

/// "1,204 / 310", or "–" when its spans reported no usage.
fn tokens(row: &TraceSessionSummary) -> String {
    match (row.input_tokens, row.output_tokens) {
        (None, None) => "–".into(),
        (input, output) => format!(
            "{} / {}",
            input.map_or("–".into(), |n| n.to_string()),
            output.map_or("–".into(), |n| n.to_string())
        ),
    }
}
