//! Import and export of a generated 10,000-case evalset (3 turns and 2 tool calls per case)
//! through the real parser and a real SQLite file. Prints cases per second and peak RSS.
//!
//! Each phase runs in a fresh child process so its peak RSS (VmHWM) is its own, not the
//! generator's. Run with `make bench` or `cargo bench --features ssr --bench import_export`.

mod common;
use common::peak_rss_bytes;

use evalstudio::evalset::{
    to_adk_json, Content, EvalCase, EvalSet, FunctionCall, FunctionResponse, IntermediateData, Invocation,
    SessionInput,
};
use evalstudio::service::eval_sets::{import_file, ImportMode};
use evalstudio::store::{Location, Store};
use serde_json::{json, Map, Value};
use std::path::Path;
use std::process::Command;
use std::time::Instant;

const CASES: usize = 10_000;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(at) = args.iter().position(|a| a == "--phase") {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let (phase, file, db) = (&args[at + 1], Path::new(&args[at + 2]), Path::new(&args[at + 3]));
        runtime.block_on(run_phase(phase, file, db));
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("generated.evalset.json");
    let db = dir.path().join("bench.db");
    let text = to_adk_json(&generate(CASES));
    std::fs::write(&file, &text).unwrap();
    println!(
        "generated {CASES} cases (3 turns, 2 tool calls each): {:.1} MiB",
        text.len() as f64 / 1048576.0
    );
    drop(text);
    for phase in ["import", "export"] {
        let status = Command::new(std::env::current_exe().unwrap())
            .args(["--phase", phase, &file.to_string_lossy(), &db.to_string_lossy()])
            .status()
            .unwrap();
        assert!(status.success(), "{phase} phase failed");
    }
}

async fn run_phase(phase: &str, file: &Path, db: &Path) {
    let file_bytes = std::fs::metadata(file).unwrap().len() as f64;
    let store = Store::open(&Location::Sqlite(db.to_path_buf())).await.unwrap();
    let baseline = peak_rss_bytes();
    let started = Instant::now();
    match phase {
        "import" => {
            // The same path as the REST import and the CLI: parse, check, store in one transaction.
            let text = std::fs::read_to_string(file).unwrap();
            let summary = import_file(
                &store,
                "bench",
                "bench.evalset.json",
                None,
                text,
                ImportMode::Replace,
            )
            .await
            .unwrap();
            assert_eq!(summary.cases, CASES);
            report("import", started.elapsed().as_secs_f64(), file_bytes, baseline);
        }
        "export" => {
            let text = store.export_adk_json("bench", "bench_set").await.unwrap();
            assert_eq!(
                text.len() as f64,
                file_bytes,
                "export reproduces the imported file"
            );
            report("export", started.elapsed().as_secs_f64(), file_bytes, baseline);
        }
        other => panic!("unknown phase {other}"),
    }
}

fn report(phase: &str, seconds: f64, file_bytes: f64, baseline: u64) {
    let peak = peak_rss_bytes();
    println!(
        "{phase}: {CASES} cases in {seconds:.3} s = {:.0} cases/s; peak RSS {:.1} MiB ({:.2}x the file; \
         {:.2}x above the {:.1} MiB before the phase)",
        CASES as f64 / seconds,
        peak as f64 / 1048576.0,
        peak as f64 / file_bytes,
        (peak - baseline) as f64 / file_bytes,
        baseline as f64 / 1048576.0,
    );
}

fn generate(cases: usize) -> EvalSet {
    let cities = ["Paris", "London", "Tokyo", "Berlin", "Lima", "Oslo"];
    let eval_cases = (0..cases)
        .map(|i| {
            let conversation = (0..3)
                .map(|turn| {
                    let city = cities[(i + turn) % cities.len()];
                    let calls = vec![
                        call("get_weather", json!({"city": city, "unit": "celsius"})),
                        call(
                            "convert_currency",
                            json!({"amount": 20 + turn, "from": "EUR", "to": "USD"}),
                        ),
                    ];
                    let responses = calls
                        .iter()
                        .map(|c| FunctionResponse {
                            name: c.name.clone(),
                            response: Some(as_map(
                                json!({"result": format!("ok {i}-{turn}"), "temp_c": 21.5}),
                            )),
                            ..FunctionResponse::default()
                        })
                        .collect();
                    Invocation {
                        invocation_id: format!("e-{i}-{turn}"),
                        user_content: Content::text(
                            "user",
                            &format!("What's the weather in {city}, and 20 EUR in USD? (case {i})"),
                        ),
                        final_response: Some(Content::text(
                            "model",
                            &format!("It is 21.5 °C and sunny in {city}. 20 EUR is about 21.60 USD."),
                        )),
                        intermediate_data: Some(IntermediateData {
                            tool_uses: calls,
                            tool_responses: responses,
                            ..IntermediateData::default()
                        }),
                        creation_timestamp: 1_763_000_000.0 + i as f64 + turn as f64 / 10.0,
                        ..Invocation::default()
                    }
                })
                .collect();
            EvalCase {
                eval_id: format!("case_{i:05}"),
                conversation: Some(conversation),
                session_input: Some(SessionInput {
                    app_name: "bench".into(),
                    user_id: "user".into(),
                    ..SessionInput::default()
                }),
                creation_timestamp: 1_763_000_000.0 + i as f64,
                ..EvalCase::default()
            }
        })
        .collect();
    EvalSet {
        eval_set_id: "bench_set".into(),
        name: Some("bench_set".into()),
        eval_cases,
        creation_timestamp: 1_763_000_000.0,
        ..EvalSet::default()
    }
}

fn call(name: &str, args: Value) -> FunctionCall {
    FunctionCall {
        name: Some(name.into()),
        args: Some(as_map(args)),
        ..FunctionCall::default()
    }
}

fn as_map(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}
