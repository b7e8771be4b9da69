//! One run of a case, turn by turn: each metric's score and status, why a metric could not
//! score, and the judge's evidence.

use super::case_runs::CaseRun;
use super::metric_result::MetricResult;
use crate::eval::EvalMetricResultPerInvocation;
use crate::evalset::Content;
use crate::ui::ErrorNote;
use leptos::prelude::*;

/// One run of a case: its error, then each turn's metric results (or why they cannot be shown).
#[component]
pub(super) fn RunDetail(run: CaseRun) -> impl IntoView {
    let turns = match run.result {
        Ok(result) => result
            .eval_metric_result_per_invocation
            .into_iter()
            .enumerate()
            .map(|(index, turn)| view! { <TurnResult number=index + 1 turn /> })
            .collect_view()
            .into_any(),
        Err(message) => view! { <ErrorNote message /> }.into_any(),
    };
    view! {
        <div class="run-detail">
            <h4>{format!("Run {}", run.run_index + 1)}</h4>
            {run.error.map(|e| view! { <p class="note note-error">{format!("Agent error: {e}")}</p> })}
            {turns}
        </div>
    }
}

/// One turn: what the user asked, what the agent answered, and every metric's verdict on it.
#[component]
fn TurnResult(number: usize, turn: EvalMetricResultPerInvocation) -> impl IntoView {
    let actual = turn.actual_invocation;
    let question = actual.user_content.joined_text();
    let answer = actual
        .final_response
        .as_ref()
        .map(Content::joined_text)
        .unwrap_or_default();
    let metrics = turn
        .eval_metric_results
        .into_iter()
        .map(|metric| view! { <MetricResult metric /> })
        .collect_view();
    view! {
        <div class="turn-result">
            <p>
                <strong>{format!("Turn {number}")}</strong>
                " · " <span class="muted">"user:"</span> " " {question}
            </p>
            <p><span class="muted">"agent:"</span> " " {answer}</p>
            <ul class="metric-results">{metrics}</ul>
        </div>
    }
}
