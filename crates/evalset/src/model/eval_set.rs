//! The eval set: one `.evalset.json` file, whose cases can be read one at a time.

use super::adk_model::IsDefault;
use super::case::EvalCase;
use serde::de::{self, Deserialize, Deserializer, MapAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Map, Value};
use std::fmt;

/// A set of eval cases: one `.evalset.json` file. Written by hand rather than by
/// `adk_model!` because its cases can be read one at a time (see [`EvalSetVisitor`]).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct EvalSet {
    pub eval_set_id: String,
    pub name: Option<String>,
    pub description: Option<String>,
    pub eval_cases: Vec<EvalCase>,
    pub creation_timestamp: f64,
    /// Keys ADK does not define, kept verbatim so they survive a round trip.
    pub extra: Map<String, Value>,
}

impl Serialize for EvalSet {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("eval_set_id", &self.eval_set_id)?;
        if let Some(name) = &self.name {
            map.serialize_entry("name", name)?;
        }
        if let Some(description) = &self.description {
            map.serialize_entry("description", description)?;
        }
        map.serialize_entry("eval_cases", &self.eval_cases)?;
        if !self.creation_timestamp.is_default() {
            map.serialize_entry("creation_timestamp", &self.creation_timestamp)?;
        }
        for (key, value) in &self.extra {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for EvalSet {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let mut cases = Vec::new();
        let mut collect = |_: usize, mut case: EvalCase| {
            case.shrink_to_fit();
            cases.push(case);
            Ok(())
        };
        let mut eval_set = deserializer.deserialize_map(EvalSetVisitor {
            on_case: &mut collect,
        })?;
        cases.shrink_to_fit();
        eval_set.eval_cases = cases;
        Ok(eval_set)
    }
}

/// Reads an EvalSet's top level (snake_case keys only, as ADK's `EvalSet` has no aliases) and
/// hands each case to `on_case` as soon as it is read, leaving `eval_cases` empty: importing a
/// large file then never holds every parsed case at once. An `Err` from `on_case` stops reading.
pub struct EvalSetVisitor<'a> {
    pub on_case: &'a mut dyn FnMut(usize, EvalCase) -> Result<(), String>,
}

impl<'de> de::DeserializeSeed<'de> for EvalSetVisitor<'_> {
    type Value = EvalSet;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<EvalSet, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for EvalSetVisitor<'_> {
    type Value = EvalSet;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object (EvalSet)")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<EvalSet, A::Error> {
        let mut eval_set = EvalSet::default();
        let (mut has_id, mut has_cases) = (false, false);
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "eval_set_id" => {
                    eval_set.eval_set_id = map.next_value()?;
                    has_id = true;
                }
                "name" => eval_set.name = map.next_value()?,
                "description" => eval_set.description = map.next_value()?,
                "creation_timestamp" => {
                    eval_set.creation_timestamp = map.next_value::<Option<f64>>()?.unwrap_or_default()
                }
                "eval_cases" => {
                    map.next_value_seed(CasesSeed {
                        on_case: &mut *self.on_case,
                    })?;
                    has_cases = true;
                }
                _ => {
                    let value: Value = map.next_value()?;
                    if !value.is_null() {
                        eval_set.extra.insert(key, value);
                    }
                }
            }
        }
        if !has_id {
            return Err(de::Error::missing_field("eval_set_id"));
        }
        if !has_cases {
            return Err(de::Error::missing_field("eval_cases"));
        }
        Ok(eval_set)
    }
}

struct CasesSeed<'a> {
    on_case: &'a mut dyn FnMut(usize, EvalCase) -> Result<(), String>,
}

impl<'de> de::DeserializeSeed<'de> for CasesSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for CasesSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of eval cases")
    }
    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut index = 0;
        while let Some(case) = seq.next_element::<EvalCase>()? {
            (self.on_case)(index, case).map_err(de::Error::custom)?;
            index += 1;
        }
        Ok(())
    }
}
