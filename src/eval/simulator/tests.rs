use super::*;
use crate::eval::services::{Judge, JudgeRequest};
use crate::evalset::{Content, FunctionCall, FunctionResponse, IntermediateData, InvocationEvent, Part};
use futures::executor::block_on;
use futures::future::BoxFuture;
use serde_json::{json, Value};
use std::sync::Mutex;

/// google-adk 2.13's prompts for the conversation below (`conformance/adk_simulator_prompts.py`).
fn adk_fixture() -> Value {
    let path = crate::testing::repo::repo_path("tests/fixtures/adk_simulator_prompts.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn text_part(text: &str, thought: bool) -> Part {
    Part {
        text: Some(text.into()),
        thought: thought.then_some(true),
        ..Part::default()
    }
}

fn event(author: &str, role: &str, parts: Vec<Part>) -> InvocationEvent {
    InvocationEvent {
        author: author.into(),
        content: Some(Content {
            parts: Some(parts),
            role: Some(role.into()),
            ..Content::default()
        }),
        ..InvocationEvent::default()
    }
}

/// The fixture's conversation as Evalstudio records it: two invocations, events in the
/// invocation_events form, each final response outside them.
fn conversation() -> Vec<Invocation> {
    let args = json!({"city": "Paris", "days": 1, "metric": true, "note": null, "tags": ["a", "it's"]});
    let response = json!({"temp_c": 21.5, "sky": "sunny", "nested": {"wind": [3, 4.0]}});
    let first = Invocation {
        user_content: Content::text("user", "What's the weather in Paris?"),
        final_response: Some(Content::text("model", "It is sunny, 21.5 °C.")),
        intermediate_data: Some(IntermediateData {
            invocation_events: Some(vec![
                event(
                    "weather_agent",
                    "model",
                    vec![
                        text_part("I should call the tool.", true),
                        text_part("Let me check.", false),
                    ],
                ),
                event(
                    "weather_agent",
                    "model",
                    vec![Part {
                        function_call: Some(Box::new(FunctionCall {
                            id: Some("c1".into()),
                            name: Some("get_weather".into()),
                            args: Some(args.as_object().unwrap().clone()),
                            ..FunctionCall::default()
                        })),
                        ..Part::default()
                    }],
                ),
                event(
                    "weather_agent",
                    "user",
                    vec![Part {
                        function_response: Some(Box::new(FunctionResponse {
                            id: Some("c1".into()),
                            name: Some("get_weather".into()),
                            response: Some(response.as_object().unwrap().clone()),
                            ..FunctionResponse::default()
                        })),
                        ..Part::default()
                    }],
                ),
            ]),
            ..IntermediateData::default()
        }),
        ..Invocation::default()
    };
    let second = Invocation {
        user_content: Content::text("user", "Thanks!"),
        final_response: Some(Content::text("model", "You're welcome.")),
        ..Invocation::default()
    };
    vec![first, second]
}

#[test]
fn the_history_reads_as_adk_writes_it() {
    for case in adk_fixture()["histories"].as_array().unwrap() {
        let include = case["include_function_calls"].as_bool().unwrap();
        assert_eq!(
            conversation_history(&conversation(), "weather_agent", include),
            case["history"].as_str().unwrap(),
            "include_function_calls = {include}"
        );
    }
}

#[test]
fn the_instructions_are_adks_byte_for_byte() {
    let fixture = adk_fixture();
    let history = conversation_history(&conversation(), "weather_agent", true);
    for case in fixture["prompts"].as_array().unwrap() {
        let config = SimulatorConfig {
            custom_instructions: case["custom_instructions"].as_str().map(str::to_string),
            ..SimulatorConfig::default()
        };
        let scenario = ConversationScenario {
            starting_prompt: "What's the weather in Paris?".into(),
            conversation_plan: fixture["plan"].as_str().unwrap().into(),
            user_persona: case["persona"].as_str().map(|id| json!(id)),
            ..ConversationScenario::default()
        };
        let simulator = UserSimulator::new(&config, &scenario).unwrap();
        assert_eq!(
            simulator.instructions(&history).unwrap(),
            case["prompt"].as_str().unwrap(),
            "{}",
            case["name"]
        );
    }
}

#[test]
fn the_built_in_personas_are_adks_three() {
    let ids: Vec<&str> = built_in_personas().iter().map(|p| p.id.as_str()).collect();
    assert_eq!(ids, ["EXPERT", "NOVICE", "EVALUATOR"]);
    let error = resolve_persona(&json!("GRUMPY")).unwrap_err();
    assert!(
        error.contains("no built-in persona `GRUMPY`; ADK's are EXPERT, NOVICE, EVALUATOR"),
        "{error}"
    );
    let own = json!({"id": "TERSE", "description": "Says little.", "behaviors": [
        {"name": "Short", "description": "One line.", "behavior_instructions": ["Use five words."], "violation_rubrics": []}
    ]});
    assert_eq!(
        resolve_persona(&own).unwrap().behaviors[0].instructions_text(),
        "  * Use five words."
    );
    assert!(resolve_persona(&json!({"id": "X"}))
        .unwrap_err()
        .contains("missing field `description`"));
}

/// Answers with its replies in order, keeping the prompts.
struct Scripted {
    replies: Mutex<Vec<Result<String, String>>>,
    prompts: Mutex<Vec<String>>,
}

impl Scripted {
    fn new(replies: &[Result<&str, &str>]) -> Scripted {
        Scripted {
            replies: Mutex::new(
                replies
                    .iter()
                    .rev()
                    .map(|r| r.map(str::to_string).map_err(str::to_string))
                    .collect(),
            ),
            prompts: Mutex::new(Vec::new()),
        }
    }
}

impl Judge for Scripted {
    fn complete<'a>(&'a self, request: JudgeRequest<'a>) -> BoxFuture<'a, Result<String, String>> {
        self.prompts.lock().unwrap().push(request.prompt.to_string());
        let reply = self.replies.lock().unwrap().pop().expect("asked once too often");
        Box::pin(async move { reply })
    }
}

fn scenario() -> ConversationScenario {
    ConversationScenario {
        starting_prompt: "Hi, weather in Paris?".into(),
        conversation_plan: "Ask for Paris, then Rome.".into(),
        ..ConversationScenario::default()
    }
}

#[test]
fn the_first_message_is_the_starting_prompt_and_the_stop_signal_ends_it() {
    let config = SimulatorConfig::default();
    let scenario = scenario();
    let model = Scripted::new(&[Ok("And Rome?"), Ok("Thanks </FINISHED>")]);
    let mut simulator = UserSimulator::new(&config, &scenario).unwrap();
    let next = |simulator: &mut UserSimulator, turns: &[Invocation]| {
        block_on(simulator.next_message(turns, "weather_agent", &model)).unwrap()
    };
    assert_eq!(
        next(&mut simulator, &[]),
        NextUserMessage::Message("Hi, weather in Paris?".into())
    );
    assert!(
        model.prompts.lock().unwrap().is_empty(),
        "the starting prompt is not asked for"
    );
    let turns = conversation();
    assert_eq!(
        next(&mut simulator, &turns[..1]),
        NextUserMessage::Message("And Rome?".into())
    );
    let prompt = model.prompts.lock().unwrap()[0].clone();
    assert!(prompt.contains("# Conversation Plan\n\nAsk for Paris, then Rome."));
    assert!(prompt.ends_with("user: What's the weather in Paris?\n\nweather_agent: Let me check.\n\nweather_agent: It is sunny, 21.5 °C."));
    // The stop signal is found whatever its case.
    assert_eq!(next(&mut simulator, &turns), NextUserMessage::StopSignal);
}

#[test]
fn the_turn_limit_counts_the_starting_prompt() {
    let config = SimulatorConfig {
        max_allowed_invocations: 2,
        ..SimulatorConfig::default()
    };
    let scenario = scenario();
    let model = Scripted::new(&[Ok("And Rome?")]);
    let mut simulator = UserSimulator::new(&config, &scenario).unwrap();
    let mut sent = Vec::new();
    loop {
        match block_on(simulator.next_message(&[], "a", &model)).unwrap() {
            NextUserMessage::Message(text) => sent.push(text),
            end => {
                assert_eq!(end, NextUserMessage::TurnLimit);
                break;
            }
        }
    }
    assert_eq!(sent, ["Hi, weather in Paris?", "And Rome?"]);
}

#[test]
fn an_empty_reply_or_a_failed_model_is_an_error_with_the_reason() {
    let config = SimulatorConfig::default();
    let scenario = scenario();
    let model = Scripted::new(&[Ok(""), Err("HTTP 500: overloaded")]);
    let mut simulator = UserSimulator::new(&config, &scenario).unwrap();
    block_on(simulator.next_message(&[], "a", &model)).unwrap();
    let error = block_on(simulator.next_message(&[], "a", &model)).unwrap_err();
    assert!(
        error.contains("answered with an empty message (turn 2)"),
        "{error}"
    );
    let error = block_on(simulator.next_message(&[], "a", &model)).unwrap_err();
    assert_eq!(error, "the user simulator's model failed: HTTP 500: overloaded");
}

#[test]
fn a_persona_by_id_shapes_the_instructions() {
    let config = SimulatorConfig::default();
    let scenario = ConversationScenario {
        user_persona: Some(json!("NOVICE")),
        ..scenario()
    };
    let simulator = UserSimulator::new(&config, &scenario).unwrap();
    let prompt = simulator.instructions("user: hi").unwrap();
    assert!(prompt.contains("while role-playing as the given Persona"));
    assert!(prompt.contains("A Novice is trying to solve a problem"));
    // Behaviors' own placeholders are filled.
    assert!(prompt.contains("</finished>") && !prompt.contains("{{"));
}

#[test]
fn custom_instructions_are_checked_for_their_placeholders() {
    let parse = |value: Value| SimulatorConfig::parse(&value, "user_simulator_config");
    let error =
        parse(json!({"custom_instructions": "Plan: {{ conversation_plan }}. {{conversation_history}}"}))
            .unwrap_err();
    assert_eq!(
        error,
        "user_simulator_config.custom_instructions: missing {{ stop_signal }}; the instructions must use {{ stop_signal }}, {{ conversation_plan }} and {{ conversation_history }}"
    );
    let error = parse(json!({"custom_instructions": "{% for x in y %}{{ stop_signal }}{{ conversation_plan }}{{ conversation_history }}{% endfor %}"}))
        .unwrap_err();
    assert!(
        error.contains("Jinja statements ({% … %}) are not supported"),
        "{error}"
    );
    let config = parse(json!({
        "type": "llm_backed", "model": "gemini-2.5-flash", "maxAllowedInvocations": 3, "include_function_calls": true,
        "custom_instructions": "{{ stop_signal }} {{ conversation_plan }} {{ conversation_history }}"
    }))
    .unwrap();
    assert_eq!(
        (config.max_allowed_invocations, config.include_function_calls),
        (3, true)
    );
    assert!(parse(json!({"max_allowed_invocations": "ten"}))
        .unwrap_err()
        .contains("expected a whole number"));
    assert_eq!(
        parse(json!({"maxAllowedInvocations": "ten"})).unwrap_err(),
        "user_simulator_config.maxAllowedInvocations: expected a whole number (-1 for no limit), found \"ten\"",
        "the key as written"
    );
    assert_eq!(
        parse(json!({"include_function_calls": null, "customInstructions": 3})).unwrap_err(),
        "user_simulator_config.customInstructions: expected text, found 3",
        "null is absent"
    );
    assert!(parse(json!({"type": "static"}))
        .unwrap_err()
        .contains("only the \"llm_backed\" simulator"));

    // With a persona, the instructions must place it too; said before the agent runs.
    let scenario = ConversationScenario {
        user_persona: Some(json!("EXPERT")),
        ..scenario()
    };
    let error = UserSimulator::new(&config, &scenario).err().unwrap();
    assert!(error.contains("must use {{ persona }}"), "{error}");
}
