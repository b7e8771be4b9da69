//! One run: its summary, each metric's statistics with its score distribution, its cases a
//! page at a time (each linked to its result), exports, and comparison with another run.

use super::heat_map::HeatMap;
use super::metrics_table::MetricsTable;
use super::run_label::RunLabel;
use super::{
    compare_href, duration, pass_rate, rerun_note, run_href, run_short_title, run_title, source_notes,
};
use crate::api::runs::run_details;
use crate::eval::result::{CaseSummary, EvalStatus};
use crate::records::runs::{EvalRunSummary, RunPage as RunPageData};
use crate::ui::evaluate::labels::{case_status_badge, run_status_badge, score_text};
use crate::ui::pager::page_links;
use crate::ui::{
    case_result_href, error_text, eval_set_href, short_time_seconds, ErrorNote, MetricHeading, NotFound,
};
use leptos::prelude::*;
use leptos_router::hooks::{use_params_map, use_query_map};

#[component]
pub fn RunPage() -> impl IntoView {
    let params = use_params_map();
    let query = use_query_map();
    let app = move || params.read().get("app").unwrap_or_default();
    let result_id = move || params.read().get("result_id").unwrap_or_default();
    let page = move || query.read().get("page").and_then(|p| p.parse().ok()).unwrap_or(1);
    let data = Resource::new(
        move || (app(), result_id(), page()),
        |(a, r, p)| run_details(a, r, p),
    );
    view! {
        <nav class="breadcrumbs" aria-label="Breadcrumb">
            <a href="/runs">"Runs"</a>
            <span aria-hidden="true">"/"</span>
            <span class="mono">{result_id}</span>
        </nav>
        <Transition fallback=|| view! { <p class="muted">"Loading the run…"</p> }>
            {move || Suspend::new(async move {
                match data.await {
                    Ok(Some(data)) => view! { <RunView data /> }.into_any(),
                    Ok(None) => view! { <NotFound /> }.into_any(),
                    Err(err) => view! { <ErrorNote message=error_text(&err) /> }.into_any(),
                }
            })}
        </Transition>
    }
}

#[component]
fn RunView(data: RunPageData) -> impl IntoView {
    let RunPageData {
        summary,
        metrics,
        cases,
        page,
        page_count,
        other_runs,
    } = data;
    let (app, result_id, set) = (
        summary.app_name.clone(),
        summary.result_id.clone(),
        summary.eval_set_id.clone(),
    );
    let scored = cases
        .first()
        .is_some_and(|c| c.metrics.iter().any(|m| m.threshold.is_some()));
    view! {
        <RunHeader summary=summary.clone() />
        <section class="card">
            <h2>"Metrics"</h2>
            <MetricsTable metrics />
        </section>
        {(!other_runs.is_empty()).then(|| view! { <CompareLinks summary other_runs /> })}
        {scored
            .then(|| {
                view! {
                    <section class="card">
                        <h2>"Cases by metric"</h2>
                        <HeatMap app=app.clone() eval_set_id=set.clone() result_id=result_id.clone() cases=cases.clone() />
                    </section>
                }
            })}
        <RunCases app set result_id cases page page_count />
    }
}

/// The run's title, id, label, what it ran and how it went, and its exports.
#[component]
fn RunHeader(summary: EvalRunSummary) -> impl IntoView {
    let (app, result_id, set) = (
        summary.app_name.clone(),
        summary.result_id.clone(),
        summary.eval_set_id.clone(),
    );
    let export = crate::ui::rest_links::run_export(&app, &result_id);
    view! {
        <div class="page-header">
            <div>
                <h1>{run_title(&summary)}</h1>
                <p class="muted small-text">
                    <span class="mono">{result_id.clone()}</span>
                    {rerun_note(&summary).map(|note| view! { <span class="run-note">{note}</span> })}
                    {source_notes(&summary)}
                </p>
                <RunLabel app=app.clone() result_id label=summary.label.clone() />
                <p class="muted">
                    {run_status_badge(summary.status)} " · evalset "
                    <a class="mono" href=eval_set_href(&app, &set)>{set.clone()}</a> " · agent "
                    <code>{summary.agent.clone()}</code> " · " {short_time_seconds(summary.created_at)} " · "
                    {duration(&summary)}
                </p>
                <p class="run-pass-rate">{pass_rate(&summary)}</p>
            </div>
            <div class="case-actions">
                <a class="button small" href=export.clone() rel="external" download>"Export ADK result"</a>
                <a class="button small" href=format!("{export}?format=junit") rel="external" download>
                    "Export JUnit"
                </a>
            </div>
        </div>
    }
}

/// This run against each other run of its evalset.
#[component]
fn CompareLinks(summary: EvalRunSummary, other_runs: Vec<EvalRunSummary>) -> impl IntoView {
    let links = other_runs
        .iter()
        .map(|other| {
            view! {
                <li>
                    <a href=compare_href(&summary.app_name, &summary.result_id, &other.result_id)>
                        {format!("against {} ({})", run_short_title(other), pass_rate(other))}
                    </a>
                    {rerun_note(other).map(|note| view! { <span class="run-note">{note}</span> })}
                </li>
            }
        })
        .collect_view();
    view! {
        <section class="card">
            <h2>"Compare"</h2>
            <ul class="compare-links">{links}</ul>
        </section>
    }
}

/// A page of the run's cases with their metrics' scores.
#[component]
fn RunCases(
    app: String,
    set: String,
    result_id: String,
    cases: Vec<CaseSummary>,
    page: i64,
    page_count: i64,
) -> impl IntoView {
    let heads = cases.first().map(|c| {
        c.metrics
            .iter()
            .filter(|m| m.threshold.is_some())
            .map(|m| view! { <MetricHeading name=m.metric_name.clone() /> })
            .collect_view()
    });
    let pager = page_links(page, page_count, &|n| {
        format!("{}?page={n}", run_href(&app, &result_id))
    });
    let rows = cases
        .into_iter()
        .map(|case| case_row(&app, &set, &result_id, case))
        .collect_view();
    view! {
        <section class="card">
            <h2>"Cases"</h2>
            <table class="data-table run-cases">
                <thead>
                    <tr>
                        <th scope="col">"Case"</th>
                        <th scope="col">"Result"</th>
                        {heads}
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
            {pager}
        </section>
    }
}

fn case_row(app: &str, set: &str, result_id: &str, case: CaseSummary) -> impl IntoView {
    let scores = case
        .metrics
        .iter()
        .filter(|m| m.threshold.is_some())
        .map(|m| {
            let class = match m.eval_status {
                EvalStatus::Passed => "num passed-text",
                EvalStatus::Failed => "num failed-text",
                _ => "num muted",
            };
            view! { <td class=class>{score_text(m.score)}</td> }
        })
        .collect_view();
    view! {
        <tr>
            <td>
                <a class="mono" href=case_result_href(app, set, result_id, &case.eval_id)>
                    {case.eval_id.clone()}
                </a>
            </td>
            <td>{case_status_badge(case.final_eval_status, case.errors)}</td>
            {scores}
        </tr>
    }
}
