//! A case's history on its page: each version with what it changed, a diff of any older one
//! against the current one, and Restore (a restore is a new version; the page then shows it).

use super::diff_view::DiffView;
use super::{error_text, short_time, ErrorNote};
use crate::api::cases::{case_history, case_version, RestoreCaseVersion};
use crate::evalset::{case_diff, EvalCase};
use crate::records::cases::CaseVersionSummary;
use leptos::prelude::*;

#[component]
pub fn CaseHistory(
    app: String,
    eval_set_id: String,
    eval_id: String,
    current_version: i64,
    current: EvalCase,
    restore: ServerAction<RestoreCaseVersion>,
) -> impl IntoView {
    // The older version shown against the current one, if any.
    let compared = RwSignal::new(None::<i64>);
    let compared_case = {
        let (app, set, id) = (app.clone(), eval_set_id.clone(), eval_id.clone());
        Resource::new(
            move || compared.get(),
            move |version| {
                let (app, set, id) = (app.clone(), set.clone(), id.clone());
                async move {
                    match version {
                        Some(version) => case_version(app, set, id, version)
                            .await
                            .map(|case| Some((version, case))),
                        None => Ok(None),
                    }
                }
            },
        )
    };
    let history = {
        let (app, set, id) = (app.clone(), eval_set_id.clone(), eval_id.clone());
        Resource::new(
            move || restore.version().get(),
            move |_| case_history(app.clone(), set.clone(), id.clone()),
        )
    };
    let case = CaseRef {
        app,
        eval_set_id,
        eval_id,
    };
    view! {
        <section class="card history">
            <h2>"History"</h2>
            {move || {
                restore
                    .value()
                    .get()
                    .and_then(Result::err)
                    .map(|err| view! { <ErrorNote message=error_text(&err) /> })
            }}
            <Transition fallback=|| view! { <p class="muted">"Loading history…"</p> }>
                {move || {
                    let case = case.clone();
                    Suspend::new(async move {
                        match history.await {
                            Ok(entries) => view! { <VersionTable entries case current_version compared restore /> }.into_any(),
                            Err(err) => view! { <ErrorNote message=error_text(&err) /> }.into_any(),
                        }
                    })
                }}
            </Transition>
            <ComparedDiff compared_case current />
        </section>
    }
}

/// The case a history belongs to.
#[derive(Clone)]
struct CaseRef {
    app: String,
    eval_set_id: String,
    eval_id: String,
}

/// Each version: when it was saved, what it changed, and Diff and Restore for the older ones.
#[component]
fn VersionTable(
    entries: Vec<CaseVersionSummary>,
    case: CaseRef,
    current_version: i64,
    compared: RwSignal<Option<i64>>,
    restore: ServerAction<RestoreCaseVersion>,
) -> impl IntoView {
    let rows = entries
        .into_iter()
        .map(|entry| view! { <VersionRow entry case=case.clone() current_version compared restore /> })
        .collect_view();
    view! {
        <table class="data-table">
            <thead>
                <tr>
                    <th scope="col" class="num">"Version"</th>
                    <th scope="col">"Saved"</th>
                    <th scope="col">"By"</th>
                    <th scope="col">"What changed"</th>
                    <th scope="col"></th>
                </tr>
            </thead>
            <tbody>{rows}</tbody>
        </table>
    }
}

#[component]
fn VersionRow(
    entry: CaseVersionSummary,
    case: CaseRef,
    current_version: i64,
    compared: RwSignal<Option<i64>>,
    restore: ServerAction<RestoreCaseVersion>,
) -> impl IntoView {
    let version = entry.version;
    let changes = if entry.changes.is_empty() {
        "created".to_string()
    } else {
        entry.changes.join("; ")
    };
    let actions = if entry.current {
        view! { <span class="muted">"current"</span> }.into_any()
    } else {
        view! {
            <button
                aria-pressed=move || (compared.get() == Some(version)).to_string()
                on:click=move |_| compared.update(|c| *c = if *c == Some(version) { None } else { Some(version) })
            >
                "Diff"
            </button>
            <button on:click=move |_| {
                restore.dispatch(RestoreCaseVersion {
                    app: case.app.clone(),
                    eval_set_id: case.eval_set_id.clone(),
                    eval_id: case.eval_id.clone(),
                    version,
                    current_version,
                });
            }>"Restore"</button>
        }
            .into_any()
    };
    view! {
        <tr>
            <td class="num">{version}</td>
            <td>{short_time(&entry.saved_at)}</td>
            <td class="saved-by">{entry.saved_by.clone().unwrap_or_else(|| "—".to_string())}</td>
            <td>{changes}</td>
            <td class="actions">{actions}</td>
        </tr>
    }
}

/// The older version picked, diffed against the current one.
#[component]
fn ComparedDiff(
    compared_case: Resource<Result<Option<(i64, EvalCase)>, ServerFnError>>,
    current: EvalCase,
) -> impl IntoView {
    view! {
        <Transition fallback=|| ()>
            {move || {
                let current = current.clone();
                Suspend::new(async move {
                    match compared_case.await {
                        Ok(Some((version, old))) => {
                            view! {
                                <h3>"Version " {version} " against the current one"</h3>
                                <DiffView
                                    lines=case_diff(&old, &current)
                                    old_label=format!("version {version}")
                                    new_label="current".to_string()
                                />
                            }
                                .into_any()
                        }
                        Ok(None) => ().into_any(),
                        Err(err) => view! { <ErrorNote message=error_text(&err) /> }.into_any(),
                    }
                })
            }}
        </Transition>
    }
}
