//! The demo agent's five tools, a file each. Each is a pure, deterministic function over bundled
//! data (so evals of the demo agent are reproducible) wrapped in a [`Tool`](super::Tool) that
//! reads JSON arguments. Here: what they share (arguments read, results built, text folded,
//! numbers formatted).

pub mod calculate;
pub mod currency;
pub mod orders;
pub mod search;
pub mod weather;

use futures::future::{self, BoxFuture, FutureExt};
use serde_json::{json, Map, Value};

/// Lowercases and strips common Latin accents, so "São Paulo", "SAO PAULO" and "sao paulo" meet.
pub fn fold(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars().flat_map(char::to_lowercase) {
        match c {
            'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' | 'ā' => out.push('a'),
            'ç' | 'ć' | 'č' => out.push('c'),
            'è' | 'é' | 'ê' | 'ë' | 'ē' | 'ę' | 'ě' => out.push('e'),
            'ì' | 'í' | 'î' | 'ï' | 'ī' => out.push('i'),
            'ñ' | 'ń' | 'ň' => out.push('n'),
            'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'ø' | 'ō' | 'ő' => out.push('o'),
            'ù' | 'ú' | 'û' | 'ü' | 'ū' | 'ů' | 'ű' => out.push('u'),
            'ý' | 'ÿ' => out.push('y'),
            'ś' | 'š' => out.push('s'),
            'ź' | 'ż' | 'ž' => out.push('z'),
            'ł' => out.push('l'),
            'ř' => out.push('r'),
            'ß' => out.push_str("ss"),
            'æ' => out.push_str("ae"),
            'œ' => out.push_str("oe"),
            _ => out.push(c),
        }
    }
    out
}

/// Whole numbers become JSON integers so `20` is not echoed back as `20.0`.
pub(crate) fn num_value(x: f64) -> Value {
    if x.fract() == 0.0 && x.abs() < 9.0e15 {
        Value::from(x as i64)
    } else {
        Value::from(x)
    }
}

/// Formats a number for people: no trailing `.0`, at most 10 decimals (hides 0.1 + 0.2 noise).
pub(crate) fn fmt_num(x: f64) -> String {
    let x = round_to(x, 10);
    if x.fract() == 0.0 && x.abs() < 1.0e15 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}

fn round_to(x: f64, decimals: usize) -> f64 {
    // Going through the decimal string avoids overflow of `x * 10^n` for large x.
    format!("{x:.decimals$}").parse().unwrap_or(x)
}

fn str_arg<'a>(args: &'a Map<String, Value>, key: &str) -> Result<&'a str, String> {
    match args.get(key) {
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.trim()),
        Some(Value::String(_)) => Err(format!("argument \"{key}\" must not be empty")),
        Some(_) => Err(format!("argument \"{key}\" must be a string")),
        None => Err(format!("missing argument \"{key}\"")),
    }
}

fn ready(
    result: Result<Map<String, Value>, String>,
) -> BoxFuture<'static, Result<Map<String, Value>, String>> {
    future::ready(result).boxed()
}

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => unreachable!("tool results are built with json!({{..}})"),
    }
}

fn one_string_param(name: &str, description: &str) -> Value {
    json!({
        "type": "object",
        "properties": { name: { "type": "string", "description": description } },
        "required": [name],
    })
}
