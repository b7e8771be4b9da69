//! ADK's `user_simulator_config` (`LlmBackedUserSimulatorConfig`) from a test_config.json.

use super::prompt::check_custom_instructions;
use crate::eval::config_fields as fields;
use serde::Deserialize;
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
        let written: Written = fields::read(object, path, |key, value| match (key, value) {
            ("type", kind) if kind.as_str() != Some("llm_backed") => Err(format!(
                "type: only the \"llm_backed\" simulator is supported, found {kind}"
            )),
            ("custom_instructions" | "customInstructions", Value::String(text)) => {
                check_custom_instructions(text)
            }
            _ => Ok(()),
        })?;
        let default = SimulatorConfig::default();
        Ok(SimulatorConfig {
            max_allowed_invocations: written
                .max_allowed_invocations
                .unwrap_or(default.max_allowed_invocations),
            include_function_calls: written
                .include_function_calls
                .unwrap_or(default.include_function_calls),
            custom_instructions: written.custom_instructions,
            written: object.clone(),
        })
    }

    /// Whether a conversation with `invocations` so far may have another.
    pub fn allows_another(&self, invocations: usize) -> bool {
        self.max_allowed_invocations < 0 || (invocations as i64) < self.max_allowed_invocations
    }
}

/// The settings read of `user_simulator_config`, in either key spelling (its `type` is checked
/// as it is read). ADK's Gemini model settings, and keys ADK's model allows, are kept in
/// `written`, not read.
#[derive(Deserialize)]
struct Written {
    #[serde(alias = "maxAllowedInvocations", default, deserialize_with = "fields::limit")]
    max_allowed_invocations: Option<i64>,
    #[serde(alias = "includeFunctionCalls", default, deserialize_with = "fields::boolean")]
    include_function_calls: Option<bool>,
    #[serde(alias = "customInstructions", default, deserialize_with = "fields::text")]
    custom_instructions: Option<String>,
}
