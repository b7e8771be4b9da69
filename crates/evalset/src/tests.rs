use super::*;
use serde_json::json;
use std::path::PathBuf;

fn fixtures_dir() -> PathBuf {
    PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo test sets CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/adk")
}

/// Every evalset fixture (the `__test_config.json` files are eval configs, not evalsets).
pub(crate) fn fixture_evalsets() -> Vec<(String, String)> {
    let mut files: Vec<_> = std::fs::read_dir(fixtures_dir())
        .expect("tests/fixtures/adk holds the ADK fixtures")
        .map(|entry| entry.unwrap().path())
        .filter(|path| !path.to_string_lossy().ends_with("_test_config.json"))
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&path).unwrap())
        })
        .collect();
    files.sort();
    assert!(
        files.len() >= 7,
        "expected the ADK fixtures, found {}",
        files.len()
    );
    files
}

fn parse(text: &str) -> Result<(EvalSet, SourceFormat), FormatError> {
    let mut counter = 0;
    let mut new_id = || {
        counter += 1;
        format!("inv-{counter}")
    };
    parse_evalset_file(
        text,
        LegacyDefaults {
            name: "legacy_file",
            file_name: "legacy_file.test.json",
            now: 1_700_000_000.5,
            new_invocation_id: &mut new_id,
        },
    )
}

fn parse_ok(text: &str) -> EvalSet {
    parse(text).unwrap_or_else(|e| panic!("{e}")).0
}

fn parse_err(text: &str) -> FormatError {
    parse(text).expect_err("input should be rejected")
}

#[test]
fn every_fixture_imports() {
    for (name, text) in fixture_evalsets() {
        let (eval_set, format) = parse(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let expected = if text.trim_start().starts_with('[') {
            SourceFormat::LegacyTestList
        } else {
            SourceFormat::EvalSet
        };
        assert_eq!(format, expected, "{name}");
        assert!(!eval_set.eval_cases.is_empty(), "{name} has cases");
    }
}

#[test]
fn every_fixture_round_trips_byte_identically() {
    for (name, text) in fixture_evalsets() {
        let first = to_adk_json(&parse_ok(&text));
        let second = to_adk_json(&parse_ok(&first));
        assert_eq!(first, second, "{name}");
        assert_eq!(
            first,
            to_adk_json(&parse_ok(&text)),
            "{name}: export is deterministic"
        );
    }
}

#[test]
fn fixture_content_survives_import() {
    let text =
        std::fs::read_to_string(fixtures_dir().join("simple_multi_turn_conversation.test.json")).unwrap();
    let set = parse_ok(&text);
    let case = &set.eval_cases[0];
    assert_eq!(case.turn_count(), 2);
    assert_eq!(case.tool_call_count(), 2);
    assert_eq!(case.first_user_message(), "Turn off device_2 in the Bedroom.");
    let call = case.invocations()[0].tool_calls()[0];
    assert_eq!(call.name.as_deref(), Some("set_device_info"));
    assert_eq!(
        serde_json::to_string(&call.args).unwrap(),
        r#"{"location":"Bedroom","device_id":"device_2","status":"OFF"}"#,
        "argument order is kept"
    );
    assert_eq!(case.invocations()[1].creation_timestamp, 1747340791.7354295);
}

#[test]
fn export_writes_what_adks_file_writer_writes() {
    // An old-ADK file: every unset field written as null, default values spelled out.
    let input = r#"{
      "eval_set_id": "s1", "name": "s1", "description": null, "creation_timestamp": 0.0,
      "eval_cases": [{
        "eval_id": "c1", "session_input": {"app_name": "a", "user_id": "u", "state": {}},
        "final_session_state": {}, "rubrics": null, "creation_timestamp": 12.0,
        "conversation": [{
          "invocation_id": "", "creation_timestamp": 3,
          "user_content": {"role": "user", "parts": [{"video_metadata": null, "thought": null, "text": "hi 👋"}]},
          "final_response": {"parts": [{"text": ""}], "role": "model"},
          "intermediate_data": {"tool_uses": [{"name": "f", "args": {"b": 1, "a": 1.0}, "id": null}],
                                "tool_responses": [], "intermediate_responses": []}
        }]
      }]
    }"#;
    let expected = r#"{
  "eval_set_id": "s1",
  "name": "s1",
  "eval_cases": [
    {
      "eval_id": "c1",
      "conversation": [
        {
          "user_content": {
            "parts": [
              {
                "text": "hi 👋"
              }
            ],
            "role": "user"
          },
          "final_response": {
            "parts": [
              {
                "text": ""
              }
            ],
            "role": "model"
          },
          "intermediate_data": {
            "tool_uses": [
              {
                "args": {
                  "b": 1,
                  "a": 1.0
                },
                "name": "f"
              }
            ]
          },
          "creation_timestamp": 3.0
        }
      ],
      "session_input": {
        "app_name": "a",
        "user_id": "u"
      },
      "creation_timestamp": 12.0
    }
  ]
}"#;
    assert_eq!(to_adk_json(&parse_ok(input)), expected);
}

