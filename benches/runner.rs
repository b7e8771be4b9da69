//! Eval runner benchmarks (numbers, not pass/fail):
//! a) overhead: 1,000 one-turn cases on the demo agent with 100 ms injected latency at
//!    concurrency 50; the ideal wall time is ceil(1000/50) × 0.1 s = 2 s (target ≤ 1.15×);
//! b) memory: peak RSS after running and scoring 1,000 and then 10,000 cases (no latency), and
//!    the RSS as the 10,000-case run goes: flat means it does not grow with the cases done.
//!
//! Both go the product's whole way: the run is recorded in a SQLite file and every case result
//! is written as it finishes, as `evalstudio eval` and the server do.
//!
//! Run with `make bench` or `cargo bench --features ssr --bench runner`.

mod common;
use common::{current_rss_mib, peak_rss_mib};
#[path = "common/runs.rs"]
mod runs;
use runs::record_one_turn_run;

use std::sync::Arc;
use std::time::{Duration, Instant};

use evalstudio::agent::{Agent, DemoAgent, DemoFaults};
use evalstudio::eval::runner::RunOptions;
use evalstudio::eval::services::ScoringServices;
use evalstudio::records::runs::RunStatus;
use evalstudio::service::runs::worker::execute_eval_run;
use evalstudio::store::{Location, Store};

/// Runs `cases` cases; returns the wall time and the RSS (MiB) after each tenth of them.
async fn run(store: &Store, agent: Arc<dyn Agent>, cases: usize, concurrency: usize) -> (Duration, Vec<f64>) {
    let options = RunOptions {
        concurrency,
        ..RunOptions::default()
    };
    let started = Instant::now();
    let record = record_one_turn_run(store, agent.clone(), cases).await;
    let (_keep_open, never_cancelled) = tokio::sync::watch::channel(false);
    let mut done = 0;
    let mut rss_by_tenth = Vec::new();
    let status = execute_eval_run(
        store,
        &record,
        agent,
        &ScoringServices::default(),
        &options,
        never_cancelled,
        |_| {
            done += 1;
            if done % (cases / 10).max(1) == 0 {
                rss_by_tenth.push(current_rss_mib());
            }
        },
    )
    .await
    .expect("run finished");
    let elapsed = started.elapsed();
    assert_eq!(status, RunStatus::Finished);
    let stored = store
        .eval_run("demo", &record.summary.result_id)
        .await
        .unwrap()
        .summary;
    assert_eq!(stored.done as usize, cases);
    (elapsed, rss_by_tenth)
}

fn main() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    runtime.block_on(async {
        let store = Store::open(&Location::Sqlite(dir.path().join("bench.db"))).await.unwrap();
        let slow: Arc<dyn Agent> = Arc::new(DemoAgent::with_faults(DemoFaults {
            latency_ms: 100,
            error_rate: 0.0,
        }));
        let (wall, _) = run(&store, slow, 1_000, 50).await;
        let ideal = Duration::from_secs_f64((1_000f64 / 50.0).ceil() * 0.1);
        println!(
            "runner overhead: 1,000 cases, 100 ms latency, concurrency 50: {:.3} s (ideal {:.1} s, {:.3}×)",
            wall.as_secs_f64(),
            ideal.as_secs_f64(),
            wall.as_secs_f64() / ideal.as_secs_f64()
        );

        let fast: Arc<dyn Agent> = Arc::new(DemoAgent::new());
        for cases in [1_000, 10_000] {
            let (wall, rss_by_tenth) = run(&store, fast.clone(), cases, 8).await;
            let rss: Vec<String> = rss_by_tenth.iter().map(|mib| format!("{mib:.1}")).collect();
            println!(
                "runner memory: {cases} cases run, scored and stored in {:.2} s ({:.0} cases/s), peak RSS {:.1} MiB; \
                 RSS after each tenth of the cases: {} MiB",
                wall.as_secs_f64(),
                cases as f64 / wall.as_secs_f64(),
                peak_rss_mib(),
                rss.join(" · ")
            );
        }
    });
}
