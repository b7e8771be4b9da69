//! The fast readers against the exact one, and the skim and the lean read against parsing.

use crate::tests::fixture_evalsets;
use crate::*;
use serde_json::json;

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

/// What a lean read keeps of a parsed case (see `crate::fast::lean`).
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
