//! The evalset page's Evaluate panel: pick metrics, an agent and a run count, start a run,
//! watch it fill in case by case, cancel or resume it, and read each case's scores with the
//! per-turn evidence behind them.

use super::json_view::JsonView;
use super::{error_text, ErrorNote};
use crate::api::evaluate::{
    cancel_eval, eval_panel_options, get_eval_run, list_eval_runs, resume_eval, start_eval, EvalRunView,
    MetricChoice,
};
use crate::eval::{
    CaseSummary, Efficiency, EvalConfig, EvalStatus, MetricSummary, CUSTOM_JUDGE_EXAMPLE,
    INFERENCE_CALL_COUNT_V1, INVOCATION_DURATION_V1, TOKEN_USAGE_V1, TOOL_CALL_COUNT_V1,
};
use crate::records::{EvalRunCase, EvalRunSummary, RunStatus};
use leptos::prelude::*;
use leptos::task::spawn_local;
use std::time::Duration;

/// How often a running run is re-read.
const POLL: Duration = Duration::from_millis(700);

#[component]
pub fn EvalPanel(app: String, eval_set_id: String) -> impl IntoView {
    // Bumped to re-read the runs list and the selected run.
    let refresh = RwSignal::new(0u32);
    let selected = RwSignal::new(None::<String>);
    let runs = {
        let (app, id) = (app.clone(), eval_set_id.clone());
        Resource::new(
            move || refresh.get(),
            move |_| list_eval_runs(app.clone(), id.clone()),
        )
    };
    // The run shown: the one picked, else the newest (the server picks it, so this resource
    // does not wait on the runs list).
    let run_view = {
        let (app, id) = (app.clone(), eval_set_id.clone());
        Resource::new(
            move || (selected.get(), refresh.get()),
            move |(result_id, _)| get_eval_run(app.clone(), id.clone(), result_id),
        )
    };
    let shown = move || {
        selected.get().or_else(|| {
            run_view
                .get()
                .and_then(Result::ok)
                .flatten()
                .map(|view| view.summary.result_id)
        })
    };
    // While the shown run is running, keep re-reading it.
    Effect::new(move |_| {
        let running = run_view
            .get()
            .and_then(Result::ok)
            .flatten()
            .is_some_and(|view| view.summary.status == RunStatus::Running);
        if running {
            set_timeout(move || refresh.update(|n| *n += 1), POLL);
        }
    });

    let on_started = move |result_id: String| {
        selected.set(Some(result_id));
        refresh.update(|n| *n += 1);
    };

    view! {
        <section class="eval-panel" aria-labelledby="evaluate-heading">
            <h2 id="evaluate-heading">"Evaluate"</h2>
            <RunForm app=app.clone() eval_set_id=eval_set_id.clone() on_started />
            <Transition fallback=|| ()>
                {move || Suspend::new(async move {
                    match runs.await {
                        Ok(list) if list.is_empty() => {
                            view! {
                                <p class="muted">
                                    "No runs yet. Pick metrics and an agent, then Run evaluation: each case is replayed through the agent and scored."
                                </p>
                            }
                                .into_any()
                        }
                        Ok(list) => view! { <RunList runs=list selected shown=Signal::derive(shown) /> }.into_any(),
                        Err(err) => view! { <ErrorNote message=error_text(&err) /> }.into_any(),
                    }
                })}
            </Transition>
            <Transition fallback=|| ()>
                {
                    let app = app.clone();
                    move || {
                        let app = app.clone();
                        Suspend::new(async move {
                            match run_view.await {
                                Ok(Some(view)) => view! { <RunResults app view refresh /> }.into_any(),
                                Ok(None) => ().into_any(),
                                Err(err) => view! { <ErrorNote message=error_text(&err) /> }.into_any(),
                            }
                        })
                    }
                }
            </Transition>
        </section>
    }
}

/// A metric in the run form, as the user set it.
#[derive(Clone)]
struct MetricPick {
    name: String,
    description: String,
    picked: RwSignal<bool>,
    threshold: RwSignal<String>,
    /// The criterion's other keys as JSON text, for metrics that take them.
    options: Option<RwSignal<String>>,
}

