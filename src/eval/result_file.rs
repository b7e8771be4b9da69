//! Result files written a case at a time, so no whole result is ever held: ADK's EvalSetResult
//! (pretty, two-space indented, byte for byte what `serde_json::to_string_pretty` of the whole
//! result gives) and the compact summary CI reads for verdicts (`--json-summary`). Pure: any
//! `io::Write`.

use super::config::EvalConfig;
use super::result::{adk_case_result, CaseSummary, EvalCaseResult, EvalStatus, MetricSummary};
use super::score::CaseRunVerdict;
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
    /// The result's own depth, in levels of two spaces.
    depth: usize,
    creation_timestamp: f64,
    cases: usize,
    /// The value being written, formatted (kept to be filled again).
    formatted: Vec<u8>,
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
            depth,
            creation_timestamp: header.creation_timestamp,
            cases: 0,
            formatted: Vec::new(),
        })
    }

    /// Appends a case result as ADK reads it (see [`adk_case_result`]).
    pub fn case(&mut self, result: &EvalCaseResult) -> io::Result<()> {
        if result.has_evalstudio_fields() {
            let value = adk_case_result(serde_json::to_value(result).map_err(io::Error::other)?);
            return self.stored_case(&value);
        }
        self.next_case()?;
        self.pretty_case(result, self.depth + 2)
    }

    /// Appends a case result already in ADK's form.
    pub fn stored_case(&mut self, value: &Value) -> io::Result<()> {
        self.next_case()?;
        self.pretty_case(value, self.depth + 2)
    }

    fn next_case(&mut self) -> io::Result<()> {
        self.out.write_all(if self.cases == 0 { b"\n" } else { b",\n" })?;
        indent(&mut self.out, self.depth + 2)?;
        self.cases += 1;
        Ok(())
    }

    /// A case pretty, as it is written `depth` levels in. It is formatted in memory and written
    /// in one piece: the formatter's many small writes cost less into a `Vec` than into a file.
    fn pretty_case(&mut self, case: &impl Serialize, depth: usize) -> io::Result<()> {
        self.formatted.clear();
        pretty(&mut self.formatted, case, depth)?;
        self.out.write_all(&self.formatted)
    }

    /// Where the result goes.
    pub fn out(&self) -> &W {
        &self.out
    }

    /// Where the result goes, to take what was written so far (a `Vec` sent on in chunks).
    pub fn out_mut(&mut self) -> &mut W {
        &mut self.out
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
        let pad = "  ".repeat(self.depth);
        if self.cases == 0 {
            write!(self.out, "]")?;
        } else {
            write!(self.out, "\n{pad}  ]")?;
        }
        write!(self.out, ",\n{pad}  \"creation_timestamp\": ")?;
        serde_json::to_writer(&mut self.out, &self.creation_timestamp)?;
        if let Some(summaries) = case_summaries {
            write!(self.out, ",\n{pad}  \"case_summaries\": ")?;
            // Straight to the output: the list grows with the set, one case does not.
            pretty(&mut self.out, &summaries, self.depth + 1)?;
        }
        write!(self.out, "\n{pad}}}")
    }
}

/// `value` pretty into `out`, as it is written `depth` levels in.
fn pretty(out: &mut impl Write, value: &impl Serialize, depth: usize) -> io::Result<()> {
    let formatter = NestedPretty {
        depth,
        has_value: false,
    };
    let mut serializer = serde_json::Serializer::with_formatter(out, formatter);
    value.serialize(&mut serializer).map_err(io::Error::other)
}

/// Two spaces a level, in one write (results nest about ten levels deep).
fn indent<W: ?Sized + Write>(out: &mut W, depth: usize) -> io::Result<()> {
    const SPACES: &[u8; 64] = &[b' '; 64];
    let mut left = 2 * depth;
    while left > 0 {
        let step = left.min(SPACES.len());
        out.write_all(&SPACES[..step])?;
        left -= step;
    }
    Ok(())
}

/// serde_json's `PrettyFormatter` (two spaces), for a value that starts `depth` levels in: what
/// `to_string_pretty` of the whole result writes there.
struct NestedPretty {
    depth: usize,
    has_value: bool,
}

