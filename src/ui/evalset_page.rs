//! One evalset: its cases, filtered and sorted by the server, a page at a time. The filter, the
//! order and the page live in the URL (`?q=&sort=&desc=1&page=`), so they survive a reload and
//! can be linked to.

use super::evaluate::EvaluatePanel;
use super::{case_href, count, encode_query_value, error_text, export_href, preview, ErrorNote};
use crate::api::cases::UndoDeleteCase;
use crate::api::list_cases;
use crate::records::{CaseListPage, CaseListQuery, CaseSort};
use leptos::prelude::*;
use leptos_router::hooks::{use_params_map, use_query_map};

#[component]
pub fn EvalSetPage() -> impl IntoView {
    let params = use_params_map();
    let query = use_query_map();
    let app = move || params.read().get("app").unwrap_or_default();
    let eval_set_id = move || params.read().get("eval_set_id").unwrap_or_default();
    let page = move || {
        query
            .read()
            .get("page")
            .and_then(|p| p.parse::<i64>().ok())
            .unwrap_or(1)
    };
    let case_query = move || {
        let query = query.read();
        CaseListQuery {
            text: query.get("q").unwrap_or_default(),
            sort: query
                .get("sort")
                .and_then(|s| CaseSort::parse(&s))
                .unwrap_or_default(),
            descending: query.get("desc").is_some_and(|d| d == "1"),
        }
    };
    // `?deleted=ID` after a case page's delete: offer to undo it, then list the cases again.
    let deleted = move || query.read().get("deleted");
    let undo = ServerAction::<UndoDeleteCase>::new();
    let cases = Resource::new(
        move || (app(), eval_set_id(), case_query(), page(), undo.version().get()),
        |(app, id, query, page, _)| list_cases(app, id, query, page),
    );
    let undo_banner = move || {
        let eval_id = deleted()?;
        let done = matches!(undo.value().get(), Some(Ok(())));
        let failed = undo.value().get().and_then(Result::err);
        Some(view! {
            <div class="notice" role="status">
                {if done {
                    view! { "Brought back " <code>{eval_id.clone()}</code> "." }.into_any()
                } else {
                    let dispatch_id = eval_id.clone();
                    view! {
                        "Deleted " <code>{eval_id.clone()}</code> ". "
                        <button on:click=move |_| {
                            undo.dispatch(UndoDeleteCase {
                                app: app(),
                                eval_set_id: eval_set_id(),
                                eval_id: dispatch_id.clone(),
                            });
                        }>"Undo"</button>
                    }
                        .into_any()
                }}
                {failed.map(|err| view! { <ErrorNote message=error_text(&err) /> })}
            </div>
        })
    };

    view! {
        <nav class="breadcrumbs" aria-label="Breadcrumb">
            <a href="/">"Evalsets"</a>
            <span aria-hidden="true">"/"</span>
            <span class="mono">{eval_set_id}</span>
        </nav>
        {undo_banner}
        <Transition fallback=|| view! { <p class="muted">"Loading cases…"</p> }>
            {move || Suspend::new(async move {
                match cases.await {
                    Ok(page) => view! { <CaseList page /> }.into_any(),
                    Err(err) => view! { <ErrorNote message=error_text(&err) /> }.into_any(),
                }
            })}
        </Transition>
    }
}

#[component]
fn CaseList(page: CaseListPage) -> impl IntoView {
    let set = page.eval_set.clone();
    let (app, id) = (set.app_name.clone(), set.eval_set_id.clone());
    let title = set.name.clone().unwrap_or_else(|| id.clone());
    let query = page.query.clone();
    let page_href = {
        let (app, id, query) = (app.clone(), id.clone(), query.clone());
        move |n: i64| {
            let mut href = format!("/evalsets/{app}/{id}?page={n}&sort={}", query.sort.as_str());
            if !query.text.is_empty() {
                href.push_str(&format!("&q={}", encode_query_value(&query.text)));
            }
            if query.descending {
                href.push_str("&desc=1");
            }
            href
        }
    };
    let filtered = !query.text.trim().is_empty();
    let rows = page
        .cases
        .iter()
        .map(|case| {
            view! {
                <tr>
                    <td>
                        <a class="mono" href=case_href(&app, &id, &case.eval_id)>
                            {case.eval_id.clone()}
                        </a>
                    </td>
                    <td class="num">{case.turn_count}</td>
                    <td class="num">{case.tool_call_count}</td>
                    <td class="preview" title=case.first_user_message.clone()>
                        {preview(&case.first_user_message, 120)}
                    </td>
                </tr>
            }
        })
        .collect_view();
    let (current, last) = (page.page, page.page_count());
    view! {
        <div class="page-header">
            <div>
                <h1 class="mono">{title}</h1>
                <p class="muted">
                    {set.description.clone().unwrap_or_default()} " " {count(set.case_count, "case")} " · app "
                    <code>{app.clone()}</code>
                </p>
            </div>
            <a
                class="button"
                href=export_href(&app, &id)
                download=format!("{id}.evalset.json")
                rel="external"
            >
                "Export"
            </a>
        </div>
        {(set.case_count > 0).then(|| view! { <CaseFilter query=query.clone() /> })}
        {if page.total_cases == 0 && filtered {
            view! {
                <div class="empty-state">
                    <h2>"No case matches"</h2>
                    <p>"No eval id, first user message or tool name contains “" {query.text.clone()} "”."</p>
                </div>
            }
                .into_any()
        } else if page.total_cases == 0 {
            view! {
                <div class="empty-state">
                    <h2>"No cases yet"</h2>
                    <p>"Import a file with cases into this evalset, or add them over the REST API."</p>
                </div>
            }
                .into_any()
        } else {
            view! {
                <table class="data-table">
                    <thead>
                        <tr>
                            <th scope="col">"Eval id"</th>
                            <th scope="col" class="num">"Turns"</th>
                            <th scope="col" class="num">"Tool calls"</th>
                            <th scope="col">"First user message"</th>
                        </tr>
                    </thead>
                    <tbody>{rows}</tbody>
                </table>
                {(last > 1)
                    .then(|| {
                        view! {
                            <nav class="pager" aria-label="Pages">
                                {(current > 1)
                                    .then(|| {
                                        view! { <a href=page_href(current - 1) rel="prev">"← Previous"</a> }
                                    })}
                                <span class="muted">"Page " {current} " of " {last}</span>
                                {(current < last)
                                    .then(|| view! { <a href=page_href(current + 1) rel="next">"Next →"</a> })}
                            </nav>
                        }
                    })}
            }
                .into_any()
        }}
        {(set.case_count > 0).then(|| view! { <EvaluatePanel app=app.clone() eval_set_id=id.clone() /> })}
    }
}

/// The filter box and the order, sent as a GET of this page (so it works before hydration too).
#[component]
fn CaseFilter(query: CaseListQuery) -> impl IntoView {
    let options = CaseSort::ALL
        .into_iter()
        .map(|sort| {
            view! {
                <option value=sort.as_str() selected=sort == query.sort>
                    {sort.label()}
                </option>
            }
        })
        .collect_view();
    view! {
        <form class="case-filter" method="get" role="search">
            <label>
                "Filter "
                <input
                    type="search"
                    name="q"
                    value=query.text.clone()
                    placeholder="eval id, user message or tool name"
                />
            </label>
            <label>"Sort " <select name="sort">{options}</select></label>
            <label>
                <input type="checkbox" name="desc" value="1" checked=query.descending />
                " Descending"
            </label>
            <button type="submit">"Apply"</button>
        </form>
    }
}
