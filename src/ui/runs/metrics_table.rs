//! Per-metric statistics of a run: mean, passed / failed / not evaluated, distribution.

use super::charts::Histogram;
use crate::eval::run_stats::MetricStats;
use crate::ui::evaluate::labels::score_text;
use leptos::prelude::*;

#[component]
pub fn MetricsTable(metrics: Vec<MetricStats>) -> impl IntoView {
    if metrics.is_empty() {
        return view! { <p class="muted">"No scored metrics yet."</p> }.into_any();
    }
    let rows = metrics
        .into_iter()
        .map(|m| {
            view! {
                <tr>
                    <td class="mono">{m.metric_name.clone()}</td>
                    <td class="num">{m.threshold.map(|t| t.to_string()).unwrap_or_default()}</td>
                    <td class="num">{score_text(m.mean)}</td>
                    <td class="num passed-text">{m.passed}</td>
                    <td class="num failed-text">{m.failed}</td>
                    <td class="num muted">{m.not_evaluated}</td>
                    <td><Histogram stats=m /></td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <table class="data-table metrics-stats">
            <thead>
                <tr>
                    <th scope="col">"Metric"</th>
                    <th scope="col" class="num">"Threshold"</th>
                    <th scope="col" class="num">"Mean"</th>
                    <th scope="col" class="num">"Passed"</th>
                    <th scope="col" class="num">"Failed"</th>
                    <th scope="col" class="num">"Not evaluated"</th>
                    <th scope="col">"Scores (0 – 1)"</th>
                </tr>
            </thead>
            <tbody>{rows}</tbody>
        </table>
    }
    .into_any()
}
