//! `evalstudio web AGENTS_DIR` as a user runs it: ADK's own api_server starts as its child, the
//! folder's app chats, and the child never outlives Evalstudio, even on kill -9.

#[path = "common/adk.rs"]
mod adk;
#[path = "common/wait.rs"]
mod wait;

use std::path::Path;
use std::process::{Command, Stdio};

fn alive(pid: &str) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
        && !std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| stat.contains(") Z "))
}

/// The children of process `pid` that run ADK's server (`adk web --no-reload …`).
fn api_servers_of(pid: u32) -> Vec<String> {
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task"))
        .into_iter()
        .flatten()
        .flatten();
    tasks
        .flat_map(|task| {
            std::fs::read_to_string(task.path().join("children"))
                .unwrap_or_default()
                .split_whitespace()
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .filter(|child| {
            std::fs::read(format!("/proc/{child}/cmdline"))
                .is_ok_and(|cmd| String::from_utf8_lossy(&cmd).contains("--no-reload"))
        })
        .collect()
}

#[tokio::test]
async fn adks_api_server_serves_the_folder_and_dies_with_evalstudio_even_on_kill_9() {
    let dir = tempfile::tempdir().unwrap();
    let agents = dir.path().join("agents");
    adk::copy_weather_app(&agents);
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut evalstudio = Command::new(env!("CARGO_BIN_EXE_evalstudio"))
        .arg("web")
        .arg(&agents)
        .args(["--addr", &format!("127.0.0.1:{port}"), "--adk"])
        .arg(adk::adk_venv().join("bin/adk"))
        .arg("--db")
        .arg(dir.path().join("folder.db"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let url = format!("http://127.0.0.1:{port}/apps/weather/eval_sets");
    let listed = wait::wait_until("Evalstudio serves the folder", || async {
        reqwest::get(&url).await.ok()?.text().await.ok()
    })
    .await;
    assert_eq!(listed, r#"["smoke"]"#);
    let children = api_servers_of(evalstudio.id());
    assert_eq!(children.len(), 1, "one ADK server child: {children:?}");
    assert!(alive(&children[0]));

    evalstudio.kill().unwrap();
    evalstudio.wait().unwrap();
    wait::wait_until("ADK's api_server is gone", || async {
        (!alive(&children[0])).then_some(())
    })
    .await;
}
