//! Tests of the demo agent's five tools and their registry: weather, currency, orders, help, calculator.

use serde_json::json;

use super::*;
use crate::agent::tools::calculate::{self, evaluate};
use crate::agent::tools::{currency, orders, search, weather};

#[test]
fn registry_lists_five_tools_in_name_order_with_declarations() {
    let registry = ToolRegistry::demo();
    let names: Vec<&str> = registry.iter().map(|t| t.name()).collect();
    assert_eq!(
        names,
        [
            "calculate",
            "convert_currency",
            "get_order_status",
            "get_weather",
            "search_knowledge_base"
        ]
    );
    let declarations = registry.declarations();
    assert_eq!(declarations.len(), 5);
    assert_eq!(declarations[3]["type"], "function");
    assert_eq!(declarations[3]["function"]["name"], "get_weather");
    assert_eq!(
        declarations[3]["function"]["parameters"]["required"],
        json!(["city"])
    );
    assert_eq!(
        declarations[1]["function"]["parameters"]["required"],
        json!(["amount", "from", "to"])
    );
    assert!(registry.get("nope").is_none());
}

#[tokio::test]
async fn weather_lookup_is_case_and_accent_insensitive() {
    let paris = call("get_weather", json!({"city": "paris"})).await.unwrap();
    assert_eq!(
        Value::Object(paris),
        json!({"city": "Paris", "temperature_c": 18, "condition": "cloudy", "humidity_pct": 72})
    );
    for spelling in [
        "São Paulo",
        "Sao Paulo",
        "SAO PAULO",
        "  são   paulo ",
        "Sao Paulo, Brazil",
    ] {
        let result = weather::get_weather(spelling).unwrap();
        assert_eq!(result["city"], "São Paulo", "{spelling}");
    }
    assert_eq!(weather::get_weather("zurich").unwrap()["city"], "Zürich");
    assert_eq!(weather::get_weather("NYC").unwrap()["city"], "New York");
}

#[tokio::test]
async fn weather_errors_are_clear() {
    let err = call("get_weather", json!({"city": "Atlantis"}))
        .await
        .unwrap_err();
    assert!(err.starts_with("unknown city \"Atlantis\""), "{err}");
    assert!(err.contains("Paris"), "lists the known cities: {err}");
    assert_eq!(
        call("get_weather", json!({})).await.unwrap_err(),
        "missing argument \"city\""
    );
    assert_eq!(
        call("get_weather", json!({"city": 3})).await.unwrap_err(),
        "argument \"city\" must be a string"
    );
}

#[tokio::test]
async fn currency_conversion_uses_fixed_rates_rounded_to_cents() {
    let result = call(
        "convert_currency",
        json!({"amount": 20, "from": "eur", "to": "Usd"}),
    )
    .await
    .unwrap();
    assert_eq!(
        Value::Object(result),
        json!({"amount": 20, "from": "EUR", "to": "USD", "rate": 1.08, "converted": 21.6})
    );
    let yen = currency::convert_currency(100.0, "USD", "JPY").unwrap();
    assert_eq!(yen["converted"], json!(14925.37));
    assert_eq!(
        currency::convert_currency(0.0, "GBP", "INR").unwrap()["converted"],
        json!(0.0)
    );
    // Numbers sent as strings are accepted.
    let from_string = call(
        "convert_currency",
        json!({"amount": "12.5", "from": "CHF", "to": "CAD"}),
    )
    .await
    .unwrap();
    assert_eq!(from_string["converted"], json!(19.09));
    for code in ["USD", "EUR", "GBP", "JPY", "CNY", "CHF", "CAD", "AUD", "INR"] {
        assert!(currency::convert_currency(1.0, code, "USD").is_ok(), "{code}");
    }
}

#[tokio::test]
async fn currency_conversion_rejects_bad_input() {
    let unknown = currency::convert_currency(1.0, "EUR", "XYZ").unwrap_err();
    assert!(unknown.starts_with("unknown currency code \"XYZ\""), "{unknown}");
    let negative = call(
        "convert_currency",
        json!({"amount": -5, "from": "USD", "to": "EUR"}),
    )
    .await
    .unwrap_err();
    assert_eq!(negative, "amount must not be negative (got -5)");
    let text = call(
        "convert_currency",
        json!({"amount": "lots", "from": "USD", "to": "EUR"}),
    )
    .await
    .unwrap_err();
    assert_eq!(text, "amount must be a number, got \"lots\"");
    let missing = call("convert_currency", json!({"amount": 1, "to": "EUR"}))
        .await
        .unwrap_err();
    assert_eq!(missing, "missing argument \"from\"");
    assert!(currency::convert_currency(f64::MAX, "GBP", "KRW").is_err());
}

#[tokio::test]
async fn order_status_accepts_common_spellings() {
    let expected =
        json!({"order_id": "A1001", "status": "processing", "carrier": "UPS", "eta": "2025-07-08"});
    for id in ["A1001", "a1001", "#A1001", " #a1001 "] {
        let result = call("get_order_status", json!({"order_id": id})).await.unwrap();
        assert_eq!(Value::Object(result), expected, "{id}");
    }
    assert_eq!(orders::get_order_status("A1006").unwrap()["carrier"], Value::Null);
    let err = orders::get_order_status("A9999").unwrap_err();
    assert_eq!(err, "no order with id \"A9999\"; order ids look like A1001");
}

