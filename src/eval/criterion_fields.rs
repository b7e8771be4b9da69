//! The keys of a run request's metric (ADK's `EvalMetric`) and of a criterion that the eval
//! config reads for every metric, for the trajectory metrics, for `tool_single_use` and for an
//! evaluator, as serde derives in either of ADK's key spellings (see `config_fields`). Messages
//! say what a value is with [`kind_of`].

use super::config_fields::{self as fields, present};
use pure_metrics::score_range::ScoreRange;
use pure_metrics::trajectory::MatchType;
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

/// Any key of a criterion may be there: each metric reads its own.
pub fn read<T: serde::de::DeserializeOwned>(criterion: &Map<String, Value>, path: &str) -> Result<T, String> {
    fields::read(criterion, path, |_, _| Ok(()))
}

/// ADK's `EvalMetric`, as a REST run request lists them.
#[derive(Deserialize)]
pub struct EvalMetric {
    #[serde(alias = "metricName", default, deserialize_with = "metric_name")]
    pub metric_name: Option<String>,
    #[serde(default, deserialize_with = "object")]
    pub criterion: Option<Map<String, Value>>,
    /// Checked where the criterion is read.
    #[serde(default, deserialize_with = "any")]
    pub threshold: Option<Value>,
}

/// ADK's `BaseCriterion`.
#[derive(Deserialize)]
pub struct Base {
    #[serde(default, deserialize_with = "threshold")]
    pub threshold: Option<f64>,
    #[serde(
        alias = "includeIntermediateResponsesInFinal",
        default,
        deserialize_with = "true_or_false"
    )]
    pub include_intermediate_responses_in_final: Option<bool>,
}

/// ADK's `ToolTrajectoryCriterion`.
#[derive(Deserialize)]
pub struct Trajectory {
    #[serde(alias = "matchType", default, deserialize_with = "match_type")]
    pub match_type: Option<MatchType>,
    #[serde(alias = "ignoreArgs", default, deserialize_with = "true_or_false")]
    pub ignore_args: Option<bool>,
}

/// `tool_single_use`'s.
#[derive(Deserialize)]
pub struct ToolUsed {
    #[serde(alias = "toolName", default, deserialize_with = "tool_name")]
    pub tool_name: Option<String>,
}

/// An evaluator's.
#[derive(Deserialize)]
pub struct Evaluator {
    #[serde(alias = "scoreRange", default, deserialize_with = "score_range")]
    pub score_range: Option<ScoreRange>,
}

fn metric_name<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    present(deserializer, |value| match value {
        Value::String(name) => Ok(name.clone()),
        other => Err(format!("expected a metric name, found {}", kind_of(other))),
    })
}

fn object<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Map<String, Value>>, D::Error> {
    present(deserializer, |value| match value {
        Value::Object(object) => Ok(object.clone()),
        other => Err(format!("expected an object, found {}", kind_of(other))),
    })
}

fn any<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    present(deserializer, |value| Ok(value.clone()))
}

fn threshold<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<f64>, D::Error> {
    present(deserializer, |value| match value.as_f64() {
        Some(n) if n.is_finite() => Ok(n),
        _ => Err(format!(
            "the threshold must be a number, found {}",
            kind_of(value)
        )),
    })
}

fn true_or_false<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<bool>, D::Error> {
    present(deserializer, |value| {
        value
            .as_bool()
            .ok_or_else(|| format!("expected true or false, found {}", kind_of(value)))
    })
}

/// A member name (any case, `-` or space for `_`, as ADK's validator normalises it) or value.
fn match_type<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<MatchType>, D::Error> {
    present(deserializer, |value| {
        let found = match value {
            Value::String(name) => {
                let normalized = name.trim().to_uppercase().replace(['-', ' '], "_");
                MatchType::ALL.into_iter().find(|m| m.name() == normalized)
            }
            Value::Number(n) => MatchType::ALL
                .into_iter()
                .find(|m| n.as_f64() == Some(f64::from(*m as u8))),
            _ => None,
        };
        found.ok_or_else(|| {
            format!("{value} is not a match type; use \"EXACT\", \"IN_ORDER\" or \"ANY_ORDER\" (or 0, 1, 2)")
        })
    })
}

fn tool_name<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    present(deserializer, |value| match value {
        Value::String(tool) if !tool.trim().is_empty() => Ok(tool.trim().to_string()),
        other => Err(format!("expected the tool's name, found {}", kind_of(other))),
    })
}

fn score_range<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<ScoreRange>, D::Error> {
    present(deserializer, |value| {
        let ends = value.as_array().and_then(|ends| match ends.as_slice() {
            [min, max] => ScoreRange::new(min.as_f64()?, max.as_f64()?),
            _ => None,
        });
        ends.ok_or_else(|| {
            format!("expected [lowest, highest], two numbers with the lowest first, such as [1, 5]; found {value}")
        })
    })
}

/// What a value is, for a message: the value itself when short, else its kind.
pub fn kind_of(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => format!("the string {s:?}"),
        Value::Array(_) => "a list".into(),
        Value::Object(_) => "an object".into(),
    }
}
