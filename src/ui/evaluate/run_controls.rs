//! The top of the run form: which agent runs which cases how many times, and Run evaluation.
//! The case scope is remembered per evalset in the browser.

use crate::agent::{ReplayMiss, ToolExecution, ToolExecutionMode};
use crate::ui::browser;
use leptos::prelude::*;

/// What the controls hold, read when the run starts.
#[derive(Clone, Copy)]
pub(super) struct RunSettings {
    pub agent: RwSignal<String>,
    /// "all", "selected" or "failed".
    pub scope: RwSignal<String>,
    pub num_runs: RwSignal<String>,
    /// What to call the run (optional).
    pub label: RwSignal<String>,
    /// "live", "replay" or "replay_error" (see [`RunSettings::tools`]).
    pub tools: RwSignal<String>,
    scope_key: StoredValue<String>,
}

impl RunSettings {
    pub(super) fn new(app: &str, eval_set_id: &str, agent: String) -> Self {
        let settings = RunSettings {
            agent: RwSignal::new(agent),
            scope: RwSignal::new("all".to_string()),
            num_runs: RwSignal::new("1".to_string()),
            label: RwSignal::new(String::new()),
            tools: RwSignal::new("live".to_string()),
            scope_key: StoredValue::new(format!("evalstudio.run_scope.{app}.{eval_set_id}")),
        };
        Effect::new(move |_| {
            if let Some(saved) = browser::stored(&settings.scope_key.get_value()) {
                settings.scope.set(saved);
            }
        });
        settings
    }

    /// How the run's tools answer, as chosen.
    pub(super) fn tools(&self) -> ToolExecution {
        match self.tools.get_untracked().as_str() {
            "replay" => ToolExecution {
                mode: ToolExecutionMode::Replay,
                replay_miss: ReplayMiss::Live,
            },
            "replay_error" => ToolExecution {
                mode: ToolExecutionMode::Replay,
                replay_miss: ReplayMiss::Error,
            },
            _ => ToolExecution::default(),
        }
    }

    /// Runs per case, or what is wrong with the number typed.
    pub(super) fn runs_per_case(&self) -> Result<usize, String> {
        match self.num_runs.get_untracked().trim().parse::<usize>() {
            Ok(n) if (1..=100).contains(&n) => Ok(n),
            _ => Err("Runs per case: a whole number from 1 to 100.".into()),
        }
    }
}

#[component]
pub(super) fn RunControls(
    settings: RunSettings,
    agents: Vec<String>,
    /// How many cases are selected in the page's list.
    #[prop(into)]
    selected_count: Signal<usize>,
    pending: RwSignal<bool>,
    on_start: impl Fn() + Send + Sync + 'static,
) -> impl IntoView {
    let RunSettings {
        agent,
        scope,
        num_runs,
        label,
        tools,
        scope_key,
    } = settings;
    let agents = agents
        .into_iter()
        .map(|a| view! { <option value=a.clone()>{a.clone()}</option> })
        .collect_view();
    view! {
        <div class="run-controls">
            <button class="primary" on:click=move |_| on_start() disabled=move || pending.get()>
                {move || if pending.get() { "Starting…" } else { "Run evaluation" }}
            </button>
            <label>
                "Agent "
                <select prop:value=move || agent.get() on:change=move |ev| agent.set(event_target_value(&ev))>
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
                    <option value="selected">{move || format!("Selected in the list ({})", selected_count.get())}</option>
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
                    bind:value=num_runs
                />
            </label>
            <ToolsSelect tools />
            <label>
                "Label "
                <input
                    class="run-label-input"
                    placeholder="optional"
                    maxlength="100"
                    bind:value=label
                />
            </label>
        </div>
    }
}

/// Live tools, or replay from each case's recording (adk-web's tool execution mode).
#[component]
fn ToolsSelect(tools: RwSignal<String>) -> impl IntoView {
    view! {
        <label title="Replay answers each tool call that matches one the case recorded (same name and arguments, same turn) with the recorded result, so tools do not run again.">
            "Tools "
            <select prop:value=move || tools.get() on:change=move |ev| tools.set(event_target_value(&ev))>
                <option value="live">"Live"</option>
                <option value="replay">"Replay; unrecorded calls run live"</option>
                <option value="replay_error">"Replay; unrecorded calls get an error"</option>
            </select>
        </label>
    }
}
