//! Reading a case for the metrics computed from each turn's outcome alone (tool trajectory,
//! ROUGE, trajectory share, tool used, ADK's informational efficiency metrics): what they read
//! is parsed, everything else skimmed (see [`super::skim`]). A case reads lean exactly when it
//! parses (a key serde_json reserves aside, refused on the safe side as by the skim), several
//! times faster and into a fraction of the memory.
//!
//! The case keeps its eval_id and its conversation's turns. Each turn keeps its final response,
//! its timings and its steps: `tool_uses` (each call's name and arguments) and whole
//! `invocation_events`. Every other field is left at its default.

use super::skim::OptionOf;
use crate::model::case::{EvalCase, IntermediateData, Invocation};
use crate::model::genai::FunctionCall;
use serde::de::{Deserialize, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use std::fmt;
use std::marker::PhantomData;

/// Parses one case's JSON keeping only what the module says.
pub fn parse_case_lean(text: &str) -> Result<EvalCase, serde_json::Error> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let case = EvalCase::lean(&mut deserializer)?;
    deserializer.end()?;
    Ok(case)
}

/// A type read keeping only some of its fields, through the `Deserializer` calls its own
/// `Deserialize` makes.
trait Lean: Sized {
    fn lean<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error>;
}

struct LeanSeed<T>(PhantomData<T>);

impl<'de, T: Lean> DeserializeSeed<'de> for LeanSeed<T> {
    type Value = T;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<T, D::Error> {
        T::lean(deserializer)
    }
}

impl<T: Lean> Lean for Option<T> {
    fn lean<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        OptionOf(LeanSeed::<T>(PhantomData)).deserialize(deserializer)
    }
}

impl<T: Lean> Lean for Vec<T> {
    fn lean<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_seq(LeanVec(PhantomData))
    }
}

struct LeanVec<T>(PhantomData<T>);

impl<'de, T: Lean> Visitor<'de> for LeanVec<T> {
    type Value = Vec<T>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a sequence")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
        let mut values = Vec::new();
        while let Some(value) = seq.next_element_seed(LeanSeed::<T>(PhantomData))? {
            values.push(value);
        }
        Ok(values)
    }
}

/// Reads a field's value whole into `field`, as its model does (null leaves the default),
/// answering whether it was set.
fn parsed<'de, A: MapAccess<'de>, T: Deserialize<'de> + Default>(
    map: &mut A,
    field: &mut T,
) -> Result<Option<bool>, A::Error> {
    let value = map.next_value::<Option<T>>()?;
    let set = value.is_some();
    *field = value.unwrap_or_default();
    Ok(Some(set))
}

/// Reads a field's value lean into `field`, as [`parsed`] does whole.
fn lean<'de, A: MapAccess<'de>, T: Lean + Default>(
    map: &mut A,
    field: &mut T,
) -> Result<Option<bool>, A::Error> {
    let value = map.next_value_seed(LeanSeed::<Option<T>>(PhantomData))?;
    let set = value.is_some();
    *field = value.unwrap_or_default();
    Ok(Some(set))
}

/// Reads a model lean: the fields named are read by `parsed` or `lean` (a key given twice
/// counts the last time, as in parsing), the others skimmed by the model's own `skim_map`.
macro_rules! lean_model {
    ($name:ident { $($names:pat => $field:ident by $read:ident),* $(,)? }) => {
        impl Lean for $name {
            fn lean<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                struct LeanVisitor;
                impl<'de> Visitor<'de> for LeanVisitor {
                    type Value = $name;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        f.write_str(concat!("an object (", stringify!($name), ")"))
                    }
                    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<$name, A::Error> {
                        let mut kept = $name::default();
                        $name::skim_map(map, &mut |name, map| match name {
                            $( $names => $read(map, &mut kept.$field), )*
                            _ => Ok(None),
                        })?;
                        Ok(kept)
                    }
                }
                deserializer.deserialize_map(LeanVisitor)
            }
        }
    };
}

lean_model!(EvalCase {
    "eval_id" | "evalId" => eval_id by parsed,
    "conversation" => conversation by lean,
});

lean_model!(Invocation {
    "final_response" | "finalResponse" => final_response by parsed,
    "intermediate_data" | "intermediateData" => intermediate_data by lean,
    "duration" => duration by parsed,
    "model_duration" | "modelDuration" => model_duration by parsed,
    "tool_duration" | "toolDuration" => tool_duration by parsed,
});

lean_model!(IntermediateData {
    "tool_uses" | "toolUses" => tool_uses by lean,
    "invocation_events" | "invocationEvents" => invocation_events by parsed,
});

lean_model!(FunctionCall {
    "name" => name by parsed,
    "args" => args by parsed,
});