/// A custom judge metric being written in the run form: its name, threshold, and prompt and
/// reply kind as criterion JSON. `number` tells the rows apart (1, 2, … as added).
#[derive(Debug, Clone, Copy)]
struct CustomJudgePick {
    number: usize,
    name: RwSignal<String>,
    threshold: RwSignal<String>,
    options: RwSignal<String>,
}

impl CustomJudgePick {
    fn new(number: usize) -> Self {
        CustomJudgePick {
            number,
            name: RwSignal::new(String::new()),
            threshold: RwSignal::new("1".into()),
            options: RwSignal::new(CUSTOM_JUDGE_EXAMPLE.into()),
        }
    }

    fn choice(&self) -> Result<MetricChoice, String> {
        let name = self.name.get_untracked().trim().to_string();
        if name.is_empty() {
            return Err(format!("Custom metric {}: give it a name.", self.number));
        }
        Ok(MetricChoice {
            threshold: threshold_of(&name, self.threshold)?,
            metric_name: name,
            options: Some(self.options.get_untracked()),
        })
    }
}

fn threshold_of(name: &str, text: RwSignal<String>) -> Result<f64, String> {
    match text.get_untracked().trim().parse::<f64>() {
        Ok(value) if value.is_finite() => Ok(value),
        _ => Err(format!("{name}: the threshold must be a number")),
    }
}

#[component]
fn CustomJudgeRow(custom: CustomJudgePick, remove: impl Fn() + Send + Sync + 'static) -> impl IntoView {
    let CustomJudgePick {
        number,
        name,
        threshold,
        options,
    } = custom;
    view! {
        <tr class="custom-metric">
            <td>
                <input
                    class="metric-name mono"
                    placeholder="metric_name"
                    aria-label=format!("Custom metric {number} name")
                    prop:value=move || name.get()
                    on:input=move |ev| name.set(event_target_value(&ev))
                />
            </td>
            <td>
                <ThresholdInput label=format!("Custom metric {number} threshold") value=threshold />
            </td>
            <td class="muted small-text">
                "Custom judge: the prompt ({query}, {response}, {context}, {reference}) and the reply it asks for, \"yes_no\" or \"score_json\"."
                <CriterionOptions label=format!("Custom metric {number} options") value=options shown=Signal::stored(true) />
                <button class="small" on:click=move |_| remove()>"Remove"</button>
            </td>
        </tr>
    }
}

/// A metric's threshold as the user types it (checked when the run starts).
#[component]
fn ThresholdInput(label: String, value: RwSignal<String>) -> impl IntoView {
    view! {
        <input
            class="threshold"
            type="number"
            step="0.05"
            aria-label=label
            prop:value=move || value.get()
            on:input=move |ev| value.set(event_target_value(&ev))
        />
    }
}

/// A metric's criterion keys beyond the threshold, as JSON the user edits.
#[component]
fn CriterionOptions(label: String, value: RwSignal<String>, shown: Signal<bool>) -> impl IntoView {
    view! {
        <textarea
            class="criterion-options mono"
            class:hidden=move || !shown.get()
            rows="3"
            spellcheck="false"
            aria-label=label
            prop:value=move || value.get()
            on:input=move |ev| value.set(event_target_value(&ev))
        ></textarea>
    }
}

