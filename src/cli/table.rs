//! What `eval` and `score` print about scored cases: a table of each case's metrics, the
//! counts, and the agent errors. Pure: text, or any `io::Write`.

use crate::eval::result::{CaseSummary, EvalStatus};
use crate::records::runs::EvalRunCase;
use std::collections::HashMap;
use std::io;

/// One row per case and metric, then the counts, each line ending with a newline; written as
/// it goes, the columns measured first, so no row is held (tens of thousands of cases make
/// millions of cells).
pub fn write_results_table(
    out: &mut impl io::Write,
    summaries: &[CaseSummary],
    runs: usize,
) -> io::Result<()> {
    let mut numbers = Formatted::default();
    let mut widths = ["case".len(), "(case)".len(), "score".len(), "threshold".len()];
    for case in summaries {
        widths[0] = widths[0].max(case.eval_id.chars().count());
        for metric in &case.metrics {
            widths[1] = widths[1].max(metric.metric_name.chars().count());
            widths[2] = widths[2].max(numbers.add(metric.score));
            widths[3] = widths[3].max(numbers.add(metric.threshold));
        }
    }
    let [w0, w1, w2, w3] = widths;
    // Lines are laid out here: padding through `fmt` writes a space at a time.
    let mut line = String::new();
    let mut row = |case: &str, metric: &str, score: &str, threshold: &str, status: &str| {
        line.clear();
        push_left(&mut line, case, w0);
        push_left(&mut line, metric, w1);
        push_right(&mut line, score, w2);
        push_right(&mut line, threshold, w3);
        line.push_str(status);
        line.push('\n');
        out.write_all(line.as_bytes())
    };
    row("case", "metric", "score", "threshold", "status")?;
    for case in summaries {
        for metric in &case.metrics {
            row(
                &case.eval_id,
                &metric.metric_name,
                numbers.get(metric.score),
                numbers.get(metric.threshold),
                metric.eval_status.label(),
            )?;
        }
        row(&case.eval_id, "(case)", "", "", case.final_eval_status.label())?;
    }
    let count = |status: EvalStatus| {
        summaries
            .iter()
            .filter(|case| case.final_eval_status == status)
            .count()
    };
    let over_runs = if runs > 1 {
        format!(" (scores are means over {runs} runs)")
    } else {
        String::new()
    };
    let cases = summaries.len();
    writeln!(
        out,
        "{cases} case{}: {} passed, {} failed, {} not evaluated{over_runs}",
        if cases == 1 { "" } else { "s" },
        count(EvalStatus::Passed),
        count(EvalStatus::Failed),
        count(EvalStatus::NotEvaluated),
    )
}

/// Adds `text` to a line in `width` columns, on the left, then the two spaces between columns.
fn push_left(line: &mut String, text: &str, width: usize) {
    line.push_str(text);
    push_spaces(line, width.saturating_sub(text.chars().count()) + 2);
}

/// Adds `text` to a line in `width` columns, on the right, then the two spaces between columns.
fn push_right(line: &mut String, text: &str, width: usize) {
    push_spaces(line, width.saturating_sub(text.chars().count()));
    line.push_str(text);
    push_spaces(line, 2);
}

fn push_spaces(line: &mut String, count: usize) {
    line.extend(std::iter::repeat_n(' ', count));
}

/// Scores and thresholds as the table shows them (four decimals, `-` when absent), each
/// distinct one formatted once: tens of thousands of rows hold few values.
#[derive(Default)]
struct Formatted(HashMap<Option<u64>, String>);

impl Formatted {
    /// Formats `value` unless it was; answers its width.
    fn add(&mut self, value: Option<f64>) -> usize {
        self.0
            .entry(value.map(f64::to_bits))
            .or_insert_with(|| value.map_or_else(|| "-".into(), |value| format!("{value:.4}")))
            .len()
    }

    /// `value` as formatted by `add`.
    fn get(&self, value: Option<f64>) -> &str {
        &self.0[&value.map(f64::to_bits)]
    }
}

/// One `ERROR` line per case run the agent could not finish.
pub fn error_lines(errors: &[&EvalRunCase]) -> String {
    errors
        .iter()
        .map(|case| {
            format!(
                "ERROR {} (run {}): {}\n",
                case.eval_id,
                case.run_index + 1,
                case.error.as_deref().unwrap_or_default()
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::test_summaries::{case, errored_run, metric};

    /// The table as text.
    fn results_table(summaries: &[CaseSummary], runs: usize) -> String {
        let mut text = Vec::new();
        write_results_table(&mut text, summaries, runs).expect("writing to memory cannot fail");
        String::from_utf8(text).expect("the table is text")
    }

    #[test]
    fn columns_line_up_and_the_counts_follow() {
        let summaries = [
            case(
                "weather",
                EvalStatus::Passed,
                vec![
                    metric(
                        "tool_trajectory_avg_score",
                        Some(1.0),
                        Some(1.0),
                        EvalStatus::Passed,
                    ),
                    metric("token_usage_v1", Some(62.0), None, EvalStatus::Informational),
                ],
            ),
            case(
                "order",
                EvalStatus::NotEvaluated,
                vec![metric(
                    "response_match_score",
                    None,
                    Some(0.8),
                    EvalStatus::NotEvaluated,
                )],
            ),
        ];
        assert_eq!(
            results_table(&summaries, 1),
            "\
case     metric                       score  threshold  status
weather  tool_trajectory_avg_score   1.0000     1.0000  PASSED
weather  token_usage_v1             62.0000          -  INFORMATIONAL
weather  (case)                                         PASSED
order    response_match_score             -     0.8000  NOT_EVALUATED
order    (case)                                         NOT_EVALUATED
2 cases: 1 passed, 0 failed, 1 not evaluated
"
        );
    }

    #[test]
    fn several_runs_say_the_scores_are_means() {
        let summaries = [case("only", EvalStatus::Failed, Vec::new())];
        let table = results_table(&summaries, 3);
        assert!(
            table.ends_with("1 case: 0 passed, 1 failed, 0 not evaluated (scores are means over 3 runs)\n"),
            "{table}"
        );
    }

    #[test]
    fn each_errored_run_is_a_line_numbered_from_1() {
        let first = errored_run("paris", 0, "model timed out");
        let second = errored_run("paris", 1, "connection refused");
        assert_eq!(
            error_lines(&[&first, &second]),
            "ERROR paris (run 1): model timed out\nERROR paris (run 2): connection refused\n"
        );
    }
}
