//! `evalstudio score`: actual invocations scored against an evalset's expected ones, with no
//! agent run. The expected set is held as its cases' JSON (parsed again as each is scored);
//! each actual set is read a case at a time on a blocking thread, each case scored as it
//! arrives and its result written at once, so memory grows with the expected file only. When
//! scoring falls behind (and writes verdicts alone), the reading thread also parses the
//! expected cases of what it sends.

use super::files::{file_name, open_evalset, parse_eval_set, read_compact_eval_set, read_eval_config};
use super::score_files::{ScoreFiles, ScoreWriter};
use super::{cases_exit_code, table, CliError};
use crate::agent::DEFAULT_APP;
use crate::clock::now_seconds;
use crate::config::Config;
use crate::eval::case_summaries::CaseSummaries;
use crate::eval::config::EvalConfig;
use crate::eval::lineup::{places_by_id, ActualItem};
use crate::eval::result::{CaseSummary, EvalStatus};
use crate::eval::result_file::ResultHeader;
use crate::eval::score::{score_cases, Keep, ScoreError};
use crate::eval::services::ScoringServices;
use crate::evalset::{read_evalset_cases_fast, CaseParts, CompactEvalSet};
use clap::Args;
use futures::StreamExt;
use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use tokio::sync::mpsc;

#[derive(Args)]
pub struct ScoreArgs {
    /// Evalset with the expected invocations.
    expected: PathBuf,
    /// Evalsets with the actual invocations: the same eval ids (in any order) and turn counts.
    /// Give several for several runs; each metric is then judged on the mean over all runs.
    #[arg(required = true)]
    actual: Vec<PathBuf>,
    /// Eval config (ADK's test_config.json); without it, tool_trajectory_avg_score 1.0
    /// and response_match_score 0.8.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Also write the results as ADK's EvalSetResult JSON to this file, case by case.
    #[arg(long, value_name = "OUT")]
    json: Option<PathBuf>,
    /// Also write the verdicts alone to this file: each case run's status and metric scores,
    /// then each case over all runs and the counts (compact JSON, for CI).
    #[arg(long, value_name = "OUT")]
    json_summary: Option<PathBuf>,
    /// The app named in the result id, as ADK names results.
    #[arg(long, default_value = DEFAULT_APP)]
    app: String,
    /// Where the judge model is configured (its [judge] table); by default
    /// ./evalstudio.toml when it exists.
    #[arg(long, env = "EVALSTUDIO_CONFIG")]
    profiles: Option<PathBuf>,
}

/// Actual cases go to scoring in batches of this many (one hand-over between threads each)…
const BATCH: usize = 64;
/// …with at most this many batches read ahead: enough to keep the scorer busy, few to hold.
const READ_AHEAD: usize = 4;

/// Prints the results table (and writes `--json`, `--json-summary`); exits 0 when every case
/// passed, else 1. A file is written whole or not at all.
pub async fn score(args: ScoreArgs) -> Result<ExitCode, CliError> {
    let config = Config::load(args.profiles.as_deref()).map_err(CliError::Profiles)?;
    let services = config.build_scoring_for_own_files();
    let config = match &args.config {
        None => EvalConfig::default(),
        Some(path) => read_eval_config(path)?,
    };
    let expected = Arc::new(read_compact_eval_set(&args.expected)?);
    let outputs = Outputs {
        json: args.json.as_deref(),
        json_summary: args.json_summary.as_deref(),
        app: &args.app,
    };
    let mut writer = open_outputs(&expected, &outputs, &config, args.actual.len())?;
    let scored = score_runs(&args.actual, &expected, &config, &services, &mut writer).await;
    report(writer, scored, &expected, args.actual.len())
}

/// Where scores go besides the table, and the app their result id names.
pub(super) struct Outputs<'a> {
    pub json: Option<&'a Path>,
    pub json_summary: Option<&'a Path>,
    pub app: &'a str,
}

/// The writer of `--json` and `--json-summary`, their files created, for `runs` runs.
pub(super) fn open_outputs(
    expected: &CompactEvalSet,
    outputs: &Outputs<'_>,
    config: &EvalConfig,
    runs: usize,
) -> Result<ScoreWriter, CliError> {
    let header = ResultHeader::named(outputs.app, expected.eval_set_id(), now_seconds());
    let files = ScoreFiles::create(outputs.json, outputs.json_summary, &header, config)?;
    let summaries = CaseSummaries::new(expected.len(), runs, config.clone());
    Ok(ScoreWriter::start(files, summaries))
}

/// Once scoring is over (each result handed to `writer` as it came), finishes the files (or,
/// after an error, removes them), prints the table of `runs` runs, and answers the exit code:
/// 0 when every case passed, else 1. The table is printed while the files are closed, so it
/// shows even when closing one fails (which is then the error).
pub(super) fn report(
    writer: ScoreWriter,
    scored: Result<(), CliError>,
    expected: &CompactEvalSet,
    runs: usize,
) -> Result<ExitCode, CliError> {
    if let Err(err) = scored {
        writer.abandon();
        return Err(err);
    }
    let (files, summaries) = writer.finish()?;
    let summaries = summaries.finish(expected);
    // Both only read the summaries: the table is printed while the files are closed.
    let (printed, finished) = std::thread::scope(|scope| {
        let printing = scope.spawn(|| print_table(&summaries, runs));
        let finished = files.finish(&summaries);
        (printing.join(), finished)
    });
    finished?;
    printed
        .unwrap_or_else(|_| Err(io::Error::other("the printing thread failed")))
        .map_err(|err| CliError::Run(format!("cannot print the results: {err}")))?;
    let all_passed = summaries
        .iter()
        .all(|case| case.final_eval_status == EvalStatus::Passed);
    Ok(cases_exit_code(all_passed))
}

