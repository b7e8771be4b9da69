//! One process's work on one run, as a worker: it claims the run's batches of cases from the
//! queue (`store/sql/run_queue.rs`) as it has room to start them, runs them through the agent,
//! stores each case run as it finishes (a write is stored only while this process still holds
//! the batches it belongs to) and renews its leases meanwhile, until the run is over: its last
//! batch stored (here or by another worker), or cancelled or interrupted from any process.
//! Any number of processes may work on one run at once; each case run is stored once.

use super::case_rows::stored_case;
use super::error::{RunFailure, UnreadableRun};
use super::stored::stored_config;
use super::summaries::{backfill, save_case_runs};
use crate::agent::Agent;
use crate::clock::now_seconds;
use crate::eval::runner::{run_and_score, CaseSchedule, FinishedCase, RunCases, RunOptions};
use crate::eval::services::ScoringServices;
use crate::evalset::EvalCase;
use crate::records::runs::{EvalRunCase, RunStatus};
use crate::store::{BatchClaim, BatchWrite, ClaimedBatch, EvalRunRecord, Store, Written, RENEW_EVERY};
use futures::stream::{self, BoxStream, StreamExt};
use std::borrow::Cow;
use std::collections::{BTreeMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{mpsc, watch, Notify, Semaphore};

/// Most finished case runs stored in one transaction.
const WRITE_BATCH: usize = 256;

/// How long a worker with nothing to claim waits before it looks again (sooner when one of its
/// own writes may have ended the run).
pub const POLL: Duration = Duration::from_secs(1);

/// Works on `record` until the run is over, and answers how it ended: `Finished`, or
/// `Cancelled`/`Interrupted` (from any process; `Cancelled` too when `cancel` turns true here,
/// which drops the case runs under way and lets go of this process's batches). A failed write
/// ends the work with the error; the caller decides what becomes of the run.
pub async fn execute_eval_run(
    store: &Store,
    record: &EvalRunRecord,
    agent: Arc<dyn Agent>,
    services: &ScoringServices,
    options: &RunOptions,
    cancel: watch::Receiver<bool>,
    on_case: impl FnMut(&FinishedCase),
) -> Result<RunStatus, RunFailure> {
    let worked = match work(store, record, agent, services, options, cancel, on_case).await {
        // A write refused because the run was stopped elsewhere is the stop, not a failure.
        Err(RunFailure::LeaseLost(id)) => match store.renew_run_batches(record.row).await {
            Ok(RunStatus::Running) | Err(_) => Err(RunFailure::LeaseLost(id)),
            Ok(over) => Ok(over),
        },
        worked => worked,
    };
    // Stopped, or its batches taken over: what it still holds is for other workers to claim at
    // once rather than once the leases end. (A failed run keeps them until the caller has
    // settled it: see `lifecycle::settle_failure`.)
    if matches!(
        worked,
        Ok(RunStatus::Cancelled | RunStatus::Interrupted) | Err(RunFailure::LeaseLost(_))
    ) {
        let _ = store.release_run_batches(record.row).await;
    }
    worked
}

async fn work(
    store: &Store,
    record: &EvalRunRecord,
    agent: Arc<dyn Agent>,
    services: &ScoringServices,
    options: &RunOptions,
    mut cancel: watch::Receiver<bool>,
    mut on_case: impl FnMut(&FinishedCase),
) -> Result<RunStatus, RunFailure> {
    let config = stored_config(&record.summary.result_id, &record.config_json)?;
    let num_runs = record.summary.num_runs.max(1) as usize;
    let options = RunOptions {
        num_runs,
        tools: record.summary.tools,
        ..options.clone()
    };
    // A run stored before case summaries were kept gets them now, before its writer starts.
    let mut head = store
        .eval_run_head(&record.summary.app_name, &record.summary.result_id)
        .await?;
    backfill(store, &mut head, &config).await?;
    let queue = Queue {
        store,
        run_row: record.row,
        num_runs,
        held: Held::default(),
        written: Notify::new(),
        outcome: Mutex::new(None),
    };
    let queue = &queue;
    let config = &config;
    let expected = HeldCases {
        eval_set_id: &record.summary.eval_set_id,
        count: record.summary.case_count() as usize,
        held: &queue.held,
    };
    let app_name = record.summary.app_name.as_str();
    // The writer runs beside the case runs rather than between them: while one write is under
    // way the agent calls go on, and the cases that finish meanwhile go in the next write, as
    // one transaction. A new case starts only while fewer than `concurrency + WRITE_BATCH`
    // started ones are unstored, so if the disk falls behind, finished cases wait in bounded
    // numbers without pausing the ones under way.
    let (finished_tx, mut finished_rx) = mpsc::unbounded_channel::<FinishedCase>();
    // Batches are claimed ahead, up to `concurrency` case runs not started yet, so a slot that
    // frees never waits on a claim.
    let (job_tx, job_rx) = mpsc::channel::<(usize, usize)>(options.concurrency.max(1));
    let admission = Semaphore::new(options.concurrency.max(1) + WRITE_BATCH);
    let admission = &admission;
    let run_cases = async move {
        // The case runs still under way are dropped (cancelled) when this block ends.
        let mut cases = std::pin::pin!(run_and_score(
            agent,
            app_name,
            &expected,
            config,
            services,
            &options,
            CaseSchedule {
                jobs: Some(jobs(job_rx)),
                admission: Some(admission),
            },
        ));
        // Once every sender is gone nobody can cancel, so stop listening (changed() would return
        // at once, forever).
        let mut cancellable = true;
        loop {
            tokio::select! {
                finished = cases.next() => match finished {
                    None => break None,
                    // Sending fails only once the writer has failed, and then try_join! below has
                    // already dropped this future.
                    Some(finished) => {
                        let _ = finished_tx.send(finished);
                    }
                },
                changed = cancel.changed(), if cancellable => match changed {
                    Ok(()) if *cancel.borrow() => break Some(RunStatus::Cancelled),
                    Ok(()) => {}
                    Err(_) => cancellable = false,
                },
            }
        }
    };
    let write_cases = async move {
        let mut batch = Vec::with_capacity(WRITE_BATCH);
        while finished_rx.recv_many(&mut batch, WRITE_BATCH).await > 0 {
            let rows: Vec<EvalRunCase> = batch
                .iter()
                .map(|finished| stored_case(finished, config))
                .collect();
            let write = queue.held.write_of(&rows, now_seconds());
            match save_case_runs(store, record.row, &rows, config, &write).await? {
                Written::NotHeld => return Err(RunFailure::LeaseLost(record.summary.result_id.clone())),
                Written::Stored { finished } => queue.record_write(finished),
            }
            admission.add_permits(rows.len());
            batch.drain(..).for_each(|finished| on_case(&finished));
        }
        Ok::<(), RunFailure>(())
    };
    let stopped_here = tokio::select! {
        written = async {
            tokio::try_join!(async { Ok(run_cases.await) }, write_cases, async {
                queue.feed(job_tx).await;
                Ok(())
            })
        } => written?.0,
        over = keep_leases(store, record.row) => Some(over?),
    };
    match stopped_here {
        Some(status) => Ok(status),
        None => queue.outcome(),
    }
}

/// Renews this process's leases on the run's batches every [`RENEW_EVERY`] for as long as it
/// is awaited; answers when the run is no longer running (stopped from another process) or the
/// store failed.
async fn keep_leases(store: &Store, run_row: i64) -> Result<RunStatus, RunFailure> {
    let mut ticks = tokio::time::interval(RENEW_EVERY);
    ticks.tick().await;
    loop {
        ticks.tick().await;
        match store.renew_run_batches(run_row).await? {
            RunStatus::Running => {}
            over => return Ok(over),
        }
    }
}

/// The run's queue as this worker sees it.
struct Queue<'a> {
    store: &'a Store,
    run_row: i64,
    num_runs: usize,
    held: Held,
    /// Told after each write, which may have stored the batches a waiting claim waits on.
    written: Notify,
    /// How the run ended, once this worker knows; or why its work failed.
    outcome: Mutex<Option<Result<RunStatus, RunFailure>>>,
}

