//! One evalset: its cases, filtered and sorted by the server, a page at a time. The filter, the
//! order and the page live in the URL (`?q=&sort=&desc=1&page=`), so they survive a reload and
//! can be linked to. Cases can be duplicated, deleted one by one or selected and deleted
//! together; a delete is offered for undo (`?deleted=ID`, once per case).

use super::case_list_address::CaseListAddress;
use super::case_status::{LastRunLine, StatusCell};
use super::delete_cases_dialog::DeleteCasesDialog;
use super::evaluate::{EvaluatePanel, RunsChanged, SelectedCases};
use super::folder_notes::EvalSetFileNote;
use super::new_scenario_dialog::NewScenarioDialog;
use super::pager::page_links;
use super::{
    case_href, case_result_href, count, edit_href, encode_query_value, error_text, preview, rest_links,
    ErrorNote, NotFound,
};
use crate::api::cases::{DeleteCases, DuplicateCase, UndoDeleteCases};
use crate::api::evalsets::get_eval_set;
use crate::api::list_cases;
use crate::records::{CaseListItem, CaseListPage, CaseListQuery, CaseSort};
use leptos::prelude::*;
use leptos_router::components::Form;
use leptos_router::hooks::{use_navigate, use_params_map, use_query_map};
use std::collections::BTreeSet;

/// The list's actions, shared by its rows and its toolbar.
#[derive(Clone, Copy)]
struct ListActions {
    delete: ServerAction<DeleteCases>,
    /// The ids the last delete named, for the undo offer.
    deleting: RwSignal<Vec<String>>,
    duplicate: ServerAction<DuplicateCase>,
}

#[component]
pub fn EvalSetPage() -> impl IntoView {
    let params = use_params_map();
    let query = use_query_map();
    let app = move || params.read().get("app").unwrap_or_default();
    let eval_set_id = move || params.read().get("eval_set_id").unwrap_or_default();
    let address = move || CaseListAddress::read(|key| query.read().get(key));
    // `?deleted=ID` (once per case) after a delete: offer to undo it, then list the cases again.
    let deleted = move || query.read().get_all("deleted").unwrap_or_default();
    let undo = ServerAction::<UndoDeleteCases>::new();
    // The ids the last undo brought back, which the banner names.
    let undone = RwSignal::new(Vec::<String>::new());
    let actions = ListActions {
        delete: ServerAction::new(),
        deleting: RwSignal::new(Vec::new()),
        duplicate: ServerAction::new(),
    };
    // The Evaluate panel says when a run got further; the cases are listed again with their
    // statuses then.
    let runs_changed = RwSignal::new(0u32);
    provide_context(RunsChanged(runs_changed));
    // Folder mode: the evalset's file changed on disk.
    let file_changed = RwSignal::new(0u32);
    // Kept across the list's reloads (a run's progress, an undo).
    let selected = RwSignal::new(BTreeSet::<String>::new());
    provide_context(SelectedCases(selected));
    let cases = Resource::new(
        move || {
            let versions = (
                undo.version().get(),
                actions.delete.version().get(),
                actions.duplicate.version().get(),
                runs_changed.get(),
                file_changed.get(),
            );
            (app(), eval_set_id(), address(), versions)
        },
        |(app, id, address, _)| list_cases(app, id, address.query, address.page),
    );
    // Read once per evalset (the list reloads often): a missing one is a 404 page.
    let eval_set = Resource::new(move || (app(), eval_set_id()), |(app, id)| get_eval_set(app, id));
    let navigate = use_navigate();
    // This page's address with `?deleted=` naming `ids` (none: the undo offer is gone, so a
    // reload does not offer it again).
    let address_deleting = move |ids: Vec<String>| {
        let mut params = query.get_untracked();
        params.remove("deleted");
        let mut href = format!(
            "/evalsets/{}/{}?{}",
            untrack(app),
            untrack(eval_set_id),
            params.to_query_string().trim_start_matches('?')
        );
        for id in ids {
            href.push_str(&format!("&deleted={}", encode_query_value(&id)));
        }
        href
    };
    Effect::new({
        let navigate = navigate.clone();
        move |_| {
            if let Some(Ok(())) = actions.delete.value().get() {
                undo.value().set(None);
                navigate(
                    &address_deleting(actions.deleting.get_untracked()),
                    Default::default(),
                );
            }
        }
    });
    Effect::new(move |_| {
        if let Some(Ok(())) = undo.value().get() {
            let replace = leptos_router::NavigateOptions {
                replace: true,
                ..Default::default()
            };
            navigate(&address_deleting(Vec::new()), replace);
        }
    });
    let undo_banner = move || {
        if let Some(Ok(())) = undo.value().get() {
            let names = undone.get().join(", ");
            return Some(
                view! { <div class="notice" role="status">"Brought back " <code>{names}</code> "."</div> }
                    .into_any(),
            );
        }
        let eval_ids = deleted();
        if eval_ids.is_empty() {
            return None;
        }
        let failed = undo.value().get().and_then(Result::err);
        let names = eval_ids.join(", ");
        Some(
            view! {
                <div class="notice" role="status">
                    "Deleted " <code>{names}</code> ". "
                    <button on:click=move |_| {
                        undone.set(eval_ids.clone());
                        undo.dispatch(UndoDeleteCases {
                            app: app(),
                            eval_set_id: eval_set_id(),
                            eval_ids: eval_ids.clone(),
                        });
                    }>"Undo"</button>
                    {failed.map(|err| view! { <ErrorNote message=error_text(&err) /> })}
                </div>
            }
            .into_any(),
        )
    };
    let action_error = move || {
        let failed = |value: Option<Result<_, ServerFnError>>| value.and_then(Result::err);
        failed(actions.delete.value().get())
            .or_else(|| failed(actions.duplicate.value().get().map(|r| r.map(|_| ()))))
            .map(|err| view! { <ErrorNote message=error_text(&err) /> })
    };
    let copied = move || {
        let copy = actions.duplicate.value().get()?.ok()?;
        let href = case_href(&app(), &eval_set_id(), &copy);
        Some(view! {
            <div class="notice" role="status">
                "Duplicated as " <a class="mono" href=href>{copy}</a> "."
            </div>
        })
    };

    view! {
        <nav class="breadcrumbs" aria-label="Breadcrumb">
            <a href="/">"Evalsets"</a>
            <span aria-hidden="true">"/"</span>
            <span class="mono">{eval_set_id}</span>
        </nav>
        {move || view! { <EvalSetFileNote app=app() eval_set_id=eval_set_id() changed=file_changed /> }}
        {undo_banner}
        {copied}
        {action_error}
        <Transition fallback=|| view! { <p class="muted">"Loading cases…"</p> }>
            {move || Suspend::new(async move {
                match eval_set.await {
                    Ok(Some(_)) => {
                        view! {
                            <Transition fallback=|| view! { <p class="muted">"Loading cases…"</p> }>
                                {move || Suspend::new(async move {
                                    match cases.await {
                                        Ok(Some(page)) => view! { <CaseList page actions selected /> }.into_any(),
                                        Ok(None) => view! { <NotFound /> }.into_any(),
                                        Err(err) => view! { <ErrorNote message=error_text(&err) /> }.into_any(),
                                    }
                                })}
                            </Transition>
                            // Outside the list, which a run's progress redraws.
                            <EvaluatePanel app=app() eval_set_id=eval_set_id() />
                        }
                            .into_any()
                    }
                    Ok(None) => view! { <NotFound /> }.into_any(),
                    Err(err) => view! { <ErrorNote message=error_text(&err) /> }.into_any(),
                }
            })}
        </Transition>
    }
}