#[test]
fn camel_case_nested_keys_are_accepted_and_written_snake_case() {
    let input = r#"{"eval_set_id": "s", "eval_cases": [{
        "evalId": "c", "sessionInput": {"appName": "a", "userId": "u", "sessionId": "s1"},
        "conversation": [{"invocationId": "i1", "userContent": {"parts": [{"text": "q"}]},
          "finalResponse": {"parts": [{"text": "r"}]},
          "intermediateData": {"toolUses": [{"name": "t", "args": {"myArg": 1}}],
                               "toolResponses": [{"name": "t", "response": {"okValue": true}}]}}]}]}"#;
    let set = parse_ok(input);
    let out = to_adk_json(&set);
    for key in [
        "\"eval_id\"",
        "\"session_input\"",
        "\"app_name\"",
        "\"session_id\"",
        "\"user_content\"",
        "\"tool_uses\"",
        "\"tool_responses\"",
        "\"final_response\"",
    ] {
        assert!(out.contains(key), "{key} missing from {out}");
    }
    assert!(
        out.contains("\"myArg\"") && out.contains("\"okValue\""),
        "user data keys are not renamed"
    );
    assert!(!out.contains("evalId") && !out.contains("userContent"));
    assert_eq!(parse_ok(&out), set);
}

#[test]
fn unknown_fields_survive_at_every_level() {
    let input = json!({
        "eval_set_id": "s", "x_set": {"keep": [1, 2]},
        "eval_cases": [{
            "eval_id": "c", "x_case": "case-level", "tags": ["smoke"],
            "session_input": {"app_name": "a", "user_id": "u", "x_session": 1},
            "conversation": [{
                "x_invocation": null, "x_invocation2": 2.5,
                "user_content": {"parts": [{"text": "q", "x_part": {"deep": true}}], "role": "user", "x_content": "c"},
                "intermediate_data": {"invocation_events": [{"author": "agent", "x_event": "e",
                    "content": {"parts": [{"function_call": {"name": "f", "args": {}, "x_call": 1}}]}}]}
            }]
        }]
    })
    .to_string();
    let out = to_adk_json(&parse_ok(&input));
    for needle in [
        "\"x_set\"",
        "\"keep\"",
        "\"x_case\": \"case-level\"",
        "\"tags\"",
        "\"x_session\": 1",
        "\"x_invocation2\": 2.5",
        "\"x_part\"",
        "\"deep\": true",
        "\"x_content\": \"c\"",
        "\"x_event\": \"e\"",
        "\"x_call\": 1",
    ] {
        assert!(out.contains(needle), "{needle} lost:\n{out}");
    }
    assert!(
        !out.contains("x_invocation\""),
        "null unknown fields are dropped like ADK's nulls"
    );
    assert_eq!(out, to_adk_json(&parse_ok(&out)));
    let set = parse_ok(&out);
    assert_eq!(
        set.eval_cases[0].tool_call_count(),
        1,
        "calls are read from invocation_events too"
    );
}

#[test]
fn cjk_and_emoji_text_survives_unescaped() {
    let input = json!({"eval_set_id": "s", "eval_cases": [{"eval_id": "中文-😀", "conversation": [{
        "user_content": {"parts": [{"text": "北京天气怎么样？🌤️ Ñandú"}]},
        "intermediate_data": {"tool_uses": [{"name": "天气", "args": {"城市": "北京"}}]}}]}]})
    .to_string();
    let out = to_adk_json(&parse_ok(&input));
    assert!(out.contains("北京天气怎么样？🌤️ Ñandú"), "{out}");
    assert!(out.contains("\"城市\": \"北京\""));
    assert!(out.contains("\"eval_id\": \"中文-😀\""));
    assert_eq!(
        parse_ok(&out).eval_cases[0].first_user_message(),
        "北京天气怎么样？🌤️ Ñandú"
    );
}

