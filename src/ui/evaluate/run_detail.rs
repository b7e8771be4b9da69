//! One run of a case, turn by turn, as the case result page shows it: expected against actual
//! (trajectories aligned, responses diffed) and each metric's verdict with its evidence.

use super::case_runs::CaseRun;
use crate::ui::case_result::TurnResults;
use crate::ui::ErrorNote;
use leptos::prelude::*;

/// One run of a case: its error, then each turn's metric results (or why they cannot be shown).
#[component]
pub(super) fn RunDetail(run: CaseRun) -> impl IntoView {
    let turns = match run.result {
        Ok(result) => view! { <TurnResults result on_accept=None /> }.into_any(),
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
