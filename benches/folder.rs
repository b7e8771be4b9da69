//! Folder mode (`evalstudio web AGENTS_DIR`) on a generated agents folder of 1,000 evalset files
//! (five cases each), through the real server (real files, real SQLite, real HTTP): the start-up
//! that reads every file, the time from a file changed on disk to the `changed` event an open
//! page follows, the time from a saved edit to the new file on disk, and what watching costs
//! while nothing happens (CPU time, resident memory). ADK's api_server is not started (chat is
//! not measured): `--adk` names no executable, so the folder's apps are found without it.
//!
//! Run with `make bench` or `cargo bench --features ssr --bench folder`.

#[path = "common/mod.rs"]
mod common;
use common::cpu_seconds;

use evalstudio::server::{ServeConfig, Server, DEFAULT_MAX_BODY_BYTES};
use evalstudio::store::Location;
use futures::StreamExt;
use serde_json::{json, Value};
use std::path::Path;
use std::time::{Duration, Instant};

const FILES: usize = 1_000;
const CASES: usize = 5;
const ROUNDS: usize = 100;

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let agents = dir.path().join("agents");
        let bytes = write_folder(&agents);
        println!(
            "folder: {FILES} evalset files of {CASES} cases, {:.1} MB",
            bytes as f64 / 1e6
        );

        let config = dir.path().join("evalstudio.toml");
        std::fs::write(&config, "").unwrap();
        let cpu_before = cpu_seconds();
        let started = Instant::now();
        let server = Server::bind(ServeConfig {
            addr: "127.0.0.1:0".parse().unwrap(),
            db: Location::Sqlite(dir.path().join("folder.db")),
            site_root: dir.path().to_string_lossy().into_owned(),
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            config_path: Some(config),
            agents_dir: Some(agents.clone()),
            adk: Some(dir.path().join("no-adk")),
            adk_web_ui: None,
            insecure_no_auth: false,
            worker: Default::default(),
        })
        .await
        .unwrap();
        println!(
            "start-up reading every file: {:.2} s, {:.2} s CPU",
            started.elapsed().as_secs_f64(),
            cpu_seconds() - cpu_before
        );
        let base = format!("http://{}", server.local_addr().unwrap());
        tokio::spawn(server.run(std::future::pending()));
        let http = reqwest::Client::new();

        let idle_cpu = cpu_seconds();
        tokio::time::sleep(Duration::from_secs(10)).await;
        println!(
            "idle, watching {FILES} files: {:.1} ms CPU in 10 s, RSS {:.0} MiB",
            (cpu_seconds() - idle_cpu) * 1e3,
            common::current_rss_mib()
        );

        disk_to_page(&http, &base, &agents).await;
        save_to_disk(&http, &base, &agents).await;
    });
}

/// A file rewritten on disk until the page's change stream says so.
async fn disk_to_page(http: &reqwest::Client, base: &str, agents: &Path) {
    let path = agents.join("app/set_0500.evalset.json");
    let original = std::fs::read_to_string(&path).unwrap();
    let mut changes = http
        .get(format!("{base}/apps/app/eval_sets/set_0500/changes"))
        .send()
        .await
        .unwrap()
        .bytes_stream();
    let mut times = Vec::new();
    for round in 0..ROUNDS {
        let text = original.replace(
            "question 0 of set 500",
            &format!("question 0 of set 500, take {round}"),
        );
        let written = Instant::now();
        std::fs::write(&path, text).unwrap();
        loop {
            let chunk = changes.next().await.unwrap().unwrap();
            if String::from_utf8_lossy(&chunk).contains("event: changed") {
                break;
            }
        }
        times.push(written.elapsed());
    }
    report("file changed on disk -> page's change event", &mut times);
}

/// An edit saved over REST until its file on disk holds it.
async fn save_to_disk(http: &reqwest::Client, base: &str, agents: &Path) {
    let path = agents.join("app/set_0250.evalset.json");
    let url = format!("{base}/apps/app/eval_sets/set_0250/evals/case_0");
    let mut case: Value = http.get(&url).send().await.unwrap().json().await.unwrap();
    let mut times = Vec::new();
    for round in 0..ROUNDS {
        let text = format!("saved take {round}");
        case["conversation"][0]["final_response"] = json!({"role": "model", "parts": [{"text": text}]});
        let saved = Instant::now();
        let response = http.put(&url).json(&case).send().await.unwrap();
        assert!(
            response.status().is_success(),
            "{}",
            response.text().await.unwrap()
        );
        while !std::fs::read_to_string(&path).unwrap().contains(&text) {
            tokio::task::yield_now().await;
        }
        times.push(saved.elapsed());
        case = response.json().await.unwrap();
    }
    report("edit saved -> file on disk", &mut times);
}

fn report(what: &str, times: &mut [Duration]) {
    times.sort();
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize].as_secs_f64() * 1e3;
    println!(
        "{what}: p50 {:.2} ms, p99 {:.2} ms ({} rounds)",
        at(0.5),
        at(0.99),
        times.len()
    );
}

/// Writes `agents/app/set_NNNN.evalset.json`, ADK's bytes, and an agent module so the folder
/// reads as an app; answers the bytes written.
fn write_folder(agents: &Path) -> usize {
    let app = agents.join("app");
    std::fs::create_dir_all(&app).unwrap();
    std::fs::write(app.join("agent.py"), "root_agent = None\n").unwrap();
    let mut bytes = 0;
    for set in 0..FILES {
        let cases: Vec<Value> = (0..CASES)
            .map(|case| {
                json!({"eval_id": format!("case_{case}"), "conversation": [{
                    "invocation_id": format!("inv-{set}-{case}"),
                    "user_content": {"role": "user", "parts": [{"text": format!("question {case} of set {set}")}]},
                    "final_response": {"role": "model", "parts": [{"text": "It is sunny and 21 °C."}]},
                    "intermediate_data": {"tool_uses": [{"name": "get_weather", "args": {"city": "Paris"}}]}
                }]})
            })
            .collect();
        let text = json!({"eval_set_id": format!("set_{set:04}"), "eval_cases": cases});
        let eval_set: evalstudio::evalset::EvalSet = serde_json::from_value(text).unwrap();
        let text = evalstudio::evalset::to_adk_json(&eval_set);
        bytes += text.len();
        std::fs::write(app.join(format!("set_{set:04}.evalset.json")), text).unwrap();
    }
    bytes
}
