//! How the config readers read a field that ADK's models accept in either spelling: a serde
//! derive names the snake_case key and aliases the camelCase one, these readers take a field's
//! value (null counting as absent) with the message a user gets for the wrong type, and
//! [`read`] puts the path of the field as written in front of it.

use serde::de::{DeserializeOwned, Error};
use serde::{Deserialize, Deserializer};
use serde_json::Value;

/// `T` read from `value`; an error starts with `path` and the field's path as written in it.
pub fn read<T: DeserializeOwned>(value: &Value, path: &str) -> Result<T, String> {
    serde_path_to_error::deserialize(value).map_err(|err| format!("{path}.{}: {}", err.path(), err.inner()))
}

/// A field's value: none when absent or null, else what `read` makes of it (a message saying
/// what was expected, without the field's path).
fn present<'de, D: Deserializer<'de>, T>(
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

/// Any value but null, kept as it is to be checked by the reader.
pub fn any<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    present(deserializer, |value| Ok(value.clone()))
}
