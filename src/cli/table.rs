//! What `eval` and `score` print about scored cases: a table of each case's metrics, the
//! counts, and the agent errors. Pure: the caller prints the text.

use crate::eval::{CaseSummary, EvalStatus};
use crate::records::EvalRunCase;
use std::fmt::Write;

/// One row per case and metric, then the counts; each line ends with a newline.
pub fn results_table(summaries: &[CaseSummary], runs: usize) -> String {
    let number = |value: Option<f64>| value.map_or("-".to_string(), |v| format!("{v:.4}"));
    let mut rows = vec![["case", "metric", "score", "threshold", "status"].map(String::from)];
    for case in summaries {
        for metric in &case.metrics {
            rows.push([
                case.eval_id.clone(),
                metric.metric_name.clone(),
                number(metric.score),
                number(metric.threshold),
                metric.eval_status.to_string(),
            ]);
        }
        rows.push([
            case.eval_id.clone(),
            "(case)".into(),
            String::new(),
            String::new(),
            case.final_eval_status.to_string(),
        ]);
    }
    let widths: Vec<usize> = (0..5)
        .map(|column| {
            rows.iter()
                .map(|row| row[column].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut text = String::new();
    for [case, metric, score, threshold, status] in &rows {
        writeln!(
            text,
            "{case:<w0$}  {metric:<w1$}  {score:>w2$}  {threshold:>w3$}  {status}",
            w0 = widths[0],
            w1 = widths[1],
            w2 = widths[2],
            w3 = widths[3],
        )
        .expect("writing to a String cannot fail");
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
        text,
        "{cases} case{}: {} passed, {} failed, {} not evaluated{over_runs}",
        if cases == 1 { "" } else { "s" },
        count(EvalStatus::Passed),
        count(EvalStatus::Failed),
        count(EvalStatus::NotEvaluated),
    )
    .expect("writing to a String cannot fail");
    text
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
