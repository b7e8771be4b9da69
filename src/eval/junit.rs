//! A run as JUnit XML (the CLI's `--junit`, a run's export): one `<testsuite>` per evalset,
//! one `<testcase>` per eval case. Pure: the caller writes the file.

use super::result::{CaseSummary, EvalStatus};
use std::io::{self, Write};

/// A case run the agent could not finish.
pub struct RunError<'a> {
    pub eval_id: &'a str,
    /// 0-based.
    pub run_index: i64,
    pub error: &'a str,
}

/// A report written as it goes: the header, each evalset's suite once its run has ended, the
/// end. Only the suite being written is held in memory, a case at a time.
pub struct JunitWriter<W: Write> {
    out: W,
}

impl<W: Write> JunitWriter<W> {
    pub fn begin(mut out: W) -> io::Result<Self> {
        out.write_all(b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"evalstudio\">\n")?;
        Ok(JunitWriter { out })
    }

    /// One `<testsuite>`: a test case per eval case, failed when its status is not PASSED, an
    /// error when the agent failed on it (`errors`: the case runs it could not finish).
    pub fn suite(
        &mut self,
        eval_set_id: &str,
        summaries: &[CaseSummary],
        errors: &[RunError],
    ) -> io::Result<()> {
        let erred = |summary: &CaseSummary| errors.iter().any(|e| e.eval_id == summary.eval_id);
        // The totals come first, in the suite's attributes.
        let error_count = summaries.iter().filter(|s| erred(s)).count();
        let failures = summaries
            .iter()
            .filter(|s| !erred(s) && s.final_eval_status != EvalStatus::Passed)
            .count();
        writeln!(
            self.out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failures}\" errors=\"{error_count}\">",
            xml_escape(eval_set_id),
            summaries.len()
        )?;
        for summary in summaries {
            writeln!(
                self.out,
                "    <testcase classname=\"{}\" name=\"{}\">{}</testcase>",
                xml_escape(eval_set_id),
                xml_escape(&summary.eval_id),
                case_body(summary, errors)
            )?;
        }
        self.out.write_all(b"  </testsuite>\n")
    }

    /// Ends the report; answers where it went.
    pub fn finish(mut self) -> io::Result<W> {
        self.out.write_all(b"</testsuites>\n")?;
        Ok(self.out)
    }
}

/// A whole report of one evalset's run.
pub fn report(eval_set_id: &str, summaries: &[CaseSummary], errors: &[RunError]) -> String {
    let write = || -> io::Result<Vec<u8>> {
        let mut writer = JunitWriter::begin(Vec::new())?;
        writer.suite(eval_set_id, summaries, errors)?;
        writer.finish()
    };
    String::from_utf8(write().expect("writing to memory cannot fail")).expect("the report is text")
}

/// What a test case holds: its error, its failure, or nothing when it passed.
fn case_body(summary: &CaseSummary, errors: &[RunError]) -> String {
    let metrics: Vec<String> = summary
        .metrics
        .iter()
        .map(|m| {
            let score = m.score.map_or("-".to_string(), |s| format!("{s:.4}"));
            format!(
                "{}: {score} ({}) {}",
                m.metric_name,
                m.threshold_label(),
                m.eval_status
            )
        })
        .collect();
    let case_errors: Vec<String> = errors
        .iter()
        .filter(|e| e.eval_id == summary.eval_id)
        .map(|e| format!("run {}: {}", e.run_index + 1, e.error))
        .collect();
    if !case_errors.is_empty() {
        format!(
            "<error message=\"{}\">{}</error>",
            xml_escape(&case_errors[0]),
            xml_escape(&[case_errors.join("\n"), metrics.join("\n")].join("\n"))
        )
    } else if summary.final_eval_status != EvalStatus::Passed {
        format!(
            "<failure message=\"{}\">{}</failure>",
            xml_escape(&summary.final_eval_status.to_string()),
            xml_escape(&metrics.join("\n"))
        )
    } else {
        String::new()
    }
}

/// Text as XML character data or an attribute value; control characters XML 1.0 cannot hold
/// are dropped.
fn xml_escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&apos;"),
            '\n' | '\t' => escaped.push(c),
            c if c.is_control() => {}
            c => escaped.push(c),
        }
    }
    escaped
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::test_summaries::{case, metric};

    /// One suite alone, as the writer writes it.
    fn suite(eval_set_id: &str, summaries: &[CaseSummary], errors: &[RunError]) -> String {
        let mut writer = JunitWriter { out: Vec::new() };
        writer.suite(eval_set_id, summaries, errors).unwrap();
        String::from_utf8(writer.out).unwrap()
    }

    #[test]
    fn a_passed_case_is_an_empty_testcase() {
        let summaries = [case(
            "weather",
            EvalStatus::Passed,
            vec![metric(
                "response_match_score",
                Some(0.9),
                Some(0.8),
                EvalStatus::Passed,
            )],
        )];
        assert_eq!(
            suite("regression", &summaries, &[]),
            "  <testsuite name=\"regression\" tests=\"1\" failures=\"0\" errors=\"0\">\n\
             \x20   <testcase classname=\"regression\" name=\"weather\"></testcase>\n\
             \x20 </testsuite>\n"
        );
    }

    #[test]
    fn a_failed_case_lists_its_metrics() {
        let summaries = [case(
            "paris",
            EvalStatus::Failed,
            vec![
                metric(
                    "tool_trajectory_avg_score",
                    Some(0.5),
                    Some(1.0),
                    EvalStatus::Failed,
                ),
                metric("token_usage_v1", None, None, EvalStatus::NotEvaluated),
            ],
        )];
        let xml = suite("regression", &summaries, &[]);
        assert!(xml.contains(r#"failures="1" errors="0""#), "{xml}");
        assert!(
            xml.contains(
                "<failure message=\"FAILED\">tool_trajectory_avg_score: 0.5000 (threshold 1) FAILED\n\
                 token_usage_v1: - (informational) NOT_EVALUATED</failure>"
            ),
            "{xml}"
        );
    }

    #[test]
    fn an_agent_error_is_an_error_with_every_errored_run() {
        let summaries = [
            case("paris", EvalStatus::NotEvaluated, Vec::new()),
            case("rome", EvalStatus::Passed, Vec::new()),
        ];
        let error = |run_index, error| RunError {
            eval_id: "paris",
            run_index,
            error,
        };
        let xml = suite("set", &summaries, &[error(0, "timed out"), error(1, "refused")]);
        assert!(xml.contains(r#"tests="2" failures="0" errors="1""#), "{xml}");
        assert!(
            xml.contains("<error message=\"run 1: timed out\">run 1: timed out\nrun 2: refused\n</error>"),
            "{xml}"
        );
        assert!(
            xml.contains("<testcase classname=\"set\" name=\"rome\"></testcase>"),
            "{xml}"
        );
    }

    #[test]
    fn markup_is_escaped_and_control_characters_dropped() {
        let summaries = [case("a<b> & \"c\" 'd'\u{7}", EvalStatus::Passed, Vec::new())];
        let xml = suite("s", &summaries, &[]);
        assert!(
            xml.contains("name=\"a&lt;b&gt; &amp; &quot;c&quot; &apos;d&apos;\""),
            "{xml}"
        );
    }

    #[test]
    fn the_report_wraps_the_suites() {
        assert_eq!(
            report("s", &[], &[]),
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"evalstudio\">\n  \
             <testsuite name=\"s\" tests=\"0\" failures=\"0\" errors=\"0\">\n  </testsuite>\n</testsuites>\n"
        );
    }
}
