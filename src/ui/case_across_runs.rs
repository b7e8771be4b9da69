//! A case across its evalset's runs, on the case page: per metric a sparkline of its score run
//! after run, and each run's outcome (flaky where its repetitions disagree), linked to the
//! case's result in that run.

use super::evaluate::labels::{case_status_badge, flaky_badge, score_text};
use super::{case_result_href, error_text, short_time_seconds, ErrorNote};
use crate::api::case_results::case_across_runs;
use crate::eval::result::EvalStatus;
use crate::records::runs::CaseInRun;
use leptos::prelude::*;

const WIDTH: f64 = 160.0;
const HEIGHT: f64 = 28.0;

#[component]
pub fn CaseAcrossRuns(app: String, eval_set_id: String, eval_id: String) -> impl IntoView {
    let runs = {
        let (app, set, id) = (app.clone(), eval_set_id.clone(), eval_id.clone());
        Resource::new(
            || (),
            move |_| case_across_runs(app.clone(), set.clone(), id.clone()),
        )
    };
    view! {
        <section class="card across-runs">
            <h2>"Across runs"</h2>
            <Transition fallback=|| view! { <p class="muted">"Loading runs…"</p> }>
                {move || {
                    let (app, set) = (app.clone(), eval_set_id.clone());
                    Suspend::new(async move {
                        match runs.await {
                            Ok(runs) if runs.is_empty() => {
                                view! { <p class="muted">"Not run yet: run the evalset from its Evaluate panel."</p> }
                                    .into_any()
                            }
                            Ok(runs) => view! { <History app set runs /> }.into_any(),
                            Err(err) => view! { <ErrorNote message=error_text(&err) /> }.into_any(),
                        }
                    })
                }}
            </Transition>
        </section>
    }
}

#[component]
fn History(app: String, set: String, runs: Vec<CaseInRun>) -> impl IntoView {
    let names: Vec<String> = runs
        .last()
        .map(|run| {
            run.summary
                .metrics
                .iter()
                .filter(|m| m.threshold.is_some())
                .map(|m| m.metric_name.clone())
                .collect()
        })
        .unwrap_or_default();
    let lines = names
        .into_iter()
        .map(|name| {
            let points: Vec<(Option<f64>, EvalStatus)> = runs
                .iter()
                .map(|run| {
                    run.summary
                        .metrics
                        .iter()
                        .find(|m| m.metric_name == name)
                        .map_or((None, EvalStatus::NotEvaluated), |m| (m.score, m.eval_status))
                })
                .collect();
            let last = points.last().and_then(|(score, _)| *score);
            view! {
                <tr>
                    <td class="mono">{name.clone()}</td>
                    <td><Sparkline name points /></td>
                    <td class="num">{score_text(last)}</td>
                </tr>
            }
        })
        .collect_view();
    let list = runs
        .iter()
        .rev()
        .map(|run| {
            let href = case_result_href(&app, &set, &run.result_id, &run.summary.eval_id);
            let repeated = run.summary.num_runs > 1;
            view! {
                <li>
                    <a href=href>{short_time_seconds(run.created_at)}</a> " "
                    {case_status_badge(run.summary.final_eval_status, run.summary.errors)} " "
                    {flaky_badge(&run.summary)}
                    {repeated.then(|| format!(" {} of {} runs passed", run.summary.passed_runs, run.summary.num_runs))}
                </li>
            }
        })
        .collect_view();
    view! {
        <table class="data-table sparklines">
            <thead>
                <tr>
                    <th scope="col">"Metric"</th>
                    <th scope="col">{format!("Score over the last {} runs", runs.len())}</th>
                    <th scope="col" class="num">"Latest"</th>
                </tr>
            </thead>
            <tbody>{lines}</tbody>
        </table>
        <ul class="run-history">{list}</ul>
    }
}

/// Scores in [0, 1] left to right, oldest first: a line, and a dot per run in its status colour.
#[component]
fn Sparkline(name: String, points: Vec<(Option<f64>, EvalStatus)>) -> impl IntoView {
    let step = if points.len() > 1 {
        WIDTH / (points.len() - 1) as f64
    } else {
        0.0
    };
    let at = |i: usize, score: f64| {
        (
            i as f64 * step + 3.0,
            HEIGHT - 3.0 - score.clamp(0.0, 1.0) * (HEIGHT - 6.0),
        )
    };
    let line: Vec<String> = points
        .iter()
        .enumerate()
        .filter_map(|(i, (score, _))| score.map(|s| at(i, s)))
        .map(|(x, y)| format!("{x:.1},{y:.1}"))
        .collect();
    let dots = points
        .iter()
        .enumerate()
        .filter_map(|(i, (score, status))| {
            let (x, y) = at(i, (*score)?);
            let class = match status {
                EvalStatus::Passed => "dot dot-pass",
                EvalStatus::Failed => "dot dot-fail",
                _ => "dot",
            };
            Some(view! {
                <circle class=class cx=format!("{x:.1}") cy=format!("{y:.1}") r="2.5">
                    <title>{score_text(*score)}</title>
                </circle>
            })
        })
        .collect_view();
    let summary = points
        .iter()
        .map(|(score, _)| score_text(*score))
        .collect::<Vec<_>>()
        .join(", ");
    view! {
        <svg
            class="sparkline"
            viewBox=format!("0 0 {} {HEIGHT}", WIDTH + 6.0)
            width=(WIDTH + 6.0).to_string()
            height=HEIGHT.to_string()
            role="img"
            aria-label=format!("{name} over runs: {summary}")
        >
            <polyline points=line.join(" ") />
            {dots}
        </svg>
    }
}