#[tokio::test]
async fn knowledge_base_ranks_the_password_doc_first() {
    let result = call(
        "search_knowledge_base",
        json!({"query": "How do I reset my password?"}),
    )
    .await
    .unwrap();
    let results = result["results"].as_array().unwrap();
    assert!(!results.is_empty() && results.len() <= 3);
    assert_eq!(results[0]["id"], "kb-password-reset");
    assert_eq!(results[0]["title"], "Password reset");
    assert!(results[0]["text"].as_str().unwrap().contains("Forgot password"));
    let scores: Vec<f64> = results.iter().map(|r| r["score"].as_f64().unwrap()).collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
    assert!(scores.iter().all(|s| *s > 0.0));
    // Rounded to 4 decimals.
    assert_eq!((scores[0] * 10_000.0).round() / 10_000.0, scores[0]);
}

#[test]
fn knowledge_base_ranking_matches_the_topic() {
    let top = |q: &str| search::bm25_search(q, 3).first().map(|(doc, _)| doc.id);
    assert_eq!(top("what is your return policy"), Some("kb-returns"));
    assert_eq!(
        top("how long does international shipping take"),
        Some("kb-international-shipping")
    );
    assert_eq!(
        top("which payment methods do you accept"),
        Some("kb-payment-methods")
    );
    assert_eq!(top("how do I delete my account"), Some("kb-account-deletion"));
    assert_eq!(top("store opening hours on sunday"), Some("kb-store-hours"));
    assert_eq!(top("where is my order"), Some("kb-order-tracking"));
    assert_eq!(top("warranty claim"), Some("kb-warranty"));
}

#[test]
fn knowledge_base_without_match_is_empty() {
    assert_eq!(
        Value::Object(search::search_knowledge_base("zebra quantum")),
        json!({"results": []})
    );
    // Only stopwords: nothing to match on.
    assert_eq!(
        Value::Object(search::search_knowledge_base("what is the")),
        json!({"results": []})
    );
    assert_eq!(
        search::tokenize("How do I RESET my password?"),
        ["reset", "password"]
    );
}

#[test]
fn knowledge_base_documents_are_well_formed() {
    assert!(DOCS.len() >= 20);
    let mut ids: Vec<&str> = DOCS.iter().map(|d| d.id).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), DOCS.len(), "ids are unique");
    for doc in DOCS.iter() {
        let sentences = doc.text.matches(". ").count() + 1;
        assert!((2..=4).contains(&sentences), "{}: {sentences} sentences", doc.id);
        assert!(doc.text.ends_with('.'), "{}", doc.id);
    }
}

#[test]
fn calculator_follows_precedence_and_associativity() {
    let cases = [
        ("1 + 2 * 3", 7.0),
        ("12*(3+4)", 84.0),
        ("(1 + 2) * 3", 9.0),
        ("10 - 4 - 3", 3.0),
        ("48 / 4 / 2", 6.0),
        ("2^10", 1024.0),
        ("2^3^2", 512.0),
        ("2**3", 8.0),
        ("-2^2", -4.0),
        ("(-2)^2", 4.0),
        ("2^-1", 0.5),
        ("-(3 - 5)", 2.0),
        ("--3", 3.0),
        ("2 * -3", -6.0),
        ("1.5 + .25", 1.75),
        ("7 / 2", 3.5),
        ("6 × 7 ÷ 2", 21.0),
    ];
    for (expression, expected) in cases {
        assert_eq!(evaluate(expression), Ok(expected), "{expression}");
    }
}

#[test]
fn calculator_errors_carry_positions() {
    let err = |e: &str| evaluate(e).unwrap_err();
    assert_eq!(err("1 / 0").to_string(), "division by zero at position 3");
    assert_eq!(err("2 + (3 - 3) / (1 - 1)").position, 13);
    assert_eq!(err("2+*3").to_string(), "unexpected '*' at position 3");
    assert_eq!(err("(1+2").to_string(), "unclosed '(' at position 1");
    assert_eq!(err("1+2)").to_string(), "unexpected ')' at position 4");
    assert_eq!(err("2 3").to_string(), "unexpected '3' at position 3");
    assert_eq!(
        err("1.2.3").to_string(),
        "malformed number \"1.2.3\" at position 1"
    );
    assert_eq!(err("").to_string(), "empty expression at position 1");
    assert_eq!(
        err("4 +").to_string(),
        "unexpected end of expression at position 4"
    );
    assert_eq!(
        err("10^400").to_string(),
        "result is not a finite number at position 3"
    );
    assert_eq!(err("(-8)^0.5").message, "result is not a finite number");
    assert_eq!(err("x + 1").to_string(), "unexpected 'x' at position 1");
    assert_eq!(err(&"(".repeat(500)).message, "expression is nested too deeply");
}

#[tokio::test]
async fn calculate_tool_returns_expression_and_result() {
    let result = call("calculate", json!({"expression": "12*(3+4)"}))
        .await
        .unwrap();
    assert_eq!(
        Value::Object(result),
        json!({"expression": "12*(3+4)", "result": 84})
    );
    assert_eq!(calculate::calculate("0.1 + 0.2").unwrap()["result"], json!(0.3));
    assert_eq!(
        calculate::calculate("1/0").unwrap_err(),
        "division by zero at position 2"
    );
}