#[test]
fn bad_json_names_line_and_column() {
    let err =
        parse_err("{\n  \"eval_set_id\": \"s\",\n  \"eval_cases\": [\n    {\"eval_id\": \"c\",}\n  ]\n}");
    assert_eq!((err.line, err.column), (4, 21), "{err}");
    assert_eq!(err.path, "eval_cases[0]");
    assert!(err.message.contains("trailing comma"), "{err}");
}

#[test]
fn wrong_type_names_path_and_position() {
    let err = parse_err(
        "{\"eval_set_id\": \"s\", \"eval_cases\": [\n {\"eval_id\": \"c\", \"conversation\": [\n  {\"user_content\": {\"parts\": \"oops\"}}]}]}",
    );
    assert_eq!(err.path, "eval_cases[0].conversation[0].user_content.parts");
    assert_eq!(err.line, 3);
    assert!(
        err.message
            .contains("invalid type: string \"oops\", expected a sequence"),
        "{err}"
    );
    let err = parse_err(r#"{"eval_set_id": "s", "eval_cases": 5}"#);
    assert_eq!(err.path, "eval_cases");
}

#[test]
fn missing_eval_id_is_named() {
    let err = parse_err("{\"eval_set_id\": \"s\", \"eval_cases\": [\n  {\"conversation\": []}\n]}");
    assert_eq!(err.path, "eval_cases[0]");
    assert_eq!(err.message, "missing field `eval_id`");
    assert_eq!(err.line, 2);
}

#[test]
fn conversation_and_scenario_are_exclusive() {
    let both = "{\"eval_set_id\": \"s\", \"eval_cases\": [\n  {\"eval_id\": \"ok\", \"conversation\": []},\n  {\"eval_id\": \"b\", \"conversation\": [],\n   \"conversation_scenario\": {\"starting_prompt\": \"p\", \"conversation_plan\": \"q\"}}\n]}";
    let err = parse_err(both);
    assert_eq!(err.path, "eval_cases[1]");
    assert_eq!((err.line, err.column), (3, 3));
    assert!(err
        .message
        .contains("exactly one of conversation and conversation_scenario"));

    let neither = r#"{"eval_set_id": "s", "eval_cases": [{"eval_id": "n", "conversation": null}]}"#;
    let err = parse_err(neither);
    assert_eq!(err.path, "eval_cases[0]");
    assert!(err.message.contains("`n`"), "{err}");
}

#[test]
fn duplicate_eval_ids_and_bad_set_ids_are_rejected() {
    let err = parse_err(
        r#"{"eval_set_id": "s", "eval_cases": [{"eval_id": "a", "conversation": []}, {"eval_id": "a", "conversation": []}]}"#,
    );
    assert_eq!(err.path, "eval_cases[1]");
    assert!(err.message.contains("duplicate eval_id `a`"));
    let err = parse_err(r#"{"eval_set_id": "../etc", "eval_cases": []}"#);
    assert_eq!(err.path, "eval_set_id");
    let err = parse_err(r#"{"eval_cases": []}"#);
    assert_eq!(err.message, "missing field `eval_set_id`");
    let err = parse_err("{\"eval_set_id\": \"s\", \"eval_cases\": []} trailing");
    assert!(err.message.contains("trailing characters"), "{err}");
}

#[test]
fn legacy_test_list_converts_as_adk_does() {
    let input = r#"[
      {"query": "hi", "expected_tool_use": [], "reference": "Hello!"},
      {"query": "Roll a die", "expected_tool_use": [{"tool_name": "roll_die", "tool_input": {"sides": 6}}],
       "expected_intermediate_agent_responses": [{"author": "sub", "text": "rolling"}]}
    ]"#;
    let (set, format) = parse(input).unwrap();
    assert_eq!(format, SourceFormat::LegacyTestList);
    assert_eq!(set.eval_set_id, "legacy_file");
    assert_eq!(set.eval_cases.len(), 1);
    let case = &set.eval_cases[0];
    assert_eq!(case.eval_id, "legacy_file.test.json");
    assert!(case.session_input.is_none());
    assert_eq!(case.turn_count(), 2);
    let second = &case.invocations()[1];
    assert_eq!(second.invocation_id, "inv-2");
    assert_eq!(
        second.final_response.as_ref().unwrap().joined_text(),
        "",
        "reference defaults to empty text"
    );
    assert_eq!(second.user_content.role.as_deref(), Some("user"));
    let data = second.intermediate_data.as_ref().unwrap();
    assert_eq!(data.tool_uses[0].name.as_deref(), Some("roll_die"));
    assert_eq!(data.tool_uses[0].args.as_ref().unwrap()["sides"], 6);
    assert_eq!(data.intermediate_responses[0].0, "sub");
    assert_eq!(set.creation_timestamp, 1_700_000_000.5);
    // The converted set is an ordinary evalset from then on.
    let out = to_adk_json(&set);
    assert_eq!(out, to_adk_json(&parse_ok(&out)));
}

#[test]
fn legacy_named_list_converts_as_adk_does() {
    let input = r#"[{"name": "roll_17_sided_dice_twice",
        "data": [{"query": "What can you do?", "expected_tool_use": [], "reference": "I roll dice."}],
        "initial_session": {"state": {"k": "v"}, "app_name": "hello_world", "user_id": "user"}},
       {"name": "second", "data": [], "initial_session": {}}]"#;
    let (set, format) = parse(input).unwrap();
    assert_eq!(format, SourceFormat::LegacyNamedList);
    assert_eq!(set.eval_cases.len(), 2);
    let session = set.eval_cases[0].session_input.as_ref().unwrap();
    assert_eq!(
        (session.app_name.as_str(), session.user_id.as_str()),
        ("hello_world", "user")
    );
    assert_eq!(session.state["k"], "v");
    assert!(set.eval_cases[1].session_input.is_none());
    let err = parse_err(r#"[{"name": "x", "data": [{"reference": "no query"}]}]"#);
    assert_eq!(err.path, "[0].data[0]");
    assert!(err.message.contains("missing field `query`"));
    assert!(parse_err("[]").message.contains("empty list"));
}

#[test]
fn single_case_parses_with_the_same_rules() {
    let case =
        parse_eval_case(r#"{"evalId": "c", "conversation": [{"userContent": {"parts": [{"text": "q"}]}}]}"#)
            .unwrap();
    assert_eq!(case.eval_id, "c");
    let err = parse_eval_case(r#"{"eval_id": "c"}"#).unwrap_err();
    assert!(err.message.contains("exactly one"));
}

#[test]
fn file_names_become_valid_ids() {
    assert_eq!(
        eval_set_id_from_file_name("dir/trip inquiry.test.json"),
        "trip_inquiry"
    );
    assert_eq!(eval_set_id_from_file_name("weather.evalset.json"), "weather");
    assert_eq!(eval_set_id_from_file_name(".."), "imported");
    assert!(validate_eval_set_id("a/b").is_err());
    assert!(validate_eval_set_id("4412cca6-dfcd-43ab").is_ok());
}

#[test]
fn the_streaming_writer_writes_the_same_bytes() {
    let mut sets: Vec<EvalSet> = fixture_evalsets()
        .iter()
        .map(|(_, text)| parse_ok(text))
        .collect();
    let mut empty = sets[0].clone();
    empty.eval_cases.clear();
    empty
        .extra
        .insert("x_after".into(), json!({"k": [1, "\n  \"eval_cases\": []"]}));
    sets.push(empty);
    for set in sets {
        let mut writer = AdkFileWriter::new(&set);
        set.eval_cases.iter().for_each(|case| writer.push_case(case));
        assert_eq!(writer.finish(), to_adk_json(&set), "{}", set.eval_set_id);
    }
}

#[test]
fn streaming_parse_hands_over_checked_cases_in_order() {
    let text = r#"{"eval_set_id": "s", "eval_cases": [{"eval_id": "a", "conversation": []}, {"eval_id": "b", "conversation": []}], "x": 1}"#;
    let mut ids = Vec::new();
    let mut new_id = || "unused".to_string();
    let legacy = LegacyDefaults {
        name: "n",
        file_name: "n.json",
        now: 0.0,
        new_invocation_id: &mut new_id,
    };
    let (header, format) =
        parse_evalset_file_streaming(text, legacy, &mut |case| ids.push(case.eval_id)).unwrap();
    assert_eq!(ids, ["a", "b"]);
    assert!(header.eval_cases.is_empty());
    assert_eq!(
        (header.eval_set_id.as_str(), format),
        ("s", SourceFormat::EvalSet)
    );
    assert_eq!(header.extra["x"], 1, "keys after eval_cases are read too");
}

#[test]
fn a_reader_hands_over_cases_one_at_a_time_and_errors_say_where() {
    let text = "{\"eval_set_id\": \"s\", \"eval_cases\": [\n{\"eval_id\": \"a\", \"conversation\": []},\n{\"eval_id\": \"b\", \"conversation\": []}]}";
    let mut seen = Vec::new();
    let header = read_evalset_cases(text.as_bytes(), &mut |index, case| {
        seen.push((index, case.eval_id));
        Ok(())
    })
    .unwrap();
    assert_eq!(seen, [(0, "a".to_string()), (1, "b".to_string())]);
    assert_eq!(header.eval_set_id, "s");

    let broken = text.replace("\"conversation\": []}]", "\"conversation\": 7}]");
    let err = read_evalset_cases(broken.as_bytes(), &mut |_, _| Ok(())).unwrap_err();
    assert_eq!((err.line, err.column), (3, 35), "{err:?}");
    assert!(err.message.contains("expected a sequence"), "{err:?}");
    let stopped = read_evalset_cases(text.as_bytes(), &mut |_, _| Err("enough".into())).unwrap_err();
    assert!(stopped.message.contains("enough"), "{stopped:?}");
}

#[test]
fn floats_survive_exactly() {
    // Without serde_json's float_roundtrip this timestamp comes back one ulp off (…243549).
    let input = r#"{"eval_set_id": "s", "creation_timestamp": 1795425796.2435493, "eval_cases": [
        {"eval_id": "c", "creation_timestamp": 1795425796.2435493, "conversation": [],
         "x": [0.1, 2.2250738585072014e-308, 1.7976931348623157e308, 5e-324, 123456789.12345679]}]}"#;
    let once = to_adk_json(&parse_ok(input));
    assert!(
        once.contains("1795425796.2435493") && once.contains("123456789.12345679"),
        "{once}"
    );
    assert_eq!(once, to_adk_json(&parse_ok(&once)));
}

#[test]
fn accepting_an_actual_keeps_the_expected_form_and_the_users_message() {
    let mut expected: Invocation = serde_json::from_value(json!({
        "invocation_id": "e1",
        "user_content": {"role": "user", "parts": [{"text": "Weather in Paris?"}]},
        "final_response": {"role": "model", "parts": [{"text": "Rainy."}]},
        "intermediate_data": {"tool_uses": [{"name": "get_weather", "args": {"city": "Lyon"}}]},
        "x_note": 1
    }))
    .unwrap();
    let actual: Invocation = serde_json::from_value(json!({
        "invocation_id": "a1",
        "user_content": {"role": "user", "parts": [{"text": "Weather in Paris?"}]},
        "final_response": {"role": "model", "parts": [{"text": "Sunny."}]},
        "intermediate_data": {"invocation_events": [
            {"author": "demo", "content": {"role": "model", "parts": [
                {"function_call": {"id": "c1", "name": "get_weather", "args": {"city": "Paris"}}}]}},
            {"author": "demo", "content": {"role": "user", "parts": [
                {"function_response": {"id": "c1", "name": "get_weather", "response": {"sky": "clear"}}}]}}
        ]}
    }))
    .unwrap();
    expected.accept_actual(&actual);
    let value = serde_json::to_value(&expected).unwrap();
    assert_eq!(value["invocation_id"], "e1");
    assert_eq!(value["x_note"], 1);
    assert_eq!(value["final_response"]["parts"][0]["text"], "Sunny.");
    let data = &value["intermediate_data"];
    assert_eq!(data["tool_uses"][0]["args"]["city"], "Paris");
    assert_eq!(data["tool_responses"][0]["response"]["sky"], "clear");
    assert!(data.get("invocation_events").is_none(), "{data}");

    // A turn in the events form takes the actual's events as they are.
    let mut events_form = actual.clone();
    events_form.accept_actual(&actual);
    assert_eq!(events_form.intermediate_data, actual.intermediate_data);
}
