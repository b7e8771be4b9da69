//! ADK's `rubric_based_multi_turn_trajectory_quality_v1`
//! (`rubric_based_multi_turn_trajectory_evaluator.py`): the whole conversation (user turns,
//! the agent's texts, tool calls and outputs, final responses) is judged once against the
//! rubrics, on the last turn; the earlier turns are NOT_EVALUATED and the metric's score is
//! the last turn's.

use super::python_json::{dumps, dumps_indented};
use super::template::fill;
use crate::evalset::{Invocation, Rubric};
use serde_json::{json, Map, Value};

/// ADK's `_RUBRIC_BASED_MULTI_TURN_TRAJECTORY_QUALITY_V1_PROMPT`.
const PROMPT: &str = include_str!("rubric_based_multi_turn_trajectory_quality_v1.txt");

/// The judge's prompt for a conversation and the rubrics it is held to.
pub(super) fn prompt(conversation: &[Invocation], rubrics: &[Rubric]) -> String {
    let (instructions, tools) = instructions_and_tools(conversation);
    let properties: Vec<Value> = rubrics
        .iter()
        .map(|rubric| {
            let mut property = Map::new();
            property.insert("id".into(), json!(rubric.rubric_id));
            property.insert("property".into(), json!(rubric.rubric_content.text_property));
            if let Some(kind) = rubric_type(rubric) {
                property.insert("type".into(), json!(kind));
            }
            Value::Object(property)
        })
        .collect();
    fill(
        PROMPT,
        &[
            ("user_agent_dialogue", &dialogue(conversation)),
            ("properties", &dumps_indented(&Value::Array(properties))),
            ("agent_instructions", &instructions),
            ("agent_tool_definitions", &tools),
        ],
    )
}

/// A rubric's `type`, when it has a non-empty one.
pub(super) fn rubric_type(rubric: &Rubric) -> Option<&str> {
    rubric
        .extra
        .get("type")
        .and_then(Value::as_str)
        .filter(|t| !t.is_empty())
}

/// ADK's `_assemble_dialogue_history`: one line per user message, agent text, tool call, tool
/// output and final response, each with its turn's number.
pub(super) fn dialogue(conversation: &[Invocation]) -> String {
    let mut lines = Vec::new();
    for (index, invocation) in conversation.iter().enumerate() {
        let turn = index + 1;
        let user = texts(invocation.user_content.parts.as_deref());
        if !user.is_empty() {
            lines.push(format!("USER TURN {turn}: {}", user.join(" ")));
        }
        let events = invocation
            .intermediate_data
            .as_ref()
            .map_or(&[][..], |data| data.events());
        for event in events {
            let role = if event.author.to_lowercase() == "user" {
                "USER".to_string()
            } else {
                format!("AGENT ({})", event.author)
            };
            let Some(parts) = event
                .content
                .as_ref()
                .and_then(|c| c.parts.as_deref())
                .filter(|p| !p.is_empty())
            else {
                continue;
            };
            let said = texts(Some(parts));
            if !said.is_empty() {
                lines.push(format!("{role} TURN {turn}: {}", said.join(" ")));
            }
            for part in parts {
                if let Some(call) = &part.function_call {
                    let args = call
                        .args
                        .as_ref()
                        .map_or_else(|| "{}".to_string(), |args| dumps(&Value::Object(args.clone())));
                    lines.push(format!(
                        "{role} TURN {turn} (tool call): {}({args})",
                        or_none(&call.name)
                    ));
                }
                if let Some(response) = &part.function_response {
                    let output = response
                        .response
                        .as_ref()
                        .map_or_else(|| "{}".to_string(), |body| dumps(&Value::Object(body.clone())));
                    lines.push(format!(
                        "{role} TURN {turn} (tool output): {} -> {output}",
                        or_none(&response.name)
                    ));
                }
            }
        }
        let final_texts = texts(
            invocation
                .final_response
                .as_ref()
                .and_then(|c| c.parts.as_deref()),
        );
        if !final_texts.is_empty() {
            let agent = events.first().map_or("agent", |event| event.author.as_str());
            lines.push(format!("AGENT ({agent}) TURN {turn}: {}", final_texts.join(" ")));
        }
    }
    lines.join("\n")
}

fn texts(parts: Option<&[crate::evalset::Part]>) -> Vec<&str> {
    parts
        .into_iter()
        .flatten()
        .filter_map(|part| part.text.as_deref())
        .filter(|text| !text.is_empty())
        .collect()
}

/// Python's f-string of an optional text.
fn or_none(text: &Option<String>) -> &str {
    text.as_deref().unwrap_or("None")
}

/// Every agent's instructions and tools from the invocations' `app_details`, each written once.
fn instructions_and_tools(conversation: &[Invocation]) -> (String, String) {
    let mut instructions: Vec<String> = Vec::new();
    let mut tools: Vec<String> = Vec::new();
    // Python's dict.fromkeys: each line once, where it first came.
    let add = |list: &mut Vec<String>, line: String| {
        if !list.contains(&line) {
            list.push(line);
        }
    };
    for invocation in conversation {
        let Some(details) = super::input::agent_details(invocation) else {
            continue;
        };
        for (agent_id, agent) in details {
            let text = agent
                .get("instructions")
                .and_then(Value::as_str)
                .unwrap_or_default();
            add(
                &mut instructions,
                format!("Agent {agent_id} Instructions:\n{text}"),
            );
            add(&mut tools, format!("Agent: {agent_id}"));
            let declarations = agent
                .get("tool_declarations")
                .or_else(|| agent.get("toolDeclarations"))
                .and_then(Value::as_array);
            for tool in declarations.into_iter().flatten() {
                let functions = tool
                    .get("function_declarations")
                    .or_else(|| tool.get("functionDeclarations"))
                    .and_then(Value::as_array);
                for function in functions.into_iter().flatten() {
                    let field = |key: &str| match function.get(key) {
                        Some(Value::String(text)) => text.clone(),
                        _ => "None".to_string(),
                    };
                    add(
                        &mut tools,
                        format!("- {}: {}", field("name"), field("description")),
                    );
                }
            }
        }
    }
    (instructions.join("\n\n"), tools.join("\n"))
}
