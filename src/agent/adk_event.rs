//! ADK's event as `/run_sse` streams it: camelCase keys, as ADK's `model_dump(by_alias=True)`
//! writes them, and snake_case accepted too (ADK's own Python clients may send it). Only what we
//! read is modelled; a field of another type than ADK's counts as absent, so one odd field does
//! not stop a stream.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct AdkEvent {
    /// How run_sse reports an exception in the agent: `{"error": "..."}`, with no author.
    pub error: Option<Value>,
    #[serde(deserialize_with = "lenient")]
    pub author: Option<String>,
    #[serde(alias = "error_message", deserialize_with = "lenient")]
    pub error_message: Option<String>,
    #[serde(alias = "error_code")]
    pub error_code: Option<Value>,
    #[serde(deserialize_with = "lenient")]
    pub partial: Option<bool>,
    /// Seconds since the epoch.
    #[serde(deserialize_with = "lenient")]
    pub timestamp: Option<f64>,
    #[serde(deserialize_with = "lenient")]
    pub content: Option<Content>,
    #[serde(alias = "usage_metadata", deserialize_with = "lenient")]
    pub usage_metadata: Option<UsageMetadata>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct Content {
    #[serde(deserialize_with = "lenient_list")]
    pub parts: Vec<Part>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct Part {
    #[serde(deserialize_with = "lenient")]
    pub text: Option<String>,
    /// The model's reasoning, not its answer.
    #[serde(deserialize_with = "lenient")]
    pub thought: Option<bool>,
    #[serde(alias = "function_call", deserialize_with = "lenient")]
    pub function_call: Option<FunctionCall>,
    #[serde(alias = "function_response", deserialize_with = "lenient")]
    pub function_response: Option<FunctionResponse>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct FunctionCall {
    #[serde(deserialize_with = "lenient")]
    pub id: Option<String>,
    #[serde(deserialize_with = "lenient")]
    pub name: Option<String>,
    #[serde(deserialize_with = "lenient")]
    pub args: Option<Map<String, Value>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct FunctionResponse {
    #[serde(deserialize_with = "lenient")]
    pub id: Option<String>,
    #[serde(deserialize_with = "lenient")]
    pub name: Option<String>,
    pub response: Option<Value>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct UsageMetadata {
    #[serde(alias = "prompt_token_count", deserialize_with = "lenient")]
    pub prompt_token_count: Option<u64>,
    #[serde(alias = "candidates_token_count", deserialize_with = "lenient")]
    pub candidates_token_count: Option<u64>,
}

/// The value, or none when it is not of `T`'s type.
fn lenient<'de, D: Deserializer<'de>, T: DeserializeOwned>(deserializer: D) -> Result<Option<T>, D::Error> {
    Ok(T::deserialize(Value::deserialize(deserializer)?).ok())
}

/// The list's items of `T`'s type (others left out); empty when it is not a list.
fn lenient_list<'de, D: Deserializer<'de>, T: DeserializeOwned>(deserializer: D) -> Result<Vec<T>, D::Error> {
    let items: Vec<Value> = lenient(deserializer)?.unwrap_or_default();
    Ok(items
        .into_iter()
        .filter_map(|item| T::deserialize(item).ok())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn event(value: Value) -> AdkEvent {
        AdkEvent::deserialize(value).unwrap()
    }

    #[test]
    fn both_spellings_are_read() {
        for (call, usage) in [
            ("functionCall", "usageMetadata"),
            ("function_call", "usage_metadata"),
        ] {
            let read = event(
                json!({"content": {"parts": [{call: {"name": "t", "args": {"a": 1}}}]},
                usage: {"promptTokenCount": 3, "candidates_token_count": 4}}),
            );
            let call = read.content.unwrap().parts.remove(0).function_call.unwrap();
            assert_eq!(
                (call.name.as_deref(), call.args.unwrap()["a"].as_i64()),
                (Some("t"), Some(1))
            );
            let usage = read.usage_metadata.unwrap();
            assert_eq!(
                (usage.prompt_token_count, usage.candidates_token_count),
                (Some(3), Some(4))
            );
        }
    }

    #[test]
    fn a_field_of_another_type_counts_as_absent() {
        let read = event(json!({"author": 7, "partial": "yes", "timestamp": 1.5,
            "content": {"parts": [{"text": ["x"], "thought": 1, "functionCall": "t"}]},
            "usageMetadata": {"promptTokenCount": 2.5}}));
        assert_eq!(
            (read.author, read.partial, read.timestamp),
            (None, None, Some(1.5))
        );
        let part = &read.content.unwrap().parts[0];
        assert!(part.text.is_none() && part.thought.is_none() && part.function_call.is_none());
        let parts = event(json!({"content": {"parts": ["odd", {"text": "kept"}]}}))
            .content
            .unwrap()
            .parts;
        assert_eq!(
            parts.len(),
            1,
            "a part that is not an object is left out, not the rest"
        );
        assert_eq!(parts[0].text.as_deref(), Some("kept"));
        assert_eq!(read.usage_metadata.unwrap().prompt_token_count, None);
    }
}