impl serde_json::ser::Formatter for NestedPretty {
    fn begin_array<W: ?Sized + Write>(&mut self, out: &mut W) -> io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        out.write_all(b"[")
    }

    fn end_array<W: ?Sized + Write>(&mut self, out: &mut W) -> io::Result<()> {
        self.depth -= 1;
        if self.has_value {
            out.write_all(b"\n")?;
            indent(out, self.depth)?;
        }
        out.write_all(b"]")
    }

    fn begin_array_value<W: ?Sized + Write>(&mut self, out: &mut W, first: bool) -> io::Result<()> {
        out.write_all(if first { b"\n" } else { b",\n" })?;
        indent(out, self.depth)
    }

    fn end_array_value<W: ?Sized + Write>(&mut self, _out: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn begin_object<W: ?Sized + Write>(&mut self, out: &mut W) -> io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        out.write_all(b"{")
    }

    fn end_object<W: ?Sized + Write>(&mut self, out: &mut W) -> io::Result<()> {
        self.depth -= 1;
        if self.has_value {
            out.write_all(b"\n")?;
            indent(out, self.depth)?;
        }
        out.write_all(b"}")
    }

    fn begin_object_key<W: ?Sized + Write>(&mut self, out: &mut W, first: bool) -> io::Result<()> {
        out.write_all(if first { b"\n" } else { b",\n" })?;
        indent(out, self.depth)
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, out: &mut W) -> io::Result<()> {
        out.write_all(b": ")
    }

    fn end_object_value<W: ?Sized + Write>(&mut self, _out: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

/// The compact verdicts: each case run's status and each metric's score as they come, then each
/// case over all runs (ADK's pooling), the counts, and whether everything passed. Statuses are
/// ADK's numbers (1 passed, 2 failed, 3 not evaluated, 4 informational).
pub struct SummaryWriter<W: Write> {
    out: W,
    /// Each metric of the config: its name, and its threshold unless it is informational.
    metrics: Vec<(String, Option<f64>)>,
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

/// One case over all runs, keys in the order the summary has always had.
#[derive(Serialize)]
struct CaseLine<'a> {
    eval_id: &'a str,
    final_eval_status: EvalStatus,
    num_runs: usize,
    passed_runs: usize,
    errors: usize,
    metrics: &'a [MetricSummary],
}

#[derive(Serialize)]
struct MetricLine<'a> {
    metric_name: &'a str,
    score: Option<f64>,
    threshold: Option<f64>,
    eval_status: EvalStatus,
}

impl<W: Write> SummaryWriter<W> {
    /// Starts the summary of results scored with `config`'s metrics.
    pub fn begin(mut out: W, header: &ResultHeader, config: &EvalConfig) -> io::Result<Self> {
        let top = json!({
            "eval_set_result_id": header.eval_set_result_id,
            "eval_set_id": header.eval_set_id,
            "creation_timestamp": header.creation_timestamp,
        });
        let text = top.to_string();
        // The header's keys, then the case runs as a list that stays open.
        write!(out, "{},\n\"case_runs\": [", &text[..text.len() - 1])?;
        let metrics = config
            .metrics
            .iter()
            .map(|metric| (metric.name.clone(), metric.shown_threshold()))
            .collect();
        Ok(SummaryWriter {
            out,
            metrics,
            case_runs: 0,
        })
    }

    /// One case run (the `run`-th actual set, from 0).
    pub fn case_run(&mut self, run: usize, verdict: &CaseRunVerdict) -> io::Result<()> {
        let line = CaseRunLine {
            eval_id: &verdict.eval_id,
            run,
            final_eval_status: verdict.scores.final_eval_status,
            error: verdict.error.as_deref(),
            metrics: self
                .metrics
                .iter()
                .zip(&verdict.metrics)
                .map(|((metric_name, threshold), m)| MetricLine {
                    metric_name,
                    score: m.score,
                    threshold: *threshold,
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
            let line = CaseLine {
                eval_id: &case.eval_id,
                final_eval_status: case.final_eval_status,
                num_runs: case.num_runs,
                passed_runs: case.passed_runs,
                errors: case.errors,
                metrics: &case.metrics,
            };
            self.out.write_all(if n == 0 { b"\n" } else { b",\n" })?;
            serde_json::to_writer(&mut self.out, &line)?;
        }
        let passed = counts[0] == summaries.len();
        write!(
            self.out,
            "],\n\"counts\": {},\n\"passed\": {passed}\n}}\n",
            json!({"passed": counts[0], "failed": counts[1], "not_evaluated": counts[2]})
        )
    }
}
