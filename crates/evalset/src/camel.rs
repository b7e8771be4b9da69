//! The models as ADK's web server answers with them: `model_dump(by_alias=True,
//! exclude_none=True)`, camelCase keys for the model's own fields, every field but the unset
//! optional ones (defaults included), and what a field holds as data (a tool's args, session
//! state, unknown keys) exactly as it is. `Camel(&case)` serialises a model so.

use crate::model::adk_model::IsDefault;
use crate::model::case::IntermediateData;
use serde::ser::{Serialize, SerializeMap, SerializeSeq, SerializeTuple, Serializer};
use serde_json::{Map, Value};

/// A value serialised as ADK's web server does.
pub struct Camel<'a, T: ?Sized>(pub &'a T);

impl<T: CamelCase + ?Sized> Serialize for Camel<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize_camel(serializer)
    }
}

/// How a field's value is written in ADK's web server's answers.
pub trait CamelCase {
    fn serialize_camel<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error>;

    /// An unset optional field, which `exclude_none` leaves out.
    fn is_none(&self) -> bool {
        false
    }
}

impl<T: CamelCase> CamelCase for Option<T> {
    fn serialize_camel<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Some(value) => value.serialize_camel(serializer),
            None => serializer.serialize_none(),
        }
    }

    fn is_none(&self) -> bool {
        IsDefault::is_default(self)
    }
}

impl<T: CamelCase> CamelCase for Vec<T> {
    fn serialize_camel<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.len()))?;
        for item in self {
            seq.serialize_element(&Camel(item))?;
        }
        seq.end()
    }
}

impl<T: CamelCase + ?Sized> CamelCase for Box<T> {
    fn serialize_camel<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        (**self).serialize_camel(serializer)
    }
}

impl<A: CamelCase, B: CamelCase> CamelCase for (A, B) {
    fn serialize_camel<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut tuple = serializer.serialize_tuple(2)?;
        tuple.serialize_element(&Camel(&self.0))?;
        tuple.serialize_element(&Camel(&self.1))?;
        tuple.end()
    }
}

/// ADK's union answers as the one form the value is: `{invocationEvents}` when it has events,
/// else the three lists.
impl CamelCase for IntermediateData {
    fn serialize_camel<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        match &self.invocation_events {
            Some(events) => map.serialize_entry("invocationEvents", &Camel(events))?,
            None => {
                map.serialize_entry("toolUses", &Camel(&self.tool_uses))?;
                map.serialize_entry("toolResponses", &Camel(&self.tool_responses))?;
                map.serialize_entry("intermediateResponses", &Camel(&self.intermediate_responses))?;
            }
        }
        for (key, value) in &self.extra {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

/// Data, not models: written as it is.
macro_rules! as_is {
    ($($ty:ty),*) => {$(
        impl CamelCase for $ty {
            fn serialize_camel<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                self.serialize(serializer)
            }
        }
    )*};
}
as_is!(String, f64, bool, Value, Map<String, Value>);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::EvalCase;
    use serde_json::json;

    #[test]
    fn a_case_has_adks_aliases_defaults_and_its_data_as_it_is() {
        let case: EvalCase = serde_json::from_value(json!({
            "eval_id": "c1",
            "conversation": [{"invocation_id": "i1",
                "user_content": {"role": "user", "parts": [{"text": "hi"}]},
                "intermediate_data": {"tool_uses": [{"name": "get_weather", "args": {"city_name": "Oslo"}}]}}],
            "session_input": {"app_name": "a", "user_id": "u", "state": {"some_key": 1}},
            "x_unknown": {"keep_me": true}
        }))
        .unwrap();
        let camel = serde_json::to_value(Camel(&case)).unwrap();
        assert_eq!(
            camel,
            json!({
                "evalId": "c1",
                "conversation": [{"invocationId": "i1",
                    "userContent": {"parts": [{"text": "hi"}], "role": "user"},
                    "intermediateData": {"toolUses": [{"args": {"city_name": "Oslo"}, "name": "get_weather"}],
                        "toolResponses": [], "intermediateResponses": []},
                    "creationTimestamp": 0.0}],
                "sessionInput": {"appName": "a", "userId": "u", "state": {"some_key": 1}},
                "creationTimestamp": 0.0,
                "finalSessionState": {},
                "x_unknown": {"keep_me": true}
            })
        );
    }
}
