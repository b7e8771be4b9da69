//! Tests of tool-trajectory matching (tool_trajectory_avg_score) and its partial-credit shares.

use super::*;
use crate::evalset::Invocation;
use pure_metrics::partial::{tool_used, trajectory_share, TrajectoryShare};
use pure_metrics::trajectory::{tool_trajectory_score, MatchType, TrajectoryCriterion};

fn invocation(calls: Value) -> Invocation {
    serde_json::from_value(json!({
        "user_content": {"parts": [{"text": "q"}]},
        "intermediate_data": {"tool_uses": calls},
    }))
    .unwrap()
}

fn trajectory(actual: Value, expected: Value, match_type: MatchType, ignore_args: bool) -> f64 {
    let criterion = TrajectoryCriterion {
        match_type,
        ignore_args,
    };
    tool_trajectory_score(&invocation(actual), &invocation(expected), criterion)
}

#[test]
fn exact_match_needs_same_calls_in_same_order() {
    let (a, b, c) = (
        call("a", json!({})),
        call("b", json!({"x": 1})),
        call("c", json!({})),
    );
    let exact = |actual, expected| trajectory(actual, expected, MatchType::Exact, false);
    assert_eq!(exact(json!([a, b]), json!([a, b])), 1.0);
    assert_eq!(exact(json!([b, a]), json!([a, b])), 0.0);
    assert_eq!(exact(json!([a, b, c]), json!([a, b])), 0.0);
    assert_eq!(exact(json!([]), json!([])), 1.0);
    assert_eq!(exact(json!([a]), json!([])), 0.0);
}

#[test]
fn in_order_match_allows_extra_calls_between() {
    let [a, b, c, d] = ["a", "b", "c", "d"].map(|n| call(n, json!({})));
    let in_order = |actual, expected| trajectory(actual, expected, MatchType::InOrder, false);
    assert_eq!(in_order(json!([a, d, b, d, c]), json!([a, b, c])), 1.0);
    assert_eq!(in_order(json!([a, c, b]), json!([a, b, c])), 0.0);
    assert_eq!(in_order(json!([a, b]), json!([a, b, c])), 0.0);
    assert_eq!(in_order(json!([]), json!([])), 1.0);
    assert_eq!(in_order(json!([a]), json!([])), 1.0);
    assert_eq!(in_order(json!([]), json!([a])), 0.0);
    assert_eq!(in_order(json!([a, a]), json!([a, a])), 1.0);
    assert_eq!(in_order(json!([a]), json!([a, a])), 0.0);
}

#[test]
fn any_order_match_is_multiset_containment() {
    let [a, b, c] = ["a", "b", "c"].map(|n| call(n, json!({})));
    let any_order = |actual, expected| trajectory(actual, expected, MatchType::AnyOrder, false);
    assert_eq!(any_order(json!([c, b, a]), json!([a, b])), 1.0);
    assert_eq!(any_order(json!([a, b]), json!([a, a])), 0.0);
    assert_eq!(any_order(json!([a, c, a]), json!([a, a])), 1.0);
    assert_eq!(any_order(json!([b]), json!([])), 1.0);
    assert_eq!(any_order(json!([]), json!([a])), 0.0);
}

#[test]
fn ignore_args_compares_names_only() {
    let actual = json!([call("get_weather", json!({"city": "Paris"}))]);
    let expected = json!([call("get_weather", json!({"city": "Rome"}))]);
    for match_type in MatchType::ALL {
        assert_eq!(
            trajectory(actual.clone(), expected.clone(), match_type, false),
            0.0
        );
        assert_eq!(
            trajectory(actual.clone(), expected.clone(), match_type, true),
            1.0
        );
    }
    let other_tool = json!([call("get_time", json!({"city": "Rome"}))]);
    assert_eq!(trajectory(other_tool, expected, MatchType::Exact, true), 0.0);
}

#[test]
fn args_compare_as_python_compares_parsed_json() {
    let same = |a: Value, b: Value| {
        trajectory(
            json!([call("f", a)]),
            json!([call("f", b)]),
            MatchType::Exact,
            false,
        ) == 1.0
    };
    assert!(same(json!({"n": 1}), json!({"n": 1.0})));
    assert!(same(json!({"n": 0}), json!({"n": -0.0})));
    assert!(same(json!({"a": 1, "b": 2}), json!({"b": 2, "a": 1})));
    assert!(same(
        json!({"q": {"z": [1, {"y": null}], "a": true}}),
        json!({"q": {"a": true, "z": [1.0, {"y": null}]}})
    ));
    // Python's bool is an int: True == 1 == 1.0.
    assert!(same(json!({"flag": true}), json!({"flag": 1.0})));
    assert!(!same(json!({"flag": true}), json!({"flag": 2})));
    assert!(!same(json!({"n": 1}), json!({"n": 1.5})));
    assert!(!same(json!({"n": "1"}), json!({"n": 1})));
    assert!(!same(json!({"l": [1, 2]}), json!({"l": [2, 1]})));
    assert!(!same(json!({"a": 1}), json!({"a": 1, "b": null})));
    assert!(!same(
        json!({"n": 9007199254740993u64}),
        json!({"n": 9007199254740992.0})
    ));
    assert!(same(
        json!({"n": 9007199254740992u64}),
        json!({"n": 9007199254740992.0})
    ));
}

