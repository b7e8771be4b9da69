//! The Runs pages: every run with its pass rate and metric means, one run's statistics and
//! cases, and two runs of an evalset compared.

mod charts;
mod compare_page;
mod metrics_table;
mod run_page;
mod runs_page;

pub use compare_page::ComparePage;
pub use run_page::RunPage;
pub use runs_page::RunsPage;

use super::encode_query_value;
use crate::records::EvalRunSummary;

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
        Some(end) => format!("{:.1} s", (end - run.created_at).max(0.0)),
        None => "–".into(),
    }
}
