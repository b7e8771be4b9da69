//! `tool_trajectory_avg_score`: per invocation 1.0 when the actual tool calls match the expected
//! ones under the criterion's match type, else 0.0 (google-adk `trajectory_evaluator.py`).

use evalset::{FunctionCall, Invocation};
use serde_json::{Number, Value};

/// ADK's `ToolTrajectoryCriterion.MatchType` (written as 0, 1, 2 in results).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MatchType {
    /// Same calls, same order, nothing extra.
    #[default]
    Exact,
    /// The expected calls appear in order, with other calls allowed in between.
    InOrder,
    /// The expected calls all appear, in any order, with other calls allowed.
    AnyOrder,
}

impl MatchType {
    pub const ALL: [MatchType; 3] = [MatchType::Exact, MatchType::InOrder, MatchType::AnyOrder];

    /// The enum member's name, as ADK accepts it in a config.
    pub fn name(self) -> &'static str {
        match self {
            MatchType::Exact => "EXACT",
            MatchType::InOrder => "IN_ORDER",
            MatchType::AnyOrder => "ANY_ORDER",
        }
    }
}

/// How `tool_trajectory_avg_score` compares trajectories.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TrajectoryCriterion {
    pub match_type: MatchType,
    /// Compare tool names only.
    pub ignore_args: bool,
}

/// 1.0 when the actual invocation's tool calls match the expected invocation's, else 0.0.
pub fn tool_trajectory_score(
    actual: &Invocation,
    expected: &Invocation,
    criterion: TrajectoryCriterion,
) -> f64 {
    let actual = actual.tool_calls();
    let expected = expected.tool_calls();
    let same = |a: &FunctionCall, e: &FunctionCall| {
        a.name == e.name && (criterion.ignore_args || args_equal(a.args.as_ref(), e.args.as_ref()))
    };
    let matched = match criterion.match_type {
        MatchType::Exact => {
            actual.len() == expected.len() && actual.iter().zip(&expected).all(|(a, e)| same(a, e))
        }
        MatchType::InOrder => {
            // Walk the actual calls, ticking off the expected ones in order.
            let mut pending = expected.iter().peekable();
            for call in &actual {
                if pending.peek().is_some_and(|e| same(call, e)) {
                    pending.next();
                }
            }
            pending.peek().is_none()
        }
        MatchType::AnyOrder => {
            // Each expected call uses up the first unused actual call equal to it.
            let mut unused = actual.clone();
            expected
                .iter()
                .all(|e| match unused.iter().position(|a| same(a, e)) {
                    Some(index) => {
                        unused.remove(index);
                        true
                    }
                    None => false,
                })
        }
    };
    if matched {
        1.0
    } else {
        0.0
    }
}

pub fn args_equal(
    a: Option<&serde_json::Map<String, Value>>,
    b: Option<&serde_json::Map<String, Value>>,
) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => objects_equal(a, b),
        (None, None) => true,
        _ => false,
    }
}

/// Python's `==` on the values `json.loads` gives: objects ignore key order, numbers compare by
/// value (`1 == 1.0`), and `true`/`false` equal `1`/`0` because Python's bool is an int.
pub fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::String(a), Value::String(b)) => a == b,
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| json_equal(a, b))
        }
        (Value::Object(a), Value::Object(b)) => objects_equal(a, b),
        (Value::Bool(a), Value::Bool(b)) => a == b,
        (Value::Bool(a), Value::Number(b)) | (Value::Number(b), Value::Bool(a)) => {
            numbers_equal(&Number::from(u8::from(*a)), b)
        }
        (Value::Number(a), Value::Number(b)) => numbers_equal(a, b),
        _ => false,
    }
}

fn objects_equal(a: &serde_json::Map<String, Value>, b: &serde_json::Map<String, Value>) -> bool {
    a.len() == b.len()
        && a.iter()
            .all(|(key, value)| b.get(key).is_some_and(|other| json_equal(value, other)))
}

/// Exact numeric equality, as Python compares an int with a float (no rounding of the int).
fn numbers_equal(a: &Number, b: &Number) -> bool {
    match (integer(a), integer(b)) {
        (Some(a), Some(b)) => a == b,
        (Some(int), None) => float_equals_integer(b.as_f64(), int),
        (None, Some(int)) => float_equals_integer(a.as_f64(), int),
        (None, None) => a.as_f64() == b.as_f64(),
    }
}

fn integer(number: &Number) -> Option<i128> {
    number
        .as_i64()
        .map(i128::from)
        .or_else(|| number.as_u64().map(i128::from))
}

fn float_equals_integer(float: Option<f64>, int: i128) -> bool {
    // Every i64/u64 lies within ±2^64, where a whole f64 converts to i128 exactly.
    float.is_some_and(|f| f.fract() == 0.0 && f.abs() < 1.9e19 && f as i128 == int)
}
