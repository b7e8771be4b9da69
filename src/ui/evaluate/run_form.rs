//! The run form: Run evaluation and its settings on top, then, folded under a line that names
//! the picked metrics, the metrics to pick (with their thresholds and options, and custom judge
//! metrics) and the simulated user's settings. Thresholds are checked against each metric's
//! range as they are typed; the server checks the whole config when the run is asked for.

use super::custom_judge::CustomJudgePick;
use super::metric_picker::{picked_summary, MetricPick, MetricPicker};
use super::panel::SelectedCases;
use super::run_controls::{RunControls, RunSettings};
use super::simulator_settings::{SimulatorSettings, SimulatorSettingsFields};
use crate::agent::ToolExecutionMode;
use crate::api::evaluate::{
    eval_panel_options, eval_set_tool_mode, start_eval, EvalOffer, MetricChoice, RunAsked, RunScope,
};
use crate::eval::criterion_options;
use crate::ui::browser::details_open;
use crate::ui::{error_text, ErrorNote};
use leptos::prelude::*;
use leptos::task::spawn_local;

#[component]
pub(super) fn RunForm(
    app: String,
    eval_set_id: String,
    on_started: impl Fn(String) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let options = Resource::new(|| (), |_| eval_panel_options());
    view! {
        <Transition fallback=|| view! { <p class="muted">"Loading metrics…"</p> }>
            {
                let (app, eval_set_id) = (app.clone(), eval_set_id.clone());
                move || {
                    let (app, eval_set_id) = (app.clone(), eval_set_id.clone());
                    Suspend::new(async move {
                        match options.await {
                            Ok(offer) => view! { <RunFormBody offer app eval_set_id on_started /> }.into_any(),
                            Err(err) => view! { <ErrorNote message=error_text(&err) /> }.into_any(),
                        }
                    })
                }
            }
        </Transition>
    }
}

#[component]
fn RunFormBody(
    offer: EvalOffer,
    app: String,
    eval_set_id: String,
    on_started: impl Fn(String) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let selected = use_context::<SelectedCases>().map(|SelectedCases(s)| s);
    let metrics: Vec<MetricPick> = offer.metrics.iter().map(MetricPick::new).collect();
    let default_agent = if offer.agents.contains(&app) {
        app.clone()
    } else {
        offer.agents.first().cloned().unwrap_or_default()
    };
    let settings = RunSettings::new(&app, &eval_set_id, default_agent);
    let set_tools = Resource::new(
        {
            let (app, eval_set_id) = (app.clone(), eval_set_id.clone());
            move || (app.clone(), eval_set_id.clone())
        },
        |(app, eval_set_id)| eval_set_tool_mode(app, eval_set_id),
    );
    // The evalset's own default (adk-web sets one) is what the Tools menu starts from.
    Effect::new(move |_| {
        if let Some(Ok(Some(ToolExecutionMode::Replay))) = set_tools.get() {
            settings.tools.set("replay".into());
        }
    });
    let customs = RwSignal::new(Vec::<CustomJudgePick>::new());
    let simulator = SimulatorSettings::new();
    let error = RwSignal::new(None::<String>);
    let pending = RwSignal::new(false);
    let start = {
        let metrics = metrics.clone();
        move || {
            let request = (|| {
                let chosen = chosen_metrics(&metrics, &customs.get_untracked())?;
                let runs = settings.runs_per_case()?;
                let simulator_config = simulator.config()?;
                Ok::<_, String>((chosen, runs, simulator_config))
            })();
            let (chosen, runs, simulator_config) = match request {
                Ok(request) => request,
                Err(message) => return error.set(Some(message)),
            };
            let scope = match settings.scope.get_untracked().as_str() {
                "selected" => RunScope::Selected(
                    selected
                        .map(|s| s.get_untracked().into_iter().collect())
                        .unwrap_or_default(),
                ),
                "failed" => RunScope::FailedLastRun,
                _ => RunScope::All,
            };
            let run = RunAsked {
                app: app.clone(),
                eval_set_id: eval_set_id.clone(),
                metrics: chosen,
                agent: settings.agent.get_untracked(),
                num_runs: runs,
                scope,
                simulator: simulator_config,
                label: Some(settings.label.get_untracked()).filter(|label| !label.trim().is_empty()),
                tools: settings.tools(),
            };
            error.set(None);
            pending.set(true);
            spawn_local(async move {
                match start_eval(run).await {
                    Ok(result_id) => on_started(result_id),
                    Err(err) => error.set(Some(error_text(&err))),
                }
                pending.set(false);
            });
        }
    };
    let selected_count = Signal::derive(move || selected.map(|s| s.with(|s| s.len())).unwrap_or_default());
    // A refused start opens the settings, where the problem is.
    let settings_open = RwSignal::new(false);
    Effect::new(move |_| {
        if error.with(Option::is_some) {
            settings_open.set(true);
        }
    });
    view! {
        <div class="run-form">
            <RunControls settings agents=offer.agents.clone() selected_count pending on_start=start />
            {move || error.get().map(|message| view! { <ErrorNote message /> })}
            <RunSettingsFold metrics customs simulator open=settings_open />
        </div>
    }
}

/// The metrics, their thresholds and the simulated user's settings, folded under one line that
/// names what is picked: the run's results follow the Run button, not thirty metric rows.
#[component]
fn RunSettingsFold(
    metrics: Vec<MetricPick>,
    customs: RwSignal<Vec<CustomJudgePick>>,
    simulator: SimulatorSettings,
    open: RwSignal<bool>,
) -> impl IntoView {
    let summary = {
        let metrics = metrics.clone();
        move || customs.with(|customs| picked_summary(&metrics, customs))
    };
    view! {
        <details
            class="run-settings"
            prop:open=move || open.get()
            on:toggle=move |ev| open.set(details_open(&ev))
        >
            <summary>
                <span class="run-settings-title">"Metrics"</span>
                <span class="muted small-text" aria-live="polite">{summary}</span>
            </summary>
            <MetricPicker metrics customs />
            <SimulatorSettingsFields settings=simulator />
        </details>
    }
}

/// The picked metrics and custom judges with their thresholds, each a number in its metric's
/// range, and their options, each a JSON object. What the options say (criterion keys, judge
/// prompts) the server checks when the run is asked for, answering a refusal that names the
/// field; that check, and the judges' config readers behind it, stay out of the browser's wasm.
fn chosen_metrics(metrics: &[MetricPick], customs: &[CustomJudgePick]) -> Result<Vec<MetricChoice>, String> {
    let mut chosen = Vec::new();
    for metric in metrics.iter().filter(|m| m.picked.get_untracked()) {
        let threshold = super::metric_inputs::threshold_of(&metric.name, metric.threshold)?;
        if let Some(problem) = metric.range_problem(threshold) {
            return Err(problem);
        }
        chosen.push(MetricChoice {
            metric_name: metric.name.clone(),
            threshold,
            options: metric.options.map(|o| o.get_untracked()),
        });
    }
    for custom in customs {
        chosen.push(custom.choice()?);
    }
    for choice in &chosen {
        criterion_options(&choice.metric_name, choice.options.as_deref())
            .map_err(|problem| problem.to_string())?;
    }
    if chosen.is_empty() {
        return Err("Pick at least one metric.".into());
    }
    Ok(chosen)
}
