//! A case's outcome in the evalset's latest run, as the case list shows it: a status in colour
//! and words, and one chip per metric (its score against the threshold; a metric that could not
//! score in grey, with the reason on hover).

use super::evaluate::labels::{case_status_badge, flaky_badge, run_status_badge, score_text};
use super::runs::source_notes;
use super::short_time_seconds;
use crate::eval::result::{EvalStatus, MetricSummary};
use crate::records::cases::LastResult;
use crate::records::runs::EvalRunSummary;
use leptos::prelude::*;

#[component]
pub fn StatusCell(result: Option<LastResult>, link: Option<String>) -> impl IntoView {
    let Some(LastResult { summary, reasons }) = result else {
        return view! {
            <span class="badge not-evaluated" title="The latest run did not include this case">
                "– not run"
            </span>
        }
        .into_any();
    };
    let chips = summary
        .metrics
        .iter()
        .filter(|m| m.eval_status != EvalStatus::Informational)
        .map(|metric| chip(metric, reasons.get(&metric.metric_name).cloned()))
        .collect_view();
    let badge = case_status_badge(summary.final_eval_status, summary.errors);
    let flaky = flaky_badge(&summary);
    view! {
        <div class="status-line">
            {match link {
                Some(href) => view! { <a href=href class="status-link" title="Expected against actual">{badge}</a> }.into_any(),
                None => badge.into_any(),
            }}
            {flaky}
            <span class="chips">{chips}</span>
        </div>
    }
    .into_any()
}

fn chip(metric: &MetricSummary, reason: Option<String>) -> impl IntoView {
    let (class, mark) = match metric.eval_status {
        EvalStatus::Passed => ("chip passed", "✓"),
        EvalStatus::Failed => ("chip failed", "✗"),
        _ => ("chip not-evaluated", "–"),
    };
    let title = match (metric.eval_status, metric.threshold) {
        (EvalStatus::NotEvaluated, _) => format!(
            "{}: not evaluated — {}",
            metric.metric_name,
            reason.unwrap_or_else(|| "no turn got a score".into())
        ),
        (_, Some(threshold)) => format!(
            "{}: {} against a threshold of {threshold}",
            metric.metric_name,
            score_text(metric.score)
        ),
        _ => format!("{}: {}", metric.metric_name, score_text(metric.score)),
    };
    view! {
        <span class=class title=title.clone() aria-label=title>
            {mark} " " {short_name(&metric.metric_name)} " " {score_text(metric.score)}
        </span>
    }
}

/// A metric's name without ADK's version suffix and score words, to fit a chip.
fn short_name(name: &str) -> String {
    name.trim_end_matches("_v1")
        .trim_end_matches("_avg_score")
        .trim_end_matches("_score")
        .to_string()
}

/// The run the statuses come from.
#[component]
pub fn LastRunLine(run: EvalRunSummary) -> impl IntoView {
    view! {
        <p class="muted last-run">
            "Statuses from the latest run, " {short_time_seconds(run.created_at)} " (agent "
            <code>{run.agent.clone()}</code> "): " {run.passed} " passed, " {run.failed} " failed"
            {(run.errors > 0).then(|| format!(", {} errors", run.errors))} " of " {run.total} " "
            {run_status_badge(run.status)} " " {source_notes(&run)}
        </p>
    }
}
