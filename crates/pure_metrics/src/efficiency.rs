//! ADK's informational efficiency metrics (google-adk `_efficiency_evaluators.py`): how much a
//! turn cost rather than how good it was. They never pass or fail (status INFORMATIONAL), take
//! no threshold, and are reported on every eval. Each value is per invocation; a case's value
//! is their average, and `None` means not available (never zero).

use evalset::{Invocation, InvocationEvent};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Map, Value};

pub const TOOL_CALL_COUNT_V1: &str = "tool_call_count_v1";
pub const INFERENCE_CALL_COUNT_V1: &str = "inference_call_count_v1";
pub const TOKEN_USAGE_V1: &str = "token_usage_v1";
pub const INVOCATION_DURATION_V1: &str = "invocation_duration_v1";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Efficiency {
    /// Tool calls per turn.
    ToolCallCount,
    /// Model calls per turn (events that carry usage or a model version).
    InferenceCallCount,
    /// Tokens per turn, with ADK's per-type breakdown.
    TokenUsage,
    /// Wall-clock seconds per turn, split into model, tool and framework time.
    InvocationDuration,
}

impl Efficiency {
    /// ADK's `_DEFAULT_EFFICIENCY_METRICS`, in the order it appends them to every eval.
    pub const ALL: [Efficiency; 4] = [
        Efficiency::ToolCallCount,
        Efficiency::InferenceCallCount,
        Efficiency::TokenUsage,
        Efficiency::InvocationDuration,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Efficiency::ToolCallCount => TOOL_CALL_COUNT_V1,
            Efficiency::InferenceCallCount => INFERENCE_CALL_COUNT_V1,
            Efficiency::TokenUsage => TOKEN_USAGE_V1,
            Efficiency::InvocationDuration => INVOCATION_DURATION_V1,
        }
    }

    pub fn from_name(name: &str) -> Option<Efficiency> {
        Efficiency::ALL.into_iter().find(|metric| metric.name() == name)
    }
}

/// One efficiency metric over a case's actual invocations.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct EfficiencyResult {
    pub overall: Option<f64>,
    /// The `token_usage_details` or `duration_details` of the whole case, when the metric has one.
    pub overall_details: Option<Breakdown>,
    /// Per invocation: the value and its details.
    pub per_invocation: Vec<(Option<f64>, Option<Breakdown>)>,
}

/// The most fields a breakdown has (`TokenUsageDetails`').
const MAX_FIELDS: usize = 8;

/// One of ADK's breakdowns (`TokenUsageDetails`, `DurationDetails`): its fields in ADK's order,
/// each a number or null, written as a JSON object. Held without allocating, as every
/// invocation of every case has one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Breakdown {
    fields: &'static [&'static str],
    values: [Option<f64>; MAX_FIELDS],
}

impl Breakdown {
    fn new<const N: usize>(fields: &'static [&'static str; N], values: &[Option<f64>; N]) -> Self {
        const { assert!(N <= MAX_FIELDS) };
        let mut held = [None; MAX_FIELDS];
        held[..N].copy_from_slice(values);
        Breakdown { fields, values: held }
    }

    /// The value of `field`; none when it is null or not one of the breakdown's.
    pub fn get(&self, field: &str) -> Option<f64> {
        let index = self.fields.iter().position(|f| *f == field)?;
        self.values[index]
    }

    /// The breakdown as the JSON object it is written as.
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).expect("a breakdown serialises")
    }
}

impl Serialize for Breakdown {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.fields.len()))?;
        for (field, value) in self.fields.iter().zip(&self.values) {
            map.serialize_entry(field, value)?;
        }
        map.end()
    }
}

pub fn evaluate_efficiency(metric: Efficiency, actual: &[Invocation]) -> EfficiencyResult {
    match metric {
        Efficiency::ToolCallCount => averaged(actual, |i| Some(i.tool_calls().len() as f64)),
        Efficiency::InferenceCallCount => averaged(actual, |i| {
            invocation_events(i).map(|events| events.iter().filter(|e| is_model_call(e)).count() as f64)
        }),
        Efficiency::TokenUsage => token_usage(actual),
        Efficiency::InvocationDuration => duration(actual),
    }
}

