//! An evalset's case list, a page of it: the header with the evalset's actions, the latest
//! run's line, the filter, the selection bar, the rows and the pages. The server filters,
//! sorts and pages; the page's URL holds the query.

use super::case_list_address::CaseListAddress;
use super::case_status::{LastRunLine, StatusCell};
use super::delete_cases_dialog::DeleteCasesDialog;
use super::new_scenario_dialog::NewScenarioDialog;
use super::pager::page_links;
use super::{case_href, case_result_href, count, edit_href, encode_query_value, preview, rest_links};
use crate::api::cases::{DeleteCases, DuplicateCase};
use crate::records::cases::{CaseListItem, CaseListPage, CaseListQuery, CaseSort};
use leptos::prelude::*;
use leptos_router::components::Form;
use std::collections::BTreeSet;

/// The list's actions, shared by its rows and its toolbar.
#[derive(Clone, Copy)]
pub struct ListActions {
    pub delete: ServerAction<DeleteCases>,
    /// The ids the last delete named, for the undo offer.
    pub deleting: RwSignal<Vec<String>>,
    pub duplicate: ServerAction<DuplicateCase>,
}

#[component]
pub fn CaseList(
    page: CaseListPage,
    actions: ListActions,
    selected: RwSignal<BTreeSet<String>>,
) -> impl IntoView {
    let (app, id) = (page.eval_set.app_name.clone(), page.eval_set.eval_set_id.clone());
    let filtered = !page.query.text.trim().is_empty() || page.query.failed_last_run;
    // The cases a confirmation dialog is asking to delete.
    let asking = RwSignal::new(Vec::<String>::new());
    let body = if page.total_cases == 0 {
        view! { <NoCases filtered failed_last_run=page.query.failed_last_run text=page.query.text.clone() /> }
            .into_any()
    } else {
        view! { <CaseTable page=page.clone() actions selected asking /> }.into_any()
    };
    view! {
        <EvalSetHeader page=page.clone() />
        {page.last_run.clone().map(|run| view! { <LastRunLine run /> })}
        {(page.eval_set.case_count > 0)
            .then(|| view! { <CaseFilter query=page.query.clone() has_run=page.last_run.is_some() /> })}
        {body}
        <DeleteCasesDialog asking app eval_set_id=id delete=actions.delete deleting=actions.deleting />
    }
}

/// The evalset's title and its actions: a new scenario case, its runs, its export.
#[component]
fn EvalSetHeader(page: CaseListPage) -> impl IntoView {
    let set = page.eval_set;
    let (app, id) = (set.app_name.clone(), set.eval_set_id.clone());
    let new_scenario = RwSignal::new(false);
    view! {
        <div class="page-header">
            <div>
                <h1 class="mono">{set.name.clone().unwrap_or_else(|| id.clone())}</h1>
                <p class="muted">
                    {set.description.clone().unwrap_or_default()} " " {count(set.case_count, "case")} " · app "
                    <code>{app.clone()}</code>
                </p>
            </div>
            <button type="button" on:click=move |_| new_scenario.set(true)>"New scenario case"</button>
            <a class="button" href=format!("/runs?app={app}&eval_set_id={}", encode_query_value(&id))>
                "Runs"
            </a>
            <a
                class="button"
                href=rest_links::eval_set_export(&app, &id)
                download=format!("{id}.evalset.json")
                rel="external"
            >
                "Export"
            </a>
        </div>
        <NewScenarioDialog open=new_scenario app eval_set_id=id />
    }
}

/// What an empty list says: nothing matches the filter, or there is nothing yet.
#[component]
fn NoCases(filtered: bool, failed_last_run: bool, text: String) -> impl IntoView {
    let (title, detail) = match (filtered, failed_last_run) {
        (true, true) => (
            "No case matches",
            "No case that failed in the latest run matches the filter.".to_string(),
        ),
        (true, false) => (
            "No case matches",
            format!("No eval id, first user message or tool name contains “{text}”."),
        ),
        (false, _) => (
            "No cases yet",
            "Import a file with cases into this evalset, or add them over the REST API.".to_string(),
        ),
    };
    view! {
        <div class="empty-state">
            <h2>{title}</h2>
            <p>{detail}</p>
        </div>
    }
}

/// The page's cases: the selection bar, the table and the links to other pages.
#[component]
fn CaseTable(
    page: CaseListPage,
    actions: ListActions,
    selected: RwSignal<BTreeSet<String>>,
    asking: RwSignal<Vec<String>>,
) -> impl IntoView {
    let (app, id) = (page.eval_set.app_name.clone(), page.eval_set.eval_set_id.clone());
    let last_run_id = page.last_run.as_ref().map(|run| run.result_id.clone());
    let on_page: Vec<String> = page.cases.iter().map(|c| c.eval_id.clone()).collect();
    let rows = page
        .cases
        .iter()
        .map(|case| {
            view! {
                <CaseListRow
                    case=case.clone()
                    app=app.clone()
                    eval_set_id=id.clone()
                    last_run_id=last_run_id.clone()
                    actions
                    selected
                    asking
                />
            }
        })
        .collect_view();
    let address = CaseListAddress {
        query: page.query.clone(),
        page: page.page,
    };
    let page_href = move |n: i64| address.at_page(n).href(&app, &id);
    view! {
        <SelectionBar actions selected asking />
        <table class="data-table case-table">
            <thead>
                <tr>
                    <th scope="col" class="select">
                        <SelectAll on_page selected />
                    </th>
                    <th scope="col">"Eval id"</th>
                    <th scope="col" class="num">"Turns"</th>
                    <th scope="col" class="num">"Tool calls"</th>
                    <th scope="col">"Latest run"</th>
                    <th scope="col">"First user message"</th>
                    <th scope="col">
                        <span class="visually-hidden">"Actions"</span>
                    </th>
                </tr>
            </thead>
            <tbody>{rows}</tbody>
        </table>
        {page_links(page.page, page.page_count(), &page_href)}
    }
}

