//! Eval runs worked on by `evalstudio worker` processes on the servers' database, as a team
//! runs them: servers started with `--no-worker` only record runs, the workers claim their
//! cases in batches under leases, and a worker killed -9 mid-run loses only its lease: another
//! takes its batch up once the lease ends, and every case run is stored exactly once.

use crate::common::{case_statuses, slow_profile, spawn_slow_model};
use crate::helpers::{spawn_app_without_worker, TestApp};
use crate::ok_eval_set::ok_eval_set;
use crate::wait::wait_until;
use serde_json::json;
use std::time::Duration;

/// Three batches of sixteen: each worker holds one while the third waits.
const CASES: usize = 48;

/// Starts a run of the `slow` app's `eval_set_id` in the background through `server`; returns
/// its result's path.
async fn start_run(server: &TestApp, eval_set_id: &str) -> String {
    let id = server.start_run("slow", eval_set_id).await;
    format!("/apps/slow/eval_results/{id}")
}

#[tokio::test]
async fn a_run_whose_worker_is_killed_mid_run_is_finished_by_another_with_every_case_stored_once() {
    let (base_url, model) = spawn_slow_model("ok", Duration::from_millis(200)).await;
    let config = slow_profile(&base_url);
    let first = spawn_app_without_worker(&config).await;
    let second = first.another_server_without_worker(&config).await;
    first.import("slow", ok_eval_set("many", CASES).to_string()).await;
    let mut doomed = first.worker_process(&config, 2);
    let survivor = first.worker_process(&config, 2);

    let path = start_run(&second, "many").await;
    wait_until("both workers took up the run", || async {
        let working = |log: String| log.contains("working on eval run");
        (working(doomed.log()) && working(survivor.log())).then_some(())
    })
    .await;
    wait_until("a case was stored", || async {
        let stored = first.get_json(&path).await["eval_case_results"].as_array()?.len();
        (stored >= 1).then_some(())
    })
    .await;
    doomed.kill();
    let stored_at_kill = first.get_json(&path).await["eval_case_results"]
        .as_array()
        .unwrap()
        .len();
    assert!(stored_at_kill < CASES, "the run ended before the kill");

    let finished = wait_until("the run finished", || async {
        let result = second.get_json(&path).await;
        (result["status"] == "finished").then_some(result)
    })
    .await;
    let mut stored: Vec<String> = finished["eval_case_results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|case| case["eval_id"].as_str().unwrap().to_string())
        .collect();
    stored.sort();
    let mut expected: Vec<String> = (0..CASES).map(|i| format!("case{i}")).collect();
    expected.sort();
    assert_eq!(stored, expected, "every case stored exactly once");
    assert_eq!(case_statuses(&finished), vec![1; CASES]);
    // The killed worker's cases under way were asked again by the survivor.
    assert!(
        model.request_count() > CASES,
        "{} model requests for {CASES} cases",
        model.request_count()
    );
    assert_eq!(finished["case_summaries"].as_array().unwrap().len(), CASES);
}

#[tokio::test]
async fn a_run_on_servers_without_workers_waits_until_a_worker_starts() {
    let (base_url, _model) = spawn_slow_model("ok", Duration::from_millis(10)).await;
    let config = slow_profile(&base_url);
    let app = spawn_app_without_worker(&config).await;
    app.import("slow", ok_eval_set("few", 3).to_string()).await;
    let path = start_run(&app, "few").await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let waiting = app.get_json(&path).await;
    assert_eq!(
        (
            &waiting["status"],
            waiting["eval_case_results"].as_array().map(Vec::len)
        ),
        (&json!("running"), Some(0)),
        "no worker, no case run"
    );

    let _worker = app.worker_process(&config, 2);
    let finished = wait_until("the worker finished the run", || async {
        let result = app.get_json(&path).await;
        (result["status"] == "finished").then_some(result)
    })
    .await;
    assert_eq!(case_statuses(&finished), vec![1; 3]);
}

#[tokio::test]
async fn a_worker_stopped_with_ctrl_c_lets_go_of_its_cases_for_another_at_once() {
    let (base_url, _model) = spawn_slow_model("ok", Duration::from_millis(200)).await;
    let config = slow_profile(&base_url);
    let app = spawn_app_without_worker(&config).await;
    app.import("slow", ok_eval_set("many", CASES).to_string()).await;
    let mut stopped = app.worker_process(&config, 2);
    let path = start_run(&app, "many").await;
    wait_until("the worker stored a case", || async {
        let stored = app.get_json(&path).await["eval_case_results"].as_array()?.len();
        (stored >= 1).then_some(())
    })
    .await;
    assert!(stopped.interrupt(), "the worker exits cleanly on Ctrl-C");

    // Its batch is free at once: the rest (under 2.5 s of the model's time at 4 at once) does
    // not wait out the stopped worker's lease (15 s from a renewal under a second old).
    let started = std::time::Instant::now();
    let _worker = app.worker_process(&config, 4);
    let finished = wait_until("another worker finished the run", || async {
        let result = app.get_json(&path).await;
        (result["status"] == "finished").then_some(result)
    })
    .await;
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "took {:?}",
        started.elapsed()
    );
    assert_eq!(case_statuses(&finished), vec![1; CASES]);
}
