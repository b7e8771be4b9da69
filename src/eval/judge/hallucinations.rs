//! ADK's `hallucinations_v1` (`hallucinations_v1.py`): each natural-language response of an
//! invocation (the final one, and with `evaluate_intermediate_nl_responses` every text the
//! agent wrote before it) is cut into sentences by the judge, then each sentence is labelled
//! against a context of what the agent knew at that point: its instructions, the user's
//! prompt, its tools, grounding metadata and the tool calls and outputs so far. A response
//! scores the share of labelled sentences that are `supported` or `not_applicable`; the
//! invocation, the mean of its responses' scores. One request per step, no samples.

use super::evidence::{CheckedResponse, SentenceLabel};
use super::input::{agent_details, content_text, grounding_metadata, tool_declarations};
use super::parse::python_strip;
use super::python_json::dumps_indented;
use super::template::fill;
use super::{with_evidence, Asker, JudgeEvidence};
use crate::eval::services::InvocationScore;
use crate::evalset::{FunctionCall, FunctionResponse, IntermediateData, Invocation, InvocationEvent};
use pure_metrics::exact_mean::exact_mean;
use serde_json::{Map, Value};

/// ADK's `_HALLUCINATIONS_V1_SEGMENTER_PROMPT`: `{response}`.
const SEGMENTER: &str = include_str!("hallucinations_v1_segmenter.txt");
/// ADK's `_HALLUCINATIONS_V1_VALIDATOR_PROMPT`: `{context}`, `{sentences}`.
const VALIDATOR: &str = include_str!("hallucinations_v1_validator.txt");

const POSITIVE_LABELS: [&str; 2] = ["supported", "not_applicable"];
const NEGATIVE_LABELS: [&str; 3] = ["unsupported", "contradictory", "disputed"];

/// One response to check and the context it is checked against.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Step {
    pub response: String,
    pub context: String,
}

/// ADK's `_get_steps_to_evaluate`.
pub(super) fn steps(actual: &Invocation, intermediate: bool) -> Vec<Step> {
    let events = actual
        .intermediate_data
        .as_ref()
        .map_or(&[][..], IntermediateData::events);
    let mut steps = Vec::new();
    if intermediate {
        for (index, event) in events.iter().enumerate() {
            let texts = texts(event);
            if texts.is_empty() {
                continue;
            }
            let mut seen: Vec<InvocationEvent> = events[..index].to_vec();
            // The step's own grounding metadata counts, but not its content.
            if event.grounding_metadata.is_some() {
                seen.push(InvocationEvent {
                    content: None,
                    ..event.clone()
                });
            }
            let context = context(actual, &seen);
            steps.extend(texts.into_iter().map(|response| Step {
                response: response.to_string(),
                context: context.clone(),
            }));
        }
    }
    if let Some(response) = content_text(actual.final_response.as_ref()).filter(|text| !text.is_empty()) {
        steps.push(Step {
            response,
            context: context(actual, events),
        });
    }
    steps
}

/// An event's non-empty texts, one per part.
fn texts(event: &InvocationEvent) -> Vec<&str> {
    event
        .content
        .iter()
        .flat_map(|content| content.parts.iter().flatten())
        .filter_map(|part| part.text.as_deref())
        .filter(|text| !text.is_empty())
        .collect()
}

