//! The shown run: its progress, Cancel or Resume, and the table of its cases.

use super::case_row::CaseResultRow;
use super::labels::run_status_badge;
use super::open_cases::OpenCases;
use crate::api::evaluate::{cancel_eval, resume_eval};
use crate::records::runs::{EvalRunSummary, ResultsPage, RunStatus};
use crate::ui::{error_text, ErrorNote, MetricHeading};
use leptos::prelude::*;
use leptos::task::spawn_local;
use pure_metrics::efficiency::Efficiency;

/// The shown run: progress and controls, then one row per case with its scores. Each poll of
/// a running run draws this anew; which rows are open lives in the panel's `open_cases`.
#[component]
pub(super) fn RunResults(
    app: String,
    view: ResultsPage,
    refresh: RwSignal<u32>,
    open_cases: OpenCases,
    /// The table's page (a page of case summaries at a time).
    page: RwSignal<i64>,
) -> impl IntoView {
    let (current, page_count) = (view.page, view.page_count);
    view! {
        <div class="run-results" aria-live="polite">
            <RunHeader app=app.clone() summary=view.summary.clone() refresh />
            <ResultsTable app view open_cases />
            {(page_count > 1).then(|| view! { <ResultsPager current page_count page /> })}
        </div>
    }
}

/// The run's title, status and progress, Cancel or Resume, and its links and exports.
#[component]
fn RunHeader(app: String, summary: EvalRunSummary, refresh: RwSignal<u32>) -> impl IntoView {
    let action_error = RwSignal::new(None::<String>);
    let act = {
        let result_id = summary.result_id.clone();
        move |resume: bool| {
            let (app, id) = (app.clone(), result_id.clone());
            spawn_local(async move {
                let outcome = if resume {
                    resume_eval(app, id).await
                } else {
                    cancel_eval(app, id).await
                };
                match outcome {
                    Ok(()) => action_error.set(None),
                    Err(err) => action_error.set(Some(error_text(&err))),
                }
                refresh.update(|n| *n += 1);
            });
        }
    };
    let act_resume = act.clone();
    let status = summary.status;
    let progress = format!("{} of {} case runs", summary.done, summary.total);
    let export = crate::ui::rest_links::run_export(&summary.app_name, &summary.result_id);
    view! {
        <div class="run-header">
            <h3 title=summary.result_id.clone()>{crate::ui::runs::run_short_title(&summary)}</h3>
            {run_status_badge(status)}
            <span class="muted">{progress}</span>
            {(status == RunStatus::Running)
                .then(|| view! { <button class="small" on:click=move |_| act(false)>"Cancel run"</button> })}
            {status
                .resumable()
                .then(|| view! { <button class="small primary" on:click=move |_| act_resume(true)>"Resume run"</button> })}
            <a class="button small" href=crate::ui::runs::run_href(&summary.app_name, &summary.result_id)>
                "Run page"
            </a>
            <a class="button small" href=export.clone() rel="external" download title="ADK's EvalSetResult, as `adk eval` keeps it in .adk/eval_history">
                "Export ADK result"
            </a>
            <a class="button small" href=format!("{export}?format=junit") rel="external" download>
                "Export JUnit"
            </a>
        </div>
        {move || action_error.get().map(|message| view! { <ErrorNote message /> })}
    }
}

/// One row per case of this page of the run, with a column per scored metric.
#[component]
fn ResultsTable(app: String, view: ResultsPage, open_cases: OpenCases) -> impl IntoView {
    let header_cells = view
        .metric_names
        .iter()
        .filter(|name| Efficiency::from_name(name).is_none())
        .map(|name| view! { <MetricHeading name=name.clone() /> })
        .collect_view();
    let multi_run = view.summary.num_runs > 1;
    let cases = view.case_summaries;
    let result_id = view.summary.result_id;
    let eval_set_id = view.summary.eval_set_id;
    view! {
        <table class="data-table results-table">
            <thead>
                <tr>
                    <th scope="col">"Case"</th>
                    <th scope="col">"Result"</th>
                    {multi_run.then(|| view! { <th scope="col" class="num">"Runs passed"</th> })}
                    {header_cells}
                    <th scope="col" title="Averages per turn, as ADK's informational metrics report them; they never fail a case">"Cost per turn"</th>
                    <th scope="col">"Details"</th>
                </tr>
            </thead>
            <tbody>
                <For
                    each=move || cases.clone()
                    key=|case| case.eval_id.clone()
                    children=move |case| {
                        view! { <CaseResultRow case multi_run result_id=result_id.clone() app=app.clone() eval_set_id=eval_set_id.clone() open_cases /> }
                    }
                />
            </tbody>
        </table>
    }
}

/// Previous and Next over the pages of the run's cases.
#[component]
fn ResultsPager(current: i64, page_count: i64, page: RwSignal<i64>) -> impl IntoView {
    view! {
        <nav class="pager" aria-label="Result pages">
            <button class="small" disabled=current <= 1 on:click=move |_| page.set(current - 1)>
                "← Previous"
            </button>
            <span class="muted">"Page " {current} " of " {page_count}</span>
            <button class="small" disabled=current >= page_count on:click=move |_| page.set(current + 1)>
                "Next →"
            </button>
        </nav>
    }
}
