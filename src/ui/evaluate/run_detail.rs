//! One run of a case, turn by turn: each metric's score and status, why a metric could not
//! score, and the judge's evidence.

use super::labels::{case_status_badge, score_text};
use crate::eval::EvalStatus;
use crate::store::EvalRunCase;
use crate::ui::json_view::JsonView;
use leptos::prelude::*;

/// One run of a case: its error, then each turn's metric results.
#[component]
pub(super) fn RunDetail(run: EvalRunCase) -> impl IntoView {
    let turns = run.result["eval_metric_result_per_invocation"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let turns = turns
        .into_iter()
        .enumerate()
        .map(|(index, turn)| {
            let question = turn["actual_invocation"]["user_content"]["parts"][0]["text"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            let answer = turn["actual_invocation"]["final_response"]["parts"][0]["text"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            let metrics = turn["eval_metric_results"].as_array().cloned().unwrap_or_default();
            let metrics = metrics
                .into_iter()
                .map(|m| {
                    let status = EvalStatus::from_number(m["eval_status"].as_i64().unwrap_or(3));
                    let reason = m["details"]["reason"].as_str().map(str::to_string);
                    let evidence = m["details"]["evidence"].clone();
                    view! {
                        <li>
                            <span class="mono">{m["metric_name"].as_str().unwrap_or_default().to_string()}</span>
                            " "
                            {score_text(m["score"].as_f64())}
                            " "
                            {case_status_badge(status, 0)}
                            {reason.map(|r| view! { <p class="muted">{r}</p> })}
                            {(!evidence.is_null()).then(|| view! {
                                <details>
                                    <summary>"Evidence"</summary>
                                    <JsonView value=evidence />
                                </details>
                            })}
                        </li>
                    }
                })
                .collect_view();
            view! {
                <div class="turn-result">
                    <p>
                        <strong>{format!("Turn {}", index + 1)}</strong>
                        " · " <span class="muted">"user:"</span> " " {question}
                    </p>
                    <p><span class="muted">"agent:"</span> " " {answer}</p>
                    <ul class="metric-results">{metrics}</ul>
                </div>
            }
        })
        .collect_view();
    view! {
        <div class="run-detail">
            <h4>{format!("Run {}", run.run_index + 1)}</h4>
            {run.error.map(|e| view! { <p class="note note-error">{format!("Agent error: {e}")}</p> })}
            {turns}
        </div>
    }
}
