//! A run's life, the front door of `runs`, for the CLI, the REST API and the browser alike: a
//! run is recorded first with its cases queued in batches, workers (`worker`) store each case
//! run as it finishes, so a crash loses only the cases in flight; a worker that dies leaves its
//! batches to another, and an interrupted or cancelled run resumes where it stopped.

use super::error::{EvalRunError, RunFailure};
use super::plan::{plan_run, record_run, requeue_run, RunRequest};
use super::worker::{execute_eval_run, POLL};
use crate::agent::Agent;
use crate::clock::now_seconds;
use crate::eval::runner::RunOptions;
use crate::records::runs::RunStatus;
use crate::service::running::Claim;
use crate::service::Services;
use crate::store::{EvalRunRecord, Store, StoreError};
use futures::FutureExt;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use tokio::sync::watch;

/// Plans and records a run, its cases queued for workers, and starts working on it here (unless
/// this process runs no worker). Await the handle to wait for the whole run, wherever it runs.
pub async fn start_eval_run(
    services: &Services,
    request: RunRequest,
) -> Result<(EvalRunRecord, tokio::task::JoinHandle<()>), EvalRunError> {
    let evaluators = &services.scoring.evaluators;
    let mut plan = plan_run(&services.store, &services.profiles, evaluators, request).await?;
    if let Some(folder) = &services.folder {
        plan.commit = folder.commit_of(&plan.app_name).await;
    }
    let record = record_run(&services.store, &plan).await?;
    let handle = take_up(services, record.clone(), plan.agent);
    Ok((record, handle))
}

/// Resumes an interrupted or cancelled run, from any process: only the case runs not stored
/// yet run. The run reads as running from the moment this answers.
pub async fn resume_eval_run(
    services: &Services,
    app: &str,
    result_id: &str,
) -> Result<(EvalRunRecord, tokio::task::JoinHandle<()>), EvalRunError> {
    let evaluators = &services.scoring.evaluators;
    let (record, agent) =
        requeue_run(&services.store, &services.profiles, evaluators, app, result_id).await?;
    let handle = take_up(services, record.clone(), agent);
    Ok((record, handle))
}

/// Cancels a running run, from any process: its workers stop (at once here, at their next
/// lease renewal elsewhere); what was stored stays and it can be resumed.
pub async fn cancel_eval_run(services: &Services, app: &str, result_id: &str) -> Result<(), EvalRunError> {
    let record = services.store.eval_run(app, result_id).await?;
    if !stop_run(&services.store, &record).await? {
        return Err(EvalRunError::NotRunning(result_id.to_string()));
    }
    services.eval_runs.stop(result_id);
    Ok(())
}

/// Marks the run cancelled in the store, for every worker on it to hear (a process that
/// stopped its own work on the run, as the CLI's Ctrl-C does, tells the others so); false when
/// it was no longer running.
pub async fn stop_run(store: &Store, record: &EvalRunRecord) -> Result<bool, EvalRunError> {
    Ok(store
        .stop_eval_run(record.row, RunStatus::Cancelled, now_seconds())
        .await?)
}

/// What becomes of a run whose work here failed: interrupted (resumable once the cause is
/// fixed) if this process still held some of its cases; left to the workers that hold them if
/// not.
pub async fn settle_failure(store: &Store, record: &EvalRunRecord, failure: &RunFailure) {
    let result_id = &record.summary.result_id;
    if let RunFailure::LeaseLost(_) = failure {
        tracing::warn!(result_id, "{failure}");
        return;
    }
    tracing::error!(result_id, "eval run failed: {failure}");
    if let Err(error) = store.interrupt_held_eval_run(record.row, now_seconds()).await {
        tracing::error!(result_id, "could not mark the run interrupted: {error}");
    }
}

/// Works on the run here (when this process runs a worker and is not working on it already),
/// in a task that ends when the run is over wherever it ran.
pub(super) fn take_up(
    services: &Services,
    record: EvalRunRecord,
    agent: Arc<dyn Agent>,
) -> tokio::task::JoinHandle<()> {
    let claim = services
        .worker
        .enabled
        .then(|| services.eval_runs.claim(&record.summary.result_id))
        .flatten();
    let services = services.clone();
    tokio::spawn(async move {
        match claim {
            Some(claim) => see_run_through(&services, &record, agent, claim).await,
            None => {
                wait_until_over(&services.store, &record).await;
            }
        }
    })
}

/// Works on the run until it is over; the claim (this process's registration of the work, by
/// which it is stopped here) is released however the work ends.
async fn see_run_through(
    services: &Services,
    record: &EvalRunRecord,
    agent: Arc<dyn Agent>,
    (cancel, claim): (watch::Receiver<bool>, Claim),
) {
    // Dropped when this ends, however it ends: a panic does not leave the run registered (and
    // so cancellable and un-resumable) for as long as the process lives.
    let _claim = claim;
    let options = RunOptions {
        concurrency: services.worker.concurrency,
        ..RunOptions::default()
    };
    let run = execute_eval_run(
        &services.store,
        record,
        agent,
        &services.scoring,
        &options,
        cancel,
        |_| {},
    );
    // A panic (in an agent, a metric) ends the work like a failed write.
    let outcome = match AssertUnwindSafe(run).catch_unwind().await {
        Ok(outcome) => outcome,
        Err(panic) => Err(RunFailure::Panicked(panic_message(panic.as_ref()))),
    };
    match outcome {
        Ok(RunStatus::Finished) => {
            if let Some(folder) = &services.folder {
                folder
                    .write_run_history(
                        &services.store,
                        &record.summary.app_name,
                        &record.summary.result_id,
                    )
                    .await;
            }
        }
        Ok(_) => {}
        Err(failure) => settle_failure(&services.store, record, &failure).await,
    }
}

/// Waits until the run is no longer running, wherever its workers are.
pub async fn wait_until_over(store: &Store, record: &EvalRunRecord) -> RunStatus {
    loop {
        match store
            .eval_run(&record.summary.app_name, &record.summary.result_id)
            .await
        {
            Ok(stored) if stored.summary.status == RunStatus::Running => {}
            Ok(stored) => return stored.summary.status,
            // Deleted while it ran.
            Err(StoreError::NotFound(_)) => return RunStatus::Cancelled,
            Err(error) => tracing::warn!("reading run `{}`: {error}", record.summary.result_id),
        }
        tokio::time::sleep(POLL).await;
    }
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".into())
}
