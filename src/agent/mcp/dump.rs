//! An MCP tool's result as the function response a trajectory records, exactly as ADK 2.13
//! records one (`McpTool.run_async`: `_dump_mcp_model(result)` without `resultType`): the
//! whole `CallToolResult` in MCP's camelCase wire names, `_meta` spelled `meta` (except inside
//! the server's own JSON: `structuredContent`, schemas), `isError` always present, absent
//! and null fields left out, and each object's keys in the order of the Python SDK's model
//! fields. So a case captured here reads the same as one ADK captured from the same server.
//! Pure: it works on the result's JSON form; conformance/adk_mcp.py checks it against ADK.

use serde_json::{Map, Value};

/// Key orders of the Python SDK's models (mcp 2.x `mcp.types`), by wire name.
const RESULT_KEYS: &[&str] = &["meta", "content", "structuredContent", "isError"];
const TEXT_KEYS: &[&str] = &["type", "text", "annotations", "meta"];
const BINARY_KEYS: &[&str] = &["type", "data", "mimeType", "annotations", "meta"];
const RESOURCE_KEYS: &[&str] = &["type", "resource", "annotations", "meta"];
const RESOURCE_LINK_KEYS: &[&str] = &[
    "name",
    "title",
    "uri",
    "description",
    "mimeType",
    "size",
    "icons",
    "annotations",
    "meta",
    "type",
];
const RESOURCE_CONTENTS_KEYS: &[&str] = &["uri", "mimeType", "meta", "text", "blob"];
const ANNOTATIONS_KEYS: &[&str] = &["audience", "priority", "lastModified"];

/// Keys whose values the server wrote as free JSON: kept as they are.
const OPAQUE_KEYS: &[&str] = &["_meta", "structuredContent", "inputSchema", "outputSchema"];

/// The function response for a `CallToolResult` given in its wire (JSON) form.
pub fn function_response(result: &Value) -> Map<String, Value> {
    let mut dumped = match model(result, &[]) {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    dumped.remove("resultType");
    dumped
        .entry("content")
        .or_insert_with(|| Value::Array(Vec::new()));
    if !dumped.get("isError").is_some_and(Value::is_boolean) {
        dumped.insert("isError".into(), Value::Bool(false));
    }
    ordered(dumped, RESULT_KEYS)
}

/// A model object: `_meta` renamed, nulls left out, children dumped by what they are, keys in
/// `order` (others after them, as they came).
fn model(value: &Value, order: &[&str]) -> Value {
    let Value::Object(object) = value else {
        return value.clone();
    };
    let mut out = Map::new();
    for (key, item) in object {
        if item.is_null() {
            continue;
        }
        let name = if key == "_meta" { "meta" } else { key.as_str() };
        let dumped = if OPAQUE_KEYS.contains(&key.as_str()) {
            item.clone()
        } else {
            child(key, item)
        };
        out.insert(name.to_string(), dumped);
    }
    Value::Object(ordered(out, order))
}

/// A field's value, dumped as the model it holds.
fn child(key: &str, item: &Value) -> Value {
    match (key, item) {
        ("content", Value::Array(blocks)) => Value::Array(blocks.iter().map(content_block).collect()),
        ("annotations", _) => model(item, ANNOTATIONS_KEYS),
        ("resource", _) => model(item, RESOURCE_CONTENTS_KEYS),
        (_, Value::Array(items)) => Value::Array(items.iter().map(|i| model(i, &[])).collect()),
        (_, Value::Object(_)) => model(item, &[]),
        _ => item.clone(),
    }
}

fn content_block(block: &Value) -> Value {
    let order = match block.get("type").and_then(Value::as_str) {
        Some("text") => TEXT_KEYS,
        Some("image" | "audio") => BINARY_KEYS,
        Some("resource") => RESOURCE_KEYS,
        Some("resource_link") => RESOURCE_LINK_KEYS,
        _ => &[],
    };
    model(block, order)
}

fn ordered(mut map: Map<String, Value>, order: &[&str]) -> Map<String, Value> {
    let mut out = Map::new();
    for key in order {
        if let Some(value) = map.shift_remove(*key) {
            out.insert((*key).to_string(), value);
        }
    }
    out.extend(map);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn dump(wire: Value) -> String {
        Value::Object(function_response(&wire)).to_string()
    }

    #[test]
    fn a_text_result_gets_is_error_and_loses_result_type() {
        assert_eq!(
            dump(json!({"resultType": "complete", "content": [{"type": "text", "text": "hi"}]})),
            r#"{"content":[{"type":"text","text":"hi"}],"isError":false}"#
        );
    }

    #[test]
    fn meta_is_renamed_outside_server_json_and_keys_follow_the_sdk() {
        let wire = json!({
            "isError": true,
            "structuredContent": {"_meta": 3, "n": null},
            "content": [
                {"_meta": {"x": 1}, "annotations": {"priority": 0.5}, "text": "hi", "type": "text"},
                {"mimeType": "image/png", "data": "AAA", "type": "image"},
                {"type": "resource_link", "uri": "file:///a", "name": "a", "description": null}
            ],
            "_meta": {"k": "v"}
        });
        assert_eq!(
            dump(wire),
            concat!(
                r#"{"meta":{"k":"v"},"content":[{"type":"text","text":"hi","annotations":{"priority":0.5},"meta":{"x":1}},"#,
                r#"{"type":"image","data":"AAA","mimeType":"image/png"},"#,
                r#"{"name":"a","uri":"file:///a","type":"resource_link"}],"#,
                r#""structuredContent":{"_meta":3,"n":null},"isError":true}"#
            )
        );
    }

    #[test]
    fn an_empty_result_still_has_content() {
        assert_eq!(dump(json!({})), r#"{"content":[],"isError":false}"#);
    }
}
