//! What a judge metric is shown of one invocation: the texts every prompt uses (query, response,
//! reference, tool responses as context) and what ADK's rubric prompt adds (the tool steps as
//! JSON, grounding metadata, the agent's instructions and tool declarations), read from the
//! actual invocation as google-adk's `llm_as_judge_utils.py` reads it.

use crate::evalset::{
    Content, FunctionCall, FunctionResponse, IntermediateData, Invocation, InvocationEvent, Rubric,
};
use pure_metrics::rouge::response_text;
use serde_json::{json, Value};

/// One invocation as the judge metrics see it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct JudgeInput {
    /// The user's message.
    pub query: String,
    /// The agent's final response (with the intermediate texts before it when the metric's
    /// `include_intermediate_responses_in_final` is set).
    pub response: String,
    /// The expected final response; `None` when there is no expected invocation.
    pub reference: Option<String>,
    /// The tool responses of the actual invocation, one text per response, in order.
    pub context: Vec<String>,
    /// Rubrics the invocation carries: the actual invocation's own, the eval case's and the
    /// expected invocation's, as ADK copies them onto the actual invocation.
    pub rubrics: Vec<Rubric>,
    /// The rest of what ADK's rubric-based prompt shows.
    pub agent_work: AgentWork,
}

/// The parts of ADK's rubric-based prompt that describe the agent's work.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AgentWork {
    /// `<response_steps>`: each tool call with its response, as ADK's
    /// `get_tool_calls_and_responses_as_json_str` writes them.
    pub response_steps: String,
    /// `<grounding_metadata>`, as `get_grounding_metadata_as_json_str` writes it.
    pub grounding_metadata: String,
    /// `<developer_instructions>`: the agent's instructions from `app_details`.
    pub developer_instructions: String,
    /// `<available_tools>`: the tool declarations from `app_details`.
    pub tool_declarations: String,
}

impl JudgeInput {
    /// The judge's view of `actual`, with the reference from `expected` and the rubrics of the
    /// case (`case_rubrics`) and both invocations.
    pub fn new(
        actual: &Invocation,
        expected: Option<&Invocation>,
        case_rubrics: &[Rubric],
        include_intermediate_responses_in_final: bool,
    ) -> JudgeInput {
        let rubrics = invocation_rubrics(actual, expected, case_rubrics);
        JudgeInput {
            query: response_text(Some(&actual.user_content)),
            response: invocation_text(actual, include_intermediate_responses_in_final),
            reference: expected.map(|e| invocation_text(e, include_intermediate_responses_in_final)),
            context: tool_responses(actual).into_iter().map(context_text).collect(),
            rubrics,
            agent_work: AgentWork {
                response_steps: response_steps(actual),
                grounding_metadata: grounding_metadata(
                    actual
                        .intermediate_data
                        .as_ref()
                        .map_or(&[], IntermediateData::events),
                ),
                developer_instructions: developer_instructions(actual),
                tool_declarations: tool_declarations(actual),
            },
        }
    }
}

/// The rubrics an actual invocation carries once ADK has copied the case's and the expected
/// invocation's onto it.
pub(super) fn invocation_rubrics(
    actual: &Invocation,
    expected: Option<&Invocation>,
    case_rubrics: &[Rubric],
) -> Vec<Rubric> {
    actual
        .rubrics
        .iter()
        .flatten()
        .chain(case_rubrics)
        .chain(expected.and_then(|e| e.rubrics.as_ref()).into_iter().flatten())
        .cloned()
        .collect()
}

/// ADK's `get_text_from_content(invocation, include_intermediate_responses_in_final)`: the final
/// response's text, after every non-empty intermediate text when asked for.
fn invocation_text(invocation: &Invocation, include_intermediate: bool) -> String {
    let final_text = response_text(invocation.final_response.as_ref());
    if !include_intermediate {
        return final_text;
    }
    let mut texts: Vec<String> = match &invocation.intermediate_data {
        Some(data) if !data.events().is_empty() => data
            .events()
            .iter()
            .map(|event| response_text(event.content.as_ref()))
            .collect(),
        Some(data) => data
            .intermediate_responses
            .iter()
            .map(|(_, parts)| {
                response_text(Some(&Content {
                    parts: Some(parts.clone()),
                    ..Content::default()
                }))
            })
            .collect(),
        None => Vec::new(),
    };
    texts.push(final_text);
    texts.retain(|text| !text.is_empty());
    texts.join("\n")
}

