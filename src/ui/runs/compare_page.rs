//! Two runs of an evalset compared: how many cases regressed, improved, stayed, were added or
//! removed (each a filter), each metric's mean before and after, and the cases with both results
//! side by side, each linked to its two result pages.

use super::metrics_table::MetricsTable;
use super::{compare_href, pass_rate, run_href, run_short_title, source_notes};
use crate::api::runs::compare_runs;
use crate::eval::result::CaseSummary;
use crate::eval::run_stats::{Change, ComparedCase, MetricStats};
use crate::records::runs::RunComparison;
use crate::ui::evaluate::labels::{case_status_badge, score_text};
use crate::ui::pager::page_links;
use crate::ui::{case_result_href, error_text, ErrorNote, NotFound};
use leptos::prelude::*;
use leptos_router::hooks::{use_params_map, use_query_map};

#[component]
pub fn ComparePage() -> impl IntoView {
    let params = use_params_map();
    let query = use_query_map();
    let app = move || params.read().get("app").unwrap_or_default();
    let after = move || params.read().get("result_id").unwrap_or_default();
    let before = move || params.read().get("other_id").unwrap_or_default();
    let change = move || query.read().get("change");
    let page = move || query.read().get("page").and_then(|p| p.parse().ok()).unwrap_or(1);
    let data = Resource::new(
        move || (app(), before(), after(), change(), page()),
        |(app, before, after, change, page)| compare_runs(app, before, after, change, page),
    );
    view! {
        <nav class="breadcrumbs" aria-label="Breadcrumb">
            <a href="/runs">"Runs"</a>
            <span aria-hidden="true">"/"</span>
            <a class="mono" href=move || run_href(&app(), &after())>{after}</a>
            <span aria-hidden="true">"/"</span>
            <span>"Compare"</span>
        </nav>
        <Transition fallback=|| view! { <p class="muted">"Comparing…"</p> }>
            {move || Suspend::new(async move {
                match data.await {
                    Ok(Some(data)) => view! { <ComparisonView data change=change() /> }.into_any(),
                    Ok(None) => view! { <NotFound /> }.into_any(),
                    Err(err) => view! { <ErrorNote message=error_text(&err) /> }.into_any(),
                }
            })}
        </Transition>
    }
}

#[component]
fn ComparisonView(data: RunComparison, change: Option<String>) -> impl IntoView {
    let RunComparison {
        before,
        after,
        before_metrics,
        after_metrics,
        counts,
        cases,
        page,
        page_count,
    } = data;
    let app = after.app_name.clone();
    let base = compare_href(&app, &after.result_id, &before.result_id);
    let filters = change_filters(&base, &counts, change.as_deref());
    let rows = cases
        .into_iter()
        .map(|case| compared_row(&app, &before, &after, case))
        .collect_view();
    let filter = change.clone().map(|c| format!("&change={c}")).unwrap_or_default();
    let pager = page_links(page, page_count, &|n| format!("{base}?page={n}{filter}"));
    view! {
        <div class="page-header">
            <div>
                <h1>"Compare runs of " <span class="mono">{after.eval_set_id.clone()}</span></h1>
                <p class="muted">
                    "Before: " <a href=run_href(&app, &before.result_id)>{run_short_title(&before)}</a>
                    {source_notes(&before)} " (" {pass_rate(&before)} ") · After: "
                    <a href=run_href(&app, &after.result_id)>{run_short_title(&after)}</a> {source_notes(&after)}
                    " (" {pass_rate(&after)} ")"
                </p>
            </div>
        </div>
        <nav class="change-filters" aria-label="Show cases">{filters}</nav>
        <ComparedMetrics before=before_metrics after=after_metrics />
        <table class="data-table compare-cases">
            <thead>
                <tr>
                    <th scope="col">"Case"</th>
                    <th scope="col">"Change"</th>
                    <th scope="col">"Before"</th>
                    <th scope="col">"After"</th>
                    <th scope="col">"Scores (before → after)"</th>
                </tr>
            </thead>
            <tbody>{rows}</tbody>
        </table>
        {pager}
    }
}

/// "all (n)" and a link per kind of change with its count; the shown one marked current.
fn change_filters(base: &str, counts: &[usize], change: Option<&str>) -> Vec<AnyView> {
    let link = |label: String, value: Option<&str>, n: usize| {
        let href = match value {
            Some(v) => format!("{base}?change={v}"),
            None => base.to_string(),
        };
        let current = value == change;
        view! {
            <a href=href class="filter-link" aria-current=current.then_some("page")>
                {format!("{label} ({n})")}
            </a>
        }
        .into_any()
    };
    let mut links = vec![link("all".into(), None, counts.iter().sum())];
    links.extend(
        Change::ALL
            .iter()
            .zip(counts)
            .map(|(kind, &n)| link(kind.label().into(), Some(kind.as_str()), n)),
    );
    links
}

