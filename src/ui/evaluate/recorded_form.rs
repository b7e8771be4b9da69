//! "Score…" on the Traces page: recorded sessions (the ticked ones, or every one the list's
//! filters keep) scored without running the agent, with metrics picked as the run form picks
//! them, against the cases of an evalset they match (the others get the metrics that need no
//! reference). The run it makes opens when scored, unless a filter's sessions were left out,
//! which are said first.

use super::custom_judge::CustomJudgePick;
use super::metric_picker::{picked_summary, MetricPick, MetricPicker};
use super::run_form::chosen_metrics;
use crate::api::evalsets::list_eval_sets;
use crate::api::evaluate::{eval_panel_options, EvalOffer};
use crate::api::traces::score_recorded_sessions;
use crate::records::runs::MetricChoice;
use crate::records::traces::TraceSessionFilter;
use crate::ui::runs::run_href;
use crate::ui::{error_text, ErrorNote};
use leptos::prelude::*;
use leptos::task::spawn_local;

/// Most sessions one scoring takes (the server's `MAX_RECORDED_SESSIONS`).
const MOST_SESSIONS: usize = 200;

/// Scores the ticked sessions, or every one `filter` keeps.
#[component]
pub fn ScoreRecordedForm(
    app: String,
    session_ids: Signal<Vec<String>>,
    filter: TraceSessionFilter,
) -> impl IntoView {
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
                let (app, filter) = (app.clone(), filter.clone());
                move || {
                    let (app, filter) = (app.clone(), filter.clone());
                    Suspend::new(async move {
                        match (options.await, sets.await) {
                            (Ok(offer), Ok(sets)) => {
                                let sets = sets.into_iter().map(|set| set.eval_set_id).collect();
                                view! { <ScoreForm offer app sets session_ids filter /> }.into_any()
                            }
                            (Err(err), _) | (_, Err(err)) => view! { <ErrorNote message=error_text(&err) /> }.into_any(),
                        }
                    })
                }
            }
        </Transition>
    }
}

/// A run made from a filter, and the sessions it left out with why: where the run opens, and
/// what to say first.
type LeftOutNote = Option<(String, Vec<(String, String)>)>;

/// What one scoring asks for.
#[derive(Clone)]
struct Scoring {
    app: String,
    eval_set_id: String,
    /// None: every session the filter keeps.
    session_ids: Option<Vec<String>>,
    filter: TraceSessionFilter,
    metrics: Vec<MetricChoice>,
    label: Option<String>,
}

