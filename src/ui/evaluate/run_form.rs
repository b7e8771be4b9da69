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
use crate::eval::config::criterion_options;
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
    let default_agent = if offer.agents.contains(&app) {
        app.clone()
    } else {
        offer.agents.first().cloned().unwrap_or_default()
    };
    let form = RunFormState {
        metrics: offer.metrics.iter().map(MetricPick::new).collect(),
        customs: RwSignal::new(Vec::new()),
        simulator: SimulatorSettings::new(),
        settings: RunSettings::new(&app, &eval_set_id, default_agent),
        selected,
    };
    start_from_set_tool_mode(app.clone(), eval_set_id.clone(), form.settings);
    let error = RwSignal::new(None::<String>);
    let pending = RwSignal::new(false);
    let start = {
        let form = form.clone();
        move || {
            let run = match form.asked(&app, &eval_set_id) {
                Ok(run) => run,
                Err(message) => return error.set(Some(message)),
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
    let RunFormState {
        metrics,
        customs,
        simulator,
        settings,
        ..
    } = form;
    view! {
        <div class="run-form">
            <RunControls settings agents=offer.agents.clone() selected_count pending on_start=start />
            {move || error.get().map(|message| view! { <ErrorNote message /> })}
            <RunSettingsFold metrics customs simulator open=settings_open />
        </div>
    }
}

/// The evalset's own tool mode (adk-web sets one) is what the Tools menu starts from.
fn start_from_set_tool_mode(app: String, eval_set_id: String, settings: RunSettings) {
    let set_tools = Resource::new(
        move || (app.clone(), eval_set_id.clone()),
        |(app, eval_set_id)| eval_set_tool_mode(app, eval_set_id),
    );
    Effect::new(move |_| {
        if let Some(Ok(Some(ToolExecutionMode::Replay))) = set_tools.get() {
            settings.tools.set("replay".into());
        }
    });
}

/// What the run form holds: the metrics and custom judges picked, the simulated user's and the
/// run's settings, and the cases selected in the page's list.
#[derive(Clone)]
struct RunFormState {
    metrics: Vec<MetricPick>,
    customs: RwSignal<Vec<CustomJudgePick>>,
    simulator: SimulatorSettings,
    settings: RunSettings,
    selected: Option<RwSignal<std::collections::BTreeSet<String>>>,
}

impl RunFormState {
    /// The run the form asks for, or what is wrong with the form, in a sentence.
    fn asked(&self, app: &str, eval_set_id: &str) -> Result<RunAsked, String> {
        let settings = self.settings;
        let scope = match settings.scope.get_untracked().as_str() {
            "selected" => RunScope::Selected(
                self.selected
                    .map(|s| s.get_untracked().into_iter().collect())
                    .unwrap_or_default(),
            ),
            "failed" => RunScope::FailedLastRun,
            _ => RunScope::All,
        };
        Ok(RunAsked {
            app: app.to_string(),
            eval_set_id: eval_set_id.to_string(),
            metrics: chosen_metrics(&self.metrics, &self.customs.get_untracked())?,
            agent: settings.agent.get_untracked(),
            num_runs: settings.runs_per_case()?,
            scope,
            simulator: self.simulator.config()?,
            label: Some(settings.label.get_untracked()).filter(|label| !label.trim().is_empty()),
            tools: settings.tools(),
        })
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
pub(super) fn chosen_metrics(
    metrics: &[MetricPick],
    customs: &[CustomJudgePick],
) -> Result<Vec<MetricChoice>, String> {
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