/// Each metric's mean before and after, with both runs' distributions folded below.
#[component]
fn ComparedMetrics(before: Vec<MetricStats>, after: Vec<MetricStats>) -> impl IntoView {
    view! {
        <section class="card">
            <h2>"Metrics"</h2>
            <MetricDeltas before=before.clone() after=after.clone() />
            <details>
                <summary>"Distributions"</summary>
                <h3>"Before"</h3>
                <MetricsTable metrics=before />
                <h3>"After"</h3>
                <MetricsTable metrics=after />
            </details>
        </section>
    }
}

#[component]
fn MetricDeltas(before: Vec<MetricStats>, after: Vec<MetricStats>) -> impl IntoView {
    let rows = after
        .iter()
        .map(|now| {
            let then = before.iter().find(|m| m.metric_name == now.metric_name);
            let old = then.and_then(|m| m.mean);
            let delta = match (old, now.mean) {
                (Some(a), Some(b)) => {
                    let d = b - a;
                    let class = if d > 1e-9 {
                        "num passed-text"
                    } else if d < -1e-9 {
                        "num failed-text"
                    } else {
                        "num muted"
                    };
                    view! { <td class=class>{format!("{d:+.3}")}</td> }.into_any()
                }
                _ => view! { <td class="num muted">"–"</td> }.into_any(),
            };
            view! {
                <tr>
                    <td class="mono">{now.metric_name.clone()}</td>
                    <td class="num">{score_text(old)}</td>
                    <td class="num">{score_text(now.mean)}</td>
                    {delta}
                </tr>
            }
        })
        .collect_view();
    view! {
        <table class="data-table metric-deltas">
            <thead>
                <tr>
                    <th scope="col">"Metric"</th>
                    <th scope="col" class="num">"Mean before"</th>
                    <th scope="col" class="num">"Mean after"</th>
                    <th scope="col" class="num">"Change"</th>
                </tr>
            </thead>
            <tbody>{rows}</tbody>
        </table>
    }
}

fn status(summary: Option<&CaseSummary>, link: impl FnOnce(&CaseSummary) -> String) -> AnyView {
    match summary {
        Some(case) => view! {
            <a href=link(case) class="status-link" title="Open this side's result, expected against actual">
                {case_status_badge(case.final_eval_status, case.errors)}
                <span class="link-text">"result →"</span>
            </a>
        }
        .into_any(),
        None => view! { <span class="muted">"not run"</span> }.into_any(),
    }
}

fn compared_row(
    app: &str,
    before: &crate::records::runs::EvalRunSummary,
    after: &crate::records::runs::EvalRunSummary,
    case: ComparedCase,
) -> impl IntoView {
    let class = match case.change {
        Change::Regressed => "badge failed",
        Change::Improved => "badge passed",
        Change::Added | Change::Removed => "badge info",
        _ => "badge not-evaluated",
    };
    let scores = case
        .after
        .as_ref()
        .or(case.before.as_ref())
        .map(|shown| {
            shown
                .metrics
                .iter()
                .filter(|m| m.threshold.is_some())
                .map(|m| {
                    let score_in = |s: Option<&CaseSummary>| {
                        s.and_then(|c| c.metrics.iter().find(|x| x.metric_name == m.metric_name))
                            .and_then(|x| x.score)
                    };
                    format!(
                        "{} {} → {}",
                        m.metric_name,
                        score_text(score_in(case.before.as_ref())),
                        score_text(score_in(case.after.as_ref()))
                    )
                })
                .collect::<Vec<_>>()
                .join("; ")
        })
        .unwrap_or_default();
    let (set, eval_id) = (after.eval_set_id.clone(), case.eval_id.clone());
    let before_link = {
        let (set, eval_id, run) = (set.clone(), eval_id.clone(), before.result_id.clone());
        move |_: &CaseSummary| case_result_href(app, &set, &run, &eval_id)
    };
    let after_link = {
        let run = after.result_id.clone();
        move |_: &CaseSummary| case_result_href(app, &set, &run, &eval_id)
    };
    view! {
        <tr class=format!("change-{}", case.change.as_str())>
            <td class="mono">{case.eval_id.clone()}</td>
            <td><span class=class>{case.change.label()}</span></td>
            <td>{status(case.before.as_ref(), before_link)}</td>
            <td>{status(case.after.as_ref(), after_link)}</td>
            <td class="small mono">{scores}</td>
        </tr>
    }
}
