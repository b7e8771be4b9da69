//! Tests of the tool loop: split and parallel calls, bad arguments, max steps, replayed history.

use super::*;
use crate::agent::test_support::{calls_with_ids, final_text, run};
use crate::agent::tools::weather;
use crate::agent::Turn;

#[tokio::test]
async fn tool_call_with_split_arguments_runs_the_tool_then_answers() {
    let server = Server::start(vec![
        tool_reply(&[("call_w1", "get_weather", json!({"city": "Paris"}))]),
        text_reply(&["It is ", "sunny in Paris."]),
    ])
    .await;
    let events = run(&server.agent(), &[], "Weather in Paris?").await;
    assert_eq!(kinds(&events), ["call", "result", "text", "text", "final"]);
    assert_eq!(
        calls_with_ids(&events),
        [("call_w1".into(), "get_weather".into(), json!({"city": "Paris"}))]
    );
    let (id, name, response) = &results(&events)[0];
    assert_eq!((id.as_str(), name.as_str()), ("call_w1", "get_weather"));
    let expected = Value::Object(weather::get_weather("Paris").unwrap());
    assert_eq!(response, &expected);
    assert_eq!(final_text(&events), "It is sunny in Paris.");

    let bodies = server.bodies();
    assert_eq!(bodies.len(), 2);
    let messages = bodies[1]["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 3);
    assert_eq!(
        messages[0],
        json!({"role": "user", "content": "Weather in Paris?"})
    );
    assert_eq!(messages[1]["role"], "assistant");
    assert_eq!(messages[1]["content"], "", "llama.cpp answers 500 to null");
    let tool_calls = messages[1]["tool_calls"].as_array().unwrap();
    assert_eq!(tool_calls.len(), 1);
    assert_eq!(tool_calls[0]["id"], "call_w1");
    assert_eq!(tool_calls[0]["type"], "function");
    assert_eq!(tool_calls[0]["function"]["name"], "get_weather");
    let sent_args: Value =
        serde_json::from_str(tool_calls[0]["function"]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(sent_args, json!({"city": "Paris"}));
    assert_eq!(messages[2]["role"], "tool");
    assert_eq!(messages[2]["tool_call_id"], "call_w1");
    let content: Value = serde_json::from_str(messages[2]["content"].as_str().unwrap()).unwrap();
    assert_eq!(content, expected);
}

#[tokio::test]
async fn parallel_tool_calls_with_interleaved_chunks() {
    let weather = json!({"city": "Tokyo"}).to_string();
    let money = json!({"amount": 20, "from": "EUR", "to": "USD"}).to_string();
    let (w, m) = (split3(&weather), split3(&money));
    let server = Server::start(vec![
        Reply::sse(vec![
            call_start(0, "call_a", "get_weather"),
            call_start(1, "call_b", "convert_currency"),
            call_args(1, &m[0]),
            call_args(0, &w[0]),
            call_args(0, &w[1]),
            call_args(1, &m[1]),
            call_args(1, &m[2]),
            call_args(0, &w[2]),
            finish("tool_calls"),
        ]),
        text_reply(&["Done."]),
    ])
    .await;
    let events = run(&server.agent(), &[], "Tokyo weather and 20 EUR in USD").await;
    assert_eq!(
        kinds(&events),
        ["call", "call", "result", "result", "text", "final"]
    );
    assert_eq!(
        calls_with_ids(&events),
        [
            ("call_a".into(), "get_weather".into(), json!({"city": "Tokyo"})),
            (
                "call_b".into(),
                "convert_currency".into(),
                json!({"amount": 20, "from": "EUR", "to": "USD"})
            ),
        ]
    );
    let results = results(&events);
    assert_eq!(results[0].0, "call_a");
    assert_eq!(results[1].0, "call_b");
    assert!(results.iter().all(|r| r.2.get("error").is_none()), "{results:?}");

    let messages = server.bodies()[1]["messages"].as_array().unwrap().clone();
    assert_eq!(messages.len(), 4);
    let ids: Vec<&Value> = messages[1]["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["id"])
        .collect();
    assert_eq!(ids, [&json!("call_a"), &json!("call_b")]);
    assert_eq!(messages[2]["tool_call_id"], "call_a");
    assert_eq!(messages[3]["tool_call_id"], "call_b");
}

#[tokio::test]
async fn multi_step_loop_tool_tool_text() {
    let server = Server::start(vec![
        tool_reply(&[("s1", "get_order_status", json!({"order_id": "A1001"}))]),
        tool_reply(&[("s2", "calculate", json!({"expression": "2 * 21"}))]),
        text_reply(&["All ", "done."]),
    ])
    .await;
    let events = run(&server.agent(), &[], "Order A1001, then 2*21").await;
    assert_eq!(
        kinds(&events),
        ["call", "result", "call", "result", "text", "text", "final"]
    );
    let names: Vec<String> = calls_with_ids(&events).into_iter().map(|c| c.1).collect();
    assert_eq!(names, ["get_order_status", "calculate"]);
    let bodies = server.bodies();
    assert_eq!(bodies.len(), 3);
    let roles = |b: &Value| -> Vec<String> {
        b["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["role"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(roles(&bodies[1]), ["user", "assistant", "tool"]);
    assert_eq!(
        roles(&bodies[2]),
        ["user", "assistant", "tool", "assistant", "tool"]
    );
    assert_eq!(bodies[2]["messages"][4]["tool_call_id"], "s2");
}

#[tokio::test]
async fn each_model_call_is_timed() {
    let server = Server::start(vec![
        tool_reply(&[("s1", "get_order_status", json!({"order_id": "A1001"}))]),
        text_reply(&["Shipped."]),
    ])
    .await;
    let events = run(&server.agent(), &[], "Where is A1001?").await;
    let timed: Vec<usize> = events
        .iter()
        .enumerate()
        .filter(|(_, e)| matches!(e, AgentEvent::ModelCall { .. }))
        .map(|(index, _)| index)
        .collect();
    assert_eq!(timed.len(), 2, "one per model call: {events:?}");
    assert!(
        matches!(events[timed[0] + 1], AgentEvent::ToolCall { .. }),
        "timed when the reply is in, before its calls run: {events:?}"
    );
}

#[tokio::test]
async fn llama_cpp_style_whole_call_in_one_chunk_without_index() {
    let server = Server::start(vec![
        Reply::sse(vec![
            chunk(
                json!({"role": "assistant", "content": null, "tool_calls": [
                    {"id": "call_abc", "type": "function",
                     "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}
                ]}),
                None,
            ),
            chunk(json!({"content": null}), Some("tool_calls")),
        ]),
        text_reply(&["Mild."]),
    ])
    .await;
    let events = run(&server.agent(), &[], "Paris?").await;
    assert_eq!(kinds(&events), ["call", "result", "text", "final"]);
    assert_eq!(calls_with_ids(&events)[0].0, "call_abc");
    assert_eq!(server.bodies()[1]["messages"][2]["tool_call_id"], "call_abc");
}

#[tokio::test]
async fn bad_arguments_and_unknown_tools_are_reported_to_the_model() {
    let server = Server::start(vec![
        Reply::sse(vec![
            call_start(0, "c_bad", "get_weather"),
            call_args(0, "{\"city\": \"Par"),
            call_start(1, "c_unknown", "launch_rocket"),
            call_args(1, "{}"),
            finish("tool_calls"),
        ]),
        text_reply(&["Sorry."]),
    ])
    .await;
    let events = run(&server.agent(), &[], "go").await;
    assert_eq!(
        kinds(&events),
        ["call", "call", "result", "result", "text", "final"]
    );
    let results = results(&events);
    let bad = results[0].2["error"].as_str().unwrap();
    assert!(
        bad.starts_with("the model sent arguments that are not JSON: "),
        "{bad}"
    );
    let unknown = results[1].2["error"].as_str().unwrap();
    assert!(
        unknown.starts_with("no tool named \"launch_rocket\""),
        "{unknown}"
    );
    // The model gets both errors back and its own (broken) arguments as it sent them.
    let messages = server.bodies()[1]["messages"].as_array().unwrap().clone();
    assert_eq!(
        messages[1]["tool_calls"][0]["function"]["arguments"],
        "{\"city\": \"Par"
    );
    assert!(messages[2]["content"].as_str().unwrap().contains("not JSON"));
    assert!(messages[3]["content"].as_str().unwrap().contains("no tool named"));
}

#[tokio::test]
async fn a_model_that_never_stops_calling_tools_hits_max_steps() {
    let forever = tool_reply(&[("again", "get_weather", json!({"city": "Paris"}))]);
    let server = Server::always(forever).await;
    let agent = server.agent_with(|c| c.max_tool_steps = 2);
    let events = run(&agent, &[], "loop").await;
    let error = the_error(&events);
    assert_eq!(
        error,
        "the model kept calling tools after 2 steps; raise max_tool_steps or check the system prompt"
    );
    assert_eq!(kinds(&events), ["call", "result", "call", "result", "error"]);
    assert_eq!(server.request_count(), 3);
}

#[tokio::test]
async fn history_is_replayed() {
    let server = Server::start(vec![
        tool_reply(&[("h1", "get_weather", json!({"city": "Paris"}))]),
        text_reply(&["Sunny."]),
        text_reply(&["Cooler."]),
    ])
    .await;
    let agent = server.agent_with(|c| c.system_prompt = Some("sys".into()));
    let first = run(&agent, &[], "Paris?").await;
    let history = vec![Turn {
        user: "Paris?".into(),
        events: first,
    }];
    let second = run(&agent, &history, "And London?").await;
    assert_eq!(final_text(&second), "Cooler.");

    let bodies = server.bodies();
    assert_eq!(bodies.len(), 3);
    // The second turn's request is the first turn's last request plus its answer and the new message.
    let mut expected = bodies[1]["messages"].as_array().unwrap().clone();
    expected.push(json!({"role": "assistant", "content": "Sunny."}));
    expected.push(json!({"role": "user", "content": "And London?"}));
    assert_eq!(bodies[2]["messages"], Value::Array(expected));
    assert_eq!(
        bodies[2]["messages"][0],
        json!({"role": "system", "content": "sys"})
    );
    assert_eq!(bodies[2]["messages"][2]["content"], "");
    assert_eq!(bodies[2]["messages"][3]["tool_call_id"], "h1");
}

#[tokio::test]
async fn history_of_parallel_and_errored_turns_keeps_every_call_answered() {
    let server = Server::start(vec![text_reply(&["ok"])]).await;
    let args = |v: Value| v.as_object().unwrap().clone();
    let history = vec![
        Turn {
            user: "two at once".into(),
            events: vec![
                AgentEvent::TextDelta {
                    text: "Checking.".into(),
                },
                AgentEvent::ToolCall {
                    id: "p1".into(),
                    name: "get_weather".into(),
                    args: args(json!({"city": "Paris"})),
                },
                AgentEvent::ToolCall {
                    id: "p2".into(),
                    name: "get_weather".into(),
                    args: args(json!({"city": "Rome"})),
                },
                AgentEvent::ToolResult {
                    id: "p1".into(),
                    name: "get_weather".into(),
                    response: args(json!({"t": 1})),
                    duration_ms: 0,
                    source: Default::default(),
                },
                AgentEvent::ToolResult {
                    id: "p2".into(),
                    name: "get_weather".into(),
                    response: args(json!({"t": 2})),
                    duration_ms: 0,
                    source: Default::default(),
                },
                AgentEvent::FinalResponse { text: "Both.".into() },
            ],
        },
        Turn {
            user: "broken".into(),
            events: vec![
                AgentEvent::ToolCall {
                    id: "x1".into(),
                    name: "calculate".into(),
                    args: args(json!({"expression": "1/0"})),
                },
                AgentEvent::Error {
                    message: "boom".into(),
                },
            ],
        },
    ];
    run(&server.agent(), &history, "next").await;
    let messages = server.bodies()[0]["messages"].clone();
    let summary: Vec<(String, Value)> = messages
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let extra = m
                .get("tool_call_id")
                .cloned()
                .or_else(|| {
                    m.get("tool_calls").map(|c| {
                        json!(c
                            .as_array()
                            .unwrap()
                            .iter()
                            .map(|c| c["id"].clone())
                            .collect::<Vec<_>>())
                    })
                })
                .unwrap_or_else(|| m["content"].clone());
            (m["role"].as_str().unwrap().to_string(), extra)
        })
        .collect();
    let expected: Vec<(String, Value)> = vec![
        ("user".into(), json!("two at once")),
        ("assistant".into(), json!(["p1", "p2"])),
        ("tool".into(), json!("p1")),
        ("tool".into(), json!("p2")),
        ("assistant".into(), json!("Both.")),
        ("user".into(), json!("broken")),
        ("assistant".into(), json!(["x1"])),
        ("tool".into(), json!("x1")),
        ("user".into(), json!("next")),
    ];
    assert_eq!(summary, expected);
    assert_eq!(messages[1]["content"], "Checking.");
    assert!(messages[7]["content"].as_str().unwrap().contains("no result"));
}

#[tokio::test]
async fn unstreamed_answers_carry_whole_calls_and_text() {
    let server = Server::start(vec![
        Reply::status(
            200,
            json!({"choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                "role": "assistant", "content": null, "tool_calls": [
                    {"type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}},
                    {"type": "function", "function": {"name": "get_weather", "arguments": {"city": "Rome"}}}
                ]}}], "usage": {"prompt_tokens": 9, "completion_tokens": 4}}),
        ),
        Reply::completion("Mild in both."),
    ])
    .await;
    let agent = server.agent_with(|c| c.stream = false);
    let events = run(&agent, &[], "Paris and Rome?").await;
    assert_eq!(
        kinds(&events),
        ["usage", "call", "call", "result", "result", "text", "final"]
    );
    let calls = calls_with_ids(&events);
    assert_eq!(calls[0].2, json!({"city": "Paris"}));
    assert_eq!(calls[1].2, json!({"city": "Rome"}), "arguments sent as an object");
    assert_ne!(calls[0].0, calls[1].0, "calls without ids stay apart");
    assert_eq!(final_text(&events), "Mild in both.");
    let bodies = server.bodies();
    assert_eq!(bodies[0]["stream"], false);
    assert!(bodies[0].get("stream_options").is_none());
}

#[tokio::test]
async fn a_repeated_call_id_gets_one_of_its_own() {
    let server = Server::start(vec![
        tool_reply(&[
            ("call_0", "get_weather", json!({"city": "Paris"})),
            ("call_0", "get_weather", json!({"city": "Rome"})),
        ]),
        text_reply(&["Both mild."]),
    ])
    .await;
    let events = run(&server.agent(), &[], "Paris and Rome?").await;
    let ids: Vec<String> = calls_with_ids(&events).into_iter().map(|c| c.0).collect();
    assert_eq!(ids[0], "call_0");
    assert_ne!(ids[0], ids[1]);
    let bodies = server.bodies();
    let answered: Vec<&str> = bodies[1]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["tool_call_id"].as_str())
        .collect();
    assert_eq!(answered, [ids[0].as_str(), ids[1].as_str()]);
}

