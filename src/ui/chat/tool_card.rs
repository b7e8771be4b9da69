//! One tool call in the transcript: name, arguments, and its result and duration once back.

use crate::ui::json_view::JsonView;
use crate::ui::preview;
use leptos::prelude::*;
use serde_json::{Map, Value};

/// A tool call, folded to one line until opened.
#[component]
pub(super) fn ToolCard(
    name: String,
    args: Map<String, Value>,
    result: Option<(Map<String, Value>, u64)>,
    /// The turn is still running, so a missing result may yet come.
    pending: bool,
) -> impl IntoView {
    let failed = result.as_ref().is_some_and(|(r, _)| is_failure(r));
    let duration = match &result {
        Some((_, ms)) => format!("{ms} ms"),
        None if pending => "running…".into(),
        None => "no result".into(),
    };
    view! {
        <details class="tool-card" class:tool-failed=failed>
            <summary>
                <span class="tool-icon" aria-hidden="true">"⚙"</span>
                <span class="tool-name mono">{name}</span>
                <span class="tool-args mono muted small">{preview(&Value::Object(args.clone()).to_string(), 80)}</span>
                <span class="muted small">{if failed { format!("error · {duration}") } else { duration }}</span>
            </summary>
            <h4>"Arguments"</h4>
            <JsonView value=Value::Object(args) />
            {result.map(|(response, _)| view! { <h4>"Result"</h4> <JsonView value=Value::Object(response) /> })}
        </details>
    }
}

/// A failed call's result: Evalstudio's `{"error": …}`, or an MCP result with `isError` set.
fn is_failure(result: &Map<String, Value>) -> bool {
    result.contains_key("error") || result.get("isError") == Some(&Value::Bool(true))
}

#[cfg(test)]
mod tests {
    use super::is_failure;
    use serde_json::json;

    #[test]
    fn errors_and_mcp_error_results_are_failures() {
        let result = |v: serde_json::Value| v.as_object().unwrap().clone();
        assert!(is_failure(&result(json!({"error": "no such city"}))));
        assert!(is_failure(&result(json!({"content": [], "isError": true}))));
        assert!(!is_failure(&result(json!({"content": [], "isError": false}))));
        assert!(!is_failure(&result(json!({"temp_c": 18}))));
    }
}
