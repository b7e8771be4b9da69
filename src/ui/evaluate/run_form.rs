//! The run form: metrics to pick with their thresholds and options, custom judge metrics, the
//! simulated user's settings, the agent and the runs per case. The picks are checked (eval::EvalConfig::from_picked) before
//! the run is requested.

use super::custom_judge::{CustomJudgePick, CustomJudgeRow};
use super::metric_inputs::{threshold_of, CriterionOptions, ThresholdInput};
use super::panel::SelectedCases;
use super::simulator_settings::{SimulatorSettings, SimulatorSettingsFields};
use crate::api::evaluate::{eval_panel_options, start_eval, MetricChoice, RunScope};
use crate::eval::EvalConfig;
use crate::ui::{browser, error_text, ErrorNote};
use leptos::prelude::*;
use leptos::task::spawn_local;

/// A metric in the run form, as the user set it.
#[derive(Clone)]
struct MetricPick {
    name: String,
    description: String,
    picked: RwSignal<bool>,
    threshold: RwSignal<String>,
    /// The criterion's other keys as JSON text, for metrics that take them.
    options: Option<RwSignal<String>>,
    /// What it needs ("judge model", "expected response"…).
    needs: Vec<String>,
    /// Why it cannot be picked on this server.
    unavailable: Option<String>,
    /// For a stand-in of a Vertex AI metric: that it approximates it, and the prompt.
    note: Option<String>,
    prompt: Option<String>,
}

