//! A metric's verdict on one turn: score and status, the reason it could not score, and the
//! evidence behind it. Shown in the run results and on a case's result page.

use super::evidence::EvidenceView;
use super::labels::{case_status_badge, score_text};
use crate::eval::result::EvalMetricResult;
use leptos::prelude::*;

/// A metric's verdict on a turn, with the reason it could not score and its evidence, if any.
#[component]
pub(crate) fn MetricResult(metric: EvalMetricResult) -> impl IntoView {
    let details = metric.details;
    view! {
        <li>
            <span class="mono">{metric.metric_name}</span>
            " "
            {score_text(metric.score)}
            " "
            {case_status_badge(metric.eval_status, 0)}
            {details.reason.map(|reason| view! { <p class="muted">{reason}</p> })}
            {details.evidence.map(|evidence| view! {
                <details>
                    <summary>"Evidence"</summary>
                    <EvidenceView evidence />
                </details>
            })}
        </li>
    }
}
