//! ADK's own server for the agents folder, run as Evalstudio's child: `adk web --no-reload
//! AGENTS_DIR` on a free loopback port, for its api_server routes (chat goes through them) and
//! the agent-graph routes adk-web reads. ADK's loader decides what an app is; we ask it with
//! `GET /list-apps`. The child dies with Evalstudio: killed on drop (exit, Ctrl+C) and by
//! the kernel otherwise (a crash, kill -9). `--no-reload` keeps it one process, so nothing of it
//! outlives the child.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::AsyncBufReadExt;

use super::AgentsDir;

/// How long ADK may take to import its agents and answer.
const START_TIMEOUT: Duration = Duration::from_secs(120);
const STDERR_LINES: usize = 20;

#[derive(Debug, thiserror::Error)]
pub enum AdkServerError {
    #[error(
        "no `adk` found on PATH: install google-adk in this environment (pip install google-adk) \
         or pass --adk PATH. Evalsets and runs work; chat needs ADK's api_server"
    )]
    NotInstalled,
    #[error("`{0}` is not an executable file")]
    NotExecutable(PathBuf),
    #[error("ADK's api_server did not start: {0}")]
    Failed(String),
}

/// A running `adk api_server`.
pub struct AdkServer {
    command: PathBuf,
    child: tokio::process::Child,
    base_url: String,
    apps: Vec<String>,
}

impl AdkServer {
    /// Starts ADK's api_server on `dir` with `adk` (or the `adk` on PATH) and waits until it
    /// lists its apps.
    pub async fn start(dir: &AgentsDir, adk: Option<&Path>) -> Result<AdkServer, AdkServerError> {
        let adk = find_adk(adk)?;
        let port = free_port().map_err(|e| AdkServerError::Failed(e.to_string()))?;
        let mut command = tokio::process::Command::new(&adk);
        command
            // `web` is `api_server` plus the routes adk-web's agent graph and builder panels
            // read; its own UI and eval routes on this private port are never used.
            .args(["web", "--no-reload", "--host", "127.0.0.1", "--port"])
            .arg(port.to_string())
            .arg(dir.root())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            // Its own group: the terminal's Ctrl+C reaches Evalstudio, which stops it.
            .process_group(0);
        crate::child::die_with_parent(&mut command);
        let mut child = command
            .spawn()
            .map_err(|e| AdkServerError::Failed(format!("{}: {e}", adk.display())))?;
        let stderr = keep_stderr(&mut child);
        let base_url = format!("http://127.0.0.1:{port}");
        let apps = wait_for_apps(&mut child, &base_url, &stderr).await?;
        Ok(AdkServer {
            command: adk,
            child,
            base_url,
            apps,
        })
    }

    /// Where it answers, as an `adk` profile's `base_url`.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The `adk` it was started with.
    pub fn command(&self) -> &Path {
        &self.command
    }

    /// The apps ADK found in the folder.
    pub fn apps(&self) -> &[String] {
        &self.apps
    }
}

impl Drop for AdkServer {
    fn drop(&mut self) {
        if let Some(pid) = self.child.id() {
            // SAFETY: signals the child's own process group, which it leads.
            unsafe {
                libc::kill(-(pid as i32), libc::SIGTERM);
            }
        }
    }
}

fn find_adk(adk: Option<&Path>) -> Result<PathBuf, AdkServerError> {
    if let Some(adk) = adk {
        return is_executable(adk)
            .then(|| adk.to_path_buf())
            .ok_or_else(|| AdkServerError::NotExecutable(adk.to_path_buf()));
    }
    let path = std::env::var_os("PATH").ok_or(AdkServerError::NotInstalled)?;
    std::env::split_paths(&path)
        .map(|dir| dir.join("adk"))
        .find(|candidate| is_executable(candidate))
        .ok_or(AdkServerError::NotInstalled)
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

fn free_port() -> std::io::Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

type Tail = Arc<Mutex<VecDeque<String>>>;

/// Logs the child's stderr and keeps its last lines for a start-up failure's message.
fn keep_stderr(child: &mut tokio::process::Child) -> Tail {
    let tail: Tail = Arc::default();
    if let Some(stderr) = child.stderr.take() {
        let tail = tail.clone();
        tokio::spawn(async move {
            let mut lines = tokio::io::BufReader::new(stderr).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                tracing::debug!(target: "adk_api_server", "{line}");
                let mut tail = tail.lock().expect("stderr tail");
                if tail.len() == STDERR_LINES {
                    tail.pop_front();
                }
                tail.push_back(line);
            }
        });
    }
    tail
}

async fn wait_for_apps(
    child: &mut tokio::process::Child,
    base_url: &str,
    stderr: &Tail,
) -> Result<Vec<String>, AdkServerError> {
    let client = reqwest::Client::new();
    let started = Instant::now();
    let failed = |what: String| {
        let tail: Vec<String> = stderr.lock().expect("stderr tail").iter().cloned().collect();
        AdkServerError::Failed(format!("{what}; its last output:\n{}", tail.join("\n")))
    };
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            // Let the reader catch the last lines.
            tokio::time::sleep(Duration::from_millis(100)).await;
            return Err(failed(format!("it exited ({status})")));
        }
        let answer = client
            .get(format!("{base_url}/list-apps"))
            .timeout(Duration::from_secs(5))
            .send()
            .await;
        if let Ok(answer) = answer {
            return match answer.json::<Vec<String>>().await {
                Ok(apps) => Ok(apps),
                Err(e) => Err(failed(format!("/list-apps answered {e}"))),
            };
        }
        if started.elapsed() > START_TIMEOUT {
            return Err(failed(format!("no answer in {} s", START_TIMEOUT.as_secs())));
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}
