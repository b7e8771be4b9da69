//! The results views' server time (numbers, not pass/fail), a run of 10,000 cases × 5 metrics
//! (`BENCH_LARGE_CASES` to change it) against one of 100: a run's page, two runs compared, and
//! the case list with each case's latest status, through the services the pages call, on a real
//! SQLite file, or a PostgreSQL database under `scripts/with-postgres`; and the bytes one
//! progress update sends.
//!
//! Run with `make bench` or `cargo bench --features ssr --bench run_views`;
//! `BENCH_LARGE_CASES=100000 scripts/with-postgres cargo bench --features ssr --bench run_views`
//! for 100,000 stored case runs a run on PostgreSQL.

#[allow(dead_code)]
#[path = "../src/testing/database.rs"]
mod database;

use evalstudio::eval::config::EvalConfig;
use evalstudio::eval::result::EvalStatus;
use evalstudio::evalset::CompactEvalSet;
use evalstudio::records::cases::CaseListQuery;
use evalstudio::records::runs::{EvalRunCase, RunProgress, RunStatus};
use evalstudio::service::cases::list_cases;
use evalstudio::service::eval_sets::{import_file, ImportMode};
use evalstudio::service::runs::case_rows::summarise;
use evalstudio::service::runs::summaries::save_case_runs;
use evalstudio::service::runs::views::{compare, run_page, run_rows};
use evalstudio::store::{BatchWrite, NewEvalRun, Store};
use serde_json::json;
use std::future::Future;
use std::time::{Duration, Instant};

const METRICS: [&str; 5] = [
    "tool_trajectory_avg_score",
    "response_match_score",
    "tool_trajectory_precision",
    "tool_trajectory_recall",
    "tool_trajectory_f1",
];

fn evalset(id: &str, cases: usize) -> String {
    let cases: Vec<_> = (0..cases)
        .map(|i| {
            json!({"eval_id": format!("case_{i:05}"), "conversation": [{
                "invocation_id": format!("i{i}"),
                "user_content": {"role": "user", "parts": [{"text": format!("question {i}")}]},
                "final_response": {"role": "model", "parts": [{"text": "An answer."}]},
                "intermediate_data": {"tool_uses": [{"name": "get_weather", "args": {"n": i}}]}
            }]})
        })
        .collect();
    json!({"eval_set_id": id, "eval_cases": cases}).to_string()
}

/// Stores a finished run of every case of `set`, with scores that vary with `seed`.
async fn stored_run(
    store: &Store,
    set: &str,
    cases: usize,
    config: &EvalConfig,
    seed: usize,
    at: f64,
) -> String {
    let expected =
        CompactEvalSet::from_adk_json(&store.export_adk_json("bench", set).await.unwrap()).unwrap();
    let rows: Vec<EvalRunCase> = (0..cases)
        .map(|i| {
            let score = ((i * 7 + seed * 13) % 11) as f64 / 10.0;
            EvalRunCase {
                run_index: 0,
                case_index: i as i64,
                eval_id: format!("case_{i:05}"),
                status: EvalStatus::from_score(score, 0.5),
                error: None,
                metric_scores: (0..config.metrics.len())
                    .map(|_| vec![Some(score.min(1.0))])
                    .collect(),
                result: json!({"eval_id": format!("case_{i:05}")}),
            }
        })
        .collect();
    let run = NewEvalRun {
        app_name: "bench",
        eval_set_id: set,
        agent: "demo",
        expected: &expected,
        config_json: &config.to_json().to_string(),
        num_runs: 1,
        total: cases,
        created_at: at,
        label: None,
        whole_set: true,
        tools: Default::default(),
        commit: None,
        result_id: None,
        origin: Default::default(),
    };
    // Written 500 case runs at a time, as a worker would, however many there are.
    let (first, rest) = rows.split_at(rows.len().min(500));
    let record = store
        .create_finished_eval_run(&run, first, &summarise(first, config), at + 1.0)
        .await
        .unwrap();
    for chunk in rest.chunks(500) {
        save_case_runs(store, record.row, chunk, config, &BatchWrite::default())
            .await
            .unwrap();
    }
    record.summary.result_id
}

