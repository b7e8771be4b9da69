//! A judge metric's criterion keys as written, in either of ADK's key spellings (see
//! `eval::config_fields`): each metric reads only its own, so a key another metric reads is
//! not checked where it means nothing.

use super::g_eval::GEvalParam;
use super::ReplyKind;
use crate::eval::config_fields::present;
use crate::eval::simulator::STOP_SIGNAL;
use serde::de::{Error, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::Value;
use std::fmt;

/// `hallucinations_v1`'s.
#[derive(Deserialize)]
pub struct Hallucinations {
    #[serde(alias = "evaluateIntermediateNlResponses", default, deserialize_with = "flag")]
    pub evaluate_intermediate_nl_responses: Option<bool>,
}

/// `per_turn_user_simulator_quality_v1`'s.
#[derive(Deserialize)]
pub struct SimulatorQuality {
    #[serde(alias = "stopSignal", default, deserialize_with = "stop_signal")]
    pub stop_signal: Option<String>,
}

/// G-Eval's.
#[derive(Deserialize)]
pub struct GEvalWritten {
    #[serde(default, deserialize_with = "plain_words")]
    pub criteria: Option<String>,
    #[serde(alias = "evaluationSteps", default, deserialize_with = "steps")]
    pub evaluation_steps: Option<Vec<String>>,
    #[serde(alias = "evaluationParams", default, deserialize_with = "params")]
    pub evaluation_params: Option<Vec<GEvalParam>>,
}

/// A custom judge's reply (its prompt is read where it is found).
#[derive(Deserialize)]
pub struct Reply {
    #[serde(default, deserialize_with = "reply")]
    pub reply: Option<ReplyKind>,
}

/// A custom judge's score range, read once its reply is known.
#[derive(Deserialize)]
pub struct Range {
    #[serde(alias = "scoreRange", default, deserialize_with = "score_range")]
    pub score_range: Option<(f64, f64)>,
}

fn flag<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<bool>, D::Error> {
    present(deserializer, |value| {
        value.as_bool().ok_or_else(|| "expected true or false".into())
    })
}

fn stop_signal<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    present(deserializer, |value| match value {
        Value::String(signal) if !signal.is_empty() => Ok(signal.clone()),
        _ => Err(format!(
            "expected the stop signal's text, such as \"{STOP_SIGNAL}\""
        )),
    })
}

fn plain_words<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    present(deserializer, |value| match value {
        Value::String(text) if !text.trim().is_empty() => Ok(text.trim().to_string()),
        _ => Err("expected the criterion in plain words".into()),
    })
}

fn steps<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Vec<String>>, D::Error> {
    present(deserializer, |value| {
        let steps: Option<Vec<String>> = value.as_array().and_then(|items| {
            items
                .iter()
                .map(|item| {
                    item.as_str()
                        .map(str::trim)
                        .filter(|step| !step.is_empty())
                        .map(str::to_string)
                })
                .collect()
        });
        steps
            .filter(|steps| !steps.is_empty())
            .ok_or_else(|| "expected a list of steps, each a text".into())
    })
}

fn reply<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<ReplyKind>, D::Error> {
    present(deserializer, |value| match value.as_str() {
        Some("yes_no") => Ok(ReplyKind::YesNo),
        Some("score_json") => Ok(ReplyKind::ScoreJson),
        _ => Err(format!("expected \"yes_no\" or \"score_json\", found {value}")),
    })
}

fn score_range<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<(f64, f64)>, D::Error> {
    present(deserializer, |value| {
        match value
            .as_array()
            .map(|ends| ends.iter().map(Value::as_f64).collect::<Vec<_>>())
            .as_deref()
        {
            Some([Some(low), Some(high)]) if low.is_finite() && high.is_finite() && low < high => {
                Ok((*low, *high))
            }
            _ => Err("expected [lowest, highest], two numbers with lowest < highest, e.g. [1, 5]".into()),
        }
    })
}

/// G-Eval's `evaluation_params`: a list, each item named with its place when it is not one.
fn params<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Vec<GEvalParam>>, D::Error> {
    deserializer.deserialize_any(ParamsVisitor)
}

const PARAMS_EXPECTED: &str = "expected a list such as [\"input\", \"actual_output\"]";

struct ParamsVisitor;

impl<'de> Visitor<'de> for ParamsVisitor {
    type Value = Option<Vec<GEvalParam>>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(PARAMS_EXPECTED)
    }

    fn visit_unit<E: Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut params = Vec::new();
        while let Some(Param(param)) = seq.next_element()? {
            if !params.contains(&param) {
                params.push(param);
            }
        }
        if params.is_empty() {
            return Err(A::Error::custom(PARAMS_EXPECTED));
        }
        Ok(Some(params))
    }

    fn visit_bool<E: Error>(self, _: bool) -> Result<Self::Value, E> {
        Err(E::custom(PARAMS_EXPECTED))
    }

    fn visit_i64<E: Error>(self, _: i64) -> Result<Self::Value, E> {
        Err(E::custom(PARAMS_EXPECTED))
    }

    fn visit_u64<E: Error>(self, _: u64) -> Result<Self::Value, E> {
        Err(E::custom(PARAMS_EXPECTED))
    }

    fn visit_f64<E: Error>(self, _: f64) -> Result<Self::Value, E> {
        Err(E::custom(PARAMS_EXPECTED))
    }

    fn visit_str<E: Error>(self, _: &str) -> Result<Self::Value, E> {
        Err(E::custom(PARAMS_EXPECTED))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, _: A) -> Result<Self::Value, A::Error> {
        Err(A::Error::custom(PARAMS_EXPECTED))
    }
}

/// One of G-Eval's params, by its key.
struct Param(GEvalParam);

impl<'de> Deserialize<'de> for Param {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let item = Value::deserialize(deserializer)?;
        item.as_str()
            .and_then(GEvalParam::from_key)
            .map(Param)
            .ok_or_else(|| {
                let known: Vec<&str> = GEvalParam::ALL.iter().map(|param| param.key()).collect();
                D::Error::custom(format!("{item} is not one of {}", known.join(", ")))
            })
    }
}