/// `_evaluate_efficiency_metric`: each invocation's value; overall the mean of those present.
fn averaged(actual: &[Invocation], value: impl Fn(&Invocation) -> Option<f64>) -> EfficiencyResult {
    let per_invocation: Vec<(Option<f64>, Option<Breakdown>)> =
        actual.iter().map(|i| (value(i), None)).collect();
    let present: Vec<f64> = per_invocation.iter().filter_map(|(v, _)| *v).collect();
    EfficiencyResult {
        overall: python_mean(&present, present.len()),
        overall_details: None,
        per_invocation,
    }
}

/// The events of an invocation in ADK's `InvocationEvents` form (possibly none); `None` for
/// the tool_uses form, which records no model calls.
fn invocation_events(invocation: &Invocation) -> Option<&[InvocationEvent]> {
    invocation
        .intermediate_data
        .as_ref()?
        .invocation_events
        .as_deref()
}

fn is_model_call(event: &InvocationEvent) -> bool {
    event.usage_metadata.as_ref().is_some_and(|u| !u.is_null()) || event.model_version.is_some()
}

/// `sum(values) / count` as Python computes it (a left-to-right sum), `None` without values.
fn python_mean(values: &[f64], count: usize) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let mut total = 0.0;
    for value in values {
        total += value;
    }
    Some(total / count as f64)
}

/// ADK's `TokenUsageDetails` fields, in its order. `total` is input plus output; input is
/// prompt plus tool-use prompt tokens (cached ones are part of prompt); output is candidates
/// plus reasoning (thoughts) tokens.
const TOKEN_FIELDS: [&str; 8] = [
    "total_tokens",
    "input_tokens",
    "prompt_tokens",
    "cached_tokens",
    "tool_use_tokens",
    "output_tokens",
    "candidates_tokens",
    "reasoning_tokens",
];

/// One model call's counts as `TokenUsage.from_usage_metadata` reads them, in `TOKEN_FIELDS`
/// order (the total is left for the invocation).
fn call_tokens(usage: &Map<String, Value>) -> [Option<f64>; 8] {
    let count = |snake: &str, camel: &str| {
        usage
            .get(snake)
            .or_else(|| usage.get(camel))
            .and_then(Value::as_f64)
    };
    let prompt = count("prompt_token_count", "promptTokenCount");
    let tool = count("tool_use_prompt_token_count", "toolUsePromptTokenCount");
    let candidates = count("candidates_token_count", "candidatesTokenCount");
    let thoughts = count("thoughts_token_count", "thoughtsTokenCount");
    let either_sum = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (None, None) => None,
        (a, b) => Some(a.unwrap_or(0.0) + b.unwrap_or(0.0)),
    };
    [
        None,
        either_sum(prompt, tool),
        prompt,
        count("cached_content_token_count", "cachedContentTokenCount"),
        tool,
        either_sum(candidates, thoughts),
        candidates,
        thoughts,
    ]
}

/// `_token_usage_details`: every call's counts added up, a count no call reported stays `None`.
fn invocation_tokens(invocation: &Invocation) -> [Option<f64>; 8] {
    let mut totals = [None; 8];
    let calls = invocation_events(invocation)
        .unwrap_or_default()
        .iter()
        .filter_map(|e| e.usage_metadata.as_ref()?.as_object());
    for usage in calls {
        for (total, count) in totals.iter_mut().zip(call_tokens(usage)) {
            if let Some(count) = count {
                *total = Some(total.unwrap_or(0.0) + count);
            }
        }
    }
    if totals[1].is_some() || totals[5].is_some() {
        totals[0] = Some(totals[1].unwrap_or(0.0) + totals[5].unwrap_or(0.0));
    }
    totals
}

/// A turn's tokens as ADK's `token_usage_v1` counts them: input, output and their total, over
/// the turn's model calls; None when no call reported usage.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TurnTokens {
    pub input: f64,
    pub output: f64,
    pub total: f64,
}

pub fn turn_tokens(invocation: &Invocation) -> Option<TurnTokens> {
    let counts = invocation_tokens(invocation);
    Some(TurnTokens {
        total: counts[0]?,
        input: counts[1].unwrap_or(0.0),
        output: counts[5].unwrap_or(0.0),
    })
}