impl Queue<'_> {
    /// Claims batches and hands their case runs to the runner (waiting while it has enough
    /// not started yet), until the run is over (or a claim failed, or the runner stopped).
    async fn feed(&self, jobs: mpsc::Sender<(usize, usize)>) {
        while let Some(batch) = self.next_batch(&jobs).await {
            for job in batch {
                if jobs.send(job).await.is_err() {
                    return;
                }
            }
        }
    }

    /// The case runs of the next batch claimed; `None` once there will be no more, or the
    /// runner stopped taking them. A claim is never dropped half-way: its statement would run
    /// on and hold a batch nobody works on until its lease ended.
    async fn next_batch(&self, jobs: &mpsc::Sender<(usize, usize)>) -> Option<Vec<(usize, usize)>> {
        loop {
            if jobs.is_closed() {
                return None;
            }
            let claim = self.store.claim_run_batch(self.run_row).await;
            match claim {
                Ok(BatchClaim::Claimed(batch)) => {
                    let jobs = unstored(&batch, self.num_runs);
                    if !jobs.is_empty() {
                        match self.batch_cases(&batch).await {
                            Ok(cases) => self.held.add(&batch, jobs.len(), cases),
                            Err(failure) => {
                                self.end(Err(failure));
                                return None;
                            }
                        }
                        return Some(jobs);
                    }
                    // A dead worker stored all of it: nothing to run, only to complete.
                    if let Err(failure) = self.complete_empty(batch.id).await {
                        self.end(Err(failure));
                        return None;
                    }
                }
                // Other workers (or this one's own cases under way) hold the rest: wait for a
                // write here or for another's lease to end.
                Ok(BatchClaim::Busy) => {
                    tokio::select! {
                        _ = tokio::time::timeout(POLL, self.written.notified()) => {}
                        () = jobs.closed() => return None,
                    }
                }
                Ok(BatchClaim::Over(status)) => {
                    self.end(Ok(status));
                    return None;
                }
                Err(error) => {
                    self.end(Err(error.into()));
                    return None;
                }
            }
        }
    }

    /// The cases of `batch`, read from the run's stored eval set.
    async fn batch_cases(&self, batch: &ClaimedBatch) -> Result<Vec<EvalCase>, RunFailure> {
        let stored = self
            .store
            .eval_run_set_cases(self.run_row, batch.cases.clone())
            .await?;
        stored
            .iter()
            .zip(batch.cases.clone())
            .map(|(json, index)| {
                serde_json::from_str(json).map_err(|err| {
                    RunFailure::Unreadable(UnreadableRun(format!(
                        "case {index} of the run's stored eval set is unreadable: {err}"
                    )))
                })
            })
            .collect()
    }

    async fn complete_empty(&self, batch: i64) -> Result<(), RunFailure> {
        let write = BatchWrite {
            held: vec![batch],
            completed: vec![batch],
            at: now_seconds(),
        };
        match self
            .store
            .save_eval_run_cases(self.run_row, &[], &[], &write)
            .await?
        {
            Written::Stored { finished } => {
                self.record_write(finished);
                Ok(())
            }
            Written::NotHeld => Ok(()),
        }
    }

    fn record_write(&self, finished: bool) {
        if finished {
            self.end(Ok(RunStatus::Finished));
        }
        self.written.notify_one();
    }

    /// Keeps the first word on how the run ended.
    fn end(&self, outcome: Result<RunStatus, RunFailure>) {
        self.outcome
            .lock()
            .expect("queue outcome lock")
            .get_or_insert(outcome);
    }

    fn outcome(&self) -> Result<RunStatus, RunFailure> {
        self.outcome
            .lock()
            .expect("queue outcome lock")
            .take()
            .unwrap_or(Ok(RunStatus::Finished))
    }
}

