//! `convert_currency`: conversions at a fixed snapshot of exchange rates.

use futures::future::BoxFuture;
use serde_json::{json, Map, Value};

use super::{fmt_num, num_value, object, ready, round_to, str_arg};
use crate::agent::Tool;

/// US dollars per unit of each currency: a fixed snapshot, so conversions never change.
pub const USD_PER_UNIT: [(&str, f64); 16] = [
    ("USD", 1.0),
    ("EUR", 1.08),
    ("GBP", 1.27),
    ("JPY", 0.0067),
    ("CNY", 0.138),
    ("CHF", 1.13),
    ("CAD", 0.74),
    ("AUD", 0.66),
    ("INR", 0.012),
    ("MXN", 0.058),
    ("BRL", 0.2),
    ("KRW", 0.00075),
    ("SEK", 0.095),
    ("NZD", 0.61),
    ("SGD", 0.74),
    ("HKD", 0.128),
];

fn usd_per_unit(code: &str) -> Result<f64, String> {
    let upper = code.trim().to_ascii_uppercase();
    USD_PER_UNIT
        .iter()
        .find(|(c, _)| *c == upper)
        .map(|(_, rate)| *rate)
        .ok_or_else(|| {
            format!(
                "unknown currency code \"{code}\"; supported codes are {}",
                USD_PER_UNIT
                    .iter()
                    .map(|(c, _)| *c)
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
}

pub fn convert_currency(amount: f64, from: &str, to: &str) -> Result<Map<String, Value>, String> {
    if !amount.is_finite() {
        return Err("amount must be a finite number".into());
    }
    if amount < 0.0 {
        return Err(format!("amount must not be negative (got {})", fmt_num(amount)));
    }
    let rate = usd_per_unit(from)? / usd_per_unit(to)?;
    let converted = amount * rate;
    if !converted.is_finite() {
        return Err("amount is too large to convert".into());
    }
    Ok(object(json!({
        "amount": num_value(amount),
        "from": from.trim().to_ascii_uppercase(),
        "to": to.trim().to_ascii_uppercase(),
        "rate": round_to(rate, 6),
        "converted": round_to(converted, 2),
    })))
}

/// Models sometimes send numbers as strings ("20"); accept those, reject anything else.
fn amount_arg(args: &Map<String, Value>) -> Result<f64, String> {
    match args.get("amount") {
        Some(Value::Number(n)) => n.as_f64().ok_or_else(|| "amount must be a number".to_string()),
        Some(Value::String(s)) => s
            .trim()
            .parse::<f64>()
            .map_err(|_| format!("amount must be a number, got \"{s}\"")),
        Some(other) => Err(format!("amount must be a number, got {other}")),
        None => Err("missing argument \"amount\"".into()),
    }
}

pub struct ConvertCurrency;

impl Tool for ConvertCurrency {
    fn name(&self) -> &str {
        "convert_currency"
    }
    fn description(&self) -> &str {
        "Convert an amount between currencies (ISO 4217 codes such as USD, EUR, GBP, JPY) at fixed rates."
    }
    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "amount": { "type": "number", "description": "Amount to convert; not negative." },
                "from": { "type": "string", "description": "ISO code of the source currency, e.g. \"EUR\"." },
                "to": { "type": "string", "description": "ISO code of the target currency, e.g. \"USD\"." },
            },
            "required": ["amount", "from", "to"],
        })
    }
    fn call<'a>(&'a self, args: &'a Map<String, Value>) -> BoxFuture<'a, Result<Map<String, Value>, String>> {
        let result = (|| convert_currency(amount_arg(args)?, str_arg(args, "from")?, str_arg(args, "to")?))();
        ready(result)
    }
}
