//! Who works on a run is a lease, not a process id. In a container the server is PID 1 after
//! every restart, so "is its process alive?" always said yes and a killed run stayed `running`
//! for ever. Here the real binary runs as PID 1 in its own PID namespace (`unshare --pid
//! --fork`), is killed mid-run and starts again as PID 1; once the dead process's lease has
//! ended, the new one's worker takes the run up and finishes it, each case stored once.

#[allow(dead_code)] // this crate uses only the slow model of the shared helpers
mod common;
#[path = "common/ok_eval_set.rs"]
mod ok_eval_set;
#[path = "common/wait.rs"]
mod wait;

use common::{case_statuses, slow_profile, spawn_slow_model};
use ok_eval_set::ok_eval_set;
use serde_json::{json, Value};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;
use wait::wait_until;

const CASES: usize = 48;

#[tokio::test]
async fn a_run_killed_with_its_pid_1_server_is_finished_by_the_server_restarted_as_pid_1() {
    if let Err(reason) = can_make_pid_namespace() {
        eprintln!("skipped: cannot make a PID namespace here ({reason})");
        return;
    }
    let (base_url, _model) = spawn_slow_model("ok", Duration::from_millis(400)).await;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("evalstudio.toml"), slow_profile(&base_url)).unwrap();
    let http = reqwest::Client::new();

    let server = Pid1Server::start(dir.path()).await;
    let imported = http
        .post(server.url("/apps/slow/import"))
        .body(ok_eval_set("many", CASES).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(imported.status(), 201);
    let started: Value = http
        .post(server.url("/apps/slow/eval_sets/many/run_eval"))
        .json(&json!({"wait": false, "evalMetrics": [{"metricName": "response_match_score", "threshold": 0.8}]}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let id = started["eval_set_result_id"].as_str().unwrap().to_string();
    let result_path = format!("/apps/slow/eval_results/{id}");
    wait_until("some cases were stored", || async {
        let done = get_json(&http, &server.url(&result_path)).await["eval_case_results"]
            .as_array()
            .map_or(0, Vec::len);
        (done >= 8).then_some(())
    })
    .await;
    let port = server.port;
    server.kill();

    let server = Pid1Server::start_on(dir.path(), port).await;
    let result = get_json(&http, &server.url(&result_path)).await;
    let stored = result["eval_case_results"].as_array().unwrap().len();
    assert!(
        stored < CASES,
        "the run ended before it was killed: {stored} cases"
    );
    assert_eq!(result["status"], "running", "its cases wait for a worker");
    let finished = wait_until("the restarted server finished the run", || async {
        let result = get_json(&http, &server.url(&result_path)).await;
        (result["status"] == "finished").then_some(result)
    })
    .await;
    assert_eq!(case_statuses(&finished), vec![1; CASES]);
    let mut ids: Vec<&str> = finished["eval_case_results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|case| case["eval_id"].as_str().unwrap())
        .collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), CASES, "each case stored once");
    server.kill();
}

/// `evalstudio serve` as PID 1 of a new PID namespace.
struct Pid1Server {
    unshare: Child,
    port: u16,
}

impl Pid1Server {
    async fn start(dir: &Path) -> Pid1Server {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        Pid1Server::start_on(dir, port).await
    }

    async fn start_on(dir: &Path, port: u16) -> Pid1Server {
        // --kill-child: when unshare is killed, so is the server it forked (PID 1 inside).
        let unshare = Command::new("unshare")
            .args(["--pid", "--fork", "--kill-child"])
            .arg(env!("CARGO_BIN_EXE_evalstudio"))
            .args(["serve", "--addr", &format!("127.0.0.1:{port}")])
            .args([
                "--db",
                "evalstudio.db",
                "--config",
                "evalstudio.toml",
                "--site-root",
                "site",
            ])
            .current_dir(dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let server = Pid1Server { unshare, port };
        let http = reqwest::Client::new();
        wait_until("the server answered", || async {
            let answer = http.get(server.url("/apps/slow/eval_results")).send().await;
            answer.ok().filter(|r| r.status().is_success()).map(|_| ())
        })
        .await;
        assert_eq!(server.pid_inside(), 1, "the server is not PID 1 in its namespace");
        server
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    /// The server's process id as its own namespace sees it: the last NSpid of the process
    /// whose parent is unshare.
    fn pid_inside(&self) -> u32 {
        let parent = format!("\t{}", self.unshare.id());
        let status = std::fs::read_dir("/proc")
            .unwrap()
            .filter_map(|entry| std::fs::read_to_string(entry.ok()?.path().join("status")).ok())
            .find(|status| {
                status
                    .lines()
                    .any(|l| l.starts_with("PPid:") && l.ends_with(&parent))
            })
            .expect("unshare forked the server");
        let ns_pids = status
            .lines()
            .find(|l| l.starts_with("NSpid:"))
            .expect("an NSpid line");
        ns_pids.split_whitespace().last().unwrap().parse().unwrap()
    }

    /// kill -9, and waits until its port is free.
    fn kill(self) {
        let port = self.port;
        drop(self);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// However the test ends (a failed assertion too), the server does not outlive it.
impl Drop for Pid1Server {
    fn drop(&mut self) {
        let _ = self.unshare.kill();
        let _ = self.unshare.wait();
    }
}

async fn get_json(http: &reqwest::Client, url: &str) -> Value {
    http.get(url).send().await.unwrap().json().await.unwrap()
}

fn can_make_pid_namespace() -> Result<(), String> {
    let output = Command::new("unshare")
        .args(["--pid", "--fork", "--kill-child", "true"])
        .output()
        .map_err(|e| format!("unshare: {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&output.stderr).trim().to_string())
    }
}
