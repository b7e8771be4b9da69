//! One evalset: its cases, filtered and sorted by the server, a page at a time. The filter, the
//! order and the page live in the URL (`?q=&sort=&desc=1&page=`), so they survive a reload and
//! can be linked to. Cases can be duplicated, deleted one by one or selected and deleted
//! together; a delete is offered for undo (`?deleted=ID`, once per case).

use super::case_list::{CaseList, ListActions};
use super::case_list_address::CaseListAddress;
use super::evaluate::{EvaluatePanel, RunsChanged, SelectedCases};
use super::folder_notes::EvalSetFileNote;
use super::{case_href, encode_query_value, error_text, ErrorNote, NotFound};
use crate::api::cases::UndoDeleteCases;
use crate::api::evalsets::get_eval_set;
use crate::api::list_cases;
use crate::records::cases::CaseListPage;
use leptos::prelude::*;
use leptos_router::hooks::{use_location, use_navigate, use_params_map, use_query_map};
use leptos_router::params::ParamsMap;
use std::collections::BTreeSet;

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
    follow_deletes(actions, undo, query);

    view! {
        <nav class="breadcrumbs" aria-label="Breadcrumb">
            <a href="/">"Evalsets"</a>
            <span aria-hidden="true">"/"</span>
            <span class="mono">{eval_set_id}</span>
        </nav>
        {move || view! { <EvalSetFileNote app=app() eval_set_id=eval_set_id() changed=file_changed /> }}
        <UndoBanner
            undo
            undone
            deleted=Signal::derive(deleted)
            app=Signal::derive(app)
            eval_set_id=Signal::derive(eval_set_id)
        />
        <ActionNotes actions app=Signal::derive(app) eval_set_id=Signal::derive(eval_set_id) />
        <Transition fallback=|| view! { <p class="muted">"Loading cases…"</p> }>
            {move || Suspend::new(async move {
                match eval_set.await {
                    Ok(Some(_)) => {
                        view! {
                            <CasesOf cases actions selected />
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

/// After a delete, the address names the deleted cases (the undo offer); after an undo, it
/// names none, replacing the entry so Back and a reload do not offer it again.
fn follow_deletes(actions: ListActions, undo: ServerAction<UndoDeleteCases>, query: Memo<ParamsMap>) {
    let navigate = use_navigate();
    let location = use_location();
    // This page's address with `?deleted=` naming `ids`.
    let address_deleting = move |ids: Vec<String>| {
        let mut params = query.get_untracked();
        params.remove("deleted");
        let mut href = format!(
            "{}?{}",
            location.pathname.get_untracked(),
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
}

/// The page of cases, once read (a missing evalset is a 404 page).
#[component]
fn CasesOf(
    cases: Resource<Result<Option<CaseListPage>, ServerFnError>>,
    actions: ListActions,
    selected: RwSignal<BTreeSet<String>>,
) -> impl IntoView {
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
    }
}

/// The offer to undo a delete (the cases the address names), or what an undo brought back.
#[component]
fn UndoBanner(
    undo: ServerAction<UndoDeleteCases>,
    /// The ids the last undo brought back.
    undone: RwSignal<Vec<String>>,
    deleted: Signal<Vec<String>>,
    app: Signal<String>,
    eval_set_id: Signal<String>,
) -> impl IntoView {
    move || {
        if let Some(Ok(())) = undo.value().get() {
            let names = undone.get().join(", ");
            return Some(
                view! { <div class="notice" role="status">"Brought back " <code>{names}</code> "."</div> }
                    .into_any(),
            );
        }
        let eval_ids = deleted.get();
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
                            app: app.get(),
                            eval_set_id: eval_set_id.get(),
                            eval_ids: eval_ids.clone(),
                        });
                    }>"Undo"</button>
                    {failed.map(|err| view! { <ErrorNote message=error_text(&err) /> })}
                </div>
            }
            .into_any(),
        )
    }
}

/// What the list's actions answered: a failed delete or duplicate, or where the copy went.
#[component]
fn ActionNotes(actions: ListActions, app: Signal<String>, eval_set_id: Signal<String>) -> impl IntoView {
    let failed = move || {
        let failed = |value: Option<Result<_, ServerFnError>>| value.and_then(Result::err);
        failed(actions.delete.value().get())
            .or_else(|| failed(actions.duplicate.value().get().map(|r| r.map(|_| ()))))
            .map(|err| view! { <ErrorNote message=error_text(&err) /> })
    };
    let copied = move || {
        let copy = actions.duplicate.value().get()?.ok()?;
        let href = case_href(&app.get(), &eval_set_id.get(), &copy);
        Some(view! {
            <div class="notice" role="status">
                "Duplicated as " <a class="mono" href=href>{copy}</a> "."
            </div>
        })
    };
    view! {
        {copied}
        {failed}
    }
}
