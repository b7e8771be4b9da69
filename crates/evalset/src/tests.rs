use super::*;
use serde_json::json;
use std::path::PathBuf;

fn fixtures_dir() -> PathBuf {
    PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo test sets CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/adk")
}

/// Every evalset fixture (the `__test_config.json` files are eval configs, not evalsets).
fn fixture_evalsets() -> Vec<(String, String)> {
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

/// The fast reader against the exact one: the same cases handed over once each, in order, the
/// same header, and the same error where one is.
#[test]
fn the_fast_reader_reads_as_the_exact_one() {
    let text = "\u{20}{\"eval_set_id\": \"s\", \"x\": [1], \"eval_cases\": [\n{\"eval_id\": \"a\", \"conversation\": []},\n{\"eval_id\": \"b\", \"conversation\": []}], \"name\": \"n\"}";
    let broken_case = text.replace("[]}]", "7}]");
    let broken_header = text.replace("\"n\"}", "3}");
    let unexpected = text.replace("\"eval_set_id\"", "\"eval\\u005fset_id\"");
    let broken_before = text.replace("\"x\": [1]", "\"name\": 3");
    let form_feed = format!("{text}\u{c}");
    for text in [
        text,
        &broken_case,
        &broken_header,
        &unexpected,
        &broken_before,
        &form_feed,
        "{\"eval_cases\": []}",
        "[]",
    ] {
        let read = |fast: bool, refuse: Option<&str>| {
            let mut seen = Vec::new();
            let mut on_case = |index, case: EvalCase, _: Option<&str>| {
                if Some(case.eval_id.as_str()) == refuse {
                    return Err(format!("refused {}", case.eval_id));
                }
                seen.push((index, case.eval_id));
                Ok(())
            };
            let header = if fast {
                read_evalset_cases_fast(
                    text.as_bytes(),
                    || Ok(text.as_bytes()),
                    CaseParts::Whole,
                    &mut on_case,
                )
            } else {
                read_evalset_cases(text.as_bytes(), &mut |index, case| on_case(index, case, None))
            };
            (header, seen)
        };
        for refuse in [None, Some("a"), Some("b")] {
            assert_eq!(
                read(true, refuse),
                read(false, refuse),
                "{text} refusing {refuse:?}"
            );
        }
        let mut asked = 0;
        let _ = read_evalset_cases_fast(
            text.as_bytes(),
            || Ok(text.as_bytes()),
            CaseParts::Whole,
            &mut |_, _, _| {
                asked += 1;
                Err("no".into())
            },
        );
        assert!(asked <= 1, "a refused case is not offered again: {text}");
    }
}

/// A set of `count` empty cases `c0`, `c1`…, a case a line, with a member after the list.
fn numbered_set(count: usize) -> String {
    let cases: Vec<String> = (0..count)
        .map(|i| format!("{{\"eval_id\": \"c{i}\", \"conversation\": []}}"))
        .collect();
    format!(
        "{{\"eval_set_id\": \"s\", \"eval_cases\": [\n{}], \"name\": \"n\"}}",
        cases.join(",\n")
    )
}

/// The two-thread reader against the exact one: cases kept once each, in order, whichever
/// thread skimmed them; the first case refused in the list's order (by the check on either
/// thread, or by the keeper) stops it with the exact reader's error. With 7 cases all are
/// skimmed on the cutting thread; with 400 a check slowed on every tenth case keeps the
/// helper behind, so batches are skimmed on both threads and refusals meet either.
#[test]
fn the_parallel_reader_reads_as_the_exact_one() {
    for count in [7, 400] {
        let at = |share: usize| format!("c{}", (count - 1) * share / 6);
        let text = numbered_set(count);
        let broken_case = text.replace(
            &format!("\"{}\", \"conversation\": []", at(4)),
            &format!("\"{}\", \"conversation\": 7", at(4)),
        );
        let broken_json = text.replace(&format!("\"{}\", ", at(5)), &format!("\"{}\" ", at(5)));
        let broken_header = text.replace("\"n\"}", "3}");
        for text in [&text, &broken_case, &broken_json, &broken_header] {
            let read = |parallel: bool, check_refuses: Option<&str>, keep_refuses: Option<&str>| {
                let check = |case: CaseRead| {
                    let eval_id = match case {
                        CaseRead::Skimmed { head, .. } => head.eval_id,
                        CaseRead::Parsed(case) => case.eval_id,
                    };
                    if parallel && count > 7 && eval_id.ends_with('7') {
                        std::thread::sleep(std::time::Duration::from_micros(200));
                    }
                    match check_refuses == Some(eval_id.as_str()) {
                        true => Err(format!("checked {eval_id}")),
                        false => Ok(eval_id),
                    }
                };
                let mut kept = Vec::new();
                let mut keep = |index: usize, id: String| {
                    if keep_refuses == Some(id.as_str()) {
                        return Err(format!("kept {id}"));
                    }
                    kept.push((index, id));
                    Ok(())
                };
                let header = if parallel {
                    read_evalset_cases_parallel(text.as_bytes(), || Ok(text.as_bytes()), &check, &mut keep)
                } else {
                    read_evalset_cases(text.as_bytes(), &mut |index, case| {
                        keep(index, check(CaseRead::Parsed(Box::new(case)))?)
                    })
                };
                (header, kept)
            };
            for (check_refuses, keep_refuses) in [
                (None, None),
                (Some(at(0)), None),
                (Some(at(3)), None),
                (None, Some(at(6))),
                (Some(at(5)), Some(at(2))),
                (Some(at(2)), Some(at(5))),
            ] {
                let (check_refuses, keep_refuses) = (check_refuses.as_deref(), keep_refuses.as_deref());
                assert_eq!(
                    read(true, check_refuses, keep_refuses),
                    read(false, check_refuses, keep_refuses),
                    "{count} cases refusing {check_refuses:?} {keep_refuses:?}"
                );
            }
        }
    }
}

/// Enough cases to fill the helper's queue: every one kept once, in order, with its text as
/// read (which parses to a case of the head skimmed from it).
#[test]
fn the_parallel_reader_keeps_a_long_list_in_order_with_each_text_as_read() {
    let text = numbered_set(500);
    let check = |case: CaseRead| {
        let CaseRead::Skimmed { head, text } = case else {
            return Err("not skimmed".to_string());
        };
        assert_eq!(CaseHead::of(&serde_json::from_str(&text).unwrap()), head);
        Ok(head.eval_id)
    };
    let mut kept = Vec::new();
    read_evalset_cases_parallel(
        text.as_bytes(),
        || Ok(text.as_bytes()),
        &check,
        &mut |index, id| {
            kept.push((index, id));
            Ok(())
        },
    )
    .unwrap();
    let expected: Vec<(usize, String)> = (0..500).map(|i| (i, format!("c{i}"))).collect();
    assert_eq!(kept, expected);
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

/// Every value of `value` (itself included) replaced in turn by each of `with`, and every key
/// of an object left out in turn: as JSON texts.
fn mutations(value: &serde_json::Value, with: &[serde_json::Value]) -> Vec<String> {
    use serde_json::Value;
    let mut texts: Vec<String> = with.iter().map(Value::to_string).collect();
    match value {
        Value::Object(map) => {
            for (key, inner) in map {
                let mut without = map.clone();
                without.shift_remove(key);
                texts.push(Value::Object(without).to_string());
                for text in mutations(inner, with) {
                    let mut changed = map.clone();
                    changed.insert(key.clone(), serde_json::from_str(&text).unwrap_or(Value::Null));
                    texts.push(Value::Object(changed).to_string());
                }
            }
        }
        Value::Array(items) => {
            for (index, inner) in items.iter().enumerate() {
                for text in mutations(inner, with) {
                    let mut changed = items.clone();
                    changed[index] = serde_json::from_str(&text).unwrap_or(Value::Null);
                    texts.push(Value::Array(changed).to_string());
                }
            }
        }
        _ => {}
    }
    texts
}

/// What a lean read keeps of a parsed case (see `crate::lean`).
fn lean_part(case: EvalCase) -> EvalCase {
    let lean_turn = |turn: Invocation| Invocation {
        final_response: turn.final_response,
        intermediate_data: turn.intermediate_data.map(|data| IntermediateData {
            tool_uses: data
                .tool_uses
                .into_iter()
                .map(|call| FunctionCall {
                    name: call.name,
                    args: call.args,
                    ..FunctionCall::default()
                })
                .collect(),
            invocation_events: data.invocation_events,
            ..IntermediateData::default()
        }),
        duration: turn.duration,
        model_duration: turn.model_duration,
        tool_duration: turn.tool_duration,
        ..Invocation::default()
    };
    EvalCase {
        eval_id: case.eval_id,
        conversation: case
            .conversation
            .map(|turns| turns.into_iter().map(lean_turn).collect()),
        ..EvalCase::default()
    }
}

/// What is skimmed without error parses, to a case of the same head, and what parses skims;
/// what reads lean parses, to the case's lean part, and what parses reads lean: over every ADK
/// fixture's cases with each value replaced by one of another kind.
#[test]
fn a_case_skims_and_reads_lean_exactly_when_it_parses() {
    let with = [
        json!(null),
        json!(7),
        json!(2.5),
        json!(-1),
        json!("s"),
        json!(true),
        json!([]),
        json!(["s", []]),
        json!({}),
        json!({"text": "t"}),
    ];
    // Every model of a case, which the fixtures do not all have.
    let rich = json!({"eval_set_id": "rich", "eval_cases": [{
        "eval_id": "r",
        "conversation": [{
            "invocationId": "i",
            "user_content": {"parts": [{"text": "q", "thought": false}], "role": "user"},
            "final_response": {"parts": [{"functionCall": {"name": "f", "args": {"a": [1, {"b": null}]}}}]},
            "intermediate_data": {
                "tool_uses": [{"id": "c", "name": "f", "args": {"x": 1}}],
                "tool_responses": [{"name": "f", "response": {"ok": true}, "willContinue": false}],
                "intermediate_responses": [["agent", [{"text": "hm"}]]],
                "invocation_events": [{"author": "a", "content": {"parts": [{"text": "e"}]}}]
            },
            "creation_timestamp": 1.5,
            "duration": 2,
            "modelDuration": 0.5,
            "tool_duration": 0.25,
            "rubrics": [{"rubric_id": "r1", "rubric_content": {"text_property": "good"}}],
            "app_details": {"agent": "x"}
        }],
        "session_input": {"app_name": "a", "user_id": "u", "state": {"k": [1, 2]}},
        "rubrics": [{"rubricId": "r2", "rubricContent": {"textProperty": "fine"}, "description": "d"}],
        "final_session_state": {"s": 1},
        "other": {"kept": true}
    }, {
        "eval_id": "s",
        "conversation_scenario": {"starting_prompt": "hi", "conversation_plan": "ask", "user_persona": "p"}
    }]});
    let mut sets = fixture_evalsets();
    sets.push(("rich".into(), rich.to_string()));
    let mut checked = 0;
    for (name, text) in sets {
        let Ok(set) = serde_json::from_str::<serde_json::Value>(&text) else {
            continue;
        };
        let Some(cases) = set.get("eval_cases").and_then(|cases| cases.as_array()) else {
            continue;
        };
        for case in cases {
            let mut texts = mutations(case, &with);
            // A number out of f64's range, which only reading it as a number refuses.
            texts.push(case.to_string().replacen("1", "1e400", 1));
            // A key twice: the last one counts.
            texts.push(case.to_string().replacen('{', "{\"evalId\": null, ", 1));
            texts.push(case.to_string().replacen('{', "{\"conversation\": 3, ", 1));
            let last = case.to_string();
            texts.push(format!("{}, \"eval_id\": null}}", &last[..last.len() - 1]));
            texts.push(format!("{}, \"conversation\": null}}", &last[..last.len() - 1]));
            for text in texts {
                let parsed = serde_json::from_str::<EvalCase>(&text);
                match skim_case(&text) {
                    Ok(head) => assert_eq!(
                        Some(head),
                        parsed.as_ref().ok().map(CaseHead::of),
                        "{name}: skimmed but not parsed: {text}"
                    ),
                    Err(err) => assert!(parsed.is_err(), "{name}: parsed but not skimmed ({err}): {text}"),
                }
                assert_eq!(
                    parse_case_lean(&text).ok(),
                    parsed.ok().map(lean_part),
                    "{name}: read lean otherwise than parsed: {text}"
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 3_000, "only {checked} texts checked");
}

/// A key serde_json reserves but reads as any other (no feature's token) parses, though the
/// skim and the lean read refuse it: reading such a case for its lean parts parses it whole.
#[test]
fn a_case_only_the_lean_read_refuses_reads_whole_for_its_lean_parts() {
    let text = r#"{"eval_id": "a", "conversation": [], "x": {"$serde_json::private::other": 1}}"#;
    let whole: EvalCase = serde_json::from_str(text).unwrap();
    assert!(parse_case_lean(text).is_err());
    assert_eq!(CaseParts::Lean.parse(text).unwrap(), whole);
    let set = EvalSet {
        eval_cases: vec![whole.clone()],
        ..EvalSet::default()
    };
    assert_eq!(CompactEvalSet::of(&set).case_parts(0, CaseParts::Lean), whole);
}

/// serde_json's own tokens, which its `Value` reads specially under some features (`raw_value`,
/// on in the app's build), are refused by the skim (and a lean read, where it skims) whatever
/// they hold: the exact reader then reads such a case, so a case kept as skimmed always parses.
#[test]
fn the_skim_refuses_serde_json_tokens() {
    for token in [
        r#"{"$serde_json::private::RawValue": 0}"#,
        r#"{"$serde_json::private::RawValue": "{"}"#,
        r#"{"$serde_json::private::RawValue": "1", "y": 1}"#,
        r#"{"$serde_json::private::Number": "x"}"#,
    ] {
        for place in [
            "\"x\": {token}",
            "\"session_input\": {\"app_name\": \"a\", \"user_id\": \"u\", \"state\": {\"s\": {token}}}",
        ] {
            let text = format!(
                "{{\"eval_id\": \"a\", \"conversation\": [], {}}}",
                place.replace("{token}", token)
            );
            assert!(skim_case(&text).is_err(), "{text}");
            assert!(parse_case_lean(&text).is_err(), "{text}");
        }
    }
}
