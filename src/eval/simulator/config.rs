//! ADK's `user_simulator_config` (`LlmBackedUserSimulatorConfig`) from a test_config.json.

use super::prompt::check_custom_instructions;
use serde_json::{Map, Value};

/// ADK's default `max_allowed_invocations`.
pub const DEFAULT_MAX_ALLOWED_INVOCATIONS: i64 = 20;

/// How the simulated user plays a `conversation_scenario`.
#[derive(Debug, Clone, PartialEq)]
pub struct SimulatorConfig {
    /// Invocations one conversation may have, the starting prompt's included; negative for no
    /// limit (ADK's -1).
    pub max_allowed_invocations: i64,
    /// Show the simulator the tool calls and what they returned, not just the texts.
    pub include_function_calls: bool,
    /// Instructions instead of ADK's, with `{{ stop_signal }}`, `{{ conversation_plan }}` and
    /// `{{ conversation_history }}` (and `{{ persona }}` for a scenario with a persona).
    pub custom_instructions: Option<String>,
    /// The object as the config wrote it, written back unchanged. ADK's `model` and
    /// `model_configuration` name Gemini settings; the model is evalstudio.toml's `[simulator]`.
    pub written: Map<String, Value>,
}

impl Default for SimulatorConfig {
    fn default() -> Self {
        SimulatorConfig {
            max_allowed_invocations: DEFAULT_MAX_ALLOWED_INVOCATIONS,
            include_function_calls: false,
            custom_instructions: None,
            written: Map::new(),
        }
    }
}

impl SimulatorConfig {
    /// Reads `user_simulator_config` (either key case, as ADK's model accepts); `path` names it
    /// in errors.
    pub fn parse(value: &Value, path: &str) -> Result<SimulatorConfig, String> {
        let Value::Object(object) = value else {
            return Err(format!(
                "{path}: expected an object such as {{\"max_allowed_invocations\": 10}}"
            ));
        };
        let mut config = SimulatorConfig {
            written: object.clone(),
            ..SimulatorConfig::default()
        };
        for (key, value) in object {
            if value.is_null() {
                continue;
            }
            match key.as_str() {
                "type" if value.as_str() != Some("llm_backed") => {
                    return Err(format!(
                        "{path}.type: only the \"llm_backed\" simulator is supported, found {value}"
                    ));
                }
                "max_allowed_invocations" | "maxAllowedInvocations" => {
                    config.max_allowed_invocations = value.as_i64().ok_or_else(|| {
                        format!("{path}.{key}: expected a whole number (-1 for no limit), found {value}")
                    })?;
                }
                "include_function_calls" | "includeFunctionCalls" => {
                    config.include_function_calls = value
                        .as_bool()
                        .ok_or_else(|| format!("{path}.{key}: expected true or false, found {value}"))?;
                }
                "custom_instructions" | "customInstructions" => {
                    let text = value
                        .as_str()
                        .ok_or_else(|| format!("{path}.{key}: expected text, found {value}"))?;
                    check_custom_instructions(text).map_err(|error| format!("{path}.{error}"))?;
                    config.custom_instructions = Some(text.to_string());
                }
                // ADK's Gemini model settings, and keys ADK's model allows: kept, not read.
                _ => {}
            }
        }
        Ok(config)
    }

    /// Whether a conversation with `invocations` so far may have another.
    pub fn allows_another(&self, invocations: usize) -> bool {
        self.max_allowed_invocations < 0 || (invocations as i64) < self.max_allowed_invocations
    }
}
