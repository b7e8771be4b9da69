//! One case's row in the run results, and its details row that "Show" opens (its runs'
//! per-turn results are read then, not with the table).

use super::case_runs::CaseRun;
use super::labels::{case_status_badge, cost_text, flaky_badge, score_text};
use super::open_cases::OpenCases;
use super::run_detail::RunDetail;
use crate::api::case_results::case_result;
use crate::eval::result::{CaseSummary, EvalStatus, MetricSummary};
use crate::ui::case_result_href;
use crate::ui::{error_text, ErrorNote};
use leptos::prelude::*;

/// One case of run `result_id`: its pooled status and metric scores; "Show" opens each run's
/// per-turn scores, with the reason a metric could not score and the judge's evidence.
#[component]
pub(super) fn CaseResultRow(
    case: CaseSummary,
    multi_run: bool,
    result_id: String,
    app: String,
    eval_set_id: String,
    open_cases: OpenCases,
) -> impl IntoView {
    let result_href = case_result_href(&app, &eval_set_id, &result_id, &case.eval_id);
    let open = {
        let (result_id, eval_id) = (result_id.clone(), case.eval_id.clone());
        Signal::derive(move || open_cases.is_open(&result_id, &eval_id))
    };
    let toggle = {
        let (result_id, eval_id) = (result_id.clone(), case.eval_id.clone());
        move |_| open_cases.toggle(&result_id, &eval_id)
    };
    let width = case.metrics.iter().filter(|m| m.threshold.is_some()).count() + 4 + usize::from(multi_run);
    let cost = cost_text(&case.metrics);
    let pass_at = multi_run.then(|| pass_at_cell(&case));
    let eval_id = case.eval_id.clone();
    view! {
        <tr>
            <td>
                <a class="mono" href=result_href title="Expected against actual, turn by turn">
                    {case.eval_id.clone()}
                </a>
            </td>
            <td>{case_status_badge(case.final_eval_status, case.errors)} {flaky_badge(&case)}</td>
            {pass_at}
            {score_cells(&case.metrics)}
            <td class="muted small">{cost}</td>
            <td>
                <button class="small" aria-expanded=move || open.get().to_string() on:click=toggle>
                    {move || if open.get() { "Hide" } else { "Show" }}
                </button>
            </td>
        </tr>
        <tr class="detail-row" class:hidden=move || !open.get()>
            <td colspan=width.to_string()>
                <CaseDetails app result_id eval_id open />
            </td>
        </tr>
    }
}

/// The cells of the metrics that pass or fail the case, coloured by what each did.
fn score_cells(metrics: &[MetricSummary]) -> impl IntoView {
    metrics
        .iter()
        .filter(|m| m.threshold.is_some())
        .map(|m| {
            let class = match m.eval_status {
                EvalStatus::Passed => "num score passed-text",
                EvalStatus::Failed => "num score failed-text",
                _ => "num score muted",
            };
            view! { <td class=class title=m.threshold_label()>{score_text(m.score)}</td> }
        })
        .collect_view()
}

/// Runs passed of a case run several times, with pass@k and pass^k on hover.
fn pass_at_cell(case: &CaseSummary) -> impl IntoView {
    let k = case.num_runs;
    let title = format!(
        "pass@{k} {:.2} · pass^{k} {:.2}",
        case.pass_at_k.last().copied().unwrap_or(0.0),
        case.pass_hat_k.last().copied().unwrap_or(0.0)
    );
    view! { <td class="num" title=title>{format!("{}/{}", case.passed_runs, case.num_runs)}</td> }
}

/// Each run's per-turn results of the case, read once the row is opened.
#[component]
fn CaseDetails(app: String, result_id: String, eval_id: String, open: Signal<bool>) -> impl IntoView {
    let details = Resource::new(
        move || open.get(),
        move |open| {
            let (app, result_id, eval_id) = (app.clone(), result_id.clone(), eval_id.clone());
            async move {
                if open {
                    case_result(app, result_id, eval_id).await
                } else {
                    Ok(None)
                }
            }
        },
    );
    let details = move || {
        Suspend::new(async move {
            match details.await {
                Ok(Some(view)) => view
                    .runs
                    .iter()
                    .map(|run| view! { <RunDetail run=CaseRun::from(run) /> })
                    .collect_view()
                    .into_any(),
                Ok(None) => ().into_any(),
                Err(err) => view! { <ErrorNote message=error_text(&err) /> }.into_any(),
            }
        })
    };
    view! { <Transition fallback=|| view! { <p class="muted">"Loading…"</p> }>{details}</Transition> }
}
