//! `get_order_status`: a fixed table of orders, found by their id however it is written.

use futures::future::BoxFuture;
use serde_json::{json, Map, Value};

use super::{object, one_string_param, ready, str_arg};
use crate::agent::Tool;

/// (order id, status, carrier, ETA or delivery date).
pub const ORDERS: [(&str, &str, Option<&str>, Option<&str>); 10] = [
    ("A1001", "processing", Some("UPS"), Some("2025-07-08")),
    ("A1002", "shipped", Some("FedEx"), Some("2025-07-03")),
    ("A1003", "in transit", Some("DHL"), Some("2025-07-02")),
    ("A1004", "out for delivery", Some("USPS"), Some("2025-06-30")),
    ("A1005", "delivered", Some("UPS"), Some("2025-06-27")),
    ("A1006", "cancelled", None, None),
    ("A1007", "delayed", Some("DHL"), Some("2025-07-10")),
    ("A1008", "returned", Some("UPS"), None),
    ("A1009", "awaiting payment", None, None),
    ("A1010", "delivered", Some("FedEx"), Some("2025-06-25")),
];

/// "a1001", "#A1001" and " A1001 " all name order A1001.
pub fn normalize_order_id(id: &str) -> String {
    id.trim().trim_start_matches('#').trim().to_ascii_uppercase()
}

pub fn get_order_status(order_id: &str) -> Result<Map<String, Value>, String> {
    let id = normalize_order_id(order_id);
    let (id, status, carrier, eta) = ORDERS
        .iter()
        .find(|o| o.0 == id)
        .copied()
        .ok_or_else(|| format!("no order with id \"{order_id}\"; order ids look like A1001"))?;
    Ok(object(
        json!({ "order_id": id, "status": status, "carrier": carrier, "eta": eta }),
    ))
}

pub struct GetOrderStatus;

impl Tool for GetOrderStatus {
    fn name(&self) -> &str {
        "get_order_status"
    }
    fn description(&self) -> &str {
        "Status, carrier and estimated delivery date of a customer's order."
    }
    fn parameters(&self) -> Value {
        one_string_param("order_id", "Order number, e.g. \"A1001\".")
    }
    fn call<'a>(&'a self, args: &'a Map<String, Value>) -> BoxFuture<'a, Result<Map<String, Value>, String>> {
        ready(str_arg(args, "order_id").and_then(get_order_status))
    }
}
