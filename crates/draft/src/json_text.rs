//! JSON as a person types it into a field: errors say the line and column, as the editor shows
//! them beside the field.

use serde_json::{Map, Value};
use std::fmt;

/// Why a JSON field does not parse, at 1-based `line` and `column` of the field's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonTextError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl fmt::Display for JsonTextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}: {}", self.line, self.column, self.message)
    }
}

/// Any JSON value.
pub fn parse_json(text: &str) -> Result<Value, JsonTextError> {
    serde_json::from_str(text).map_err(|err| {
        let message = err.to_string();
        // serde_json appends " at line L column C"; the position is given separately.
        let message = match message.rfind(" at line ") {
            Some(at) => message[..at].to_string(),
            None => message,
        };
        JsonTextError {
            line: err.line().max(1),
            column: err.column().max(1),
            message,
        }
    })
}

/// A JSON object, as tool args, tool responses and session state must be.
pub fn parse_json_object(text: &str) -> Result<Map<String, Value>, JsonTextError> {
    match parse_json(text)? {
        Value::Object(map) => Ok(map),
        other => Err(JsonTextError {
            line: 1,
            column: 1,
            message: format!("expected a JSON object `{{...}}`, found {}", kind(&other)),
        }),
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