/// ADK's `_create_context_for_step`: the header, then per event its texts, tool calls and tool
/// outputs.
fn context(actual: &Invocation, events: &[InvocationEvent]) -> String {
    let (instructions, tools) = match agent_details(actual) {
        None => (String::new(), "Agent has no tools.".to_string()),
        Some(details) => {
            let instructions: Vec<String> = details
                .iter()
                .filter_map(|(name, agent)| {
                    let text = agent.get("instructions").and_then(Value::as_str)?;
                    (!text.is_empty()).then(|| format!("{name}:\n{text}"))
                })
                .collect();
            (instructions.join("\n\n"), tool_declarations(actual))
        }
    };
    let user = content_text(Some(&actual.user_content)).unwrap_or_else(|| "None".into());
    let mut parts = vec![
        format!("Developer instructions:\n{instructions}\n"),
        format!("User prompt:\n{user}\n"),
        "Tool definitions:".to_string(),
        format!("{tools}\n"),
        "Grounding metadata:".to_string(),
        format!("{}\n", grounding_metadata(events)),
    ];
    for event in events {
        let Some(event_parts) = event.content.as_ref().and_then(|c| c.parts.as_ref()) else {
            continue;
        };
        let texts = texts(event);
        if !texts.is_empty() {
            parts.push(texts.join("\n") + "\n");
        }
        let calls: Vec<Value> = event_parts
            .iter()
            .filter_map(|part| part.function_call.as_deref())
            .map(call_dump)
            .collect();
        if !calls.is_empty() {
            parts.push("tool_calls:".into());
            parts.push(dumps_indented(&Value::Array(calls)) + "\n");
        }
        let outputs: Vec<Value> = event_parts
            .iter()
            .filter_map(|part| part.function_response.as_deref())
            .map(response_dump)
            .collect();
        if !outputs.is_empty() {
            parts.push("tool_outputs:".into());
            parts.push(dumps_indented(&Value::Array(outputs)) + "\n");
        }
    }
    parts.join("\n")
}

/// `FunctionCall.model_dump(exclude_none=True)`: its set fields in genai's order.
fn call_dump(call: &FunctionCall) -> Value {
    let mut map = Map::new();
    insert(&mut map, "id", call.id.clone().map(Value::String));
    insert(&mut map, "args", call.args.clone().map(Value::Object));
    insert(&mut map, "name", call.name.clone().map(Value::String));
    insert(&mut map, "partial_args", call.partial_args.clone());
    insert(&mut map, "will_continue", call.will_continue.map(Value::Bool));
    Value::Object(map)
}

/// `FunctionResponse.model_dump(exclude_none=True)`.
fn response_dump(response: &FunctionResponse) -> Value {
    let mut map = Map::new();
    insert(&mut map, "will_continue", response.will_continue.map(Value::Bool));
    insert(&mut map, "scheduling", response.scheduling.clone());
    insert(&mut map, "parts", response.parts.clone());
    insert(&mut map, "id", response.id.clone().map(Value::String));
    insert(&mut map, "name", response.name.clone().map(Value::String));
    insert(&mut map, "response", response.response.clone().map(Value::Object));
    Value::Object(map)
}

fn insert(map: &mut Map<String, Value>, key: &str, value: Option<Value>) {
    if let Some(value) = value.filter(|v| !v.is_null()) {
        map.insert(key.to_string(), value);
    }
}

/// ADK's `_parse_sentences`: what each `<sentence>…</sentence>` encloses.
pub(super) fn sentences(reply: &str) -> Vec<String> {
    const OPEN: &str = "<sentence>";
    const CLOSE: &str = "</sentence>";
    let mut found = Vec::new();
    let mut rest = reply;
    while let Some(start) = rest.find(OPEN) {
        let after = &rest[start + OPEN.len()..];
        let Some(end) = after.find(CLOSE) else { break };
        found.push(after[..end].to_string());
        rest = &after[end + CLOSE.len()..];
    }
    found
}

/// ADK's `_parse_validation_results`: the blocks `sentence:` … `label:` … `rationale:` …
/// `supporting_excerpt:` … `contradicting_excerpt:` …, keys in any case, each value running to
/// the next key (the last to the next `sentence:` line or the end), as its regex reads them.
pub(super) fn labels(reply: &str) -> Vec<SentenceLabel> {
    const KEYS: [&str; 4] = [
        "\nlabel:",
        "\nrationale:",
        "\nsupporting_excerpt:",
        "\ncontradicting_excerpt:",
    ];
    let text = python_strip(reply);
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(start) = find_ignoring_case(text, "sentence:", from) {
        let mut values = Vec::with_capacity(5);
        let mut at = start + "sentence:".len();
        for key in KEYS {
            // A key missing here is missing for every later block too.
            let Some(key_at) = find_ignoring_case(text, key, at) else {
                return found;
            };
            values.push(&text[at..key_at]);
            at = key_at + key.len();
        }
        let end = find_ignoring_case(text, "\nsentence:", at).unwrap_or(text.len());
        values.push(&text[at..end]);
        found.push(SentenceLabel {
            sentence: python_strip(values[0]).to_string(),
            label: python_strip(values[1]).to_string(),
            rationale: python_strip(values[2]).to_string(),
        });
        from = end;
    }
    found
}