#[test]
fn call_ids_are_ignored_and_null_args_differ_from_empty() {
    let with_id = json!([{"id": "call-1", "name": "f", "args": {"a": 1}}]);
    let without = json!([{"name": "f", "args": {"a": 1}}]);
    assert_eq!(trajectory(with_id, without, MatchType::Exact, false), 1.0);
    let no_args = json!([{"name": "f"}]);
    let null_args = json!([{"name": "f", "args": null}]);
    let empty_args = json!([{"name": "f", "args": {}}]);
    assert_eq!(
        trajectory(no_args.clone(), null_args, MatchType::Exact, false),
        1.0
    );
    assert_eq!(
        trajectory(no_args.clone(), empty_args.clone(), MatchType::Exact, false),
        0.0
    );
    assert_eq!(trajectory(no_args, empty_args, MatchType::Exact, true), 1.0);
}

#[test]
fn tool_calls_come_from_invocation_events_too() {
    let events: Invocation = serde_json::from_value(json!({
        "user_content": {"parts": [{"text": "q"}]},
        "intermediate_data": {"invocation_events": [
            {"author": "agent", "content": {"parts": [
                {"text": "let me look"}, {"function_call": {"name": "a", "args": {"x": 1}}}]}},
            {"author": "agent", "content": {"parts": [{"function_response": {"name": "a", "response": {}}}]}},
            {"author": "agent"},
            {"author": "agent", "content": {"parts": [{"function_call": {"id": "7", "name": "b", "args": {}}}]}},
        ]},
    }))
    .unwrap();
    let uses = invocation(json!([call("a", json!({"x": 1.0})), call("b", json!({}))]));
    let exact = TrajectoryCriterion::default();
    assert_eq!(tool_trajectory_score(&events, &uses, exact), 1.0);
    let no_data: Invocation = serde_json::from_value(json!({"user_content": {"parts": []}})).unwrap();
    assert_eq!(
        tool_trajectory_score(&no_data, &invocation(json!([])), exact),
        1.0
    );
    assert_eq!(tool_trajectory_score(&no_data, &uses, exact), 0.0);
}

fn calls_invocation(calls: Value) -> Invocation {
    serde_json::from_value(json!({
        "invocation_id": "i",
        "user_content": {"role": "user", "parts": [{"text": "q"}]},
        "intermediate_data": {"tool_uses": calls}
    }))
    .unwrap()
}

#[test]
fn trajectory_shares_count_each_call_once() {
    let expected = calls_invocation(json!([
        {"name": "a", "args": {"x": 1}}, {"name": "a", "args": {"x": 1}}, {"name": "b", "args": {}}
    ]));
    // One `a` matched twice would not count twice; `c` is extra; the args of the other `b` differ.
    let actual = calls_invocation(json!([
        {"name": "a", "args": {"x": 1.0}}, {"name": "c", "args": {}}, {"name": "b", "args": {"y": 2}}
    ]));
    let share = |share, ignore_args| trajectory_share(&actual, &expected, share, ignore_args);
    assert_eq!(share(TrajectoryShare::Precision, false), 1.0 / 3.0);
    assert_eq!(share(TrajectoryShare::Recall, false), 1.0 / 3.0);
    assert!((share(TrajectoryShare::F1, false) - 1.0 / 3.0).abs() < 1e-12);
    assert_eq!(share(TrajectoryShare::Precision, true), 2.0 / 3.0);
    assert_eq!(share(TrajectoryShare::Recall, true), 2.0 / 3.0);

    let empty = calls_invocation(json!([]));
    assert_eq!(trajectory_share(&empty, &empty, TrajectoryShare::F1, false), 1.0);
    assert_eq!(
        trajectory_share(&actual, &empty, TrajectoryShare::Precision, false),
        0.0
    );
    assert_eq!(
        trajectory_share(&actual, &empty, TrajectoryShare::Recall, false),
        1.0
    );
    assert_eq!(trajectory_share(&actual, &empty, TrajectoryShare::F1, false), 0.0);
    assert_eq!(
        trajectory_share(&empty, &expected, TrajectoryShare::Recall, false),
        0.0
    );
    assert_eq!(tool_used(&actual, "c"), 1.0);
    assert_eq!(tool_used(&actual, "d"), 0.0);
}
