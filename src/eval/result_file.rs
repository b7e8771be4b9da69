//! Result files written a case at a time, so no whole result is ever held: ADK's EvalSetResult
//! (pretty, two-space indented, byte for byte what `serde_json::to_string_pretty` of the whole
//! result gives) and the compact summary CI reads for verdicts (`--json-summary`). Pure: any
//! `io::Write`.

use super::result::{adk_case_result, CaseSummary, EvalCaseResult, EvalStatus};
use serde::Serialize;
use serde_json::{json, Value};
use std::io::{self, Write};

/// What names a result: ADK's id and name, the evalset, and when it was made.
#[derive(Debug, Clone, PartialEq)]
pub struct ResultHeader {
    pub eval_set_result_id: String,
    pub eval_set_result_name: Option<String>,
    pub eval_set_id: String,
    pub creation_timestamp: f64,
}

impl ResultHeader {
    /// Named as ADK's `create_eval_set_result` names results: `{app}_{eval_set_id}_{timestamp}`,
    /// with `/` replaced in the name.
    pub fn named(app_name: &str, eval_set_id: &str, timestamp: f64) -> ResultHeader {
        let id = format!("{app_name}_{eval_set_id}_{}", python_float(timestamp));
        ResultHeader {
            eval_set_result_name: Some(id.replace('/', "_")),
            eval_set_result_id: id,
            eval_set_id: eval_set_id.to_string(),
            creation_timestamp: timestamp,
        }
    }
}

/// A float as Python's `str` writes it (serde_json's shortest round-trip form, `1.0` for 1).
fn python_float(value: f64) -> String {
    serde_json::to_string(&value).unwrap_or_default()
}

/// ADK's EvalSetResult, its case results written as they come.
pub struct AdkResultWriter<W: Write> {
    out: W,
    /// What each line of a case is indented by: the result's own depth, plus two levels.
    indent: Vec<u8>,
    /// The closing lines' indent: the result's own depth.
    depth: String,
    creation_timestamp: f64,
    cases: usize,
    /// A case's pretty text, reused from case to case.
    buffer: Vec<u8>,
}

impl<W: Write> AdkResultWriter<W> {
    /// Starts a result whose opening brace is already placed at `depth` levels (0 for a file
    /// of one result, 1 inside a list of them).
    pub fn begin(mut out: W, header: &ResultHeader, depth: usize) -> io::Result<Self> {
        let pad = "  ".repeat(depth);
        write!(out, "{{\n{pad}  \"eval_set_result_id\": ")?;
        serde_json::to_writer(&mut out, &header.eval_set_result_id)?;
        write!(out, ",\n{pad}  \"eval_set_result_name\": ")?;
        serde_json::to_writer(&mut out, &header.eval_set_result_name)?;
        write!(out, ",\n{pad}  \"eval_set_id\": ")?;
        serde_json::to_writer(&mut out, &header.eval_set_id)?;
        write!(out, ",\n{pad}  \"eval_case_results\": [")?;
        Ok(AdkResultWriter {
            out,
            indent: format!("\n{pad}    ").into_bytes(),
            depth: pad,
            creation_timestamp: header.creation_timestamp,
            cases: 0,
            buffer: Vec::new(),
        })
    }

    /// Appends a case result as ADK reads it (see [`adk_case_result`]).
    pub fn case(&mut self, result: &EvalCaseResult) -> io::Result<()> {
        let value = adk_case_result(serde_json::to_value(result).map_err(io::Error::other)?);
        self.stored_case(&value)
    }

    /// Appends a case result already in ADK's form.
    pub fn stored_case(&mut self, value: &Value) -> io::Result<()> {
        self.out.write_all(if self.cases == 0 { b"" } else { b"," })?;
        self.out.write_all(&self.indent)?;
        self.cases += 1;
        let indent = self.indent.clone();
        self.pretty(value, &indent)
    }

    /// `value` pretty, each line after the first moved in by `indent` (a newline and spaces).
    fn pretty(&mut self, value: &impl Serialize, indent: &[u8]) -> io::Result<()> {
        self.buffer.clear();
        serde_json::to_writer_pretty(&mut self.buffer, value)?;
        // Newlines only separate tokens in pretty JSON (strings escape theirs).
        for (n, line) in self.buffer.split(|b| *b == b'\n').enumerate() {
            if n > 0 {
                self.out.write_all(indent)?;
            }
            self.out.write_all(line)?;
        }
        Ok(())
    }

    /// Where the result goes.
    pub fn out(&self) -> &W {
        &self.out
    }

