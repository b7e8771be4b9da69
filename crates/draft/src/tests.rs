use super::json_text::parse_json_object;
use super::*;
use evalset::{parse_evalset_file, EvalCase, LegacyDefaults};
use serde_json::{json, Value};
use std::path::PathBuf;

fn case(value: Value) -> EvalCase {
    serde_json::from_value(value).unwrap()
}

fn json_of(case: &EvalCase) -> Value {
    serde_json::to_value(case).unwrap()
}

/// A case with things the editor does not show: unknown keys, app_details, a thought, inline data.
fn weather_case() -> Value {
    json!({
        "eval_id": "paris",
        "x_owner": "qa",
        "conversation": [{
            "invocation_id": "i1",
            "user_content": {"role": "user", "parts": [
                {"text": "thinking", "thought": true},
                {"text": "Weather in Paris?"},
                {"inline_data": {"mime_type": "image/png", "data": "AAAA"}}
            ]},
            "final_response": {"role": "model", "parts": [{"text": "Sunny."}]},
            "intermediate_data": {
                "tool_uses": [
                    {"id": "call-1", "name": "get_weather", "args": {"city": "Paris"}},
                    {"id": "call-2", "name": "get_time", "args": {"tz": "CET"}}
                ],
                "tool_responses": [{"id": "call-1", "name": "get_weather", "response": {"sky": "clear"}}],
                "intermediate_responses": []
            },
            "app_details": {"agent_details": {"root": {"name": "root"}}},
            "x_turn_note": 7
        }]
    })
}

fn events_case() -> Value {
    json!({
        "eval_id": "events",
        "conversation": [{
            "invocation_id": "i1",
            "user_content": {"role": "user", "parts": [{"text": "Turn on the lights"}]},
            "intermediate_data": {"invocation_events": [
                {"author": "home", "content": {"role": "model", "parts": [
                    {"function_call": {"id": "c1", "name": "set_light", "args": {"on": true}}}
                ]}},
                {"author": "home", "content": {"role": "user", "parts": [
                    {"function_response": {"id": "c1", "name": "set_light", "response": {"ok": true}}}
                ]}}
            ]}
        }]
    })
}

fn first_call_key(draft: &CaseDraft) -> (Key, Key) {
    let turn = &draft.turns[0];
    (turn.key, turn.calls()[0].key)
}

#[test]
fn an_unedited_draft_builds_the_case_it_came_from_for_every_adk_fixture() {
    let dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo test sets CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/adk");
    let mut checked = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.to_string_lossy().ends_with("_test_config.json") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let mut n = 0;
        let mut new_id = || {
            n += 1;
            format!("inv-{n}")
        };
        let defaults = LegacyDefaults {
            name: "legacy",
            file_name: "legacy.test.json",
            now: 1.0,
            new_invocation_id: &mut new_id,
        };
        let (set, _) = parse_evalset_file(&text, defaults).unwrap();
        for original in &set.eval_cases {
            let built = CaseDraft::from_case(original)
                .build()
                .unwrap_or_else(|p| panic!("{}: {p:?}", path.display()));
            assert_eq!(json_of(&built), json_of(original), "{}", path.display());
            checked += 1;
        }
    }
    assert!(checked >= 7, "checked {checked} cases");
}

#[test]
fn editing_args_changes_only_those_args() {
    let original = case(weather_case());
    let mut draft = CaseDraft::from_case(&original);
    let (turn, call) = first_call_key(&draft);
    draft.turn_mut(turn).unwrap().call_mut(call).unwrap().args = "{\"city\": \"Lyon\"}".into();
    let built = json_of(&draft.build().unwrap());
    let mut expected = weather_case();
    expected["conversation"][0]["intermediate_data"]["tool_uses"][0]["args"] = json!({"city": "Lyon"});
    assert_eq!(built, json_of(&case(expected)));
}

#[test]
fn invalid_args_name_the_field_the_line_and_the_column() {
    let mut draft = CaseDraft::from_case(&case(weather_case()));
    let (turn, call) = first_call_key(&draft);
    draft.turn_mut(turn).unwrap().call_mut(call).unwrap().args = "{\n  \"city\": Lyon\n}".into();
    let problems = draft.build().unwrap_err();
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].field, format!("{call}.args"));
    assert_eq!(problems[0].place, "turn 1, call 1 (get_weather): args");
    assert!(
        problems[0]
            .message
            .starts_with("line 2, column 11: expected value"),
        "{}",
        problems[0].message
    );
}

