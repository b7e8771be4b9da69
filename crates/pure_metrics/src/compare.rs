//! Expected against actual, as the case result view shows them: tool calls aligned call by call
//! (matched calls paired, missing and extra ones marked), args compared key by key down to
//! nested values, and the final response as a word diff. Pure.

use evalset::{DiffKind, FunctionCall};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// How an argument (a leaf of the args, by path) compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ArgChange {
    Same,
    Changed,
    /// Expected, not given.
    Missing,
    /// Given, not expected.
    Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArgDiff {
    /// `city`, `options.units`, `stops[1]`.
    pub path: String,
    pub change: ArgChange,
    pub expected: Option<Value>,
    pub actual: Option<Value>,
}

/// One row of an aligned trajectory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AlignedCall {
    pub expected: Option<FunctionCall>,
    pub actual: Option<FunctionCall>,
    /// The args leaf by leaf, for a matched pair.
    pub args: Vec<ArgDiff>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallMatch {
    Same,
    ArgsDiffer,
    Missing,
    Extra,
}

impl AlignedCall {
    pub fn kind(&self) -> CallMatch {
        match (&self.expected, &self.actual) {
            (Some(_), None) => CallMatch::Missing,
            (None, _) => CallMatch::Extra,
            (Some(_), Some(_)) if self.args.iter().all(|a| a.change == ArgChange::Same) => CallMatch::Same,
            _ => CallMatch::ArgsDiffer,
        }
    }
}

fn name(call: &FunctionCall) -> &str {
    call.name.as_deref().unwrap_or_default()
}

fn args_value(call: &FunctionCall) -> Value {
    Value::Object(call.args.clone().unwrap_or_default())
}

/// Pairs calls of the same tool in order, as many as can be (those with equal args first),
/// and marks the rest missing (expected only) or extra (actual only).
pub fn align_calls(expected: &[&FunctionCall], actual: &[&FunctionCall]) -> Vec<AlignedCall> {
    let (n, m) = (expected.len(), actual.len());
    let weight = |i: usize, j: usize| -> u32 {
        if name(expected[i]) != name(actual[j]) {
            0
        } else if args_value(expected[i]) == args_value(actual[j]) {
            3
        } else {
            2
        }
    };
    // best[i][j]: the best pairing of expected[i..] with actual[j..].
    let width = m + 1;
    let mut best = vec![0u32; (n + 1) * width];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            let skip = best[(i + 1) * width + j].max(best[i * width + j + 1]);
            let w = weight(i, j);
            best[i * width + j] = if w > 0 {
                skip.max(w + best[(i + 1) * width + j + 1])
            } else {
                skip
            };
        }
    }
    let mut rows = Vec::with_capacity(n.max(m));
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m {
            let w = weight(i, j);
            if w > 0 && best[i * width + j] == w + best[(i + 1) * width + j + 1] {
                rows.push(AlignedCall {
                    expected: Some(expected[i].clone()),
                    actual: Some(actual[j].clone()),
                    args: compare_args(expected[i].args.as_ref(), actual[j].args.as_ref()),
                });
                i += 1;
                j += 1;
                continue;
            }
        }
        if i < n && (j == m || best[(i + 1) * width + j] >= best[i * width + j + 1]) {
            rows.push(AlignedCall {
                expected: Some(expected[i].clone()),
                actual: None,
                args: Vec::new(),
            });
            i += 1;
        } else {
            rows.push(AlignedCall {
                expected: None,
                actual: Some(actual[j].clone()),
                args: Vec::new(),
            });
            j += 1;
        }
    }
    rows
}