/// How many cases are selected, and deleting them together.
#[component]
fn SelectionBar(
    actions: ListActions,
    selected: RwSignal<BTreeSet<String>>,
    asking: RwSignal<Vec<String>>,
) -> impl IntoView {
    view! {
        <div class="selection-bar" role="toolbar" aria-label="Selected cases">
            <span class="muted">
                {move || match selected.with(BTreeSet::len) {
                    0 => "Select cases to delete several at once.".to_string(),
                    n => format!("{} selected", count(n as i64, "case")),
                }}
            </span>
            <button
                class="danger small"
                disabled=move || selected.with(BTreeSet::is_empty) || actions.delete.pending().get()
                on:click=move |_| asking.set(selected.get().into_iter().collect())
            >
                "Delete selected"
            </button>
        </div>
    }
}

/// The heading's checkbox: every case on this page selected, or none of them.
#[component]
fn SelectAll(on_page: Vec<String>, selected: RwSignal<BTreeSet<String>>) -> impl IntoView {
    let all_selected = {
        let on_page = on_page.clone();
        move || selected.with(|s| !on_page.is_empty() && on_page.iter().all(|id| s.contains(id)))
    };
    view! {
        <input
            type="checkbox"
            aria-label="Select all cases on this page"
            prop:checked=all_selected.clone()
            on:change=move |_| {
                let select = !all_selected();
                selected.update(|s| {
                    for id in &on_page {
                        if select {
                            s.insert(id.clone());
                        } else {
                            s.remove(id);
                        }
                    }
                })
            }
        />
    }
}

/// One case of the list: select it, open it, its latest status, edit, duplicate, delete.
#[component]
fn CaseListRow(
    case: CaseListItem,
    app: String,
    eval_set_id: String,
    last_run_id: Option<String>,
    actions: ListActions,
    selected: RwSignal<BTreeSet<String>>,
    /// The cases a confirmation dialog is asking to delete.
    asking: RwSignal<Vec<String>>,
) -> impl IntoView {
    let id = eval_set_id;
    let eval_id = case.eval_id.clone();
    let (toggle_id, checked_id, dup_id, del_id) =
        (eval_id.clone(), eval_id.clone(), eval_id.clone(), eval_id.clone());
    let (app_dup, set_dup) = (app.clone(), id.clone());
    view! {
        <tr class:selected=move || selected.with(|s| s.contains(&checked_id))>
            <td class="select">
                <input
                    type="checkbox"
                    aria-label=format!("Select {eval_id}")
                    prop:checked={
                        let eval_id = eval_id.clone();
                        move || selected.with(|s| s.contains(&eval_id))
                    }
                    on:change=move |_| {
                        selected.update(|s| {
                            if !s.remove(&toggle_id) {
                                s.insert(toggle_id.clone());
                            }
                        })
                    }
                />
            </td>
            <td>
                <a class="mono" href=case_href(&app, &id, &case.eval_id)>
                    {case.eval_id.clone()}
                </a>
            </td>
            <td class="num">{case.turn_count}</td>
            <td class="num">{case.tool_call_count}</td>
            <td class="status-cell">
                <StatusCell
                    result=case.last_result.clone()
                    link=last_run_id.as_ref().map(|run| case_result_href(&app, &id, run, &case.eval_id))
                />
            </td>
            <td class="preview" title=case.first_user_message.clone()>
                {preview(&case.first_user_message, 120)}
            </td>
            <td class="actions">
                <a class="button small" href=edit_href(&app, &id, &case.eval_id)>"Edit"</a>
                <button
                    class="small"
                    disabled=move || actions.duplicate.pending().get()
                    on:click=move |_| {
                        actions.duplicate.dispatch(DuplicateCase {
                            app: app_dup.clone(),
                            eval_set_id: set_dup.clone(),
                            eval_id: dup_id.clone(),
                        });
                    }
                >
                    "Duplicate"
                </button>
                <button class="small danger" on:click=move |_| asking.set(vec![del_id.clone()])>
                    "Delete"
                </button>
            </td>
        </tr>
    }
}

/// The filter box and the order, sent as a GET of this page: a plain form before hydration, a
/// client-side navigation after (the router's `Form`), so what is chosen in the Evaluate panel
/// meanwhile stays.
#[component]
fn CaseFilter(query: CaseListQuery, has_run: bool) -> impl IntoView {
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
        <Form method="GET" action="" attr:class="case-filter" attr:role="search">
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
            {has_run
                .then(|| {
                    view! {
                        <label>
                            <input type="checkbox" name="failed" value="1" checked=query.failed_last_run />
                            " Failed in the latest run"
                        </label>
                    }
                })}
            <button type="submit">"Apply"</button>
        </Form>
    }
}
