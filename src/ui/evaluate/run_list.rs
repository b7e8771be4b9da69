//! The evalset's runs, newest first; picking one shows its results.

use super::labels::run_status_badge;
use crate::records::runs::EvalRunSummary;
use crate::ui::runs::{rerun_note, run_short_title};
use leptos::prelude::*;

/// The eval set's runs; picking one shows its results.
#[component]
pub(super) fn RunList(
    runs: Vec<EvalRunSummary>,
    selected: RwSignal<Option<String>>,
    shown: Signal<Option<String>>,
) -> impl IntoView {
    let rows = runs
        .into_iter()
        .map(|run| {
            let id = run.result_id.clone();
            let is_shown = {
                let id = id.clone();
                move || shown.get().as_deref() == Some(id.as_str())
            };
            view! {
                <tr class:selected=is_shown.clone()>
                    <td>
                        <button class="link" title=run.result_id.clone() on:click=move |_| selected.set(Some(id.clone()))>
                            {run_short_title(&run)}
                        </button>
                        {rerun_note(&run).map(|note| view! { <span class="run-note">{note}</span> })}
                    </td>
                    <td>{run_status_badge(run.status)}</td>
                    <td class="num">{format!("{}/{}", run.done, run.total)}</td>
                    <td class="num">{run.passed}</td>
                    <td class="num">{run.failed}</td>
                    <td class="num">{run.errors}</td>
                    <td class="mono">{run.agent.clone()}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <table class="data-table runs-table">
            <caption class="visually-hidden">"Runs of this evalset"</caption>
            <thead>
                <tr>
                    <th scope="col">"Run"</th>
                    <th scope="col">"Status"</th>
                    <th scope="col" class="num">"Case runs"</th>
                    <th scope="col" class="num">"Passed"</th>
                    <th scope="col" class="num">"Failed"</th>
                    <th scope="col" class="num">"Errors"</th>
                    <th scope="col">"Agent"</th>
                </tr>
            </thead>
            <tbody>{rows}</tbody>
        </table>
    }
}
