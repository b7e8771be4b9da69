use serde_json::{json, Map, Value};

use super::test_support::{calls, conversation, final_text, run};
use super::tools::{self, evaluate};
use super::*;

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

/// Events with durations zeroed, for comparing runs.
fn without_durations(events: &[AgentEvent]) -> Vec<AgentEvent> {
    events
        .iter()
        .cloned()
        .map(|e| match e {
            AgentEvent::ToolResult {
                id, name, response, ..
            } => AgentEvent::ToolResult {
                id,
                name,
                response,
                duration_ms: 0,
            },
            other => other,
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Registry and events

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

#[test]
fn events_serialize_with_a_type_tag() {
    let event = AgentEvent::ToolCall {
        id: "call_0_0".into(),
        name: "get_weather".into(),
        args: args(json!({"city": "Paris"})),
    };
    let value = serde_json::to_value(&event).unwrap();
    assert_eq!(
        value,
        json!({"type": "tool_call", "id": "call_0_0", "name": "get_weather", "args": {"city": "Paris"}})
    );
    let back: AgentEvent = serde_json::from_value(value).unwrap();
    assert_eq!(back, event);
    let usage = serde_json::to_value(AgentEvent::Usage {
        prompt_tokens: 1,
        completion_tokens: 2,
    })
    .unwrap();
    assert_eq!(usage["type"], "usage");
}

// ---------------------------------------------------------------------------------------------
// Tools

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
        let result = tools::get_weather(spelling).unwrap();
        assert_eq!(result["city"], "São Paulo", "{spelling}");
    }
    assert_eq!(tools::get_weather("zurich").unwrap()["city"], "Zürich");
    assert_eq!(tools::get_weather("NYC").unwrap()["city"], "New York");
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
    let yen = tools::convert_currency(100.0, "USD", "JPY").unwrap();
    assert_eq!(yen["converted"], json!(14925.37));
    assert_eq!(
        tools::convert_currency(0.0, "GBP", "INR").unwrap()["converted"],
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
        assert!(tools::convert_currency(1.0, code, "USD").is_ok(), "{code}");
    }
}

#[tokio::test]
async fn currency_conversion_rejects_bad_input() {
    let unknown = tools::convert_currency(1.0, "EUR", "XYZ").unwrap_err();
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
    assert!(tools::convert_currency(f64::MAX, "GBP", "KRW").is_err());
}

#[tokio::test]
async fn order_status_accepts_common_spellings() {
    let expected =
        json!({"order_id": "A1001", "status": "processing", "carrier": "UPS", "eta": "2025-07-08"});
    for id in ["A1001", "a1001", "#A1001", " #a1001 "] {
        let result = call("get_order_status", json!({"order_id": id})).await.unwrap();
        assert_eq!(Value::Object(result), expected, "{id}");
    }
    assert_eq!(tools::get_order_status("A1006").unwrap()["carrier"], Value::Null);
    let err = tools::get_order_status("A9999").unwrap_err();
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
    let top = |q: &str| tools::bm25_search(q, 3).first().map(|(doc, _)| doc.id);
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
        Value::Object(tools::search_knowledge_base("zebra quantum")),
        json!({"results": []})
    );
    // Only stopwords: nothing to match on.
    assert_eq!(
        Value::Object(tools::search_knowledge_base("what is the")),
        json!({"results": []})
    );
    assert_eq!(
        tools::tokenize("How do I RESET my password?"),
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
    assert_eq!(tools::calculate("0.1 + 0.2").unwrap()["result"], json!(0.3));
    assert_eq!(
        tools::calculate("1/0").unwrap_err(),
        "division by zero at position 2"
    );
}

// ---------------------------------------------------------------------------------------------
// Planner

#[tokio::test]
async fn multi_intent_message_calls_tools_in_order_of_appearance() {
    let events = run(
        &DemoAgent::new(),
        &[],
        "What's the weather in Paris and 20 EUR in USD?",
    )
    .await;
    assert_eq!(
        calls(&events),
        [
            ("get_weather".to_string(), json!({"city": "Paris"})),
            (
                "convert_currency".to_string(),
                json!({"amount": 20, "from": "EUR", "to": "USD"})
            ),
        ]
    );
    assert_eq!(
        final_text(&events),
        "It is 18 °C and cloudy in Paris. 20 EUR is 21.60 USD."
    );

    let reversed = run(
        &DemoAgent::new(),
        &[],
        "Convert 20 EUR to USD, and the weather in Paris",
    )
    .await;
    let names: Vec<String> = calls(&reversed).into_iter().map(|c| c.0).collect();
    assert_eq!(names, ["convert_currency", "get_weather"]);
}

#[tokio::test]
async fn one_call_per_city() {
    let events = run(&DemoAgent::new(), &[], "what's the weather in Tokyo and London").await;
    assert_eq!(
        calls(&events),
        [
            ("get_weather".to_string(), json!({"city": "Tokyo"})),
            ("get_weather".to_string(), json!({"city": "London"})),
        ]
    );
    assert_eq!(
        final_text(&events),
        "It is 22 °C and clear in Tokyo. It is 14 °C and rainy in London."
    );
    let accents = run(&DemoAgent::new(), &[], "Temperature in sao paulo?").await;
    assert_eq!(
        calls(&accents),
        [("get_weather".to_string(), json!({"city": "São Paulo"}))]
    );
}

#[tokio::test]
async fn order_calculator_and_help_center_intents() {
    let agent = DemoAgent::new();
    let order = run(&agent, &[], "where is my order A1003").await;
    assert_eq!(
        calls(&order),
        [("get_order_status".to_string(), json!({"order_id": "A1003"}))]
    );
    assert_eq!(
        final_text(&order),
        "Order A1003 is in transit with DHL and should arrive by 2025-07-02."
    );
    let hashed = run(&agent, &[], "status of #a1005?").await;
    assert_eq!(
        calls(&hashed),
        [("get_order_status".to_string(), json!({"order_id": "A1005"}))]
    );
    assert_eq!(
        final_text(&hashed),
        "Order A1005 was delivered by UPS on 2025-06-27."
    );

    let product = run(&agent, &[], "what is 12*(3+4)").await;
    assert_eq!(
        calls(&product),
        [("calculate".to_string(), json!({"expression": "12*(3+4)"}))]
    );
    assert_eq!(final_text(&product), "12*(3+4) = 84.");
    let power = run(&agent, &[], "calculate 2^10").await;
    assert_eq!(
        calls(&power),
        [("calculate".to_string(), json!({"expression": "2^10"}))]
    );
    assert_eq!(final_text(&power), "2^10 = 1024.");

    let password = run(&agent, &[], "How do I reset my password?").await;
    assert_eq!(
        calls(&password),
        [(
            "search_knowledge_base".to_string(),
            json!({"query": "How do I reset my password?"})
        )]
    );
    let text = final_text(&password);
    assert!(
        text.starts_with("According to our help center article \"Password reset\": To reset your password"),
        "{text}"
    );
    let returns = run(&agent, &[], "what is your return policy").await;
    assert_eq!(calls(&returns)[0].0, "search_knowledge_base");
    assert!(final_text(&returns).contains("\"Return policy\""));
}

#[tokio::test]
async fn help_center_question_in_a_multi_intent_message_gets_its_own_clause() {
    let events = run(
        &DemoAgent::new(),
        &[],
        "Weather in Berlin and what is your return policy?",
    )
    .await;
    assert_eq!(
        calls(&events),
        [
            ("get_weather".to_string(), json!({"city": "Berlin"})),
            (
                "search_knowledge_base".to_string(),
                json!({"query": "what is your return policy?"})
            ),
        ]
    );
}

#[tokio::test]
async fn follow_up_reuses_the_previous_weather_turn() {
    let agent = DemoAgent::new();
    let turns = conversation(
        &agent,
        &[
            "What's the weather in Paris?",
            "and in London?",
            "what about Berlin?",
        ],
    )
    .await;
    assert_eq!(
        calls(&turns[1].events),
        [("get_weather".to_string(), json!({"city": "London"}))]
    );
    assert_eq!(final_text(&turns[1].events), "It is 14 °C and rainy in London.");
    assert_eq!(
        calls(&turns[2].events),
        [("get_weather".to_string(), json!({"city": "Berlin"}))]
    );
    // Without a weather turn before it, a bare city is not a request.
    let alone = run(&agent, &[], "and in London?").await;
    assert!(calls(&alone).is_empty());
}

#[tokio::test]
async fn follow_up_reuses_the_previous_conversion() {
    let agent = DemoAgent::new();
    let turns = conversation(&agent, &["convert 20 EUR to USD", "and in GBP?"]).await;
    assert_eq!(
        calls(&turns[1].events),
        [(
            "convert_currency".to_string(),
            json!({"amount": 20, "from": "EUR", "to": "GBP"})
        )]
    );
    assert_eq!(final_text(&turns[1].events), "20 EUR is 17.01 GBP.");
    let yen = run(&agent, &turns, "what about yen").await;
    assert_eq!(
        calls(&yen)[0].1,
        json!({"amount": 20, "from": "EUR", "to": "JPY"})
    );

    // Each kind of follow-up finds its own earlier call, even past a turn of the other kind.
    let mixed = conversation(
        &agent,
        &[
            "weather in Paris and 10 USD in EUR",
            "and in Tokyo?",
            "and in CHF?",
            "and in xyz?",
        ],
    )
    .await;
    assert_eq!(
        calls(&mixed[1].events),
        [("get_weather".to_string(), json!({"city": "Tokyo"}))]
    );
    assert_eq!(
        calls(&mixed[2].events)[0].1,
        json!({"amount": 10, "from": "USD", "to": "CHF"})
    );
    assert_eq!(
        calls(&mixed[3].events)[0].1,
        json!({"amount": 10, "from": "USD", "to": "XYZ"})
    );
    assert!(final_text(&mixed[3].events).starts_with("Sorry, I couldn't convert 10 USD to XYZ"));
}

#[tokio::test]
async fn unknown_request_gets_a_plain_refusal_without_tools() {
    let events = run(&DemoAgent::new(), &[], "Write me a poem about the sea").await;
    assert!(calls(&events).is_empty());
    assert_eq!(
        final_text(&events),
        "I can't help with that. I can check the weather, convert currencies, look up orders, search the \
         help center and do arithmetic."
    );
    let city = run(&DemoAgent::new(), &[], "what's the weather like?").await;
    assert!(calls(&city).is_empty());
    assert!(final_text(&city).starts_with("Which city"));
}

#[tokio::test]
async fn tool_errors_are_reported_plainly() {
    let agent = DemoAgent::new();
    let events = run(&agent, &[], "What's the weather in Atlantis?").await;
    assert_eq!(
        calls(&events),
        [("get_weather".to_string(), json!({"city": "Atlantis"}))]
    );
    let response = events
        .iter()
        .find_map(|e| match e {
            AgentEvent::ToolResult { response, .. } => Some(response.clone()),
            _ => None,
        })
        .unwrap();
    assert!(response["error"]
        .as_str()
        .unwrap()
        .starts_with("unknown city \"Atlantis\""));
    assert!(final_text(&events).starts_with("Sorry, I couldn't get the weather for Atlantis: unknown city"));

    let order = run(&agent, &[], "where is order A9999?").await;
    assert_eq!(
        final_text(&order),
        "Sorry, I couldn't look up order A9999: no order with id \"A9999\"; order ids look like A1001."
    );
    let division = run(&agent, &[], "calculate 5/(2-2)").await;
    assert_eq!(
        final_text(&division),
        "Sorry, I couldn't calculate 5/(2-2): division by zero at position 2."
    );
    let code = run(&agent, &[], "convert 10 usd to xyz").await;
    assert_eq!(
        calls(&code)[0].1,
        json!({"amount": 10, "from": "USD", "to": "XYZ"})
    );
    assert!(final_text(&code).starts_with("Sorry, I couldn't convert 10 USD to XYZ: unknown currency code"));
    let negative = run(&agent, &[], "convert -5 usd to eur").await;
    assert!(final_text(&negative).contains("amount must not be negative"));
}

// ---------------------------------------------------------------------------------------------
// Streaming, determinism, faults

#[tokio::test]
async fn turn_event_sequence_and_streaming() {
    let agent = DemoAgent::new();
    let history = conversation(&agent, &["hello"]).await;
    let events = run(&agent, &history, "Weather in Cairo and 100 USD in JPY").await;

    // ToolCall, ToolResult per call, then deltas, the final response and usage.
    assert!(matches!(&events[0], AgentEvent::ToolCall { id, .. } if id == "call_1_0"));
    assert!(
        matches!(&events[1], AgentEvent::ToolResult { id, name, .. } if id == "call_1_0" && name == "get_weather")
    );
    assert!(matches!(&events[2], AgentEvent::ToolCall { id, .. } if id == "call_1_1"));
    assert!(matches!(&events[3], AgentEvent::ToolResult { id, .. } if id == "call_1_1"));
    let deltas: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::TextDelta { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert!(deltas.len() > 1, "the answer streams in several chunks");
    assert_eq!(deltas.concat(), final_text(&events));
    assert!(deltas.iter().all(|d| !d.is_empty()));
    let n = events.len();
    assert!(matches!(events[n - 3], AgentEvent::FinalResponse { .. }));
    assert!(matches!(events[n - 2], AgentEvent::ModelCall { .. }));
    let AgentEvent::Usage {
        prompt_tokens,
        completion_tokens,
    } = events[n - 1]
    else {
        panic!("usage comes last");
    };
    assert!(prompt_tokens > 0 && completion_tokens > 0);
}

#[tokio::test]
async fn same_input_gives_the_same_events() {
    let agent = DemoAgent::new();
    let history = conversation(&agent, &["weather in Rome", "and in Madrid?"]).await;
    for message in [
        "what about Sydney?",
        "how do I track my order",
        "2+2 and 5 GBP to EUR",
        "sing",
    ] {
        let first = run(&agent, &history, message).await;
        let second = run(&DemoAgent::new(), &history, message).await;
        assert_eq!(without_durations(&first), without_durations(&second), "{message}");
    }
}

#[tokio::test]
async fn error_rate_one_always_fails_and_zero_never_does() {
    let always = DemoAgent::with_faults(DemoFaults {
        latency_ms: 0,
        error_rate: 1.0,
    });
    let never = DemoAgent::with_faults(DemoFaults {
        latency_ms: 0,
        error_rate: 0.0,
    });
    for message in [
        "weather in Paris",
        "hi",
        "",
        "calculate 1+1",
        "what is your return policy",
    ] {
        let failed = run(&always, &[], message).await;
        assert_eq!(failed.len(), 1, "{message}");
        assert!(matches!(&failed[0], AgentEvent::Error { message } if message.contains("injected fault")));
        let ok = run(&never, &[], message).await;
        assert!(
            ok.iter().any(|e| matches!(e, AgentEvent::FinalResponse { .. })),
            "{message}"
        );
        assert!(!ok.iter().any(|e| matches!(e, AgentEvent::Error { .. })));
    }
}

#[tokio::test]
async fn partial_error_rate_is_deterministic_and_roughly_proportional() {
    let agent = DemoAgent::with_faults(DemoFaults {
        latency_ms: 0,
        error_rate: 0.5,
    });
    let mut failures = 0;
    for i in 0..200 {
        let message = format!("calculate {i}+1");
        let first = run(&agent, &[], &message).await;
        let again = run(&agent, &[], &message).await;
        let failed = matches!(first[0], AgentEvent::Error { .. });
        assert_eq!(failed, matches!(again[0], AgentEvent::Error { .. }));
        failures += usize::from(failed);
    }
    assert!((60..=140).contains(&failures), "{failures} of 200 failed");
}

#[tokio::test]
async fn latency_delays_the_turn() {
    let agent = DemoAgent::with_faults(DemoFaults {
        latency_ms: 50,
        error_rate: 0.0,
    });
    let started = std::time::Instant::now();
    let events = run(&agent, &[], "hi").await;
    assert!(started.elapsed() >= std::time::Duration::from_millis(50));
    assert!(final_text(&events).starts_with("Hi!"));
}
