//! Traces: the sessions an agent's OpenTelemetry exporter sent (the `[otlp]` receiver), newest
//! first; one opens as a transcript (`session`), and the ones ticked in an app's list are added
//! or scored together (`selection`). The filters, the page and the session shown are in the URL.

mod selection;
mod session;

use crate::api::traces::list_recorded_sessions;
use crate::records::{RecordedSessionsPage, TraceSessionFilter, TraceSessionSummary};
use crate::ui::{encode_query_value, error_text, short_time_seconds, ErrorNote};
use leptos::prelude::*;
use leptos_router::hooks::use_query_map;
use leptos_router::params::ParamsMap;
use selection::SelectionBar;
use session::RecordedSession;
use std::collections::BTreeSet;

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
    let selected = RwSignal::new(BTreeSet::<String>::new());
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
        {at.filter.app.clone().map(|app| view! { <SelectionBar app selected /> })}
        {if list.sessions.is_empty() {
            view! { <p class="muted">"No session matches."</p> }.into_any()
        } else {
            // Sessions are ticked within one app's list: a case or a run belongs to one app.
            let selectable = at.filter.app.is_some().then_some(selected);
            view! { <SessionsTable rows=list.sessions selected=selectable /> }.into_any()
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
fn SessionsTable(
    rows: Vec<TraceSessionSummary>,
    selected: Option<RwSignal<BTreeSet<String>>>,
) -> impl IntoView {
    let on_page: Vec<String> = rows.iter().map(|row| row.session_id.clone()).collect();
    let body = rows
        .into_iter()
        .map(|row| view! { <SessionRow row selected /> })
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
        view! { <th class="tick"><input type="checkbox" aria-label="Select every session on this page" prop:checked=every on:change=toggle /></th> }
    });
    view! {
        <table class="data-table trace-sessions">
            <thead>
                <tr>{all}<th>"Session"</th><th>"App"</th><th>"Started"</th><th class="num">"Turns"</th><th class="num">"Tool calls"</th><th class="num">"Errors"</th><th class="num">"Duration"</th></tr>
            </thead>
            <tbody>{body}</tbody>
        </table>
    }
}

#[component]
fn SessionRow(row: TraceSessionSummary, selected: Option<RwSignal<BTreeSet<String>>>) -> impl IntoView {
    let href = format!(
        "/traces?app={}&session={}",
        encode_query_value(&row.app),
        encode_query_value(&row.session_id)
    );
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
        view! { <td class="tick"><input type="checkbox" aria-label=label prop:checked=ticked on:change=toggle /></td> }
    });
    view! {
        <tr>
            {tick}
            <td><a href=href class="mono">{row.session_id.clone()}</a></td>
            <td>{row.app.clone()}</td>
            <td class="mono small">{short_time_seconds(row.started_unix_nano as f64 / 1e9)}</td>
            <td class="num">{row.turns}</td>
            <td class="num">{row.tool_calls}</td>
            <td class="num">{row.errors}</td>
            <td class="num">{format!("{seconds:.2} s")}</td>
        </tr>
    }
}
