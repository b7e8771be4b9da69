//! JSON written as Python's `json.dumps` writes the values `json.loads` makes: ADK's
//! hallucination and multi-turn prompts carry tool calls that way. It differs from serde_json
//! in escaping every non-ASCII character (`\uXXXX`, surrogate pairs above the BMP), in writing
//! floats as Python's `repr` does (`1e+16`), and in the `", "` and `": "` separators.

use crate::eval::simulator::python_repr::float_repr;
use serde_json::Value;

/// `json.dumps(value)`: one line, `", "` between items, `": "` after keys.
pub fn dumps(value: &Value) -> String {
    let mut out = String::new();
    write(&mut out, value, None, 0);
    out
}

/// `json.dumps(value, indent=2)`.
pub fn dumps_indented(value: &Value) -> String {
    let mut out = String::new();
    write(&mut out, value, Some(2), 0);
    out
}

fn write(out: &mut String, value: &Value, indent: Option<usize>, depth: usize) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(flag) => out.push_str(if *flag { "true" } else { "false" }),
        Value::Number(number) => match (number.as_i64(), number.as_u64(), number.as_f64()) {
            (Some(int), _, _) => out.push_str(&int.to_string()),
            (_, Some(int), _) => out.push_str(&int.to_string()),
            (_, _, Some(float)) => out.push_str(&float_json(float)),
            _ => out.push_str(&number.to_string()),
        },
        Value::String(text) => write_str(out, text),
        Value::Array(items) => {
            if items.is_empty() {
                out.push_str("[]");
                return;
            }
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                separate(out, index, indent, depth + 1);
                write(out, item, indent, depth + 1);
            }
            close(out, indent, depth);
            out.push(']');
        }
        Value::Object(map) => {
            if map.is_empty() {
                out.push_str("{}");
                return;
            }
            out.push('{');
            for (index, (key, item)) in map.iter().enumerate() {
                separate(out, index, indent, depth + 1);
                write_str(out, key);
                out.push_str(": ");
                write(out, item, indent, depth + 1);
            }
            close(out, indent, depth);
            out.push('}');
        }
    }
}

/// What goes before an item: `, ` inline; a comma (after the first), a newline and the
/// indentation when indented.
fn separate(out: &mut String, index: usize, indent: Option<usize>, depth: usize) {
    match indent {
        None if index > 0 => out.push_str(", "),
        None => {}
        Some(width) => {
            if index > 0 {
                out.push(',');
            }
            out.push('\n');
            out.push_str(&" ".repeat(width * depth));
        }
    }
}

fn close(out: &mut String, indent: Option<usize>, depth: usize) {
    if let Some(width) = indent {
        out.push('\n');
        out.push_str(&" ".repeat(width * depth));
    }
}

/// `float.__repr__`, with JSON's names for what JSON cannot hold (as `allow_nan` writes them).
fn float_json(value: f64) -> String {
    if value.is_nan() {
        "NaN".into()
    } else if value.is_infinite() {
        if value > 0.0 { "Infinity" } else { "-Infinity" }.into()
    } else {
        float_repr(value)
    }
}

/// A JSON string with `ensure_ascii`: the short escapes JSON has, `\u00XX` for the other
/// control characters, `\uXXXX` (a surrogate pair above U+FFFF) for everything not ASCII.
fn write_str(out: &mut String, text: &str) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if c.is_ascii() && !c.is_ascii_control() => out.push(c),
            c => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_are_written_as_python_json_dumps_writes_them() {
        let value = json!({"city": "Zürich", "n": 1, "x": 4.0, "big": 1e16, "ok": true, "none": null,
            "l": ["a\"b", "\u{1}\u{7f}", "😀"], "empty": {}, "nothing": []});
        assert_eq!(
            dumps(&value),
            r#"{"city": "Z\u00fcrich", "n": 1, "x": 4.0, "big": 1e+16, "ok": true, "none": null, "l": ["a\"b", "\u0001\u007f", "\ud83d\ude00"], "empty": {}, "nothing": []}"#
        );
        assert_eq!(
            dumps_indented(&json!([{"name": "f", "args": {"a": [1, 2]}, "e": []}])),
            "[\n  {\n    \"name\": \"f\",\n    \"args\": {\n      \"a\": [\n        1,\n        2\n      ]\n    },\n    \"e\": []\n  }\n]"
        );
    }
}
