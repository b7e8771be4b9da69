//! The Traces list's filters, kept in the URL: app, errors only, a range of start days (UTC),
//! a tool called, a text said. Each change goes to the first page of what it keeps.

use crate::records::traces::TraceSessionFilter;
use crate::ui::{date_of_day, day_of_date, encode_query_value};
use leptos::prelude::*;
use leptos_router::params::ParamsMap;

/// Nanoseconds in a day.
const DAY: i64 = 86_400_000_000_000;

/// The start of day `day` in Unix nanoseconds; none past what they count (the year 2262).
fn start_of(day: i64) -> Option<i64> {
    day.checked_mul(DAY)
}

/// The list's filters and page, as the URL has them.
#[derive(Clone, PartialEq)]
pub(super) struct ListAddress {
    pub filter: TraceSessionFilter,
    pub page: i64,
}

impl ListAddress {
    pub fn of(query: &ParamsMap) -> ListAddress {
        let text = |key| {
            query
                .get(key)
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
        };
        let day = |key| text(key).as_deref().and_then(day_of_date);
        ListAddress {
            filter: TraceSessionFilter {
                app: text("app"),
                errors_only: query.get("errors").is_some_and(|on| on == "1"),
                started_from: day("from").and_then(start_of),
                // The last day is kept whole.
                started_before: day("to").and_then(|day| start_of(day + 1)),
                tool: text("tool"),
                text: text("text"),
            },
            page: query.get("page").and_then(|page| page.parse().ok()).unwrap_or(0),
        }
    }

    pub fn href(&self) -> String {
        let filter = &self.filter;
        let mut query = Vec::new();
        let mut add = |key: &str, value: &str| query.push(format!("{key}={}", encode_query_value(value)));
        if let Some(app) = &filter.app {
            add("app", app);
        }
        if filter.errors_only {
            add("errors", "1");
        }
        if let Some(from) = filter.started_from {
            add("from", &date_of_day(from.div_euclid(DAY)));
        }
        if let Some(before) = filter.started_before {
            add("to", &date_of_day(before.div_euclid(DAY) - 1));
        }
        if let Some(tool) = &filter.tool {
            add("tool", tool);
        }
        if let Some(text) = &filter.text {
            add("text", text);
        }
        if self.page > 0 {
            add("page", &self.page.to_string());
        }
        format!("/traces?{}", query.join("&"))
    }
}

/// The filter controls over the list drawn for `at`.
#[component]
pub(super) fn Filters(at: ListAddress, apps: Vec<String>, query: Memo<ParamsMap>) -> impl IntoView {
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
    let typed =
        |ev: &leptos::ev::Event| Some(event_target_value(ev).trim().to_string()).filter(|v| !v.is_empty());
    // A field's change sets its part of the filter from what it now holds.
    let on = |set: fn(&mut TraceSessionFilter, Option<String>)| {
        let go = go.clone();
        move |ev: leptos::ev::Event| {
            let value = typed(&ev);
            go(&|filter| set(filter, value.clone()));
        }
    };
    let choose_app = on(|filter, app| filter.app = app);
    let from = on(|filter, day| filter.started_from = day.as_deref().and_then(day_of_date).map(|d| d * DAY));
    let to =
        on(|filter, day| filter.started_before = day.as_deref().and_then(day_of_date).map(|d| (d + 1) * DAY));
    let tool = on(|filter, tool| filter.tool = tool);
    let text = on(|filter, text| filter.text = text);
    let toggle_errors = move |ev| {
        let errors_only = event_target_checked(&ev);
        go(&|filter| filter.errors_only = errors_only);
    };
    let filter = at.filter;
    let chosen = filter.app.clone().unwrap_or_default();
    let apps = apps
        .into_iter()
        .map(|app| view! { <option value=app.clone() selected=app == chosen>{app.clone()}</option> })
        .collect_view();
    let day = |nanos: Option<i64>, shift: i64| {
        nanos
            .map(|n| date_of_day(n.div_euclid(DAY) + shift))
            .unwrap_or_default()
    };
    view! {
        <div class="toolbar trace-filters">
            <span class="filter">
                <label for="trace-app">"App"</label>
                <select id="trace-app" on:change=choose_app>
                    <option value="" selected=chosen.is_empty()>"Every app"</option>
                    {apps}
                </select>
            </span>
            <span class="filter">
                <label for="trace-from">"From"</label>
                <input id="trace-from" type="date" prop:value=day(filter.started_from, 0) on:change=from />
            </span>
            <span class="filter">
                <label for="trace-to">"To"</label>
                <input id="trace-to" type="date" prop:value=day(filter.started_before, -1) on:change=to />
            </span>
            <span class="filter">
                <label for="trace-tool">"Tool"</label>
                <input id="trace-tool" class="trace-tool" placeholder="any" prop:value=filter.tool.unwrap_or_default() on:change=tool />
            </span>
            <span class="filter">
                <label for="trace-text">"Text"</label>
                <input id="trace-text" type="search" placeholder="said or sent" prop:value=filter.text.unwrap_or_default() on:change=text />
            </span>
            <label><input type="checkbox" prop:checked=filter.errors_only on:change=toggle_errors /> " With errors only"</label>
        </div>
    }
}
