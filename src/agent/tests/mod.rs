//! Tests of the demo agent and its tools, one file per topic, and the tool-call helpers they share.

use serde_json::{Map, Value};

use super::*;

mod demo_tools;
mod planner;
mod turns;

fn args(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => panic!("not an object"),
    }
}

async fn call(name: &str, value: Value) -> Result<Map<String, Value>, String> {
    let registry = ToolRegistry::demo();
    let tool = registry.get(name).unwrap_or_else(|| panic!("no tool {name}"));
    let args = args(value);
    tool.call(&args).await
}