/// The two args leaf by leaf: objects by key (the expected order, then extra keys), lists by
/// position, anything else by value.
pub fn compare_args(
    expected: Option<&Map<String, Value>>,
    actual: Option<&Map<String, Value>>,
) -> Vec<ArgDiff> {
    let mut out = Vec::new();
    let empty = Map::new();
    compare_objects("", expected.unwrap_or(&empty), actual.unwrap_or(&empty), &mut out);
    out
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

fn compare_objects(
    path: &str,
    expected: &Map<String, Value>,
    actual: &Map<String, Value>,
    out: &mut Vec<ArgDiff>,
) {
    for (key, value) in expected {
        compare_values(join(path, key), Some(value), actual.get(key), out);
    }
    for (key, value) in actual.iter().filter(|(key, _)| !expected.contains_key(*key)) {
        compare_values(join(path, key), None, Some(value), out);
    }
}

fn compare_values(path: String, expected: Option<&Value>, actual: Option<&Value>, out: &mut Vec<ArgDiff>) {
    match (expected, actual) {
        (Some(Value::Object(e)), Some(Value::Object(a))) if !e.is_empty() || !a.is_empty() => {
            compare_objects(&path, e, a, out)
        }
        (Some(Value::Array(e)), Some(Value::Array(a))) if !e.is_empty() || !a.is_empty() => {
            for index in 0..e.len().max(a.len()) {
                compare_values(format!("{path}[{index}]"), e.get(index), a.get(index), out);
            }
        }
        _ => {
            let change = match (expected, actual) {
                (Some(e), Some(a)) if e == a => ArgChange::Same,
                (Some(_), Some(_)) => ArgChange::Changed,
                (Some(_), None) => ArgChange::Missing,
                _ => ArgChange::Extra,
            };
            out.push(ArgDiff {
                path,
                change,
                expected: expected.cloned(),
                actual: actual.cloned(),
            });
        }
    }
}

/// The actual response against the expected one, word by word: runs of kept, removed
/// (expected only) and added (actual only) text, whitespace included. Changes separated only by
/// whitespace read as one: all the removed words, then all the added ones.
pub fn word_diff(expected: &str, actual: &str) -> Vec<(DiffKind, String)> {
    use similar::{ChangeTag, TextDiff};
    let diff = TextDiff::from_words(expected, actual);
    let changes: Vec<(DiffKind, &str)> = diff
        .iter_all_changes()
        .map(|change| {
            let kind = match change.tag() {
                ChangeTag::Equal => DiffKind::Same,
                ChangeTag::Delete => DiffKind::Removed,
                ChangeTag::Insert => DiffKind::Added,
            };
            (kind, change.value())
        })
        .collect();
    let mut runs: Vec<(DiffKind, String)> = Vec::new();
    let mut i = 0;
    while i < changes.len() {
        if changes[i].0 == DiffKind::Same {
            push(&mut runs, DiffKind::Same, changes[i].1);
            i += 1;
            continue;
        }
        // A hunk: changes, and the whitespace between them, up to the next kept word.
        let mut end = i;
        let mut j = i;
        while j < changes.len() {
            match changes[j] {
                (DiffKind::Same, text) if text.trim().is_empty() => j += 1,
                (DiffKind::Same, _) => break,
                _ => {
                    j += 1;
                    end = j;
                }
            }
        }
        let (mut removed, mut added) = (String::new(), String::new());
        for &(kind, text) in &changes[i..end] {
            if kind != DiffKind::Added {
                removed.push_str(text);
            }
            if kind != DiffKind::Removed {
                added.push_str(text);
            }
        }
        push(&mut runs, DiffKind::Removed, &removed);
        push(&mut runs, DiffKind::Added, &added);
        i = end;
    }
    runs
}

fn push(runs: &mut Vec<(DiffKind, String)>, kind: DiffKind, text: &str) {
    if text.is_empty() {
        return;
    }
    match runs.last_mut() {
        Some((last, run)) if *last == kind => run.push_str(text),
        _ => runs.push((kind, text.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(name: &str, args: Value) -> FunctionCall {
        serde_json::from_value(json!({"name": name, "args": args})).unwrap()
    }

    fn kinds(rows: &[AlignedCall]) -> Vec<CallMatch> {
        rows.iter().map(AlignedCall::kind).collect()
    }

    #[test]
    fn calls_pair_by_tool_and_the_rest_are_missing_or_extra() {
        let expected = [
            call("get_weather", json!({"city": "Paris"})),
            call("convert", json!({"amount": 20})),
        ];
        let actual = [
            call("search", json!({"q": "x"})),
            call("get_weather", json!({"city": "Lyon"})),
            call("get_time", json!({})),
        ];
        let rows = align_calls(
            &expected.iter().collect::<Vec<_>>(),
            &actual.iter().collect::<Vec<_>>(),
        );
        assert_eq!(
            kinds(&rows),
            [
                CallMatch::Extra,
                CallMatch::ArgsDiffer,
                CallMatch::Missing,
                CallMatch::Extra
            ]
        );
        assert_eq!(
            rows[1].args,
            [ArgDiff {
                path: "city".into(),
                change: ArgChange::Changed,
                expected: Some(json!("Paris")),
                actual: Some(json!("Lyon")),
            }]
        );
    }

    #[test]
    fn a_call_with_equal_args_is_paired_before_one_without() {
        let expected = [call("get_weather", json!({"city": "Lyon"}))];
        let actual = [
            call("get_weather", json!({"city": "Paris"})),
            call("get_weather", json!({"city": "Lyon"})),
        ];
        let rows = align_calls(
            &expected.iter().collect::<Vec<_>>(),
            &actual.iter().collect::<Vec<_>>(),
        );
        assert_eq!(kinds(&rows), [CallMatch::Extra, CallMatch::Same]);
    }

    #[test]
    fn nested_args_are_compared_leaf_by_leaf() {
        let expected = json!({"a": 1, "opts": {"unit": "c", "days": [1, 2]}, "gone": true});
        let actual = json!({"a": 1, "opts": {"unit": "f", "days": [1]}, "new": null});
        let diffs = compare_args(expected.as_object(), actual.as_object());
        let summary: Vec<(&str, ArgChange)> = diffs.iter().map(|d| (d.path.as_str(), d.change)).collect();
        assert_eq!(
            summary,
            [
                ("a", ArgChange::Same),
                ("opts.unit", ArgChange::Changed),
                ("opts.days[0]", ArgChange::Same),
                ("opts.days[1]", ArgChange::Missing),
                ("gone", ArgChange::Missing),
                ("new", ArgChange::Extra),
            ]
        );
    }

    #[test]
    fn neighbouring_changes_read_as_one() {
        assert_eq!(
            word_diff("It is rainy in Lyon.", "It is sunny and warm in Lyon."),
            [
                (DiffKind::Same, "It is ".to_string()),
                (DiffKind::Removed, "rainy".to_string()),
                (DiffKind::Added, "sunny and warm".to_string()),
                (DiffKind::Same, " in Lyon.".to_string()),
            ]
        );
    }

    #[test]
    fn responses_differ_word_by_word() {
        assert_eq!(
            word_diff("It is sunny in Paris.", "It is rainy in Paris."),
            [
                (DiffKind::Same, "It is ".to_string()),
                (DiffKind::Removed, "sunny".to_string()),
                (DiffKind::Added, "rainy".to_string()),
                (DiffKind::Same, " in Paris.".to_string()),
            ]
        );
    }
}
