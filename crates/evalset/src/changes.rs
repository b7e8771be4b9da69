//! What changed between two versions of a case, in words a case's history can show ("turn 2:
//! args of get_weather changed"). Pure; compared as JSON values, so key order does not count.

use super::model::case::{EvalCase, Invocation};
use serde_json::Value;

/// The changes from `old` to `new`, in case order; empty when they are the same.
pub fn case_changes(old: &EvalCase, new: &EvalCase) -> Vec<String> {
    let mut changes = Vec::new();
    if old.eval_id != new.eval_id {
        changes.push(format!("renamed from `{}` to `{}`", old.eval_id, new.eval_id));
    }
    let (old_turns, new_turns) = (turns(old), turns(new));
    for (index, (before, after)) in old_turns.iter().zip(new_turns).enumerate() {
        turn_changes(index + 1, before, after, &mut changes);
    }
    if new_turns.len() > old_turns.len() {
        changes.extend((old_turns.len()..new_turns.len()).map(|i| format!("turn {} added", i + 1)));
    }
    if old_turns.len() > new_turns.len() {
        changes.extend((new_turns.len()..old_turns.len()).map(|i| format!("turn {} removed", i + 1)));
    }
    let fields: [(&str, Value, Value); 4] = [
        (
            "session input",
            json(&old.session_input),
            json(&new.session_input),
        ),
        ("rubrics", json(&old.rubrics), json(&new.rubrics)),
        (
            "conversation scenario",
            json(&old.conversation_scenario),
            json(&new.conversation_scenario),
        ),
        (
            "final session state",
            json(&old.final_session_state),
            json(&new.final_session_state),
        ),
    ];
    for (name, before, after) in fields {
        if before != after {
            changes.push(format!("{name} changed"));
        }
    }
    if json(&old.extra) != json(&new.extra) {
        changes.push("other fields changed".into());
    }
    changes
}

fn turns(case: &EvalCase) -> &[Invocation] {
    case.conversation.as_deref().unwrap_or_default()
}

fn json<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).expect("case parts serialise")
}

fn turn_changes(turn: usize, old: &Invocation, new: &Invocation, changes: &mut Vec<String>) {
    if old.user_content.joined_text() != new.user_content.joined_text() {
        changes.push(format!("turn {turn}: user message changed"));
    }
    let (old_calls, new_calls) = (old.tool_calls(), new.tool_calls());
    let old_names: Vec<&str> = old_calls
        .iter()
        .map(|c| c.name.as_deref().unwrap_or("?"))
        .collect();
    let new_names: Vec<&str> = new_calls
        .iter()
        .map(|c| c.name.as_deref().unwrap_or("?"))
        .collect();
    if old_names != new_names {
        changes.push(format!(
            "turn {turn}: tool calls changed from [{}] to [{}]",
            old_names.join(", "),
            new_names.join(", ")
        ));
    } else {
        for ((before, after), name) in old_calls.iter().zip(&new_calls).zip(&new_names) {
            if json(&before.args) != json(&after.args) {
                changes.push(format!("turn {turn}: args of {name} changed"));
            }
        }
    }
    let old_responses: Vec<Value> = old
        .intermediate_data
        .iter()
        .flat_map(|d| d.tool_responses())
        .map(json)
        .collect();
    let new_responses: Vec<Value> = new
        .intermediate_data
        .iter()
        .flat_map(|d| d.tool_responses())
        .map(json)
        .collect();
    if old_responses != new_responses {
        changes.push(format!("turn {turn}: tool responses changed"));
    }
    let old_texts = old
        .intermediate_data
        .as_ref()
        .map(|d| json(&d.intermediate_texts()));
    let new_texts = new
        .intermediate_data
        .as_ref()
        .map(|d| json(&d.intermediate_texts()));
    if old_texts != new_texts {
        changes.push(format!("turn {turn}: intermediate responses changed"));
    }
    let final_text = |i: &Invocation| i.final_response.as_ref().map(|c| c.joined_text());
    if final_text(old) != final_text(new) {
        changes.push(format!("turn {turn}: final response changed"));
    }
    if json(&old.rubrics) != json(&new.rubrics) {
        changes.push(format!("turn {turn}: rubrics changed"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn case(value: Value) -> EvalCase {
        serde_json::from_value(value).unwrap()
    }

    fn weather_case(city: &str, answer: &str) -> Value {
        json!({"eval_id": "paris", "conversation": [{
            "invocation_id": "i1",
            "user_content": {"role": "user", "parts": [{"text": "weather?"}]},
            "final_response": {"role": "model", "parts": [{"text": answer}]},
            "intermediate_data": {"tool_uses": [{"name": "get_weather", "args": {"city": city, "unit": "c"}}]}
        }]})
    }

    #[test]
    fn the_same_case_has_no_changes() {
        let a = case(weather_case("Paris", "Sunny."));
        assert!(case_changes(&a, &a.clone()).is_empty());
    }

    #[test]
    fn key_order_is_not_a_change() {
        let a = case(weather_case("Paris", "Sunny."));
        let mut b = weather_case("Paris", "Sunny.");
        b["conversation"][0]["intermediate_data"]["tool_uses"][0]["args"] =
            json!({"unit": "c", "city": "Paris"});
        assert!(case_changes(&a, &case(b)).is_empty());
    }

    #[test]
    fn changes_name_the_turn_and_the_tool() {
        let a = case(weather_case("Paris", "Sunny."));
        let b = case(weather_case("Lyon", "Rainy."));
        assert_eq!(
            case_changes(&a, &b),
            [
                "turn 1: args of get_weather changed",
                "turn 1: final response changed"
            ]
        );
    }

    #[test]
    fn added_and_removed_turns_and_calls_are_named() {
        let a = case(weather_case("Paris", "Sunny."));
        let mut two = weather_case("Paris", "Sunny.");
        let second = two["conversation"][0].clone();
        two["conversation"].as_array_mut().unwrap().push(second);
        two["conversation"][0]["intermediate_data"]["tool_uses"] = json!([]);
        two["eval_id"] = json!("paris_2");
        let b = case(two);
        assert_eq!(
            case_changes(&a, &b),
            [
                "renamed from `paris` to `paris_2`",
                "turn 1: tool calls changed from [get_weather] to []",
                "turn 2 added"
            ]
        );
        assert_eq!(case_changes(&b, &a).last().unwrap(), "turn 2 removed");
    }

    #[test]
    fn case_level_fields_are_named() {
        let a = case(weather_case("Paris", "Sunny."));
        let mut b = weather_case("Paris", "Sunny.");
        b["session_input"] = json!({"app_name": "demo", "user_id": "u"});
        b["tags"] = json!(["smoke"]);
        assert_eq!(
            case_changes(&a, &case(b)),
            ["session input changed", "other fields changed"]
        );
    }
}
