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
    let failed = result.as_ref().is_some_and(|(r, _)| r.contains_key("error"));
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