fn token_usage(actual: &[Invocation]) -> EfficiencyResult {
    // A count missing from some invocations means none were spent there, so every invocation
    // is in the denominator; a count no invocation reported stays `None` (`_average`).
    let all = actual.iter().map(invocation_tokens).collect();
    with_breakdowns(all, &TOKEN_FIELDS, |present, invocations| {
        python_mean(present, invocations)
    })
}

/// Per invocation the breakdown's first field (its total) with the whole breakdown; overall
/// each field averaged by `average(values present, invocations)`.
fn with_breakdowns<const N: usize>(
    all: Vec<[Option<f64>; N]>,
    fields: &'static [&'static str; N],
    average: impl Fn(&[f64], usize) -> Option<f64>,
) -> EfficiencyResult {
    if all.is_empty() {
        return EfficiencyResult::default();
    }
    let averaged: [Option<f64>; N] = std::array::from_fn(|field| {
        let present: Vec<f64> = all.iter().filter_map(|values| values[field]).collect();
        average(&present, all.len())
    });
    EfficiencyResult {
        overall: averaged[0],
        overall_details: Some(Breakdown::new(fields, &averaged)),
        per_invocation: all
            .iter()
            .map(|values| (values[0], Some(Breakdown::new(fields, values))))
            .collect(),
    }
}

/// ADK's `DurationDetails` fields, in its order.
const DURATION_FIELDS: [&str; 4] = [
    "total_seconds",
    "model_seconds",
    "tool_seconds",
    "framework_seconds",
];

/// `_duration_details`: all `None` when the invocation was not timed; the framework's share is
/// what the model and tools leave of the total, when both were measured.
fn invocation_duration(invocation: &Invocation) -> [Option<f64>; 4] {
    let Some(total) = invocation.duration else {
        return [None; 4];
    };
    let (model, tool) = (invocation.model_duration, invocation.tool_duration);
    let framework = match (model, tool) {
        (Some(model), Some(tool)) => Some(python_round3((total - model - tool).max(0.0))),
        _ => None,
    };
    [Some(total), model, tool, framework]
}

fn duration(actual: &[Invocation]) -> EfficiencyResult {
    // An untimed invocation is left out of each part's average, not counted as zero.
    let all = actual.iter().map(invocation_duration).collect();
    with_breakdowns(all, &DURATION_FIELDS, |present, _| {
        python_mean(present, present.len()).map(python_round3)
    })
}

