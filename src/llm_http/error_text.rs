//! Error text for people: the causes under a transport error, the message inside a server's
//! error body, one-line snippets, durations as settings are written.

use std::time::Duration;

use serde_json::Value;

/// How much of a server's error body goes into an error message.
const MAX_SNIPPET: usize = 300;

/// The causes under reqwest's own message (which only repeats the URL), most specific last.
pub(crate) fn causes(e: &(dyn std::error::Error + 'static)) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut source = e.source();
    while let Some(err) = source {
        let text = err.to_string();
        if !text.is_empty() && !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        source = err.source();
    }
    if parts.is_empty() {
        e.to_string()
    } else {
        parts.join(": ")
    }
}

/// The message of an error body: OpenAI's `{"error": {"message"}}`, a plain `{"error": "..."}`,
/// `{"message"}`/`{"detail"}`, or the text itself, shortened.
pub(crate) fn server_message(body: &str) -> String {
    let body = body.trim();
    if body.is_empty() {
        return String::new();
    }
    let text = match serde_json::from_str::<Value>(body) {
        Ok(value) => ["error", "message", "detail"]
            .iter()
            .find_map(|k| value.get(*k).filter(|v| !v.is_null()))
            .map_or_else(|| value.to_string(), error_text),
        Err(_) => body.to_string(),
    };
    snippet(&text)
}

pub(crate) fn error_text(error: &Value) -> String {
    match error {
        Value::String(s) => s.clone(),
        Value::Object(map) => match map.get("message").and_then(Value::as_str) {
            Some(message) => message.to_string(),
            None => error.to_string(),
        },
        other => other.to_string(),
    }
}

/// At most `MAX_SNIPPET` characters, on one line.
pub(crate) fn snippet(text: &str) -> String {
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= MAX_SNIPPET {
        one_line
    } else {
        let cut: String = one_line.chars().take(MAX_SNIPPET).collect();
        format!("{cut}…")
    }
}

pub(crate) fn fmt_duration(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{} ms", d.as_millis())
    }
}
