//! ADK's own server for the agents folder, run as Evalstudio's child: what `adk web --no-reload
//! AGENTS_DIR` serves, on a free loopback port, for its api_server routes (chat goes through
//! them) and the agent-graph routes adk-web reads. ADK's server has no sign-in (its CLI takes
//! only --host and --port), so `adk`'s own Python runs adk_launcher.py instead: ADK's
//! get_fast_api_app behind a check of a per-start secret, handed over on stdin, that every
//! request from Evalstudio carries. ADK's loader decides what an app is; we ask it with
//! `GET /list-apps`. The child dies with Evalstudio: killed on drop (exit, Ctrl+C) and by
//! the kernel otherwise (a crash, kill -9). `--no-reload` keeps it one process, so nothing of it
//! outlives the child. It keeps Evalstudio's environment (the user's model keys from their shell;
//! ADK loads each app's `.env` itself) but for Evalstudio's own secrets (`child::without_secrets`).

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::AsyncBufReadExt;

use super::AgentsDir;
use crate::child::without_secrets;

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
    /// Sent in [`SECRET_HEADER`]; the launcher refuses any request without it.
    secret: String,
    apps: Vec<String>,
}

/// The script `adk`'s Python runs: ADK's own app, refusing requests without the secret.
const LAUNCHER: &str = include_str!("adk_launcher.py");
/// The header the launcher checks (as it spells it).
const SECRET_HEADER: &str = "x-evalstudio-adk-secret";