/// Python's `round(x, 3)`: the nearest 3-decimal value of the exact binary number, ties to
/// even, which is also how Rust formats with a precision.
pub fn python_round3(value: f64) -> f64 {
    format!("{value:.3}").parse().unwrap_or(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn invocation(value: Value) -> Invocation {
        serde_json::from_value(value).unwrap()
    }

    fn with_events(events: Value) -> Invocation {
        invocation(json!({
            "invocation_id": "i",
            "user_content": {"role": "user", "parts": [{"text": "hi"}]},
            "intermediate_data": {"invocation_events": events},
        }))
    }

    #[test]
    fn tool_calls_are_counted_in_either_form_and_averaged() {
        let tool_uses = invocation(json!({
            "invocation_id": "a",
            "user_content": {"parts": [{"text": "hi"}]},
            "intermediate_data": {"tool_uses": [{"name": "f", "args": {}}, {"name": "g", "args": {}}]},
        }));
        let events = with_events(json!([
            {"author": "a", "content": {"parts": [{"function_call": {"name": "f", "args": {}}}]}},
        ]));
        let result = evaluate_efficiency(Efficiency::ToolCallCount, &[tool_uses, events]);
        assert_eq!(result.overall, Some(1.5));
        assert_eq!(
            result.per_invocation.iter().map(|(v, _)| *v).collect::<Vec<_>>(),
            [Some(2.0), Some(1.0)]
        );
    }

    #[test]
    fn inference_calls_need_the_events_form() {
        let events = with_events(json!([
            {"author": "a", "usage_metadata": {"prompt_token_count": 3}},
            {"author": "a", "model_version": "m"},
            {"author": "tool", "content": {"parts": [{"text": "x"}]}},
        ]));
        let plain = invocation(json!({"invocation_id": "b", "user_content": {"parts": [{"text": "hi"}]}}));
        // An empty event list is still the events form: no model calls, not "not available".
        let no_events = with_events(json!([]));
        let result = evaluate_efficiency(Efficiency::InferenceCallCount, &[events, plain, no_events]);
        assert_eq!(result.per_invocation[0].0, Some(2.0));
        assert_eq!(result.per_invocation[1].0, None);
        assert_eq!(result.per_invocation[2].0, Some(0.0));
        assert_eq!(result.overall, Some(1.0));
    }

    #[test]
    fn token_usage_adds_calls_and_averages_over_every_invocation() {
        let first = with_events(json!([
            {"author": "a", "usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": 20, "cachedContentTokenCount": 40}},
            {"author": "a", "usage_metadata": {"prompt_token_count": 150, "candidates_token_count": 10, "thoughts_token_count": 5}},
        ]));
        let second = with_events(json!([
            {"author": "a", "usage_metadata": {"prompt_token_count": 50, "candidates_token_count": 5}},
        ]));
        let untimed = invocation(json!({"invocation_id": "c", "user_content": {"parts": [{"text": "hi"}]}}));
        let result = evaluate_efficiency(Efficiency::TokenUsage, &[first, second, untimed]);
        let first_details = result.per_invocation[0].1.unwrap().to_value();
        assert_eq!(first_details["total_tokens"], json!(285.0));
        assert_eq!(first_details["input_tokens"], json!(250.0));
        assert_eq!(first_details["cached_tokens"], json!(40.0));
        assert_eq!(first_details["output_tokens"], json!(35.0));
        assert_eq!(first_details["reasoning_tokens"], json!(5.0));
        assert_eq!(first_details["tool_use_tokens"], Value::Null);
        assert_eq!(result.per_invocation[2].0, None);
        // (285 + 55) / 3 invocations: one without usage still counts in the denominator.
        assert_eq!(result.overall, Some(340.0 / 3.0));
        let overall = result.overall_details.unwrap().to_value();
        assert_eq!(overall["reasoning_tokens"], json!(5.0 / 3.0));
        assert_eq!(overall["tool_use_tokens"], Value::Null);
    }

    #[test]
    fn a_turns_tokens_add_its_model_calls() {
        let turn = with_events(json!([
            {"author": "a", "usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": 20}},
            {"author": "a", "usage_metadata": {"prompt_token_count": 150, "thoughts_token_count": 5}},
        ]));
        assert_eq!(
            turn_tokens(&turn),
            Some(TurnTokens {
                input: 250.0,
                output: 25.0,
                total: 275.0
            })
        );
        let untimed = invocation(json!({"invocation_id": "c", "user_content": {"parts": [{"text": "hi"}]}}));
        assert_eq!(turn_tokens(&untimed), None);
    }

    #[test]
    fn duration_splits_out_the_framework_and_skips_untimed_turns() {
        let timed = invocation(json!({
            "invocation_id": "a", "user_content": {"parts": [{"text": "hi"}]},
            "duration": 1.25, "model_duration": 0.9, "tool_duration": 0.2,
        }));
        let total_only = invocation(json!({
            "invocation_id": "b", "user_content": {"parts": [{"text": "hi"}]}, "duration": 0.5,
        }));
        let untimed = invocation(json!({"invocation_id": "c", "user_content": {"parts": [{"text": "hi"}]}}));
        let result = evaluate_efficiency(Efficiency::InvocationDuration, &[timed, total_only, untimed]);
        let first = result.per_invocation[0].1.unwrap();
        assert_eq!(first.get("framework_seconds"), Some(0.15));
        assert_eq!(
            result.per_invocation[1].1.unwrap().to_value()["framework_seconds"],
            Value::Null
        );
        assert_eq!(result.per_invocation[2].0, None);
        // Rounded to milliseconds like ADK: (1.25 + 0.5) / 2 = 0.875.
        assert_eq!(result.overall, Some(0.875));
        assert_eq!(result.overall_details.unwrap().get("model_seconds"), Some(0.9));
    }

    #[test]
    fn no_invocations_gives_no_value() {
        for metric in Efficiency::ALL {
            assert_eq!(Efficiency::from_name(metric.name()), Some(metric));
            let result = evaluate_efficiency(metric, &[]);
            assert_eq!(result, EfficiencyResult::default(), "{metric:?}");
        }
    }

    #[test]
    fn rounding_is_pythons() {
        assert_eq!(python_round3(0.0625), 0.062);
        assert_eq!(python_round3(1.0005), 1.0);
        assert_eq!(python_round3(0.0005), 0.001);
    }
}