/// The byte offset of `needle` (ASCII) in `text` at or after `from`, ASCII case ignored.
fn find_ignoring_case(text: &str, needle: &str, from: usize) -> Option<usize> {
    let haystack = text.as_bytes();
    let needle = needle.as_bytes();
    (from..=haystack.len().checked_sub(needle.len())?)
        .find(|&at| haystack[at..at + needle.len()].eq_ignore_ascii_case(needle))
}

/// 1 for a supported or not applicable sentence, 0 for the negative labels, `None` for a label
/// ADK does not know (such a sentence does not count).
fn label_score(label: &str) -> Option<f64> {
    let label = python_strip(label).to_lowercase();
    if POSITIVE_LABELS.contains(&label.as_str()) {
        Some(1.0)
    } else if NEGATIVE_LABELS.contains(&label.as_str()) {
        Some(0.0)
    } else {
        None
    }
}

/// ADK's `_evaluate_nl_response`: segment, then label; the response's score or why it has none.
async fn check(asker: &Asker<'_>, step: &Step) -> CheckedResponse {
    let mut checked = CheckedResponse {
        response: step.response.clone(),
        score: None,
        problem: None,
        segmenter_reply: None,
        sentences: Vec::new(),
        validator_reply: None,
        labels: Vec::new(),
    };
    let prompt = fill(SEGMENTER, &[("response", &step.response)]);
    let reply = match ask(asker, &prompt).await {
        Ok(reply) => reply,
        Err(error) => {
            checked.problem = Some(format!("the judge failed to segment the response: {error}"));
            return checked;
        }
    };
    checked.sentences = sentences(&reply);
    checked.segmenter_reply = Some(reply);
    if checked.sentences.is_empty() {
        checked.problem = Some("the judge's segmentation had no <sentence>…</sentence>".into());
        return checked;
    }
    let listed: Vec<String> = checked
        .sentences
        .iter()
        .map(|sentence| format!("<sentence>{sentence}</sentence>"))
        .collect();
    let prompt = fill(
        VALIDATOR,
        &[("context", &step.context), ("sentences", &listed.join("\n"))],
    );
    let reply = match ask(asker, &prompt).await {
        Ok(reply) => reply,
        Err(error) => {
            checked.problem = Some(format!("the judge failed to label the sentences: {error}"));
            return checked;
        }
    };
    checked.labels = labels(&reply);
    checked.validator_reply = Some(reply);
    let scores: Vec<f64> = checked
        .labels
        .iter()
        .filter_map(|l| label_score(&l.label))
        .collect();
    checked.score = exact_mean(&scores);
    if checked.score.is_none() {
        checked.problem = Some(
            "the judge's labels could not be read: expected sentence/label/rationale/supporting_excerpt/contradicting_excerpt blocks with labels supported, unsupported, contradictory, disputed or not_applicable"
                .into(),
        );
    }
    checked
}

async fn ask(asker: &Asker<'_>, prompt: &str) -> Result<String, String> {
    asker
        .ask_all(vec![prompt])
        .await
        .pop()
        .unwrap_or_else(|| Err("the judge was not asked".into()))
}

/// One invocation: the mean score of its checked responses, each checked in turn.
pub(super) async fn evaluate(asker: &Asker<'_>, actual: &Invocation, intermediate: bool) -> InvocationScore {
    let steps = steps(actual, intermediate);
    if steps.is_empty() {
        return InvocationScore::not_evaluated("the agent wrote no text to check for hallucinations");
    }
    let mut responses = Vec::with_capacity(steps.len());
    for step in &steps {
        responses.push(check(asker, step).await);
    }
    let scores: Vec<f64> = responses.iter().filter_map(|r| r.score).collect();
    let score = match exact_mean(&scores) {
        Some(score) => InvocationScore::scored(score),
        None => InvocationScore::not_evaluated(
            responses
                .iter()
                .find_map(|r| r.problem.clone())
                .unwrap_or_default(),
        ),
    };
    with_evidence(
        score,
        JudgeEvidence {
            responses: Some(responses),
            ..JudgeEvidence::default()
        },
    )
}