#[tokio::test]
async fn tool_choice_applies_to_the_first_reply_of_a_turn_only() {
    let server = Server::start(vec![
        tool_reply(&[("c1", "get_weather", json!({"city": "Paris"}))]),
        text_reply(&["Mild."]),
    ])
    .await;
    let agent = server.agent_with(|c| c.tool_choice = Some("get_weather".into()));
    run(&agent, &[], "Paris?").await;
    let bodies = server.bodies();
    assert_eq!(
        bodies[0]["tool_choice"],
        json!({"type": "function", "function": {"name": "get_weather"}})
    );
    assert!(
        bodies[1].get("tool_choice").is_none(),
        "a forced call cannot loop"
    );
}

#[tokio::test]
async fn a_server_that_refuses_stream_options_is_asked_again_without_and_it_is_remembered() {
    let server = Server::start(vec![
        Reply::status(
            400,
            json!({"error": {"message": "Unrecognized request argument supplied: stream_options"}}),
        ),
        text_reply(&["Hi."]),
        text_reply(&["Again."]),
    ])
    .await;
    let agent = server.agent();
    assert_eq!(final_text(&run(&agent, &[], "hello").await), "Hi.");
    assert_eq!(final_text(&run(&agent, &[], "hello again").await), "Again.");
    let bodies = server.bodies();
    assert!(bodies[0].get("stream_options").is_some());
    assert!(bodies[1].get("stream_options").is_none());
    assert!(
        bodies[2].get("stream_options").is_none(),
        "remembered for the process"
    );
    assert!(crate::agent::Agent::detected(&agent)[0].starts_with("refuses stream_options"));
}