/// The case runs handed over by [`Queue::feed`], as the runner takes them; ends when it stops.
fn jobs<'a>(handed: mpsc::Receiver<(usize, usize)>) -> BoxStream<'a, (usize, usize)> {
    stream::unfold(handed, |mut handed| async move {
        handed.recv().await.map(|job| (job, handed))
    })
    .boxed()
}

/// The case runs of `batch` not stored yet, repetition by repetition.
fn unstored(batch: &ClaimedBatch, num_runs: usize) -> Vec<(usize, usize)> {
    let stored: HashSet<&(usize, usize)> = batch.stored.iter().collect();
    (0..num_runs)
        .flat_map(|run| batch.cases.clone().map(move |case| (run, case)))
        .filter(|job| !stored.contains(job))
        .collect()
}

/// The batches this worker holds, by first case, with their cases and how many of their case
/// runs are still to be stored.
#[derive(Default)]
struct Held(Mutex<BTreeMap<usize, HeldBatch>>);

struct HeldBatch {
    id: i64,
    end_case: usize,
    unstored: usize,
    cases: Vec<EvalCase>,
}

impl Held {
    fn add(&self, batch: &ClaimedBatch, unstored: usize, cases: Vec<EvalCase>) {
        let held = HeldBatch {
            id: batch.id,
            end_case: batch.cases.end,
            unstored,
            cases,
        };
        self.0
            .lock()
            .expect("held batches lock")
            .insert(batch.cases.start, held);
    }

    /// Case `index`, if a batch held here has it.
    fn case(&self, index: usize) -> Option<EvalCase> {
        let held = self.0.lock().expect("held batches lock");
        let (&first, batch) = held.range(..=index).next_back()?;
        batch.cases.get(index - first).cloned()
    }

    /// The write of `rows`: the batches they belong to, and those whose last case runs they
    /// are (no longer held here from now on: written, they are deleted; refused, the work ends).
    fn write_of(&self, rows: &[EvalRunCase], at: f64) -> BatchWrite {
        let mut held = self.0.lock().expect("held batches lock");
        let mut write = BatchWrite {
            at,
            ..BatchWrite::default()
        };
        for row in rows {
            let case = row.case_index as usize;
            let Some((&first, batch)) = held.range_mut(..=case).next_back() else {
                continue;
            };
            if case >= batch.end_case {
                continue;
            }
            if !write.held.contains(&batch.id) {
                write.held.push(batch.id);
            }
            batch.unstored = batch.unstored.saturating_sub(1);
            if batch.unstored == 0 {
                write.completed.push(batch.id);
                held.remove(&first);
            }
        }
        write
    }
}

/// The run's cases as the runner reads them: those of the batches this worker holds, each kept
/// until its batch is written.
struct HeldCases<'a> {
    eval_set_id: &'a str,
    count: usize,
    held: &'a Held,
}

impl RunCases for HeldCases<'_> {
    fn eval_set_id(&self) -> &str {
        self.eval_set_id
    }

    fn case_count(&self) -> usize {
        self.count
    }

    fn case(&self, index: usize) -> Cow<'_, EvalCase> {
        // A case run starts only once its batch is held, and its batch is let go of only once
        // the case run is written, after it has finished.
        Cow::Owned(
            self.held
                .case(index)
                .expect("a case runs only while its batch is held"),
        )
    }
}
