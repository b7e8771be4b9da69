//! JSON values written as Python's `repr` writes the dicts and lists they parse to: ADK puts
//! tool args and responses into the simulator's prompt that way (`f"{part.function_call.args}"`).

use serde_json::Value;

/// `repr()` of the Python value `json.loads` would make of `value`.
pub fn python_repr(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value);
    out
}

fn write_value(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("None"),
        Value::Bool(true) => out.push_str("True"),
        Value::Bool(false) => out.push_str("False"),
        Value::Number(number) => match (number.as_i64(), number.as_u64(), number.as_f64()) {
            (Some(int), _, _) => out.push_str(&int.to_string()),
            (_, Some(int), _) => out.push_str(&int.to_string()),
            (_, _, Some(float)) => out.push_str(&float_repr(float)),
            _ => out.push_str(&number.to_string()),
        },
        Value::String(text) => out.push_str(&str_repr(text)),
        Value::Array(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push_str(", ");
                }
                write_value(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (index, (key, item)) in map.iter().enumerate() {
                if index > 0 {
                    out.push_str(", ");
                }
                out.push_str(&str_repr(key));
                out.push_str(": ");
                write_value(out, item);
            }
            out.push('}');
        }
    }
}

/// Python's float repr: the shortest text that reads back, with `.0` on whole numbers and
/// scientific notation from 1e16 up and below 1e-4.
pub(crate) fn float_repr(value: f64) -> String {
    if value.is_nan() {
        return "nan".into();
    }
    if value.is_infinite() {
        return if value > 0.0 { "inf" } else { "-inf" }.into();
    }
    let magnitude = value.abs();
    if magnitude != 0.0 && !(1e-4..1e16).contains(&magnitude) {
        // Rust writes `1e16` and `1.5e-5`; Python `1e+16` and `1.5e-05`.
        let text = format!("{value:e}");
        let (mantissa, exponent) = text.split_once('e').expect("`{:e}` always writes an exponent");
        let (sign, digits) = match exponent.strip_prefix('-') {
            Some(digits) => ('-', digits),
            None => ('+', exponent),
        };
        return format!("{mantissa}e{sign}{digits:0>2}");
    }
    let text = value.to_string();
    if text.contains('.') {
        text
    } else {
        format!("{text}.0")
    }
}

/// Python's str repr: single quotes unless the text has a single quote and no double one.
pub fn str_repr(text: &str) -> String {
    let quote = if text.contains('\'') && !text.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(text.len() + 2);
    out.push(quote);
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_read_as_python_writes_them() {
        let value = json!({"city": "Paris", "n": 1, "x": 4.0, "ok": true, "none": null, "l": ["it's", "a\"b", "a'b\"c"]});
        assert_eq!(
            python_repr(&value),
            r#"{'city': 'Paris', 'n': 1, 'x': 4.0, 'ok': True, 'none': None, 'l': ["it's", 'a"b', 'a\'b"c']}"#
        );
        assert_eq!(python_repr(&json!(21.5)), "21.5");
        assert_eq!(python_repr(&json!(1e16)), "1e+16");
        assert_eq!(python_repr(&json!(0.00001)), "1e-05");
        assert_eq!(python_repr(&json!(0.0001)), "0.0001");
        assert_eq!(python_repr(&json!(-0.0)), "-0.0");
        assert_eq!(
            python_repr(&json!("tab\tnew\nline\u{1}")),
            r"'tab\tnew\nline\x01'"
        );
    }
}