#[tokio::test]
async fn a_refusal_that_is_not_about_stream_options_is_reported_and_not_remembered() {
    let refused = Reply::status(
        400,
        json!({"error": {"message": "temperature must be at most 2"}}),
    );
    let server = Server::start(vec![refused.clone(), refused]).await;
    let agent = server.agent();
    let error = the_error(&run(&agent, &[], "hello").await);
    assert!(error.contains("temperature must be at most 2"), "{error}");
    assert!(crate::agent::Agent::detected(&agent).is_empty());
}

#[tokio::test]
async fn a_server_that_refuses_tool_choice_is_asked_again_without_and_it_is_remembered() {
    let refusal = json!({"error": {"message": "tool_choice is not supported by this server"}});
    let server = Server::start(vec![
        Reply::status(400, refusal),
        tool_reply(&[("c1", "get_weather", json!({"city": "Paris"}))]),
        text_reply(&["Mild."]),
        text_reply(&["Hello."]),
    ])
    .await;
    let agent = server.agent_with(|c| c.tool_choice = Some("required".into()));
    assert_eq!(final_text(&run(&agent, &[], "Paris?").await), "Mild.");
    assert_eq!(final_text(&run(&agent, &[], "Hi").await), "Hello.");
    let bodies = server.bodies();
    assert_eq!(bodies[0]["tool_choice"], "required");
    assert!(bodies[1].get("tool_choice").is_none(), "asked again without it");
    assert!(
        bodies[1].get("stream_options").is_some(),
        "only the refused field is left out"
    );
    assert!(
        bodies[3].get("tool_choice").is_none(),
        "remembered for the process"
    );
    assert!(crate::agent::Agent::detected(&agent)[0].starts_with("refuses tool_choice"));
}

