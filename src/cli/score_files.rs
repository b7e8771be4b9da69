//! `score`'s result files, written on a thread of their own as scored cases arrive, so that
//! formatting each result runs beside the scoring rather than in its way; the same thread
//! makes the case summaries as their runs come. Written whole results (kept for ADK's file) go
//! back to be let go of on the scoring thread, which made most of what they hold: freeing there
//! is cheaper, and the writing thread is the busier one. Verdicts are small and end here.

use super::files::{write_error, ResultFile};
use super::CliError;
use crate::eval::case_summaries::CaseSummaries;
use crate::eval::config::EvalConfig;
use crate::eval::result::{CaseSummary, EvalCaseResult};
use crate::eval::result_file::{AdkResultWriter, ResultHeader, SummaryWriter};
use crate::eval::score::{Keep, ScoredCase};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, sync_channel, Receiver, SyncSender};
use std::thread::JoinHandle;

/// Scored cases cross to the writing thread in batches of this many…
const BATCH: usize = 64;
/// …with at most this many batches waiting.
const WAITING: usize = 4;

/// The files asked for: ADK's EvalSetResult (`--json`) and the verdicts (`--json-summary`).
pub struct ScoreFiles {
    adk: Option<AdkResultWriter<ResultFile>>,
    summary: Option<SummaryWriter<ResultFile>>,
}

impl ScoreFiles {
    pub fn create(
        json: Option<&Path>,
        json_summary: Option<&Path>,
        header: &ResultHeader,
        config: &EvalConfig,
    ) -> Result<Self, CliError> {
        let adk = json
            .map(|path| {
                AdkResultWriter::begin(ResultFile::create(path)?, header, 0)
                    .map_err(|err| write_error(path, err))
            })
            .transpose()?;
        let summary = json_summary
            .map(|path| {
                SummaryWriter::begin(ResultFile::create(path)?, header, config)
                    .map_err(|err| write_error(path, err))
            })
            .transpose()?;
        Ok(ScoreFiles { adk, summary })
    }

    /// What scoring must keep of each case for these files: whole results for ADK's.
    pub fn keep(&self) -> Keep {
        match self.adk {
            Some(_) => Keep::Results,
            None => Keep::Verdicts,
        }
    }

    fn write(&mut self, scored: &ScoredCase) -> Result<(), WriteFailed> {
        if let Some(adk) = &mut self.adk {
            let result = scored
                .result
                .as_ref()
                .expect("results are kept while ADK's file is written");
            adk.case(result)
                .map_err(|err| WriteFailed(adk.out().path().to_path_buf(), err))?;
        }
        if let Some(summary) = &mut self.summary {
            summary
                .case_run(scored.run, &scored.verdict)
                .map_err(|err| WriteFailed(summary.out().path().to_path_buf(), err))?;
        }
        Ok(())
    }

    /// Closes each file with the cases over all runs and puts it in place.
    pub fn finish(self, summaries: &[CaseSummary]) -> Result<(), CliError> {
        if let Some(adk) = self.adk {
            closed(adk.finish(Some(summaries)))?.keep()?;
        }
        if let Some(summary) = self.summary {
            closed(summary.finish(summaries))?.keep()?;
        }
        Ok(())
    }
}

/// A write that failed on the writing thread (which a `CliError` cannot leave).
struct WriteFailed(PathBuf, io::Error);

/// What the writing thread answers: the files, and the case summaries.
type Written = Result<(ScoreFiles, CaseSummaries), WriteFailed>;

/// The writing thread, the batch on its way to it, and the written results coming back.
pub struct ScoreWriter {
    keep: Keep,
    sender: Option<SyncSender<Vec<ScoredCase>>>,
    batch: Vec<ScoredCase>,
    written: Receiver<Vec<EvalCaseResult>>,
    thread: Option<JoinHandle<Written>>,
}

impl ScoreWriter {
    /// Starts writing `files` and filling in `summaries` as scored cases come.
    pub fn start(mut files: ScoreFiles, mut summaries: CaseSummaries) -> Self {
        let keep = files.keep();
        let (sender, receiver) = sync_channel::<Vec<ScoredCase>>(WAITING);
        let (give_back, written) = channel();
        let thread = std::thread::spawn(move || {
            for batch in receiver {
                let mut results = Vec::new();
                for scored in batch {
                    files.write(&scored)?;
                    let verdict = scored.verdict;
                    summaries.add(scored.case_index, &verdict.eval_id, verdict.scores);
                    results.extend(scored.result);
                }
                // Only fails once the scoring thread has gone (the results are then let go of here).
                let _ = give_back.send(results);
            }
            Ok((files, summaries))
        });
        ScoreWriter {
            keep,
            sender: Some(sender),
            batch: Vec::with_capacity(BATCH),
            written,
            thread: Some(thread),
        }
    }

    /// What scoring must keep of each case for the files being written.
    pub fn keep(&self) -> Keep {
        self.keep
    }

    /// Hands a scored case over; a write that failed shows here (or at `finish`).
    pub fn push(&mut self, scored: ScoredCase) -> Result<(), CliError> {
        self.batch.push(scored);
        if self.batch.len() < BATCH {
            return Ok(());
        }
        self.written.try_iter().for_each(drop);
        self.send()
    }

    fn send(&mut self) -> Result<(), CliError> {
        let batch = std::mem::replace(&mut self.batch, Vec::with_capacity(BATCH));
        let sent = self.sender.as_ref().map(|sender| sender.send(batch));
        if let Some(Err(_)) = sent {
            // The thread stopped: a write failed, and it says which.
            return self.join().map(drop);
        }
        Ok(())
    }

    /// Writes what is left; answers the files, to be closed with the case summaries, and those.
    pub fn finish(mut self) -> Result<(ScoreFiles, CaseSummaries), CliError> {
        self.send()?;
        let written = self.join()?;
        self.written.try_iter().for_each(drop);
        Ok(written)
    }

    /// Stops writing; the files are not put in place.
    pub fn abandon(mut self) {
        drop(self.join());
    }

    fn join(&mut self) -> Result<(ScoreFiles, CaseSummaries), CliError> {
        self.sender = None;
        let thread = self
            .thread
            .take()
            .ok_or_else(|| CliError::Run("the results were written already".into()))?;
        match thread.join() {
            Ok(Ok(written)) => Ok(written),
            Ok(Err(WriteFailed(path, source))) => Err(CliError::Write { path, source }),
            Err(_) => Err(CliError::Run("writing the results failed".into())),
        }
    }
}

/// A closed writer's file, or the error of its last writes.
fn closed(closed: Result<ResultFile, (ResultFile, io::Error)>) -> Result<ResultFile, CliError> {
    closed.map_err(|(file, err)| file.error(err))
}
