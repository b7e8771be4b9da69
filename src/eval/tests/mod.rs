//! Tests of the evaluation module, one file per topic, and the call helper they share.

use serde_json::{json, Value};

mod config;
mod rouge;
mod scoring;
mod trajectory;

fn call(name: &str, args: Value) -> Value {
    json!({"name": name, "args": args})
}