#[tokio::test]
async fn a_refused_tool_declaration_names_the_tool() {
    let refused = Reply::status(
        400,
        json!({"error": {"message": "Invalid 'tools[0].function.parameters': schema must be a JSON object"}}),
    );
    let server = Server::start(vec![refused.clone(), refused]).await;
    let agent = server.agent();
    let first_tool = ToolRegistry::demo().iter().next().unwrap().name().to_string();
    let error = the_error(&run(&agent, &[], "hello").await);
    assert!(
        error.contains(&format!("refused the declaration of tool `{first_tool}`")),
        "{error}"
    );
    assert!(error.contains("tools[0].function.parameters"), "{error}");
    assert!(crate::agent::Agent::detected(&agent).is_empty());
}

#[tokio::test]
async fn tool_calls_sent_only_in_whole_answers_are_asked_for_whole_and_remembered() {
    let whole_call = Reply::status(
        200,
        json!({"choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
        "role": "assistant", "content": "", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}
        ]}}]}),
    );
    let server = Server::start(vec![
        // Streamed: the model stopped to call a tool, but the call is not in the stream.
        Reply::sse(vec![finish("tool_calls")]),
        whole_call,
        Reply::completion("Mild."),
        Reply::completion("Hello."),
    ])
    .await;
    let agent = server.agent();
    let events = run(&agent, &[], "Paris?").await;
    assert_eq!(calls_with_ids(&events)[0].1, "get_weather");
    assert_eq!(final_text(&events), "Mild.");
    assert_eq!(final_text(&run(&agent, &[], "Hi").await), "Hello.");
    let streamed: Vec<bool> = server
        .bodies()
        .iter()
        .map(|b| b["stream"].as_bool().unwrap())
        .collect();
    assert_eq!(
        streamed,
        [true, false, false, false],
        "remembered for the process"
    );
    assert!(crate::agent::Agent::detected(&agent)[0].starts_with("calls tools only in whole answers"));
}