#[component]
fn ScoreForm(
    offer: EvalOffer,
    app: String,
    sets: Vec<String>,
    session_ids: Signal<Vec<String>>,
    filter: TraceSessionFilter,
) -> impl IntoView {
    let metrics: Vec<MetricPick> = offer.metrics.iter().map(MetricPick::new).collect();
    let customs = RwSignal::new(Vec::<CustomJudgePick>::new());
    let eval_set_id = RwSignal::new(sets.first().cloned().unwrap_or_default());
    let label = RwSignal::new(String::new());
    // The ticked sessions, or (none ticked, or so chosen) every one the filters keep.
    let whole_filter = RwSignal::new(session_ids.with_untracked(Vec::is_empty));
    let error = RwSignal::new(None::<String>);
    let left_out = RwSignal::new(LeftOutNote::None);
    let pending = RwSignal::new(false);
    let navigate = leptos_router::hooks::use_navigate();
    let submit = {
        let metrics = metrics.clone();
        move |ev: leptos::ev::SubmitEvent| {
            ev.prevent_default();
            let metrics = match chosen_metrics(&metrics, &customs.get_untracked()) {
                Ok(metrics) => metrics,
                Err(message) => return error.set(Some(message)),
            };
            let scoring = Scoring {
                app: app.clone(),
                eval_set_id: eval_set_id.get_untracked(),
                session_ids: (!whole_filter.get_untracked()).then(|| session_ids.get_untracked()),
                filter: filter.clone(),
                metrics,
                label: Some(label.get_untracked()).filter(|label| !label.trim().is_empty()),
            };
            let navigate = navigate.clone();
            pending.set(true);
            spawn_local(async move {
                let open = move |href: &str| navigate(href, Default::default());
                score_and_open(scoring, open, error, left_out).await;
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
    let ticked = move || session_ids.with(Vec::len);
    let what = move || match (pending.get(), whole_filter.get()) {
        (true, _) => "Scoring…".to_string(),
        (false, true) => "Score the filter's sessions".to_string(),
        (false, false) => format!(
            "Score {} session{}",
            ticked(),
            if ticked() == 1 { "" } else { "s" }
        ),
    };
    let blocked = move || pending.get() || no_sets || (!whole_filter.get() && ticked() == 0);
    view! {
        <form class="score-recorded" on:submit=submit>
            <p class="muted">
                "Scored without running the agent. A session is compared with the evalset's case of its id, else the case asking its first question over as many turns; metrics that need a reference leave the others not evaluated."
            </p>
            {no_sets.then(|| view! { <p class="note note-warning">"This app has no evalset yet: add a session to one first."</p> })}
            <WhichSessions whole_filter ticked=Signal::derive(ticked) />
            <div class="toolbar">
                <label for="score-eval-set">"Against evalset"</label>
                <select id="score-eval-set" on:change=move |ev| eval_set_id.set(event_target_value(&ev))>{options}</select>
                <label for="score-label">"Label"</label>
                <input id="score-label" placeholder="optional" prop:value=move || label.get()
                    on:input=move |ev| label.set(event_target_value(&ev)) />
                <button type="submit" class="primary" disabled=blocked>{what}</button>
            </div>
            {move || error.get().map(|message| view! { <ErrorNote message /> })}
            {move || left_out.get().map(|(href, left_out)| view! { <LeftOut href left_out /> })}
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

/// Scores; opens the run, or first says which of a filter's sessions were left out.
async fn score_and_open(
    scoring: Scoring,
    open: impl Fn(&str),
    error: RwSignal<Option<String>>,
    left_out: RwSignal<LeftOutNote>,
) {
    error.set(None);
    left_out.set(None);
    let app = scoring.app.clone();
    let scored = score_recorded_sessions(
        scoring.app,
        scoring.eval_set_id,
        scoring.session_ids,
        scoring.filter,
        scoring.metrics,
        scoring.label,
    )
    .await;
    match scored {
        Ok((result_id, skipped)) if skipped.is_empty() => open(&run_href(&app, &result_id)),
        Ok((result_id, skipped)) => left_out.set(Some((run_href(&app, &result_id), skipped))),
        Err(err) => error.set(Some(error_text(&err))),
    }
}

/// The ticked sessions, or every one the filters keep.
#[component]
fn WhichSessions(whole_filter: RwSignal<bool>, ticked: Signal<usize>) -> impl IntoView {
    view! {
        <div class="toolbar" role="radiogroup" aria-label="Sessions to score">
            <label>
                <input type="radio" name="score-which" prop:checked=move || !whole_filter.get()
                    disabled=move || ticked.get() == 0 on:change=move |_| whole_filter.set(false) />
                {move || format!(" The {} ticked", ticked.get())}
            </label>
            <label>
                <input type="radio" name="score-which" prop:checked=move || whole_filter.get()
                    on:change=move |_| whole_filter.set(true) />
                {format!(" Every session the filters keep (at most {MOST_SESSIONS})")}
            </label>
        </div>
    }
}

/// The run made, and the sessions the filters kept that could not be scored, with why.
#[component]
fn LeftOut(href: String, left_out: Vec<(String, String)>) -> impl IntoView {
    let items = left_out
        .into_iter()
        .map(|(session, why)| view! { <li><code>{session}</code> ": " {why}</li> })
        .collect_view();
    view! {
        <div class="note" role="status">
            <p>"Scored: " <a href=href>"open the run"</a> ". Left out:"</p>
            <ul class="refused-sessions">{items}</ul>
        </div>
    }
}
