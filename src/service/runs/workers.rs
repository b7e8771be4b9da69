//! A process's worker: it looks in the store for running runs with cases free to claim (runs
//! started by another process, or whose worker died) and works on each with its profile's
//! agent, beside the runs this process started itself. `evalstudio worker` is only this;
//! every `evalstudio serve` runs one too unless started with `--no-worker`.

use super::lifecycle::take_up;
use super::worker::POLL;
use crate::service::Services;
use crate::store::EvalRunRecord;
use std::collections::HashSet;
use std::time::Duration;

/// Whether a process works on eval runs, and how many case runs of one run it has under way at
/// once.
#[derive(Debug, Clone, Copy)]
pub struct WorkerSettings {
    pub enabled: bool,
    pub concurrency: usize,
}

impl Default for WorkerSettings {
    fn default() -> Self {
        WorkerSettings {
            enabled: true,
            concurrency: 8,
        }
    }
}

/// Most runs looked at in one pass.
const RUNS_PER_LOOK: i64 = 16;

/// Looks for work every [`POLL`] for as long as it is awaited; does nothing when the
/// process's worker is off.
pub async fn work_queue(services: Services) {
    if !services.worker.enabled {
        return;
    }
    // Runs whose agent is no profile here, said once each: another worker may have it.
    let mut unknown_agents = HashSet::new();
    loop {
        match services.store.runs_with_free_batches(RUNS_PER_LOOK).await {
            Ok(runs) => {
                for (app, result_id) in runs {
                    if !services.eval_runs.is_running(&result_id) {
                        take(&services, &app, &result_id, &mut unknown_agents).await;
                    }
                }
            }
            Err(error) => tracing::warn!("looking for eval runs to work on: {error}"),
        }
        tokio::time::sleep(POLL).await;
    }
}

async fn take(services: &Services, app: &str, result_id: &str, unknown_agents: &mut HashSet<String>) {
    let record: EvalRunRecord = match services.store.eval_run(app, result_id).await {
        Ok(record) => record,
        Err(error) => {
            tracing::warn!(result_id, "reading a run to work on: {error}");
            return;
        }
    };
    match services.profiles.agent(&record.summary.agent) {
        Some(agent) => {
            tracing::info!(result_id, "working on eval run");
            // Its task ends when the run is over; nobody waits on it.
            drop(take_up(services, record, agent));
        }
        None => {
            if unknown_agents.insert(result_id.to_string()) {
                tracing::warn!(
                    result_id,
                    "eval run left to other workers: its agent `{}` is no profile here",
                    record.summary.agent
                );
            }
        }
    }
}

/// How long a process shutting down waits for its runs' work to stop.
const STOP_WAIT: Duration = Duration::from_secs(5);

/// Stops this process's work on eval runs and lets go of its batches, so other workers take
/// them up at once rather than once the leases end: what a server or worker does as it shuts
/// down (a kill -9 skips it, and the leases end on their own).
pub async fn stop_working(services: &Services) {
    services.eval_runs.stop_all();
    let stopped = tokio::time::timeout(STOP_WAIT, async {
        while !services.eval_runs.is_idle() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    if stopped.is_err() {
        tracing::warn!("eval runs still stopping after {STOP_WAIT:?}; letting go of their cases anyway");
    }
    if let Err(error) = services.store.release_all_run_batches().await {
        tracing::warn!("letting go of eval cases: {error}");
    }
}