#[test]
fn args_must_be_an_object() {
    assert_eq!(
        parse_json_object("[1]").unwrap_err().to_string(),
        "line 1, column 1: expected a JSON object `{...}`, found an array"
    );
}

#[test]
fn a_new_message_text_keeps_thoughts_and_inline_data() {
    let mut draft = CaseDraft::from_case(&case(weather_case()));
    draft.turns[0].user = "Weather in Lyon?".into();
    let built = json_of(&draft.build().unwrap());
    assert_eq!(
        built["conversation"][0]["user_content"]["parts"],
        json!([
            {"text": "thinking", "thought": true},
            {"text": "Weather in Lyon?"},
            {"inline_data": {"mime_type": "image/png", "data": "AAAA"}}
        ])
    );
    assert_eq!(built["conversation"][0]["x_turn_note"], json!(7));
    assert_eq!(built["x_owner"], json!("qa"));
}

#[test]
fn calls_reorder_by_key_and_keep_their_ids() {
    let mut draft = CaseDraft::from_case(&case(weather_case()));
    let turn = &mut draft.turns[0];
    let second = turn.calls()[1].key;
    let Steps::ToolUses { calls, .. } = &mut turn.steps else {
        panic!("tool_uses form")
    };
    assert!(move_item(calls, second, -1));
    assert!(!move_item(calls, second, -1), "already first");
    let built = json_of(&draft.build().unwrap());
    let uses = &built["conversation"][0]["intermediate_data"]["tool_uses"];
    assert_eq!(uses[0]["id"], json!("call-2"));
    assert_eq!(uses[1]["id"], json!("call-1"));
}

#[test]
fn a_duplicated_turn_gets_new_keys_and_its_own_invocation_id() {
    let mut draft = CaseDraft::from_case(&case(weather_case()));
    let key = draft.turns[0].key;
    draft.duplicate_turn(key);
    assert_ne!(draft.turns[1].key, key);
    let old: Vec<Key> = draft.turns[0].calls().iter().map(|c| c.key).collect();
    let new: Vec<Key> = draft.turns[1].calls().iter().map(|c| c.key).collect();
    assert!(old.iter().all(|k| !new.contains(k)));
    let built = json_of(&draft.build().unwrap());
    assert_eq!(built["conversation"][1]["invocation_id"], json!("e-turn-2"));
    // The copied calls keep their ids, which the copied responses refer to.
    assert_eq!(
        built["conversation"][1]["intermediate_data"]["tool_uses"][0]["id"],
        json!("call-1")
    );
    assert!(draft.next_key > *new.iter().max().unwrap());
}

#[test]
fn a_duplicated_call_is_a_new_call_without_an_id() {
    let mut draft = CaseDraft::from_case(&case(weather_case()));
    let (turn, call) = first_call_key(&draft);
    draft.duplicate_call(turn, call);
    let built = json_of(&draft.build().unwrap());
    let uses = &built["conversation"][0]["intermediate_data"]["tool_uses"];
    assert_eq!(uses[1], json!({"name": "get_weather", "args": {"city": "Paris"}}));
    assert_eq!(uses[0]["id"], json!("call-1"));
}

#[test]
fn a_case_read_again_gets_keys_after_the_open_ones() {
    let original = case(weather_case());
    let open = CaseDraft::from_case(&original);
    let again = CaseDraft::from_case_after(&original, open.next_key);
    assert!(again.turns[0].key > open.next_key);
    assert_eq!(json_of(&again.build().unwrap()), json_of(&original));
}

#[test]
fn a_new_call_needs_a_name() {
    let mut draft = CaseDraft::from_case(&case(weather_case()));
    let key = draft.new_key();
    let Steps::ToolUses { calls, .. } = &mut draft.turns[0].steps else {
        panic!("tool_uses form")
    };
    calls.push(CallDraft::new(key));
    let problems = draft.build().unwrap_err();
    assert_eq!(problems[0].field, format!("{key}.name"));
    assert_eq!(problems[0].message, "the tool name is empty");
    draft
        .turn_mut(draft.turns[0].key)
        .unwrap()
        .call_mut(key)
        .unwrap()
        .name = "get_news".into();
    let built = json_of(&draft.build().unwrap());
    assert_eq!(
        built["conversation"][0]["intermediate_data"]["tool_uses"][2],
        json!({"name": "get_news", "args": {}})
    );
}