fn print_table(summaries: &[CaseSummary], runs: usize) -> io::Result<()> {
    let mut stdout = io::BufWriter::new(io::stdout().lock());
    table::write_results_table(&mut stdout, summaries, runs)?;
    io::Write::flush(&mut stdout)
}

/// Scores every actual set's cases as they are read and hands each result to `writer`.
async fn score_runs(
    paths: &[PathBuf],
    expected: &Arc<CompactEvalSet>,
    config: &EvalConfig,
    services: &ScoringServices,
    writer: &mut ScoreWriter,
) -> Result<(), CliError> {
    let (sender, receiver) = mpsc::channel(READ_AHEAD);
    let keep = writer.keep();
    let parts = keep.case_parts(config);
    let reader = tokio::task::spawn_blocking({
        let paths = paths.to_vec();
        let expected = Arc::clone(expected);
        move || {
            // With ADK's file, writing it is the most work: a thread taking on scoring's share
            // would take from it (measured: 236 against 270 ms on the 12k pair).
            let lookup = (keep == Keep::Verdicts).then(|| ExpectedLookup::new(&expected, parts));
            read_runs(&paths, parts, lookup.as_ref(), &sender)
        }
    });
    let arrivals = futures::stream::unfold(receiver, |mut receiver| async move {
        receiver
            .recv()
            .await
            .map(|batch| (futures::stream::iter(batch), receiver))
    })
    .flatten();
    let results = score_cases(expected.as_ref(), arrivals, config, services, keep);
    futures::pin_mut!(results);
    while let Some(scored) = results.next().await {
        writer.push(scored.map_err(|source| score_error(paths, source))?)?;
    }
    reader.await.map_err(|err| CliError::Run(err.to_string()))?;
    Ok(())
}

fn score_error(paths: &[PathBuf], source: ScoreError) -> CliError {
    CliError::Score {
        run: paths[source.run].clone(),
        source,
    }
}

/// Sends each actual set's cases (the `parts` of them scoring reads), run after run, then the
/// run's end; stops when scoring has stopped listening. With `expected`, it reads expected
/// cases too when scoring falls behind.
fn read_runs(
    paths: &[PathBuf],
    parts: CaseParts,
    expected: Option<&ExpectedLookup<'_>>,
    sender: &mpsc::Sender<Vec<ActualItem>>,
) {
    for (run, path) in paths.iter().enumerate() {
        let mut batches = Batches {
            sender,
            expected,
            batch: Vec::with_capacity(BATCH),
        };
        let last = match read_run(path, run, parts, &mut batches) {
            Ok(()) => ActualItem::RunEnd { run },
            Err(problem) => ActualItem::Unreadable { run, problem },
        };
        if batches.send(last).and_then(|()| batches.flush()).is_err() {
            return;
        }
    }
}

/// The expected set as the reading thread reads it: the parts of a case scoring reads, found
/// as scoring's line-up finds it.
struct ExpectedLookup<'a> {
    set: &'a CompactEvalSet,
    by_id: HashMap<&'a str, usize>,
    parts: CaseParts,
}

impl<'a> ExpectedLookup<'a> {
    fn new(set: &'a CompactEvalSet, parts: CaseParts) -> Self {
        ExpectedLookup {
            set,
            by_id: places_by_id(set),
            parts,
        }
    }

    /// Reads the expected case of each actual case of `batch` that has one.
    fn read_for(&self, batch: &mut [ActualItem]) {
        for item in batch {
            if let ActualItem::Case { case, expected, .. } = item {
                if let Some(&index) = self.by_id.get(case.eval_id.as_str()) {
                    *expected = Some(Box::new(self.set.case_parts(index, self.parts)));
                }
            }
        }
    }
}

/// Items on their way to scoring, handed over a batch at a time.
struct Batches<'a> {
    sender: &'a mpsc::Sender<Vec<ActualItem>>,
    expected: Option<&'a ExpectedLookup<'a>>,
    batch: Vec<ActualItem>,
}

impl Batches<'_> {
    fn send(&mut self, item: ActualItem) -> Result<(), String> {
        self.batch.push(item);
        if self.batch.len() < BATCH {
            return Ok(());
        }
        self.flush()
    }

    fn flush(&mut self) -> Result<(), String> {
        let mut batch = std::mem::replace(&mut self.batch, Vec::with_capacity(BATCH));
        // Batches are waiting: scoring is behind, so this thread takes on part of its work.
        if let Some(expected) = self.expected.filter(|_| self.sender.capacity() < READ_AHEAD / 2) {
            expected.read_for(&mut batch);
        }
        self.sender
            .blocking_send(batch)
            .map_err(|_| "scoring stopped".to_string())
    }
}

/// One actual set, a case at a time; a legacy `.test.json` list (small by nature) whole.
fn read_run(path: &Path, run: usize, parts: CaseParts, batches: &mut Batches<'_>) -> Result<(), String> {
    let (mut reader, list) = open_evalset(path).map_err(|err| format!("cannot read it: {err}"))?;
    let mut send = |case| {
        batches.send(ActualItem::Case {
            run,
            case: Box::new(case),
            expected: None,
        })
    };
    if list {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut reader, &mut text).map_err(|err| err.to_string())?;
        return parse_eval_set(&text, &file_name(path))?
            .eval_cases
            .into_iter()
            .try_for_each(&mut send);
    }
    let reopen = || open_evalset(path).map(|(reader, _)| reader);
    read_evalset_cases_fast(reader, reopen, parts, &mut |_, case, _| send(case))
        .map(drop)
        .map_err(|err| err.to_string())
}
