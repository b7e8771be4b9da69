//! Eval runner benchmarks (numbers, not pass/fail):
//! a) overhead: 1,000 one-turn cases on the demo agent with 100 ms injected latency at
//!    concurrency 50; the ideal wall time is ceil(1000/50) × 0.1 s = 2 s (target ≤ 1.15×);
//! b) memory: peak RSS after running and scoring 1,000 and then 10,000 cases (no latency).
//!
//! Run with `make bench` or `cargo bench --features ssr --bench runner`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use evalstudio::agent::{Agent, DemoAgent, DemoFaults};
use evalstudio::eval::{run_eval_set, score_eval_set, EvalConfig, RunOptions};
use evalstudio::evalset::{Content, EvalCase, EvalSet, Invocation};

const MESSAGES: [&str; 4] = [
    "What's the weather in Paris, and 20 EUR in USD?",
    "Where is my order A1003?",
    "How do I reset my password?",
    "What is 17 * 23 + 4?",
];

fn eval_set(cases: usize) -> EvalSet {
    EvalSet {
        eval_set_id: format!("bench_{cases}"),
        eval_cases: (0..cases)
            .map(|i| EvalCase {
                eval_id: format!("case_{i}"),
                conversation: Some(vec![Invocation {
                    invocation_id: format!("e-{i}"),
                    user_content: Content::text("user", MESSAGES[i % MESSAGES.len()]),
                    ..Invocation::default()
                }]),
                ..EvalCase::default()
            })
            .collect(),
        ..EvalSet::default()
    }
}

fn peak_rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

async fn run(agent: Arc<dyn Agent>, cases: usize, concurrency: usize) -> Duration {
    let set = eval_set(cases);
    let options = RunOptions {
        concurrency,
        ..RunOptions::default()
    };
    let started = Instant::now();
    let runs = run_eval_set(agent, "demo", &set, &options, |_| {}).await;
    let elapsed = started.elapsed();
    let actual: Vec<EvalSet> = runs.into_iter().map(|(set, _)| set).collect();
    let scored = score_eval_set(&set, &actual, &EvalConfig::default()).expect("the runs line up");
    assert_eq!(scored.summaries.len(), cases);
    elapsed
}

fn main() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let slow: Arc<dyn Agent> = Arc::new(DemoAgent::with_faults(DemoFaults {
            latency_ms: 100,
            error_rate: 0.0,
        }));
        let wall = run(slow, 1_000, 50).await;
        let ideal = Duration::from_secs_f64((1_000f64 / 50.0).ceil() * 0.1);
        println!(
            "runner overhead: 1,000 cases, 100 ms latency, concurrency 50: {:.3} s (ideal {:.1} s, {:.3}×)",
            wall.as_secs_f64(),
            ideal.as_secs_f64(),
            wall.as_secs_f64() / ideal.as_secs_f64()
        );

        let fast: Arc<dyn Agent> = Arc::new(DemoAgent::new());
        for cases in [1_000, 10_000] {
            let wall = run(fast.clone(), cases, 8).await;
            println!(
                "runner memory: {cases} cases run and scored in {:.2} s ({:.0} cases/s), peak RSS {:.1} MiB",
                wall.as_secs_f64(),
                cases as f64 / wall.as_secs_f64(),
                peak_rss_mib()
            );
        }
    });
}
