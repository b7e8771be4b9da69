//! ADK's user personas: the shape of a scenario's `user_persona` and the three built in
//! (EXPERT, NOVICE, EVALUATOR), which `personas.json` holds as google-adk 2.13 defines them
//! (`pre_built_personas.py`, written by `conformance/adk_simulator_prompts.py`).

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::OnceLock;

/// ADK's `UserPersona`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Persona {
    pub id: String,
    pub description: String,
    pub behaviors: Vec<Behavior>,
}

/// ADK's `UserBehavior`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Behavior {
    pub name: String,
    pub description: String,
    pub behavior_instructions: Vec<String>,
    pub violation_rubrics: Vec<String>,
}

impl Behavior {
    /// ADK's `get_behavior_instructions_str`.
    pub fn instructions_text(&self) -> String {
        bullets(&self.behavior_instructions)
    }

    /// ADK's `get_violation_rubrics_str`.
    pub fn violation_rubrics_text(&self) -> String {
        bullets(&self.violation_rubrics)
    }
}

fn bullets(items: &[String]) -> String {
    items
        .iter()
        .map(|item| format!("  * {item}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// ADK's personas, in its registry's order.
pub fn built_in_personas() -> &'static [Persona] {
    static PERSONAS: OnceLock<Vec<Persona>> = OnceLock::new();
    PERSONAS.get_or_init(|| {
        serde_json::from_str(include_str!("personas.json")).expect("personas.json is ADK's personas")
    })
}

/// A scenario's `user_persona`: a built-in persona's id or a whole persona, as ADK reads it.
pub fn resolve_persona(value: &Value) -> Result<Persona, String> {
    match value {
        Value::String(id) => built_in_personas()
            .iter()
            .find(|persona| &persona.id == id)
            .cloned()
            .ok_or_else(|| {
                let ids: Vec<&str> = built_in_personas().iter().map(|p| p.id.as_str()).collect();
                format!(
                    "conversation_scenario.user_persona: no built-in persona `{id}`; ADK's are {}",
                    ids.join(", ")
                )
            }),
        Value::Object(_) => serde_json::from_value(value.clone()).map_err(|error| {
            format!(
                "conversation_scenario.user_persona: {error}; a persona has an id, a description and behaviors (name, description, behavior_instructions, violation_rubrics)"
            )
        }),
        other => Err(format!(
            "conversation_scenario.user_persona: expected a persona id such as \"NOVICE\" or a persona object, found {}",
            match other {
                Value::Null => "null",
                Value::Bool(_) => "a boolean",
                Value::Number(_) => "a number",
                Value::Array(_) => "a list",
                _ => "something else",
            }
        )),
    }
}
