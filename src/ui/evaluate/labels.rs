//! How run and case results read: status badges, scores, and the cost line of the
//! informational metrics.

use crate::eval::result::{CaseSummary, EvalStatus, MetricSummary};
use crate::records::runs::RunStatus;
use leptos::prelude::*;
use pure_metrics::efficiency::{
    INFERENCE_CALL_COUNT_V1, INVOCATION_DURATION_V1, TOKEN_USAGE_V1, TOOL_CALL_COUNT_V1,
};

pub(crate) fn run_status_badge(status: RunStatus) -> impl IntoView {
    let (class, label) = match status {
        RunStatus::Running => ("badge running", "● running"),
        RunStatus::Finished => ("badge passed", "✓ finished"),
        RunStatus::Interrupted => ("badge error", "! interrupted"),
        RunStatus::Cancelled => ("badge not-evaluated", "■ cancelled"),
    };
    view! { <span class=class>{label}</span> }
}

pub(crate) fn case_status_badge(status: EvalStatus, errors: usize) -> impl IntoView {
    let (class, label) = if errors > 0 {
        ("badge error", "! ERROR")
    } else {
        match status {
            EvalStatus::Passed => ("badge passed", "✓ PASSED"),
            EvalStatus::Failed => ("badge failed", "✗ FAILED"),
            EvalStatus::NotEvaluated => ("badge not-evaluated", "– NOT EVALUATED"),
            EvalStatus::Informational => ("badge info", "i INFO"),
        }
    };
    view! { <span class=class>{label}</span> }
}

/// "flaky" when runs of the same case disagree (some passed, some did not), with pass@k and
/// pass^k on hover.
pub(crate) fn flaky_badge(case: &CaseSummary) -> Option<impl IntoView> {
    let flaky = case.num_runs > 1 && case.passed_runs > 0 && case.passed_runs < case.num_runs;
    flaky.then(|| {
        let k = case.num_runs;
        let title = format!(
            "{} of {k} runs passed · pass@{k} {:.2} · pass^{k} {:.2}",
            case.passed_runs,
            case.pass_at_k.last().copied().unwrap_or(0.0),
            case.pass_hat_k.last().copied().unwrap_or(0.0)
        );
        view! { <span class="badge error" title=title>"≈ flaky"</span> }
    })
}

pub(crate) fn score_text(score: Option<f64>) -> String {
    score.map_or("–".into(), |s| format!("{s:.3}"))
}

/// The informational metrics of a case as one line, e.g. "1.5 tool calls · 340 tokens ·
/// 0.88 s"; values not available are left out.
pub(crate) fn cost_text(metrics: &[MetricSummary]) -> String {
    let value = |name: &str| {
        metrics
            .iter()
            .find(|m| m.metric_name == name)
            .and_then(|m| m.score)
    };
    let parts: Vec<String> = [
        value(TOOL_CALL_COUNT_V1).map(|v| format!("{v:.1} tool calls")),
        value(INFERENCE_CALL_COUNT_V1).map(|v| format!("{v:.1} model calls")),
        value(TOKEN_USAGE_V1).map(|v| format!("{v:.0} tokens")),
        value(INVOCATION_DURATION_V1).map(|v| format!("{v:.2} s")),
    ]
    .into_iter()
    .flatten()
    .collect();
    if parts.is_empty() {
        "–".into()
    } else {
        parts.join(" · ")
    }
}
