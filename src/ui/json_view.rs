//! JSON shown as monospace text with tinted keys, strings and numbers; long strings folded.

use leptos::prelude::*;
use serde_json::Value;

/// Strings longer than this are folded behind "show all".
const FOLD_AT: usize = 240;

#[component]
pub fn JsonView(value: Value) -> impl IntoView {
    let mut out = Vec::new();
    render(&value, 0, &mut out);
    view! { <pre class="json">{out}</pre> }
}

fn render(value: &Value, indent: usize, out: &mut Vec<AnyView>) {
    let pad = |n: usize| "  ".repeat(n);
    match value {
        Value::Null => out.push(view! { <span class="j-null">"null"</span> }.into_any()),
        Value::Bool(b) => out.push(view! { <span class="j-bool">{b.to_string()}</span> }.into_any()),
        Value::Number(n) => out.push(view! { <span class="j-num">{n.to_string()}</span> }.into_any()),
        Value::String(s) => out.push(view! { <JsonString text=s.clone() /> }.into_any()),
        Value::Array(items) if items.is_empty() => out.push("[]".into_any()),
        Value::Object(map) if map.is_empty() => out.push("{}".into_any()),
        Value::Array(items) => {
            out.push("[\n".into_any());
            for (i, item) in items.iter().enumerate() {
                out.push(pad(indent + 1).into_any());
                render(item, indent + 1, out);
                out.push(if i + 1 < items.len() { ",\n" } else { "\n" }.into_any());
            }
            out.push(format!("{}]", pad(indent)).into_any());
        }
        Value::Object(map) => {
            out.push("{\n".into_any());
            for (i, (key, item)) in map.iter().enumerate() {
                let key = serde_json::to_string(key).unwrap_or_default();
                out.push(pad(indent + 1).into_any());
                out.push(view! { <span class="j-key">{key}</span> }.into_any());
                out.push(": ".into_any());
                render(item, indent + 1, out);
                out.push(if i + 1 < map.len() { ",\n" } else { "\n" }.into_any());
            }
            out.push(format!("{}}}", pad(indent)).into_any());
        }
    }
}

#[component]
fn JsonString(text: String) -> impl IntoView {
    let quoted = serde_json::to_string(&text).unwrap_or_default();
    if quoted.chars().count() <= FOLD_AT {
        return view! { <span class="j-str">{quoted}</span> }.into_any();
    }
    let expanded = RwSignal::new(false);
    let short: String = quoted.chars().take(FOLD_AT).collect();
    view! {
        <span class="j-str">{move || if expanded.get() { quoted.clone() } else { format!("{short}…") }}</span>
        " "
        <button class="link-button" on:click=move |_| expanded.update(|e| *e = !*e)>
            {move || if expanded.get() { "show less" } else { "show all" }}
        </button>
    }
    .into_any()
}
