//! Scoring throughput (numbers, not pass/fail): tool_trajectory_avg_score and
//! response_match_score over 100,000 invocations, then the same files through google-adk's own
//! Python evaluators (conformance/bench_adk_scoring.py in the conformance venv), and the ratio.
//! Only scoring is timed on both sides, not reading the files. Rust is timed twice: the metric
//! functions alone (what ADK's timed loop does), and `score_eval_set`, which also builds the
//! ADK-shaped result of every invocation and the case summaries.
//!
//! Run with `make bench` or `cargo bench --features ssr --bench scoring`; set ADK_PYTHON to a
//! Python with google-adk installed (default: the venv `make conformance` makes).

use std::time::Instant;

use evalstudio::eval::config::EvalConfig;
use evalstudio::eval::score::score_eval_set;
use evalstudio::eval::services::ScoringServices;
use evalstudio::evalset::{
    to_adk_json, Content, EvalCase, EvalSet, FunctionCall, IntermediateData, Invocation,
};
use pure_metrics::rouge::response_match_score;
use pure_metrics::trajectory::{tool_trajectory_score, TrajectoryCriterion};
use serde_json::json;

const CASES: usize = 10_000;
const TURNS: usize = 10;

const WORDS: [&str; 24] = [
    "weather",
    "sunny",
    "degrees",
    "Paris",
    "running",
    "connection",
    "orders",
    "shipped",
    "tomorrow",
    "converted",
    "currency",
    "euros",
    "dollars",
    "the",
    "is",
    "and",
    "with",
    "temperatures",
    "of",
    "25",
    "device_2",
    "bedroom",
    "turned",
    "off",
];

/// A deterministic sentence: `len` words picked by a simple generator from `seed`.
fn sentence(seed: usize, len: usize) -> String {
    let mut state = seed.wrapping_mul(2_654_435_761).wrapping_add(1);
    (0..len)
        .map(|_| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            WORDS[(state >> 33) % WORDS.len()]
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn invocation(case: usize, turn: usize, variant: usize) -> Invocation {
    let seed = case * TURNS + turn;
    let calls = (0..seed % 4)
        .map(|i| FunctionCall {
            name: Some(format!("tool_{}", (seed + i) % 5)),
            args: json!({"city": WORDS[(seed + i + variant * (i % 2)) % WORDS.len()], "n": i})
                .as_object()
                .cloned(),
            ..FunctionCall::default()
        })
        .collect();
    Invocation {
        invocation_id: format!("i-{case}-{turn}"),
        user_content: Content::text("user", &sentence(seed, 8)),
        final_response: Some(Content::text(
            "model",
            &sentence(seed + variant * 7, 12 + seed % 9),
        )),
        intermediate_data: Some(IntermediateData {
            tool_uses: calls,
            ..IntermediateData::default()
        }),
        ..Invocation::default()
    }
}

fn eval_set(variant: usize) -> EvalSet {
    EvalSet {
        eval_set_id: "bench_scoring".into(),
        eval_cases: (0..CASES)
            .map(|case| EvalCase {
                eval_id: format!("case_{case}"),
                conversation: Some(
                    (0..TURNS)
                        .map(|turn| invocation(case, turn, variant * (case % 3)))
                        .collect(),
                ),
                ..EvalCase::default()
            })
            .collect(),
        ..EvalSet::default()
    }
}

/// The work ADK's timed loop does (`evaluate_invocations` of both evaluators per case): each
/// metric per invocation pair and its mean over the case. Returns a checksum so nothing is
/// optimised away.
fn metrics_only(expected: &EvalSet, actual: &EvalSet) -> f64 {
    let criterion = TrajectoryCriterion::default();
    let mut checksum = 0.0;
    for (expected_case, actual_case) in expected.eval_cases.iter().zip(&actual.eval_cases) {
        let pairs = || actual_case.invocations().iter().zip(expected_case.invocations());
        let turns = expected_case.invocations().len() as f64;
        let trajectory: f64 = pairs().map(|(a, e)| tool_trajectory_score(a, e, criterion)).sum();
        let rouge: f64 = pairs().map(|(a, e)| response_match_score(a, e)).sum();
        checksum += trajectory / turns + rouge / turns;
    }
    checksum
}

fn main() {
    let expected = eval_set(0);
    let actual = eval_set(1);
    let invocations = CASES * TURNS;

    let started = Instant::now();
    let checksum = metrics_only(&expected, &actual);
    let metrics_seconds = started.elapsed().as_secs_f64();
    assert!(checksum > 0.0);
    println!(
        "scoring (Rust, the metrics as ADK's loop runs them): {invocations} invocations in {metrics_seconds:.3} s ({:.0} invocations/s)",
        invocations as f64 / metrics_seconds
    );

    // The whole of `evalstudio score`'s scoring: ADK-shaped results per invocation and summaries.
    let runs = vec![actual.clone()];
    let started = Instant::now();
    let scored = futures::executor::block_on(score_eval_set(
        &expected,
        runs,
        &EvalConfig::default(),
        &ScoringServices::default(),
    ))
    .expect("the sets line up");
    let full_seconds = started.elapsed().as_secs_f64();
    assert_eq!(scored.case_results.len(), CASES);
    drop(scored);
    println!(
        "scoring (Rust, score_eval_set with ADK-shaped results): {invocations} invocations in {full_seconds:.3} s ({:.0} invocations/s)",
        invocations as f64 / full_seconds
    );

    let dir = tempfile::tempdir().unwrap();
    let (expected_path, actual_path) = (dir.path().join("expected.json"), dir.path().join("actual.json"));
    std::fs::write(&expected_path, to_adk_json(&expected)).unwrap();
    std::fs::write(&actual_path, to_adk_json(&actual)).unwrap();
    let python = std::env::var("ADK_PYTHON").unwrap_or_else(|_| {
        let home = std::env::var("HOME").unwrap_or_default();
        format!("{home}/.cache/evalstudio/venv/bin/python")
    });
    let script = &format!(
        "{}/conformance/bench_adk_scoring.py",
        std::env::var("CARGO_MANIFEST_DIR").expect("cargo test sets CARGO_MANIFEST_DIR")
    );
    let output = std::process::Command::new(&python)
        .args([
            script,
            expected_path.to_str().unwrap(),
            actual_path.to_str().unwrap(),
        ])
        .output();
    match output {
        Ok(output) if output.status.success() => {
            let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("the script prints JSON");
            let python_seconds = report["seconds"].as_f64().unwrap();
            println!(
                "scoring (google-adk, Python): {} invocations in {python_seconds:.3} s ({:.0} invocations/s)",
                report["invocations"],
                invocations as f64 / python_seconds
            );
            println!(
                "scoring speed-up: {:.1}× for the metrics, {:.1}× for score_eval_set (target ≥ 50×)",
                python_seconds / metrics_seconds,
                python_seconds / full_seconds
            );
        }
        Ok(output) => println!(
            "scoring (google-adk): the script failed: {}",
            String::from_utf8_lossy(&output.stderr)
        ),
        Err(err) => println!("scoring (google-adk): cannot run {python} ({err}); run `make conformance` first to make the venv"),
    }
}