#[component]
fn CaseList(page: CaseListPage, actions: ListActions, selected: RwSignal<BTreeSet<String>>) -> impl IntoView {
    let set = page.eval_set.clone();
    let (app, id) = (set.app_name.clone(), set.eval_set_id.clone());
    let title = set.name.clone().unwrap_or_else(|| id.clone());
    let query = page.query.clone();
    let page_href = {
        let (app, id) = (app.clone(), id.clone());
        let address = CaseListAddress {
            query: query.clone(),
            page: page.page,
        };
        move |n: i64| address.at_page(n).href(&app, &id)
    };
    let filtered = !query.text.trim().is_empty() || query.failed_last_run;
    let last_run_id = page.last_run.as_ref().map(|run| run.result_id.clone());
    // The cases a confirmation dialog is asking to delete.
    let asking = RwSignal::new(Vec::<String>::new());
    let new_scenario = RwSignal::new(false);
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
        <NewScenarioDialog open=new_scenario app=app.clone() eval_set_id=id.clone() />
        {page.last_run.clone().map(|run| view! { <LastRunLine run /> })}
        {(set.case_count > 0).then(|| view! { <CaseFilter query=query.clone() has_run=page.last_run.is_some() /> })}
        {if page.total_cases == 0 && filtered {
            view! {
                <div class="empty-state">
                    <h2>"No case matches"</h2>
                    <p>
                        {if query.failed_last_run {
                            "No case that failed in the latest run matches the filter.".to_string()
                        } else {
                            format!("No eval id, first user message or tool name contains “{}”.", query.text)
                        }}
                    </p>
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
            let all = on_page.clone();
            let all_selected = {
                let all = all.clone();
                move || selected.with(|s| !all.is_empty() && all.iter().all(|id| s.contains(id)))
            };
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
                <table class="data-table case-table">
                    <thead>
                        <tr>
                            <th scope="col" class="select">
                                <input
                                    type="checkbox"
                                    aria-label="Select all cases on this page"
                                    prop:checked=all_selected.clone()
                                    on:change=move |_| {
                                        let select = !all_selected();
                                        selected.update(|s| {
                                            for id in &all {
                                                if select {
                                                    s.insert(id.clone());
                                                } else {
                                                    s.remove(id);
                                                }
                                            }
                                        })
                                    }
                                />
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
                {page_links(current, last, &page_href)}
            }
                .into_any()
        }}
        <DeleteCasesDialog
            asking
            app=app.clone()
            eval_set_id=id.clone()
            delete=actions.delete
            deleting=actions.deleting
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
