//! The Runs pages: every run with its pass rate and metric means, one run's statistics and
//! cases, and two runs of an evalset compared.

mod charts;
mod compare_page;
mod heat_map;
mod metrics_table;
mod run_label;
mod run_page;
mod runs_page;
mod trend;

pub use compare_page::ComparePage;
pub use run_page::RunPage;
pub use runs_page::RunsPage;
pub use trend::RunTrend;

use super::{count, encode_query_value, short_time_seconds};
use crate::records::runs::{EvalRunSummary, RunOrigin};
use leptos::prelude::*;

/// A run as people read it: its label, else its evalset, agent and start to the second. Its
/// result id (ADK's shape) stays what links and exports use.
pub fn run_title(run: &EvalRunSummary) -> String {
    match &run.label {
        Some(label) => label.clone(),
        None => format!(
            "{} · {} · {}",
            run.eval_set_id,
            run.agent,
            short_time_seconds(run.created_at)
        ),
    }
}

/// A run among its evalset's runs: its label, else its start to the second.
pub fn run_short_title(run: &EvalRunSummary) -> String {
    run.label
        .clone()
        .unwrap_or_else(|| short_time_seconds(run.created_at))
}

/// "re-run of 1 case" for a run of only some of its evalset's cases.
pub fn rerun_note(run: &EvalRunSummary) -> Option<String> {
    let partial = !run.whole_set && run.origin != RunOrigin::Recorded;
    partial.then(|| format!("re-run of {}", count(run.case_count(), "case")))
}

/// Where a run comes from: "by ADK" for one `adk eval` or `adk web` wrote (folder mode), "N
/// recorded sessions" for sessions scored from their spans, and the git commit it was made on
/// (8 characters, `+changes` when the tree had changes; the whole id on hover).
pub fn source_notes(run: &EvalRunSummary) -> impl IntoView {
    let by_adk = match run.origin {
        RunOrigin::Adk => Some(
            view! { <span class="run-note" title="Written by adk eval or adk web; read-only">"by ADK"</span> }
                .into_any(),
        ),
        RunOrigin::Recorded => Some(
            view! {
                <span class="run-note run-note-recorded" title="Sessions the agent's OpenTelemetry exporter recorded, scored without running it">
                    {count(run.case_count(), "recorded session")}
                </span>
            }
            .into_any(),
        ),
        RunOrigin::Evalstudio => None,
    };
    let commit = run.commit.as_ref().map(|commit| {
        view! { <span class="run-note mono" title=format!("git commit {}", commit.commit)>{commit.short()}</span> }
    });
    (by_adk, commit)
}

pub fn run_href(app: &str, result_id: &str) -> String {
    format!("/runs/{app}/{}", encode_query_value(result_id))
}

/// `after` against `before`.
pub fn compare_href(app: &str, after: &str, before: &str) -> String {
    format!(
        "/runs/{app}/{}/compare/{}",
        encode_query_value(after),
        encode_query_value(before)
    )
}

/// "2 of 3 passed (67%)".
fn pass_rate(run: &EvalRunSummary) -> String {
    if run.done == 0 {
        return "no case finished".into();
    }
    format!(
        "{} of {} passed ({:.0}%)",
        run.passed,
        run.done,
        run.passed as f64 * 100.0 / run.done as f64
    )
}

/// How long the run took, or "running".
fn duration(run: &EvalRunSummary) -> String {
    match run.finished_at {
        // ADK's result files record when a run started, not how long it took.
        Some(end) if run.origin != RunOrigin::Adk => format!("{:.1} s", (end - run.created_at).max(0.0)),
        _ => "–".into(),
    }
}