/// Metric checkboxes with thresholds (and criterion options where a metric takes them), the
/// agent, the number of runs, and the start button.
#[component]
fn RunForm(
    app: String,
    eval_set_id: String,
    on_started: impl Fn(String) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let options = Resource::new(|| (), |_| eval_panel_options());
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
                                    m.metric_name == "tool_trajectory_avg_score"
                                        || m.metric_name == "response_match_score",
                                ),
                                threshold: RwSignal::new(m.default_threshold.to_string()),
                                options: m.criterion_options.clone().map(RwSignal::new),
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
                        let rows = metrics
                            .iter()
                            .map(|metric| {
                                let MetricPick { name, description, picked, threshold, options } = metric.clone();
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
                                                    prop:checked=move || picked.get()
                                                    on:change=move |ev| picked.set(event_target_checked(&ev))
                                                />
                                                <span class="mono">{name.clone()}</span>
                                            </label>
                                        </td>
                                        <td>
                                            <ThresholdInput label=format!("{name} threshold") value=threshold />
                                        </td>
                                        <td class="muted small-text">{description}{options}</td>
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
                            let (app, eval_set_id) = (app.clone(), eval_set_id.clone());
                            let agent = agent.get_untracked();
                            error.set(None);
                            pending.set(true);
                            spawn_local(async move {
                                match start_eval(app, eval_set_id, chosen, agent, runs).await {
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

/// The eval set's runs; picking one shows its results.
#[component]
fn RunList(
    runs: Vec<EvalRunSummary>,
    selected: RwSignal<Option<String>>,
    shown: Signal<Option<String>>,
) -> impl IntoView {
    let rows = runs
        .into_iter()
        .map(|run| {
            let id = run.result_id.clone();
            let is_shown = {
                let id = id.clone();
                move || shown.get().as_deref() == Some(id.as_str())
            };
            view! {
                <tr class:selected=is_shown.clone()>
                    <td>
                        <button class="link mono" on:click=move |_| selected.set(Some(id.clone()))>
                            {run.result_id.clone()}
                        </button>
                    </td>
                    <td>{run_status_badge(run.status)}</td>
                    <td class="num">{format!("{}/{}", run.done, run.total)}</td>
                    <td class="num">{run.passed}</td>
                    <td class="num">{run.failed}</td>
                    <td class="num">{run.errors}</td>
                    <td class="mono">{run.agent.clone()}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <table class="data-table runs-table">
            <caption class="visually-hidden">"Runs of this evalset"</caption>
            <thead>
                <tr>
                    <th scope="col">"Run"</th>
                    <th scope="col">"Status"</th>
                    <th scope="col" class="num">"Case runs"</th>
                    <th scope="col" class="num">"Passed"</th>
                    <th scope="col" class="num">"Failed"</th>
                    <th scope="col" class="num">"Errors"</th>
                    <th scope="col">"Agent"</th>
                </tr>
            </thead>
            <tbody>{rows}</tbody>
        </table>
    }
}

fn run_status_badge(status: RunStatus) -> impl IntoView {
    let (class, label) = match status {
        RunStatus::Running => ("badge running", "● running"),
        RunStatus::Finished => ("badge passed", "✓ finished"),
        RunStatus::Interrupted => ("badge error", "! interrupted"),
        RunStatus::Cancelled => ("badge not-evaluated", "■ cancelled"),
    };
    view! { <span class=class>{label}</span> }
}

fn case_status_badge(status: EvalStatus, errors: usize) -> impl IntoView {
    let (class, label) = if errors > 0 {
        ("badge error", "! ERROR")
    } else {
        match status {
            EvalStatus::Passed => ("badge passed", "✓ PASSED"),
            EvalStatus::Failed => ("badge failed", "✗ FAILED"),
            EvalStatus::NotEvaluated => ("badge not-evaluated", "– NOT EVALUATED"),
            EvalStatus::Informational => ("badge info", "i INFO"),
        }
    };
    view! { <span class=class>{label}</span> }
}

fn score_text(score: Option<f64>) -> String {
    score.map_or("–".into(), |s| format!("{s:.3}"))
}

/// The informational metrics of a case as one line, e.g. "1.5 tool calls · 340 tokens ·
/// 0.88 s"; values not available are left out.
fn cost_text(metrics: &[MetricSummary]) -> String {
    let value = |name: &str| {
        metrics
            .iter()
            .find(|m| m.metric_name == name)
            .and_then(|m| m.score)
    };
    let parts: Vec<String> = [
        value(TOOL_CALL_COUNT_V1).map(|v| format!("{v:.1} tool calls")),
        value(INFERENCE_CALL_COUNT_V1).map(|v| format!("{v:.1} model calls")),
        value(TOKEN_USAGE_V1).map(|v| format!("{v:.0} tokens")),
        value(INVOCATION_DURATION_V1).map(|v| format!("{v:.2} s")),
    ]
    .into_iter()
    .flatten()
    .collect();
    if parts.is_empty() {
        "–".into()
    } else {
        parts.join(" · ")
    }
}

/// The shown run: progress and controls, then one row per case with its scores.
#[component]
fn RunResults(app: String, view: EvalRunView, refresh: RwSignal<u32>) -> impl IntoView {
    let summary = view.summary.clone();
    let action_error = RwSignal::new(None::<String>);
    let act = move |resume: bool| {
        let (app, id) = (app.clone(), summary.result_id.clone());
        spawn_local(async move {
            let outcome = if resume {
                resume_eval(app, id).await
            } else {
                cancel_eval(app, id).await
            };
            match outcome {
                Ok(()) => action_error.set(None),
                Err(err) => action_error.set(Some(error_text(&err))),
            }
            refresh.update(|n| *n += 1);
        });
    };
    let act_resume = act.clone();
    let status = view.summary.status;
    let progress = format!("{} of {} case runs", view.summary.done, view.summary.total);
    let header_cells = view
        .metric_names
        .iter()
        .filter(|name| Efficiency::from_name(name).is_none())
        .map(|name| view! { <th scope="col" class="num mono">{name.clone()}</th> })
        .collect_view();
    let multi_run = view.summary.num_runs > 1;
    let rows = view
        .case_summaries
        .iter()
        .map(|case| view! { <CaseResultRow case=case.clone() runs=view.cases.iter().filter(|c| c.eval_id == case.eval_id).cloned().collect() multi_run /> })
        .collect_view();
    view! {
        <div class="run-results" aria-live="polite">
            <div class="run-header">
                <h3 class="mono">{view.summary.result_id.clone()}</h3>
                {run_status_badge(status)}
                <span class="muted">{progress}</span>
                {(status == RunStatus::Running)
                    .then(|| view! { <button class="small" on:click=move |_| act(false)>"Cancel run"</button> })}
                {status
                    .resumable()
                    .then(|| view! { <button class="small primary" on:click=move |_| act_resume(true)>"Resume run"</button> })}
            </div>
            {move || action_error.get().map(|message| view! { <ErrorNote message /> })}
            <table class="data-table results-table">
                <thead>
                    <tr>
                        <th scope="col">"Case"</th>
                        <th scope="col">"Result"</th>
                        {multi_run.then(|| view! { <th scope="col" class="num">"Runs passed"</th> })}
                        {header_cells}
                        <th scope="col" title="Averages per turn, as ADK's informational metrics report them; they never fail a case">"Cost per turn"</th>
                        <th scope="col">"Details"</th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
    }
}

/// One case: its pooled status and metric scores; "Show" opens each run's per-turn scores,
/// with the reason a metric could not score and the judge's evidence.
#[component]
fn CaseResultRow(case: CaseSummary, runs: Vec<EvalRunCase>, multi_run: bool) -> impl IntoView {
    let open = RwSignal::new(false);
    let gating: Vec<&MetricSummary> = case.metrics.iter().filter(|m| m.threshold.is_some()).collect();
    let width = gating.len() + 4 + usize::from(multi_run);
    let cost = cost_text(&case.metrics);
    let scores = gating
        .into_iter()
        .map(|m| {
            let class = match m.eval_status {
                EvalStatus::Passed => "num score passed-text",
                EvalStatus::Failed => "num score failed-text",
                _ => "num score muted",
            };
            view! { <td class=class title=m.threshold_label()>{score_text(m.score)}</td> }
        })
        .collect_view();
    let pass_at = (multi_run).then(|| {
        let k = case.num_runs;
        view! { <td class="num" title=format!("pass@{k} {:.2} · pass^{k} {:.2}", case.pass_at_k.last().copied().unwrap_or(0.0), case.pass_hat_k.last().copied().unwrap_or(0.0))>{format!("{}/{}", case.passed_runs, case.num_runs)}</td> }
    });
    let details = runs
        .into_iter()
        .map(|run| view! { <RunDetail run /> })
        .collect_view();
    view! {
        <tr>
            <td class="mono">{case.eval_id.clone()}</td>
            <td>{case_status_badge(case.final_eval_status, case.errors)}</td>
            {pass_at}
            {scores}
            <td class="muted small">{cost}</td>
            <td>
                <button class="small" aria-expanded=move || open.get().to_string() on:click=move |_| open.update(|o| *o = !*o)>
                    {move || if open.get() { "Hide" } else { "Show" }}
                </button>
            </td>
        </tr>
        <tr class="detail-row" class:hidden=move || !open.get()>
            <td colspan=width.to_string()>{details}</td>
        </tr>
    }
}

/// One run of a case: its error, then each turn's metric results.
#[component]
fn RunDetail(run: EvalRunCase) -> impl IntoView {
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
