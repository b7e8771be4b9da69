//! Tests of the demo agent's planner: which tools a message calls, follow-ups, refusals, tool errors.

use serde_json::json;

use super::*;
use crate::agent::test_support::{calls, conversation, final_text, run};

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
