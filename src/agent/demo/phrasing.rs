//! The demo agent's answers: one sentence (or passage) per tool call from the tool's actual
//! result, and the replies that need no tool.

use serde_json::{Map, Value};

use super::intents::Reply;
use crate::agent::tools::fmt_num;

const CAPABILITIES: &str =
    "I can check the weather, convert currencies, look up orders, search the help center and do arithmetic.";

/// The text of a reply that needs no tool.
pub(super) fn reply_text(reply: Reply) -> String {
    match reply {
        Reply::WhichCity => {
            "Which city would you like the weather for? I know cities such as Paris, London, Tokyo and New York."
                .into()
        }
        Reply::Greeting => format!("Hi! {CAPABILITIES} Try \"What's the weather in Paris?\""),
        Reply::Thanks => "You're welcome!".into(),
        Reply::CannotHelp => format!("I can't help with that. {CAPABILITIES}"),
    }
}

/// One sentence (or passage) per tool call, from the tool's actual result.
pub(super) fn describe(
    tool: &str,
    args: &Map<String, Value>,
    result: &Result<Map<String, Value>, String>,
) -> String {
    let r = match result {
        Ok(r) => r,
        Err(error) => {
            let what = match tool {
                "get_weather" => format!("get the weather for {}", text_of(args, "city")),
                "convert_currency" => format!(
                    "convert {} {} to {}",
                    text_of(args, "amount"),
                    text_of(args, "from"),
                    text_of(args, "to")
                ),
                "get_order_status" => format!("look up order {}", text_of(args, "order_id")),
                "calculate" => format!("calculate {}", text_of(args, "expression")),
                "search_knowledge_base" => "search the help center".to_string(),
                other => format!("use {other}"),
            };
            return format!("Sorry, I couldn't {what}: {error}.");
        }
    };
    match tool {
        "get_weather" => format!(
            "It is {} °C and {} in {}.",
            text_of(r, "temperature_c"),
            text_of(r, "condition"),
            text_of(r, "city")
        ),
        "convert_currency" => format!(
            "{} {} is {:.2} {}.",
            text_of(r, "amount"),
            text_of(r, "from"),
            r.get("converted").and_then(Value::as_f64).unwrap_or_default(),
            text_of(r, "to")
        ),
        "get_order_status" => describe_order(r),
        "calculate" => format!("{} = {}.", text_of(r, "expression"), text_of(r, "result")),
        "search_knowledge_base" => {
            let top = r
                .get("results")
                .and_then(Value::as_array)
                .and_then(|results| results.first());
            match top.and_then(Value::as_object) {
                Some(doc) => format!(
                    "According to our help center article \"{}\": {}",
                    text_of(doc, "title"),
                    text_of(doc, "text")
                ),
                None => "I couldn't find anything about that in our help center.".to_string(),
            }
        }
        other => format!("{other} returned {}.", Value::Object(r.clone())),
    }
}

fn describe_order(r: &Map<String, Value>) -> String {
    let id = text_of(r, "order_id");
    let status = text_of(r, "status");
    let carrier = r.get("carrier").and_then(Value::as_str);
    let eta = r.get("eta").and_then(Value::as_str);
    let mut sentence = match status.as_str() {
        "processing" => format!("Order {id} is being processed"),
        "shipped" => format!("Order {id} has shipped"),
        "delivered" | "cancelled" | "returned" => format!("Order {id} was {status}"),
        _ => format!("Order {id} is {status}"),
    };
    if let Some(carrier) = carrier {
        let preposition = match status.as_str() {
            "delivered" => "by",
            "returned" => "via",
            _ => "with",
        };
        sentence.push_str(&format!(" {preposition} {carrier}"));
    }
    if let Some(eta) = eta {
        if status == "delivered" {
            sentence.push_str(&format!(" on {eta}"));
        } else {
            sentence.push_str(&format!(" and should arrive by {eta}"));
        }
    }
    sentence.push('.');
    sentence
}

/// A result field as text; numbers as the tools format them.
fn text_of(map: &Map<String, Value>, key: &str) -> String {
    match map.get(key) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.as_f64().map_or_else(|| n.to_string(), fmt_num),
        Some(other) => other.to_string(),
        None => String::new(),
    }
}