#[test]
fn the_events_form_stays_events() {
    let original = case(events_case());
    let mut draft = CaseDraft::from_case(&original);
    let (turn, call) = first_call_key(&draft);
    draft.turn_mut(turn).unwrap().call_mut(call).unwrap().args = "{\"on\": false}".into();
    let key = draft.new_key();
    let Steps::Events(events) = &mut draft.turns[0].steps else {
        panic!("events form")
    };
    let mut added = CallDraft::new(key);
    added.name = "set_fan".into();
    let event_key = key + 1000;
    events.push(EventDraft::new(event_key, "home".into(), PartDraft::Call(added)));
    let built = json_of(&draft.build().unwrap());
    let data = &built["conversation"][0]["intermediate_data"];
    assert_eq!(data.get("tool_uses"), None, "not converted: {data}");
    let events = &data["invocation_events"];
    assert_eq!(
        events[0]["content"]["parts"][0]["function_call"]["args"],
        json!({"on": false})
    );
    assert_eq!(
        events[0]["content"]["parts"][0]["function_call"]["id"],
        json!("c1")
    );
    assert_eq!(
        events[2],
        json!({"author": "home", "content": {"role": "model", "parts": [{"function_call": {"name": "set_fan", "args": {}}}]}})
    );
}

#[test]
fn tags_are_an_extra_field() {
    let mut draft = CaseDraft::from_case(&case(weather_case()));
    draft.tags = "smoke, weather,".into();
    let built = draft.build().unwrap();
    assert_eq!(built.extra["tags"], json!(["smoke", "weather"]));
    let mut again = CaseDraft::from_case(&built);
    assert_eq!(again.tags, "smoke, weather");
    again.tags.clear();
    assert_eq!(again.build().unwrap().extra.get("tags"), None);

    // Tags left alone keep their values when another one is added.
    let mut numbered = weather_case();
    numbered["tags"] = json!([7, "smoke"]);
    let mut draft = CaseDraft::from_case(&case(numbered));
    assert_eq!(draft.tags, "7, smoke");
    draft.tags.push_str(", nightly");
    assert_eq!(
        draft.build().unwrap().extra["tags"],
        json!([7, "smoke", "nightly"])
    );
}

#[test]
fn rubrics_need_unique_ids_and_keep_their_type() {
    let mut draft = CaseDraft::from_case(&case(weather_case()));
    for id in ["r1", "r1"] {
        let key = draft.new_key();
        let mut rubric = RubricDraft::new(key, id.into());
        rubric.text = "Mentions the sky".into();
        rubric.kind = "FINAL_RESPONSE_QUALITY".into();
        draft.rubrics.push(rubric);
    }
    let problems = draft.build().unwrap_err();
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].message, "rubric_id `r1` is used twice");
    assert_eq!(problems[0].place, "case rubric 2: rubric_id");
    draft.rubrics[1].id = "r2".into();
    let built = json_of(&draft.build().unwrap());
    assert_eq!(
        built["rubrics"][1],
        json!({"rubric_id": "r2", "rubric_content": {"text_property": "Mentions the sky"}, "type": "FINAL_RESPONSE_QUALITY"})
    );
}

#[test]
fn a_scenario_case_has_no_turns() {
    let mut draft = CaseDraft::from_case(&case(weather_case()));
    draft.scenario = Some(ScenarioDraft {
        base: Default::default(),
        starting_prompt: "Hi".into(),
        conversation_plan: "Ask about the weather".into(),
        persona: String::new(),
    });
    let problems = draft.build().unwrap_err();
    assert_eq!(problems[0].field, "scenario");
    draft.turns.clear();
    let built = draft.build().unwrap();
    assert!(built.conversation.is_none());
    assert_eq!(built.conversation_scenario.unwrap().starting_prompt, "Hi");
}

#[test]
fn session_state_must_be_a_json_object_and_eval_ids_are_checked() {
    let mut draft = CaseDraft::from_case(&case(weather_case()));
    draft.session = Some(SessionDraft {
        base: Default::default(),
        app_name: "demo".into(),
        user_id: "u".into(),
        state: "{\"a\": 1,}".into(),
    });
    draft.eval_id = "has space".into();
    let fields: Vec<String> = draft.problems().into_iter().map(|p| p.field).collect();
    assert_eq!(fields, ["eval_id", "session.state"]);
}

#[test]
fn a_dropped_call_takes_the_place_of_the_one_it_is_dropped_on() {
    let mut draft = CaseDraft::from_case(&case(weather_case()));
    let keys: Vec<Key> = draft.turns[0].calls().iter().map(|c| c.key).collect();
    let Steps::ToolUses { calls, .. } = &mut draft.turns[0].steps else {
        panic!("tool_uses form")
    };
    assert!(move_to(calls, keys[0], keys[1]));
    assert_eq!(calls[1].key, keys[0]);
    assert!(!move_to(calls, keys[0], 999));
}
