//! Partial credit for trajectories, beyond ADK's all-or-nothing `tool_trajectory_avg_score`:
//! precision, recall and F1 of the multiset of (name, args) calls, and whether one named tool
//! was used.

use super::trajectory::args_equal;
use evalset::{FunctionCall, Invocation};

/// Which share of the multiset match a metric reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrajectoryShare {
    /// Matched calls / actual calls: how many of the calls made were expected.
    Precision,
    /// Matched calls / expected calls: how many of the expected calls were made.
    Recall,
    F1,
}

/// Precision, recall or F1 of the actual calls against the expected ones, each call matching at
/// most one call on the other side. No calls on a side count as fully precise / fully recalled,
/// so two empty trajectories score 1.
pub fn trajectory_share(
    actual: &Invocation,
    expected: &Invocation,
    share: TrajectoryShare,
    ignore_args: bool,
) -> f64 {
    let actual = actual.tool_calls();
    let expected = expected.tool_calls();
    let matched = matched_calls(&actual, &expected, ignore_args) as f64;
    let ratio = |part: f64, whole: usize| if whole == 0 { 1.0 } else { part / whole as f64 };
    let precision = ratio(matched, actual.len());
    let recall = ratio(matched, expected.len());
    match share {
        TrajectoryShare::Precision => precision,
        TrajectoryShare::Recall => recall,
        TrajectoryShare::F1 if precision + recall == 0.0 => 0.0,
        TrajectoryShare::F1 => 2.0 * precision * recall / (precision + recall),
    }
}

/// 1 when the invocation called the named tool, else 0.
pub fn tool_used(actual: &Invocation, tool_name: &str) -> f64 {
    if actual
        .tool_calls()
        .iter()
        .any(|call| call.name.as_deref() == Some(tool_name))
    {
        1.0
    } else {
        0.0
    }
}

fn matched_calls(actual: &[&FunctionCall], expected: &[&FunctionCall], ignore_args: bool) -> usize {
    let mut unused: Vec<&FunctionCall> = actual.to_vec();
    expected
        .iter()
        .filter(|wanted| {
            let position = unused.iter().position(|call| {
                call.name == wanted.name
                    && (ignore_args || args_equal(call.args.as_ref(), wanted.args.as_ref()))
            });
            position.map(|index| unused.swap_remove(index)).is_some()
        })
        .count()
}