fn tool_responses(invocation: &Invocation) -> Vec<&FunctionResponse> {
    invocation
        .intermediate_data
        .as_ref()
        .map(IntermediateData::tool_responses)
        .unwrap_or_default()
}

/// A tool response as one context item: `name: {response as JSON}`.
fn context_text(response: &FunctionResponse) -> String {
    let body = response
        .response
        .as_ref()
        .map_or_else(|| "{}".to_string(), |map| Value::Object(map.clone()).to_string());
    match response.name.as_deref().filter(|name| !name.is_empty()) {
        Some(name) => format!("{name}: {body}"),
        None => body,
    }
}

/// ADK's `get_tool_calls_and_responses_as_json_str`: each call with the response of the same id.
fn response_steps(invocation: &Invocation) -> String {
    let calls: Vec<&FunctionCall> = invocation.tool_calls();
    if calls.is_empty() {
        return "No intermediate steps were taken.".into();
    }
    let responses = tool_responses(invocation);
    let steps: Vec<Value> = calls
        .iter()
        .enumerate()
        .map(|(step, call)| {
            // Python's dict keeps the last response of each id.
            let response = responses.iter().rev().find(|r| r.id == call.id);
            json!({
                "step": step,
                "tool_call": call,
                "tool_response": response.map_or_else(|| json!("None"), |r| json!(r)),
            })
        })
        .collect();
    pretty(&json!({ "tool_calls_and_response": steps }))
}

/// ADK's `get_grounding_metadata_as_json_str` over these events: those that carry grounding
/// metadata, numbered by their place among them.
pub(super) fn grounding_metadata(events: &[InvocationEvent]) -> String {
    let entries: Vec<Value> = events
        .iter()
        .enumerate()
        .filter_map(|(step, event)| {
            let metadata = event.grounding_metadata.as_ref()?;
            Some(json!({"step": step, "author": event.author, "grounding_metadata": metadata}))
        })
        .collect();
    if entries.is_empty() {
        return "No grounding metadata was provided.".into();
    }
    pretty(&json!({ "grounding_metadata": entries }))
}

/// `app_details.agent_details`, read with snake_case or camelCase keys.
pub(super) fn agent_details(invocation: &Invocation) -> Option<&serde_json::Map<String, Value>> {
    let details = invocation.app_details.as_ref()?;
    details
        .get("agent_details")
        .or_else(|| details.get("agentDetails"))?
        .as_object()
}

/// The instructions of the agent that acted first (or of the first agent in `app_details`).
fn developer_instructions(invocation: &Invocation) -> String {
    let Some(details) = agent_details(invocation) else {
        return String::new();
    };
    let first_author = invocation
        .intermediate_data
        .as_ref()
        .and_then(|data| data.events().first())
        .map(|event| event.author.as_str());
    let agent = first_author.or_else(|| details.keys().next().map(String::as_str));
    agent
        .and_then(|name| details.get(name))
        .and_then(|agent| agent.get("instructions"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

/// ADK's `get_tool_declarations_as_json_str`: every agent's tool declarations by agent name.
pub(super) fn tool_declarations(invocation: &Invocation) -> String {
    let Some(details) = agent_details(invocation) else {
        return "Agent has no tools.".into();
    };
    let by_agent: serde_json::Map<String, Value> = details
        .iter()
        .map(|(name, agent)| {
            let tools = agent
                .get("tool_declarations")
                .or_else(|| agent.get("toolDeclarations"))
                .cloned()
                .unwrap_or_else(|| json!([]));
            (name.clone(), tools)
        })
        .collect();
    pretty(&json!({ "tool_declarations": by_agent }))
}

/// Indented by two spaces, as pydantic's `model_dump_json(indent=2)`.
fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

/// ADK's `get_text_from_content` of a `Content`: its text parts joined by newlines (thoughts
/// included, empty texts left out); `None` without content or parts, which ADK's prompts
/// then show as `None`.
pub(super) fn content_text(content: Option<&Content>) -> Option<String> {
    let parts = content?.parts.as_ref().filter(|parts| !parts.is_empty())?;
    Some(
        parts
            .iter()
            .filter_map(|part| part.text.as_deref())
            .filter(|text| !text.is_empty())
            .collect::<Vec<_>>()
            .join("\n"),
    )
}
