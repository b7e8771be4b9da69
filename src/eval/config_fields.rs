//! How the config readers read a field that ADK's models accept in either spelling: a serde
//! derive names the snake_case key and aliases the camelCase one, these readers take a field's
//! value (null counting as absent) with the message a user gets for the wrong type, and
//! [`read`] puts the path of the field as written in front of it.

use serde::de::{DeserializeOwned, Error};
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

/// `T` read from `object` as ADK's readers go: key by key in the order written, so the first
/// wrong one is named; null is absent; a key written in both spellings is read in camelCase, as
/// pydantic reads ADK's models (the alias first), and its snake_case twin is not read at all.
/// `check` sees each key and value before its type is read (an unknown key, a key refused here,
/// a value the type allows but the reader does not) and answers the message after `path.`. An
/// error starts with `path` and the key as written.
pub fn read<T: DeserializeOwned>(
    object: &Map<String, Value>,
    path: &str,
    check: impl Fn(&str, &Value) -> Result<(), String>,
) -> Result<T, String> {
    let read: Vec<(&String, &Value)> = object
        .iter()
        .filter(|(key, value)| !value.is_null() && !has_camel_twin(object, key))
        .collect();
    for &(key, value) in &read {
        check(key, value).map_err(|message| format!("{path}.{message}"))?;
        let alone = Map::from_iter([(key.clone(), value.clone())]);
        deserialize::<T>(alone, path)?;
    }
    let read = read.into_iter().map(|(key, value)| (key.clone(), value.clone()));
    deserialize(read.collect(), path)
}

fn deserialize<T: DeserializeOwned>(object: Map<String, Value>, path: &str) -> Result<T, String> {
    serde_path_to_error::deserialize(Value::Object(object))
        .map_err(|err| format!("{path}.{}: {}", err.path(), err.inner()))
}

/// Whether `key` is snake_case with two or more words and its camelCase spelling is in
/// `object` too, not null.
fn has_camel_twin(object: &Map<String, Value>, key: &str) -> bool {
    let camel = camel_case(key);
    camel != key && object.get(&camel).is_some_and(|value| !value.is_null())
}

/// `max_allowed_invocations` as `maxAllowedInvocations`.
fn camel_case(snake: &str) -> String {
    let mut camel = String::with_capacity(snake.len());
    let mut upper = false;
    for c in snake.chars() {
        match c {
            '_' => upper = true,
            c if upper => {
                camel.push(c.to_ascii_uppercase());
                upper = false;
            }
            c => camel.push(c),
        }
    }
    camel
}

/// A field's value: none when absent or null, else what `read` makes of it (a message saying
/// what was expected, without the field's path).
pub fn present<'de, D: Deserializer<'de>, T>(
    deserializer: D,
    read: impl FnOnce(&Value) -> Result<T, String>,
) -> Result<Option<T>, D::Error> {
    match Value::deserialize(deserializer)? {
        Value::Null => Ok(None),
        value => read(&value).map(Some).map_err(D::Error::custom),
    }
}

pub fn boolean<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<bool>, D::Error> {
    present(deserializer, |value| {
        value
            .as_bool()
            .ok_or_else(|| format!("expected true or false, found {value}"))
    })
}

pub fn text<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    present(deserializer, |value| {
        value
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| format!("expected text, found {value}"))
    })
}

/// A whole number, where a negative one means no limit.
pub fn limit<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<i64>, D::Error> {
    present(deserializer, |value| {
        value
            .as_i64()
            .ok_or_else(|| format!("expected a whole number (-1 for no limit), found {value}"))
    })
}

/// A model's name: text that is not blank, trimmed.
pub fn model_name<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    present(deserializer, |value| match value.as_str().map(str::trim) {
        Some(model) if !model.is_empty() => Ok(model.to_string()),
        _ => Err("expected a model name".into()),
    })
}

/// A whole number ≥ 1, written as an integer or as a float without a fraction (as pydantic
/// accepts it).
pub fn positive_integer<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<usize>, D::Error> {
    present(deserializer, |value| {
        let whole = value.as_u64().or_else(|| {
            value
                .as_f64()
                .filter(|f| f.fract() == 0.0 && *f >= 1.0 && *f <= 1e6)
                .map(|f| f as u64)
        });
        match whole.and_then(|n| usize::try_from(n).ok()) {
            Some(n) if n >= 1 => Ok(n),
            _ => Err(format!("expected a positive integer, found {value}")),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Deserialize, Debug, PartialEq)]
    struct Written {
        #[serde(alias = "numSamples", default, deserialize_with = "positive_integer")]
        num_samples: Option<usize>,
        #[serde(alias = "judgeModel", default, deserialize_with = "model_name")]
        judge_model: Option<String>,
    }

    fn read_written(value: Value) -> Result<Written, String> {
        let refuse_x = |key: &str, _: &Value| match key {
            "x" => Err("x: not here".to_string()),
            _ => Ok(()),
        };
        read(value.as_object().unwrap(), "at", refuse_x)
    }

    #[test]
    fn a_key_in_both_spellings_is_read_in_camel_case_and_null_is_absent() {
        for both in [
            json!({"num_samples": 2, "numSamples": 3}),
            json!({"numSamples": 3, "num_samples": "x"}),
        ] {
            assert_eq!(read_written(both).unwrap().num_samples, Some(3));
        }
        let written =
            read_written(json!({"numSamples": null, "num_samples": 4, "judge_model": null})).unwrap();
        assert_eq!((written.num_samples, written.judge_model), (Some(4), None));
    }

    #[test]
    fn the_first_wrong_key_in_the_order_written_is_named_as_written() {
        assert_eq!(
            read_written(json!({"x": 1, "numSamples": 0})).unwrap_err(),
            "at.x: not here"
        );
        assert_eq!(
            read_written(json!({"numSamples": 0, "x": 1})).unwrap_err(),
            "at.numSamples: expected a positive integer, found 0"
        );
        assert_eq!(
            read_written(json!({"judgeModel": " "})).unwrap_err(),
            "at.judgeModel: expected a model name"
        );
    }
}
