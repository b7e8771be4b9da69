//! What this agent's model server turned out not to do, learnt from its answers and remembered
//! for the process: request fields it refuses (left out from then on) and tool calls it makes
//! only in whole answers (asked unstreamed from then on, whenever tools are offered). Also the
//! words for a refusal of the tools themselves, which name the tool.

use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::Value;

use crate::agent::ToolRegistry;

/// A request field some servers refuse, which the request does without.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum OptionalField {
    StreamOptions,
    ToolChoice,
}

impl OptionalField {
    const ALL: [OptionalField; 2] = [OptionalField::StreamOptions, OptionalField::ToolChoice];

    pub(super) fn key(self) -> &'static str {
        match self {
            OptionalField::StreamOptions => "stream_options",
            OptionalField::ToolChoice => "tool_choice",
        }
    }

    fn detected(self) -> &'static str {
        match self {
            OptionalField::StreamOptions => {
                "refuses stream_options: sent without it, so token counts come only if the server sends them unasked"
            }
            OptionalField::ToolChoice => {
                "refuses tool_choice: sent without it, so the model chooses whether to call a tool"
            }
        }
    }
}

#[derive(Debug, Default)]
pub(super) struct Quirks {
    omit_stream_options: AtomicBool,
    omit_tool_choice: AtomicBool,
    tools_unstreamed: AtomicBool,
}

impl Quirks {
    fn flag(&self, field: OptionalField) -> &AtomicBool {
        match field {
            OptionalField::StreamOptions => &self.omit_stream_options,
            OptionalField::ToolChoice => &self.omit_tool_choice,
        }
    }

    pub(super) fn omits(&self, field: OptionalField) -> bool {
        self.flag(field).load(Ordering::Relaxed)
    }

    pub(super) fn omit(&self, field: OptionalField) {
        self.flag(field).store(true, Ordering::Relaxed);
    }

    /// Whether a request offering tools must be sent unstreamed.
    pub(super) fn tools_unstreamed(&self) -> bool {
        self.tools_unstreamed.load(Ordering::Relaxed)
    }

    pub(super) fn call_tools_unstreamed(&self) {
        self.tools_unstreamed.store(true, Ordering::Relaxed);
    }

    /// What was learnt, in words for the Settings page.
    pub(super) fn detected(&self) -> Vec<String> {
        let mut found: Vec<String> = OptionalField::ALL
            .into_iter()
            .filter(|field| self.omits(*field))
            .map(|field| field.detected().to_string())
            .collect();
        if self.tools_unstreamed() {
            found.push(
                "calls tools only in whole answers: requests that offer tools are sent unstreamed"
                    .to_string(),
            );
        }
        found
    }
}

/// The ways to ask again after a refusal, one field left out each, the fields the server's words
/// name first; then, with more than one, all of them left out.
pub(super) fn retries_without(body: &Value, refusal: &str) -> Vec<Vec<OptionalField>> {
    let mut present: Vec<OptionalField> = OptionalField::ALL
        .into_iter()
        .filter(|field| body.get(field.key()).is_some())
        .collect();
    present.sort_by_key(|field| !refusal.contains(field.key()));
    let mut tries: Vec<Vec<OptionalField>> = present.iter().map(|field| vec![*field]).collect();
    if present.len() > 1 {
        tries.push(present);
    }
    tries
}

/// The body with these fields left out.
pub(super) fn without(body: &Value, fields: &[OptionalField]) -> Value {
    let mut body = body.clone();
    if let Some(object) = body.as_object_mut() {
        for field in fields {
            object.remove(field.key());
        }
    }
    body
}

/// A refusal of a request that offered tools, with the tool it is about named: by its place
/// (`tools[2]`, `tools.2`), which servers' schema errors give, or by its name in the words.
pub(super) fn name_refused_tool(message: String, tools: &ToolRegistry) -> String {
    let names: Vec<&str> = tools.iter().map(|tool| tool.name()).collect();
    if names.is_empty() {
        return message;
    }
    let named = tool_index(&message)
        .and_then(|index| names.get(index).copied())
        .or_else(|| names.iter().copied().find(|name| message.contains(name)));
    match named {
        Some(name) => format!("the model server refused the declaration of tool `{name}`: {message}"),
        None if ["tool", "function", "schema"]
            .iter()
            .any(|word| message.contains(word)) =>
        {
            format!("{message} (the request offered the tools {})", names.join(", "))
        }
        None => message,
    }
}

/// N of the first `tools[N]` or `tools.N` in the text.
fn tool_index(text: &str) -> Option<usize> {
    ["tools[", "tools."].iter().find_map(|prefix| {
        let start = text.find(prefix)? + prefix.len();
        let digits: String = text[start..].chars().take_while(char::is_ascii_digit).collect();
        digits.parse().ok()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_field_a_refusal_names_is_left_out_first_then_each_then_all() {
        let body = json!({"stream_options": {}, "tool_choice": "required", "model": "m"});
        assert_eq!(
            retries_without(&body, "Unsupported parameter: 'tool_choice'"),
            vec![
                vec![OptionalField::ToolChoice],
                vec![OptionalField::StreamOptions],
                vec![OptionalField::ToolChoice, OptionalField::StreamOptions],
            ]
        );
        assert_eq!(
            retries_without(&json!({"model": "m"}), "anything"),
            Vec::<Vec<OptionalField>>::new()
        );
        let left = without(&body, &[OptionalField::ToolChoice]);
        assert_eq!(left, json!({"stream_options": {}, "model": "m"}));
    }

    #[test]
    fn a_refused_tool_is_named_by_its_place_or_its_name() {
        let tools = ToolRegistry::demo();
        let names: Vec<&str> = tools.iter().map(|t| t.name()).collect();
        let by_place = name_refused_tool("Invalid 'tools[1].function.parameters': bad".into(), &tools);
        assert!(by_place.contains(&format!("tool `{}`", names[1])), "{by_place}");
        let by_name = name_refused_tool("schema of get_weather is not an object".into(), &tools);
        assert!(by_name.starts_with("the model server refused the declaration of tool `get_weather`"));
        let vague = name_refused_tool("invalid function schema".into(), &tools);
        assert!(vague.ends_with(&format!("(the request offered the tools {})", names.join(", "))));
        let unrelated = name_refused_tool("temperature must be at most 2".into(), &tools);
        assert_eq!(unrelated, "temperature must be at most 2");
    }

    #[test]
    fn what_was_learnt_is_said_in_words() {
        let quirks = Quirks::default();
        assert!(quirks.detected().is_empty());
        quirks.omit(OptionalField::ToolChoice);
        quirks.call_tools_unstreamed();
        let found = quirks.detected();
        assert!(found[0].starts_with("refuses tool_choice"));
        assert!(found[1].starts_with("calls tools only in whole answers"));
    }
}
