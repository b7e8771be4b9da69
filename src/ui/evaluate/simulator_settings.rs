//! The run form's settings of the simulated user, which plays the scenario cases: ADK's
//! `user_simulator_config` (turn limit, whether it sees tool calls, its own instructions). Left
//! as they are, the run keeps ADK's defaults and stores no config for them.

use crate::eval::simulator::{SimulatorConfig, DEFAULT_MAX_ALLOWED_INVOCATIONS};
use leptos::prelude::*;
use serde_json::{json, Map, Value};

/// The settings as the user typed them.
#[derive(Clone, Copy)]
pub(super) struct SimulatorSettings {
    max_turns: RwSignal<String>,
    include_calls: RwSignal<bool>,
    instructions: RwSignal<String>,
}

impl SimulatorSettings {
    pub(super) fn new() -> Self {
        SimulatorSettings {
            max_turns: RwSignal::new(DEFAULT_MAX_ALLOWED_INVOCATIONS.to_string()),
            include_calls: RwSignal::new(false),
            instructions: RwSignal::new(String::new()),
        }
    }

    /// The `user_simulator_config` to run with: None when every setting is ADK's default, else
    /// the settings that differ, checked as the server will check them.
    pub(super) fn config(&self) -> Result<Option<Value>, String> {
        let text = self.max_turns.get_untracked();
        let max_turns: i64 = match text.trim().parse() {
            Ok(n) if n >= -1 && n != 0 => n,
            _ => {
                return Err(format!(
                    "Simulated user, turns at most: a whole number from 1 (or -1 for no limit), found \"{text}\"."
                ))
            }
        };
        let mut config = Map::new();
        if max_turns != DEFAULT_MAX_ALLOWED_INVOCATIONS {
            config.insert("max_allowed_invocations".into(), json!(max_turns));
        }
        if self.include_calls.get_untracked() {
            config.insert("include_function_calls".into(), json!(true));
        }
        let instructions = self.instructions.get_untracked();
        if !instructions.trim().is_empty() {
            config.insert("custom_instructions".into(), json!(instructions));
        }
        if config.is_empty() {
            return Ok(None);
        }
        let config = Value::Object(config);
        SimulatorConfig::parse(&config, "Simulated user").map_err(|e| format!("{e}."))?;
        Ok(Some(config))
    }
}

#[component]
pub(super) fn SimulatorSettingsFields(settings: SimulatorSettings) -> impl IntoView {
    let SimulatorSettings {
        max_turns,
        include_calls,
        instructions,
    } = settings;
    view! {
        <details class="simulator-settings">
            <summary>"Simulated user (scenario cases)"</summary>
            <p class="muted small">
                "How the simulated user plays each conversation scenario, as ADK's user_simulator_config. "
                "Its model is the server's [simulator] (or [judge]) model."
            </p>
            <div class="run-controls">
                <label>
                    "Turns at most "
                    <input
                        class="runs"
                        type="number"
                        min="-1"
                        title="Turns one conversation may have, the starting prompt's included; -1 for no limit"
                        prop:value=move || max_turns.get()
                        on:input=move |ev| max_turns.set(event_target_value(&ev))
                    />
                </label>
                <label class="metric-pick">
                    <input
                        type="checkbox"
                        prop:checked=move || include_calls.get()
                        on:change=move |ev| include_calls.set(event_target_checked(&ev))
                    />
                    "Include tool calls and their results"
                </label>
            </div>
            <label for="simulator-instructions">"Its own instructions (optional)"</label>
            <textarea
                id="simulator-instructions"
                rows="4"
                placeholder="Instead of ADK's: use {{ stop_signal }}, {{ conversation_plan }} and {{ conversation_history }} (and {{ persona }} for a persona)"
                prop:value=move || instructions.get()
                on:input=move |ev| instructions.set(event_target_value(&ev))
            ></textarea>
        </details>
    }
}
