//! "Score selected" on the Traces page: recorded sessions scored without running the agent,
//! with metrics picked as the run form picks them, against the cases of an evalset they match
//! (the others get the metrics that need no reference). The run it makes opens when scored.

use super::custom_judge::CustomJudgePick;
use super::metric_picker::{picked_summary, MetricPick, MetricPicker};
use super::run_form::chosen_metrics;
use crate::api::evalsets::list_eval_sets;
use crate::api::evaluate::{eval_panel_options, EvalOffer};
use crate::api::traces::score_recorded_sessions;
use crate::ui::runs::run_href;
use crate::ui::{error_text, ErrorNote};
use leptos::prelude::*;
use leptos::task::spawn_local;

#[component]
pub fn ScoreRecordedForm(app: String, session_ids: Signal<Vec<String>>) -> impl IntoView {
    let options = Resource::new(|| (), |_| eval_panel_options());
    let sets = Resource::new(
        {
            let app = app.clone();
            move || app.clone()
        },
        list_eval_sets,
    );
    view! {
        <Transition fallback=|| view! { <p class="muted">"Loading metrics…"</p> }>
            {
                let app = app.clone();
                move || {
                    let app = app.clone();
                    Suspend::new(async move {
                        match (options.await, sets.await) {
                            (Ok(offer), Ok(sets)) => {
                                let sets = sets.into_iter().map(|set| set.eval_set_id).collect();
                                view! { <ScoreForm offer app sets session_ids /> }.into_any()
                            }
                            (Err(err), _) | (_, Err(err)) => view! { <ErrorNote message=error_text(&err) /> }.into_any(),
                        }
                    })
                }
            }
        </Transition>
    }
}

#[component]
fn ScoreForm(
    offer: EvalOffer,
    app: String,
    sets: Vec<String>,
    session_ids: Signal<Vec<String>>,
) -> impl IntoView {
    let metrics: Vec<MetricPick> = offer.metrics.iter().map(MetricPick::new).collect();
    let customs = RwSignal::new(Vec::<CustomJudgePick>::new());
    let eval_set_id = RwSignal::new(sets.first().cloned().unwrap_or_default());
    let label = RwSignal::new(String::new());
    let error = RwSignal::new(None::<String>);
    let pending = RwSignal::new(false);
    let navigate = leptos_router::hooks::use_navigate();
    let score = {
        let (app, metrics) = (app.clone(), metrics.clone());
        move |ev: leptos::ev::SubmitEvent| {
            ev.prevent_default();
            let chosen = match chosen_metrics(&metrics, &customs.get_untracked()) {
                Ok(chosen) => chosen,
                Err(message) => return error.set(Some(message)),
            };
            let (app, set, navigate) = (app.clone(), eval_set_id.get_untracked(), navigate.clone());
            let label = Some(label.get_untracked()).filter(|label| !label.trim().is_empty());
            error.set(None);
            pending.set(true);
            spawn_local(async move {
                match score_recorded_sessions(app.clone(), set, session_ids.get_untracked(), chosen, label)
                    .await
                {
                    Ok(result_id) => navigate(&run_href(&app, &result_id), Default::default()),
                    Err(err) => error.set(Some(error_text(&err))),
                }
                pending.set(false);
            });
        }
    };
    let summary = {
        let metrics = metrics.clone();
        move || customs.with(|customs| picked_summary(&metrics, customs))
    };
    let no_sets = sets.is_empty();
    let options = sets
        .into_iter()
        .map(|set| view! { <option value=set.clone()>{set.clone()}</option> })
        .collect_view();
    let count = move || session_ids.with(Vec::len);
    view! {
        <form class="score-recorded" on:submit=score>
            <p class="muted">
                "Scored without running the agent. A session is compared with the evalset's case of its id, else the case asking its first question over as many turns; metrics that need a reference leave the others not evaluated."
            </p>
            {no_sets.then(|| view! { <p class="note note-warning">"This app has no evalset yet: add a session to one first."</p> })}
            <div class="toolbar">
                <label for="score-eval-set">"Against evalset"</label>
                <select id="score-eval-set" on:change=move |ev| eval_set_id.set(event_target_value(&ev))>{options}</select>
                <label for="score-label">"Label"</label>
                <input id="score-label" placeholder="optional" prop:value=move || label.get()
                    on:input=move |ev| label.set(event_target_value(&ev)) />
                <button type="submit" class="primary" disabled=move || pending.get() || no_sets || count() == 0>
                    {move || if pending.get() { "Scoring…".to_string() } else { format!("Score {} session{}", count(), if count() == 1 { "" } else { "s" }) }}
                </button>
            </div>
            {move || error.get().map(|message| view! { <ErrorNote message /> })}
            <details class="run-settings" open>
                <summary>
                    <span class="run-settings-title">"Metrics"</span>
                    <span class="muted small-text" aria-live="polite">{summary}</span>
                </summary>
                <MetricPicker metrics customs />
            </details>
        </form>
    }
}