impl AdkServer {
    /// Starts ADK's api_server on `dir` with `adk` (or the `adk` on PATH) and waits until it
    /// lists its apps. It gets the environment without `DATABASE_URL`, `EVALSTUDIO_*` and
    /// `secrets`, the variables evalstudio.toml names (`Config::secret_variable_names`).
    pub async fn start(
        dir: &AgentsDir,
        adk: Option<&Path>,
        secrets: &[String],
    ) -> Result<AdkServer, AdkServerError> {
        let adk = find_adk(adk)?;
        let mut python = python_of(&adk)?.into_iter();
        let port = free_port().map_err(|e| AdkServerError::Failed(e.to_string()))?;
        let secret = format!(
            "{}{}",
            uuid::Uuid::new_v4().simple(),
            uuid::Uuid::new_v4().simple()
        );
        let mut command = tokio::process::Command::new(python.next().expect("python_of names a program"));
        command
            .args(python)
            // What `adk web --no-reload` serves (its api_server routes, and the routes adk-web's
            // agent graph and builder panels read), behind the secret check.
            .arg("-c")
            .arg(LAUNCHER)
            .arg(dir.root())
            .arg(port.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            // Its own group: the terminal's Ctrl+C reaches Evalstudio, which stops it.
            .process_group(0);
        crate::child::set_environment(&mut command, without_secrets(std::env::vars_os(), secrets));
        crate::child::die_with_parent(&mut command);
        let mut child = command
            .spawn()
            .map_err(|e| AdkServerError::Failed(format!("{}: {e}", adk.display())))?;
        let stderr = keep_stderr(&mut child);
        hand_over(&mut child, &secret).await?;
        let base_url = format!("http://127.0.0.1:{port}");
        let apps = wait_for_apps(&mut child, &base_url, &secret, &stderr).await?;
        Ok(AdkServer {
            command: adk,
            child,
            base_url,
            secret,
            apps,
        })
    }

    /// What every request to it must carry: the secret it was started with.
    pub fn request_headers(&self) -> Vec<(String, String)> {
        vec![(SECRET_HEADER.to_string(), self.secret.clone())]
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

/// The interpreter `adk` runs under, from its `#!` line (a console script's Python, or
/// `/usr/bin/env python3`): the launcher needs the Python that has google-adk.
fn python_of(adk: &Path) -> Result<Vec<String>, AdkServerError> {
    use std::io::{BufRead, Read};
    let not_python = || {
        AdkServerError::Failed(format!(
            "{} does not start with a #! line naming its Python; pass --adk the `adk` of a Python environment with google-adk",
            adk.display()
        ))
    };
    let file =
        std::fs::File::open(adk).map_err(|e| AdkServerError::Failed(format!("{}: {e}", adk.display())))?;
    let mut first = String::new();
    std::io::BufReader::new(file.take(1024))
        .read_line(&mut first)
        .map_err(|_| not_python())?;
    let words: Vec<String> = first
        .strip_prefix("#!")
        .ok_or_else(not_python)?
        .split_whitespace()
        .map(str::to_string)
        .collect();
    if words.is_empty() {
        return Err(not_python());
    }
    Ok(words)
}

/// Writes the secret on the child's stdin and closes it.
async fn hand_over(child: &mut tokio::process::Child, secret: &str) -> Result<(), AdkServerError> {
    use tokio::io::AsyncWriteExt;
    let mut stdin = child.stdin.take().expect("stdin is piped");
    stdin
        .write_all(format!("{secret}\n").as_bytes())
        .await
        .map_err(|e| AdkServerError::Failed(format!("could not hand it its secret: {e}")))
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
    secret: &str,
    stderr: &Tail,
) -> Result<Vec<String>, AdkServerError> {
    let client = crate::outbound::client(Duration::from_secs(5));
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
            .header(SECRET_HEADER, secret)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::repo::repo_path;

    /// google-adk's `adk`, from the venv `make unit` makes (EVALSTUDIO_ADK_VENV names another).
    fn adk() -> PathBuf {
        let venv = std::env::var_os("EVALSTUDIO_ADK_VENV")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(std::env::var("HOME").unwrap()).join(".cache/evalstudio/venv"));
        let adk = venv.join("bin/adk");
        assert!(
            adk.is_file(),
            "no google-adk in {}: run `make unit`",
            venv.display()
        );
        adk
    }

    #[tokio::test]
    async fn adks_server_answers_only_requests_carrying_its_secret() {
        // A copy: ADK may write its own files beside the agent.
        let agents = tempfile::tempdir().unwrap();
        let weather = agents.path().join("weather");
        std::fs::create_dir(&weather).unwrap();
        for file in std::fs::read_dir(repo_path("tests/fixtures/agents/weather")).unwrap() {
            let file = file.unwrap().path();
            if file.is_file() {
                std::fs::copy(&file, weather.join(file.file_name().unwrap())).unwrap();
            }
        }
        let dir = AgentsDir::new(agents.path()).unwrap();
        let server = AdkServer::start(&dir, Some(&adk()), &[]).await.unwrap();
        assert_eq!(server.apps(), ["weather"]);
        let url = format!("{}/list-apps", server.base_url());
        let client = reqwest::Client::new();
        let stranger = client.get(&url).send().await.unwrap();
        assert_eq!(
            stranger.status(),
            reqwest::StatusCode::FORBIDDEN,
            "a local process without the secret"
        );
        let guessed = client
            .get(&url)
            .header(SECRET_HEADER, "0".repeat(64))
            .send()
            .await
            .unwrap();
        assert_eq!(guessed.status(), reqwest::StatusCode::FORBIDDEN);
        let mut ours = client.get(&url);
        for (name, value) in server.request_headers() {
            ours = ours.header(name, value);
        }
        assert_eq!(ours.send().await.unwrap().status(), reqwest::StatusCode::OK);
    }

    #[test]
    fn the_python_comes_from_adks_own_first_line() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("adk");
        std::fs::write(&script, "#!/usr/bin/env python3\nimport sys\n").unwrap();
        assert_eq!(python_of(&script).unwrap(), ["/usr/bin/env", "python3"]);
        std::fs::write(&script, "\x7fELF binary").unwrap();
        assert!(python_of(&script).is_err());
    }
}