/// Mean time of one call, over `rounds` calls.
async fn time<F: Future>(rounds: u32, mut call: impl FnMut() -> F) -> Duration {
    let started = Instant::now();
    for _ in 0..rounds {
        call().await;
    }
    started.elapsed() / rounds
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let dir = tempfile::tempdir().unwrap();
    let location = database::scratch_database(dir.path()).await;
    let store = Store::open(&location).await.unwrap();
    let large: usize = std::env::var("BENCH_LARGE_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(10_000);
    let config = EvalConfig::from_picked(METRICS.iter().map(|m| (*m, 0.5, None))).unwrap();
    let mut runs = Vec::new();
    for (set, cases) in [("small", 100), ("large", large)] {
        import_file(
            &store,
            "bench",
            "x.json",
            None,
            evalset(set, cases),
            ImportMode::New,
        )
        .await
        .unwrap();
        let first = stored_run(&store, set, cases, &config, 0, 1_000.0).await;
        let second = stored_run(&store, set, cases, &config, 1, 2_000.0).await;
        runs.push((set, first, second));
    }
    // A server's database has had autovacuum by now; one just filled has not (its counts
    // would read every row's heap page).
    if let evalstudio::store::Location::Postgres(url) = &location {
        let pool = sqlx::PgPool::connect(url).await.unwrap();
        sqlx::query("VACUUM ANALYZE").execute(&pool).await.unwrap();
    }
    println!(
        "results views on {}, server time per call: 100 cases vs {large} cases, {} metrics",
        if location.is_postgres() {
            "PostgreSQL"
        } else {
            "SQLite"
        },
        config.metrics.len()
    );
    let mut lines: Vec<(&str, [Duration; 2])> = vec![
        ("run page, first read (statistics made)", [Duration::ZERO; 2]),
        ("run page (statistics + first page)", [Duration::ZERO; 2]),
        ("compare two runs (all cases, page 1)", [Duration::ZERO; 2]),
        ("case list with latest-run status", [Duration::ZERO; 2]),
        ("runs list of the evalset (2 runs)", [Duration::ZERO; 2]),
    ];
    for (i, (set, first, second)) in runs.iter().enumerate() {
        let rounds = if i == 0 { 100 } else { 10 };
        // The first read after a run's last write computes its statistics and caches them.
        lines[0].1[i] = time(1, || async {
            run_page(&store, "bench", second, 1).await.unwrap()
        })
        .await;
        lines[1].1[i] = time(rounds, || async {
            run_page(&store, "bench", second, 1).await.unwrap()
        })
        .await;
        lines[2].1[i] = time(rounds, || async {
            compare(&store, "bench", first, second, None, 1).await.unwrap()
        })
        .await;
        lines[3].1[i] = time(rounds, || async {
            list_cases(&store, "bench", set, &CaseListQuery::default(), 1)
                .await
                .unwrap()
        })
        .await;
        lines[4].1[i] = time(rounds, || async {
            run_rows(&store, "bench", Some(set)).await.unwrap()
        })
        .await;
    }
    for (name, [small, large]) in lines {
        println!(
            "  {name:<40} {:>9.3} ms  {:>9.3} ms  ratio {:.1}",
            small.as_secs_f64() * 1e3,
            large.as_secs_f64() * 1e3,
            large.as_secs_f64() / small.as_secs_f64()
        );
    }
    // What one progress update puts on the wire (the SSE framing included).
    let progress = RunProgress {
        status: RunStatus::Running,
        done: 5_000,
        total: 10_000,
        passed: 4_000,
        failed: 900,
        errors: 100,
        eta_seconds: Some(312.5),
    };
    let progress_event = format!(
        "event: progress\ndata: {}\n\n",
        serde_json::to_string(&progress).unwrap()
    );
    let one_case = json!({"cases": [{"eval_id": "case_05000", "run_index": 0, "case_index": 5000, "status": 1,
        "error": null, "metric_scores": (0..config.metrics.len()).map(|_| vec![0.75]).collect::<Vec<_>>()}]});
    let case_event = format!("event: cases\nid: 5000\ndata: {one_case}\n\n");
    println!(
        "progress update on the wire: {} bytes; a finished case run: {} bytes",
        progress_event.len(),
        case_event.len()
    );
}
