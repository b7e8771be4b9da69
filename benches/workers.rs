//! Eval runs spread over workers (numbers, not pass/fail): 10,000 one-turn cases on the demo
//! agent with 100 ms injected latency, 50 case runs at once per worker, run by 1, 2 and 4
//! workers at once on one database; the wall time against the ideal, cases × 0.1 s / (50 ×
//! workers) (target ≤ 1.15×). Each worker is its own store handle (its own pool and boot id,
//! as a separate process has) claiming batches from the run's queue; they share this process's
//! cores, as the work they wait on is the agent's.
//!
//! On a SQLite file, or on PostgreSQL under `scripts/with-postgres` (`make bench` runs both).
//! `BENCH_WORKER_CASES` changes the number of cases.

#[path = "common/mod.rs"]
mod common;
#[allow(dead_code)]
#[path = "../src/testing/database.rs"]
mod database;
#[path = "common/runs.rs"]
mod runs;

use common::cpu_seconds;
use evalstudio::agent::{Agent, DemoAgent, DemoFaults};
use evalstudio::clock::now_seconds;
use evalstudio::eval::runner::RunOptions;
use evalstudio::eval::services::ScoringServices;
use evalstudio::records::runs::RunStatus;
use evalstudio::service::runs::worker::execute_eval_run;
use evalstudio::store::Store;
use futures::future::join_all;
use runs::record_one_turn_run;
use std::sync::Arc;
use std::time::{Duration, Instant};

const LATENCY: Duration = Duration::from_millis(100);
const CONCURRENCY: usize = 50;

fn main() {
    let cases: usize = std::env::var("BENCH_WORKER_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(10_000);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    runtime.block_on(async {
        let location = database::scratch_database(dir.path()).await;
        let backend = if location.is_postgres() { "PostgreSQL" } else { "SQLite" };
        let agent: Arc<dyn Agent> = Arc::new(DemoAgent::with_faults(DemoFaults {
            latency_ms: LATENCY.as_millis() as u64,
            error_rate: 0.0,
        }));
        let scoring = ScoringServices::default();
        let options = RunOptions {
            concurrency: CONCURRENCY,
            ..RunOptions::default()
        };
        for workers in [1, 2, 4] {
            let mut stores = Vec::new();
            for _ in 0..workers {
                stores.push(Store::open(&location).await.unwrap());
            }
            let record = record_one_turn_run(&stores[0], agent.clone(), cases).await;
            let (_keep_open, never_cancelled) = tokio::sync::watch::channel(false);
            let started = Instant::now();
            let started_at = now_seconds();
            let cpu_before = cpu_seconds();
            let ends = join_all(stores.iter().map(|store| {
                execute_eval_run(
                    store,
                    &record,
                    agent.clone(),
                    &scoring,
                    &options,
                    never_cancelled.clone(),
                    |_| {},
                )
            }))
            .await;
            let all_back = started.elapsed();
            let cpu = cpu_seconds() - cpu_before;
            for end in ends {
                assert_eq!(end.expect("the worker ran"), RunStatus::Finished);
            }
            let stored = stores[0]
                .eval_run("demo", &record.summary.result_id)
                .await
                .unwrap()
                .summary;
            assert_eq!(stored.done as usize, cases, "every case stored once");
            // The run is over when its last case run is stored; a worker that was waiting for
            // another's last batch notices within a second, which is its own time, not the run's.
            let wall = Duration::from_secs_f64(stored.finished_at.expect("a finished run's end") - started_at);
            let ideal = LATENCY.as_secs_f64() * cases as f64 / (CONCURRENCY * workers) as f64;
            println!(
                "workers on {backend}: {cases} cases × {} ms, {CONCURRENCY} at once per worker, {workers} worker(s): \
                 {:.2} s (ideal {ideal:.2} s, {:.3}×; every worker back after {:.2} s); this process's CPU \
                 {cpu:.1} s ({:.2} cores busy of {})",
                LATENCY.as_millis(),
                wall.as_secs_f64(),
                wall.as_secs_f64() / ideal,
                all_back.as_secs_f64(),
                cpu / wall.as_secs_f64(),
                std::thread::available_parallelism().map_or(1, usize::from),
            );
        }
    });
}