    /// Closes the list and the result, with Evalstudio's `case_summaries` (which ADK's reader
    /// ignores) when given; answers the writer, with the error if a write failed.
    pub fn finish(mut self, case_summaries: Option<&[CaseSummary]>) -> Result<W, (W, io::Error)> {
        match self.close(case_summaries) {
            Ok(()) => Ok(self.out),
            Err(err) => Err((self.out, err)),
        }
    }

    fn close(&mut self, case_summaries: Option<&[CaseSummary]>) -> io::Result<()> {
        let pad = self.depth.clone();
        if self.cases == 0 {
            write!(self.out, "]")?;
        } else {
            write!(self.out, "\n{pad}  ]")?;
        }
        write!(self.out, ",\n{pad}  \"creation_timestamp\": ")?;
        serde_json::to_writer(&mut self.out, &self.creation_timestamp)?;
        if let Some(summaries) = case_summaries {
            write!(self.out, ",\n{pad}  \"case_summaries\": ")?;
            self.pretty(&summaries, format!("\n{pad}  ").as_bytes())?;
        }
        write!(self.out, "\n{pad}}}")
    }
}

/// The compact verdicts: each case run's status and each metric's score as they come, then each
/// case over all runs (ADK's pooling), the counts, and whether everything passed. Statuses are
/// ADK's numbers (1 passed, 2 failed, 3 not evaluated, 4 informational).
pub struct SummaryWriter<W: Write> {
    out: W,
    case_runs: usize,
}

#[derive(Serialize)]
struct CaseRunLine<'a> {
    eval_id: &'a str,
    run: usize,
    final_eval_status: EvalStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a str>,
    metrics: Vec<MetricLine<'a>>,
}

#[derive(Serialize)]
struct MetricLine<'a> {
    metric_name: &'a str,
    score: Option<f64>,
    threshold: Option<f64>,
    eval_status: EvalStatus,
}

impl<W: Write> SummaryWriter<W> {
    pub fn begin(mut out: W, header: &ResultHeader) -> io::Result<Self> {
        let top = json!({
            "eval_set_result_id": header.eval_set_result_id,
            "eval_set_id": header.eval_set_id,
            "creation_timestamp": header.creation_timestamp,
        });
        let text = top.to_string();
        // The header's keys, then the case runs as a list that stays open.
        write!(out, "{},\n\"case_runs\": [", &text[..text.len() - 1])?;
        Ok(SummaryWriter { out, case_runs: 0 })
    }

    /// One case run (the `run`-th actual set, from 0).
    pub fn case_run(&mut self, run: usize, result: &EvalCaseResult) -> io::Result<()> {
        let line = CaseRunLine {
            eval_id: &result.eval_id,
            run,
            final_eval_status: result.final_eval_status,
            error: result.error.as_deref(),
            metrics: result
                .overall_eval_metric_results
                .iter()
                .map(|m| MetricLine {
                    metric_name: &m.metric_name,
                    score: m.score,
                    threshold: m.threshold,
                    eval_status: m.eval_status,
                })
                .collect(),
        };
        self.out
            .write_all(if self.case_runs == 0 { b"\n" } else { b",\n" })?;
        serde_json::to_writer(&mut self.out, &line)?;
        self.case_runs += 1;
        Ok(())
    }

    /// Where the summary goes.
    pub fn out(&self) -> &W {
        &self.out
    }

    /// The cases over all runs and the totals; answers the writer, with the error if a write
    /// failed.
    pub fn finish(mut self, summaries: &[CaseSummary]) -> Result<W, (W, io::Error)> {
        match self.close(summaries) {
            Ok(()) => Ok(self.out),
            Err(err) => Err((self.out, err)),
        }
    }

    fn close(&mut self, summaries: &[CaseSummary]) -> io::Result<()> {
        write!(self.out, "\n],\n\"cases\": [")?;
        let mut counts = [0usize; 3];
        for (n, case) in summaries.iter().enumerate() {
            let slot = match case.final_eval_status {
                EvalStatus::Passed => 0,
                EvalStatus::Failed => 1,
                EvalStatus::NotEvaluated | EvalStatus::Informational => 2,
            };
            counts[slot] += 1;
            let line = json!({
                "eval_id": case.eval_id, "final_eval_status": case.final_eval_status,
                "num_runs": case.num_runs, "passed_runs": case.passed_runs, "errors": case.errors,
                "metrics": case.metrics,
            });
            write!(self.out, "{}\n{line}", if n == 0 { "" } else { "," })?;
        }
        let passed = counts[0] == summaries.len();
        write!(
            self.out,
            "],\n\"counts\": {},\n\"passed\": {passed}\n}}\n",
            json!({"passed": counts[0], "failed": counts[1], "not_evaluated": counts[2]})
        )
    }
}