/// Metric checkboxes with thresholds (and criterion options where a metric takes them), the
/// agent, the number of runs, and the start button.
#[component]
pub(super) fn RunForm(
    app: String,
    eval_set_id: String,
    on_started: impl Fn(String) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let options = Resource::new(|| (), |_| eval_panel_options());
    let selected = use_context::<SelectedCases>().map(|SelectedCases(s)| s);
    // Which cases to run: "all", "selected" or "failed", remembered per evalset in the browser.
    let scope = RwSignal::new("all".to_string());
    let scope_key = StoredValue::new(format!("evalstudio.run_scope.{app}.{eval_set_id}"));
    Effect::new(move |_| {
        if let Some(saved) = browser::stored(&scope_key.get_value()) {
            scope.set(saved);
        }
    });
    let error = RwSignal::new(None::<String>);
    let pending = RwSignal::new(false);
    view! {
        <Transition fallback=|| view! { <p class="muted">"Loading metrics…"</p> }>
            {
                let (app, eval_set_id) = (app.clone(), eval_set_id.clone());
                move || {
                    let (app, eval_set_id) = (app.clone(), eval_set_id.clone());
                    Suspend::new(async move {
                        let offer = match options.await {
                            Ok(offer) => offer,
                            Err(err) => return view! { <ErrorNote message=error_text(&err) /> }.into_any(),
                        };
                        let metrics: Vec<MetricPick> = offer
                            .metrics
                            .iter()
                            .map(|m| MetricPick {
                                name: m.metric_name.clone(),
                                description: m.description.clone(),
                                picked: RwSignal::new(
                                    m.unavailable.is_none()
                                        && (m.metric_name == "tool_trajectory_avg_score"
                                            || m.metric_name == "response_match_score"),
                                ),
                                threshold: RwSignal::new(m.default_threshold.to_string()),
                                options: m.criterion_options.clone().map(RwSignal::new),
                                needs: m.needs.clone(),
                                unavailable: m.unavailable.clone(),
                                note: m.note.clone(),
                                prompt: m.prompt.clone(),
                            })
                            .collect();
                        let default_agent = if offer.agents.contains(&app) {
                            app.clone()
                        } else {
                            offer.agents.first().cloned().unwrap_or_default()
                        };
                        let customs = RwSignal::new(Vec::<CustomJudgePick>::new());
                        let added = RwSignal::new(0usize);
                        let add_custom = move |_| {
                            added.update(|n| *n += 1);
                            customs.update(|c| c.push(CustomJudgePick::new(added.get_untracked())));
                        };
                        let custom_rows = move || {
                            customs
                                .get()
                                .into_iter()
                                .map(|custom| {
                                    let remove = move || customs.update(|c| c.retain(|k| k.number != custom.number));
                                    view! { <CustomJudgeRow custom remove /> }
                                })
                                .collect_view()
                        };
                        let agent = RwSignal::new(default_agent);
                        let num_runs = RwSignal::new("1".to_string());
                        let simulator = SimulatorSettings::new();
                        let rows = metrics
                            .iter()
                            .map(|metric| {
                                let MetricPick {
                                    name,
                                    description,
                                    picked,
                                    threshold,
                                    options,
                                    needs,
                                    unavailable,
                                    note,
                                    prompt,
                                } = metric.clone();
                                let note = note.map(|note| view! { <span class="metric-note">{note}</span> });
                                let prompt = prompt.map(|prompt| {
                                    view! {
                                        <details class="metric-prompt">
                                            <summary>"The judge's prompt"</summary>
                                            <pre>{prompt}</pre>
                                        </details>
                                    }
                                });
                                let needs = (!needs.is_empty()).then(|| {
                                    view! {
                                        <span class="metric-needs">
                                            "Needs: "
                                            {needs
                                                .into_iter()
                                                .map(|need| view! { <span class="need-chip">{need}</span> })
                                                .collect_view()}
                                        </span>
                                    }
                                });
                                let disabled = unavailable.is_some();
                                let unavailable = unavailable
                                    .map(|reason| view! { <span class="metric-unavailable">{format!("Unavailable: {reason}")}</span> });
                                let options = options.map(|options| {
                                    view! {
                                        <CriterionOptions label=format!("{name} options") value=options shown=picked.into() />
                                    }
                                });
                                view! {
                                    <tr>
                                        <td>
                                            <label class="metric-pick" title=description.clone()>
                                                <input
                                                    type="checkbox"
                                                    disabled=disabled
                                                    prop:checked=move || picked.get()
                                                    on:change=move |ev| picked.set(event_target_checked(&ev))
                                                />
                                                <span class="mono">{name.clone()}</span>
                                            </label>
                                        </td>
                                        <td>
                                            <ThresholdInput label=format!("{name} threshold") value=threshold />
                                        </td>
                                        <td class="muted small-text">{description} {note} {needs} {unavailable} {prompt} {options}</td>
                                    </tr>
                                }
                            })
                            .collect_view();
                        let agents = offer
                            .agents
                            .iter()
                            .map(|a| view! { <option value=a.clone()>{a.clone()}</option> })
                            .collect_view();
                        let start = move |_| {
                            let mut chosen = Vec::new();
                            for metric in metrics.iter().filter(|m| m.picked.get_untracked()) {
                                match threshold_of(&metric.name, metric.threshold) {
                                    Ok(threshold) => chosen.push(MetricChoice {
                                        metric_name: metric.name.clone(),
                                        threshold,
                                        options: metric.options.map(|o| o.get_untracked()),
                                    }),
                                    Err(message) => {
                                        error.set(Some(message));
                                        return;
                                    }
                                }
                            }
                            for custom in customs.get_untracked() {
                                match custom.choice() {
                                    Ok(choice) => chosen.push(choice),
                                    Err(message) => {
                                        error.set(Some(message));
                                        return;
                                    }
                                }
                            }
                            if chosen.is_empty() {
                                error.set(Some("Pick at least one metric.".into()));
                                return;
                            }
                            // The server checks the same; checking here first answers at once.
                            let config = EvalConfig::from_picked(
                                chosen
                                    .iter()
                                    .map(|m| (m.metric_name.as_str(), m.threshold, m.options.as_deref())),
                            );
                            if let Err(config_error) = config {
                                error.set(Some(config_error.to_string()));
                                return;
                            }
                            let runs = match num_runs.get_untracked().trim().parse::<usize>() {
                                Ok(n) if (1..=100).contains(&n) => n,
                                _ => {
                                    error.set(Some("Runs: a whole number from 1 to 100.".into()));
                                    return;
                                }
                            };
                            let simulator_config = match simulator.config() {
                                Ok(config) => config,
                                Err(message) => {
                                    error.set(Some(message));
                                    return;
                                }
                            };
                            let run_scope = match scope.get_untracked().as_str() {
                                "selected" => RunScope::Selected(
                                    selected.map(|s| s.get_untracked().into_iter().collect()).unwrap_or_default(),
                                ),
                                "failed" => RunScope::FailedLastRun,
                                _ => RunScope::All,
                            };
                            let (app, eval_set_id) = (app.clone(), eval_set_id.clone());
                            let agent = agent.get_untracked();
                            error.set(None);
                            pending.set(true);
                            spawn_local(async move {
                                match start_eval(app, eval_set_id, chosen, agent, runs, run_scope, simulator_config).await {
                                    Ok(result_id) => on_started(result_id),
                                    Err(err) => error.set(Some(error_text(&err))),
                                }
                                pending.set(false);
                            });
                        };
                        view! {
                            <div class="run-form">
                                <table class="metric-table">
                                    <thead>
                                        <tr>
                                            <th scope="col">"Metric"</th>
                                            <th scope="col">"Threshold"</th>
                                            <th scope="col">"What it measures"</th>
                                        </tr>
                                    </thead>
                                    <tbody>{rows} {custom_rows}</tbody>
                                </table>
                                <button class="small add-custom" on:click=add_custom>"+ Custom judge metric"</button>
                                <SimulatorSettingsFields settings=simulator />
                                <div class="run-controls">
                                    <label>
                                        "Agent "
                                        <select
                                            prop:value=move || agent.get()
                                            on:change=move |ev| agent.set(event_target_value(&ev))
                                        >
                                            {agents}
                                        </select>
                                    </label>
                                    <label>
                                        "Cases "
                                        <select
                                            prop:value=move || scope.get()
                                            on:change=move |ev| {
                                                let value = event_target_value(&ev);
                                                browser::store(&scope_key.get_value(), &value);
                                                scope.set(value);
                                            }
                                        >
                                            <option value="all">"All"</option>
                                            <option value="selected">
                                                {move || {
                                                    let n = selected.map(|s| s.with(|s| s.len())).unwrap_or_default();
                                                    format!("Selected in the list ({n})")
                                                }}
                                            </option>
                                            <option value="failed">"Failed in the latest run"</option>
                                        </select>
                                    </label>
                                    <label>
                                        "Runs per case "
                                        <input
                                            class="runs"
                                            type="number"
                                            min="1"
                                            max="100"
                                            prop:value=move || num_runs.get()
                                            on:input=move |ev| num_runs.set(event_target_value(&ev))
                                        />
                                    </label>
                                    <button class="primary" on:click=start disabled=move || pending.get()>
                                        {move || if pending.get() { "Starting…" } else { "Run evaluation" }}
                                    </button>
                                </div>
                                {move || error.get().map(|message| view! { <ErrorNote message /> })}
                            </div>
                        }
                            .into_any()
                    })
                }
            }
        </Transition>
    }
}
