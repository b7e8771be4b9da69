//! One configured MCP server, as the agents use it: connected on first use (a stdio child
//! process or a streamable HTTP session, through `rmcp`), its tools listed once per
//! connection, calls bounded by the entry's timeout, and a server that went away connected
//! again on the next use. Every failure becomes a sentence naming the server and the tool.

use std::collections::{HashMap, VecDeque};
use std::process::Stdio;
use std::sync::{Arc, Mutex};

use rmcp::model::CallToolRequestParams;
use rmcp::service::{RunningService, ServiceError};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Map, Value};
use tokio::io::AsyncBufReadExt;

use super::config::{child_environment, resolve_value, McpServerEntry};
use super::dump::function_response;
use super::names::model_tool_name;
use crate::llm_http::fmt_duration;

/// A tool a server offers, under the name the model sees.
#[derive(Debug, Clone)]
pub struct McpToolInfo {
    /// What the model calls it: the server's name with the entry's prefix, made API-safe.
    pub name: String,
    /// The server's own name for it, used when calling.
    pub remote_name: String,
    pub description: String,
    /// The input schema exactly as the server gave it.
    pub input_schema: Map<String, Value>,
}

/// Where a server is, for people (the Settings page, the CLI).
#[derive(Debug, Clone)]
pub enum McpServerState {
    /// Not used yet: servers start on first use.
    NotStarted,
    Starting,
    Running(Vec<McpToolInfo>),
    Failed(String),
}

pub struct McpServer {
    entry: McpServerEntry,
    state: tokio::sync::Mutex<State>,
}

enum State {
    NotStarted,
    Connected(Arc<Connection>),
    Failed(String),
}

struct Connection {
    client: RunningService<RoleClient, ()>,
    tools: Vec<McpToolInfo>,
    /// The last lines a stdio server wrote to stderr, to explain how it died.
    stderr: Arc<StderrTail>,
}

impl McpServer {
    pub fn new(entry: McpServerEntry) -> McpServer {
        McpServer {
            entry,
            state: tokio::sync::Mutex::new(State::NotStarted),
        }
    }

    pub fn name(&self) -> &str {
        &self.entry.name
    }

    pub fn entry(&self) -> &McpServerEntry {
        &self.entry
    }

    /// The server's tools, connecting first if it is not connected.
    pub async fn tools(&self) -> Result<Vec<McpToolInfo>, String> {
        Ok(self.connection().await?.tools.clone())
    }

    /// Calls the server's tool `remote_name`; the result is the function response ADK would
    /// record. `Err` is a message for the model and the user.
    pub async fn call(
        &self,
        remote_name: &str,
        args: &Map<String, Value>,
    ) -> Result<Map<String, Value>, String> {
        let connection = self.connection().await?;
        let params = CallToolRequestParams::new(remote_name.to_string()).with_arguments(args.clone());
        let timeout = self.entry.timeout();
        let answer = tokio::time::timeout(timeout, connection.client.peer().call_tool(params)).await;
        let server = self.name();
        match answer {
            Err(_) => Err(format!(
                "the MCP server `{server}` did not answer the call to `{remote_name}` within {} \
                 (its timeout_secs)",
                fmt_duration(timeout)
            )),
            Ok(Ok(result)) => {
                // Through text, not `to_value`: that widens rmcp's f32 fields (a priority of
                // 0.7 would read 0.699999988…), while the text keeps what the server sent.
                let wire = serde_json::to_string(&result)
                    .and_then(|text| serde_json::from_str(&text))
                    .map_err(|e| e.to_string())?;
                Ok(function_response(&wire))
            }
            Ok(Err(ServiceError::McpError(error))) => Err(format!(
                "the MCP server `{server}` refused the call to `{remote_name}`: {}",
                error.message
            )),
            Ok(Err(error @ (ServiceError::TransportClosed | ServiceError::TransportSend(_)))) => {
                self.forget(&connection).await;
                Err(format!(
                    "the MCP server `{server}` stopped during the call to `{remote_name}` ({}); it is \
                     started again on the next call{}",
                    plain_causes(&error),
                    connection.stderr.explain(server)
                ))
            }
            Ok(Err(error)) => Err(format!(
                "the MCP server `{server}` gave no usable answer to the call to `{remote_name}`: {}",
                plain_causes(&error)
            )),
        }
    }

    /// Drops the current connection (a stdio server is stopped) and connects again.
    pub async fn reconnect(&self) -> McpServerState {
        *self.state.lock().await = State::NotStarted;
        let _ = self.connection().await;
        self.state()
    }

    /// Where the server is, without connecting or waiting for a connection under way.
    pub fn state(&self) -> McpServerState {
        match self.state.try_lock().as_deref() {
            Err(_) => McpServerState::Starting,
            Ok(State::NotStarted) => McpServerState::NotStarted,
            Ok(State::Failed(reason)) => McpServerState::Failed(reason.clone()),
            Ok(State::Connected(connection)) if connection.client.is_transport_closed() => {
                McpServerState::Failed(format!(
                    "the server stopped{}",
                    connection.stderr.explain(self.name())
                ))
            }
            Ok(State::Connected(connection)) => McpServerState::Running(connection.tools.clone()),
        }
    }

    /// The live connection, made (or made again) when there is none.
    async fn connection(&self) -> Result<Arc<Connection>, String> {
        let mut state = self.state.lock().await;
        if let State::Connected(connection) = &*state {
            if !connection.client.is_transport_closed() {
                return Ok(connection.clone());
            }
        }
        let timeout = self.entry.timeout();
        let connected = match tokio::time::timeout(timeout, self.connect()).await {
            Ok(result) => result,
            Err(_) => Err(format!(
                "the MCP server `{}` did not finish starting within {} (its timeout_secs)",
                self.name(),
                fmt_duration(timeout)
            )),
        };
        match connected {
            Ok(connection) => {
                tracing::info!(
                    server = self.name(),
                    tools = connection.tools.len(),
                    "MCP server connected"
                );
                let connection = Arc::new(connection);
                *state = State::Connected(connection.clone());
                Ok(connection)
            }
            Err(reason) => {
                tracing::warn!(server = self.name(), "MCP server unavailable: {reason}");
                *state = State::Failed(reason.clone());
                Err(reason)
            }
        }
    }

    /// Forgets `connection` if it is still the current one, so the next use connects again.
    async fn forget(&self, connection: &Arc<Connection>) {
        let mut state = self.state.lock().await;
        if matches!(&*state, State::Connected(current) if Arc::ptr_eq(current, connection)) {
            *state = State::NotStarted;
        }
    }

    async fn connect(&self) -> Result<Connection, String> {
        let stderr = Arc::new(StderrTail::default());
        let client = match (&self.entry.command, &self.entry.url) {
            (Some(command), _) => self.connect_stdio(command, &stderr).await?,
            (None, Some(url)) => self.connect_http(url).await?,
            (None, None) => return Err(format!("the MCP server `{}` has no command or url", self.name())),
        };
        let listed = client.peer().list_all_tools().await.map_err(|e| {
            format!(
                "the MCP server `{}` did not list its tools: {}{}",
                self.name(),
                plain_causes(&e),
                stderr.explain(self.name())
            )
        })?;
        let prefix = self.entry.tool_name_prefix.as_deref();
        let tools = listed
            .into_iter()
            .map(|tool| McpToolInfo {
                name: model_tool_name(prefix, &tool.name),
                remote_name: tool.name.to_string(),
                description: tool.description.as_deref().unwrap_or_default().to_string(),
                input_schema: (*tool.input_schema).clone(),
            })
            .collect();
        Ok(Connection {
            client,
            tools,
            stderr,
        })
    }

    async fn connect_stdio(
        &self,
        command: &str,
        stderr: &Arc<StderrTail>,
    ) -> Result<RunningService<RoleClient, ()>, String> {
        let name = self.name();
        let mut process = tokio::process::Command::new(command);
        process.args(&self.entry.args);
        let environment = stdio_environment(&self.entry, std::env::vars_os(), env_var)?;
        crate::child::set_environment(&mut process, environment);
        if let Some(cwd) = &self.entry.cwd {
            process.current_dir(cwd);
        }
        crate::child::die_with_parent(&mut process);
        let (transport, pipe) = TokioChildProcess::builder(process)
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::NotFound => format!(
                    "cannot start the MCP server `{name}`: the program `{command}` was not found \
                     (is it installed and on PATH?)"
                ),
                _ => format!("cannot start the MCP server `{name}` (`{command}`): {e}"),
            })?;
        if let Some(pipe) = pipe {
            tokio::spawn(stderr.clone().collect(pipe));
        }
        let client = ().serve(transport).await;
        client.map_err(|e| {
            format!(
                "the MCP server `{name}` did not start: {e}{}",
                stderr.explain(name)
            )
        })
    }

    async fn connect_http(&self, url: &str) -> Result<RunningService<RoleClient, ()>, String> {
        let name = self.name();
        let mut headers = HashMap::new();
        for (key, value) in &self.entry.headers {
            let value = resolve_value(name, "headers", key, value, env_var)?;
            let header_name = reqwest::header::HeaderName::from_bytes(key.as_bytes())
                .map_err(|_| format!("the MCP server `{name}`: `{key}` is not an HTTP header name"))?;
            let mut header_value = reqwest::header::HeaderValue::from_str(&value).map_err(|_| {
                format!("the MCP server `{name}`: the value of header `{key}` is not valid in HTTP")
            })?;
            header_value.set_sensitive(true);
            headers.insert(header_name, header_value);
        }
        let config = StreamableHttpClientTransportConfig::with_uri(url.to_string()).custom_headers(headers);
        crate::outbound::use_ring_for_tls();
        let transport = StreamableHttpClientTransport::from_config(config);
        ().serve(transport).await.map_err(|e| {
            format!(
                "cannot connect to the MCP server `{name}` at {url}: {}",
                plain_causes(&e)
            )
        })
    }
}

/// An error's chain of causes in words, leaving out the layers whose text names Rust types
/// (rmcp's transport errors print their generic type), which mean nothing to a user.
fn plain_causes(error: &(dyn std::error::Error + 'static)) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut next = Some(error);
    while let Some(err) = next {
        if let Some(text) = without_type_names(&err.to_string()) {
            if !parts.iter().any(|p| p.contains(&text)) {
                parts.push(text);
            }
        }
        next = err.source();
    }
    if parts.is_empty() {
        "the connection failed".to_string()
    } else {
        parts.join(": ")
    }
}

/// `Transport [rmcp::…<…>] error: what happened` without the bracketed type: what happened.
fn without_type_names(text: &str) -> Option<String> {
    let text = match text.rfind("] error: ") {
        Some(at) if text.contains("::") => &text[at + "] error: ".len()..],
        _ => text,
    };
    (!text.contains("::") && !text.trim().is_empty()).then(|| text.to_string())
}

/// A stdio server's environment: only what it needs of `parent` (`child::only_needed`) and its
/// entry's `env`, whose `env:NAME` values are read through `lookup`.
fn stdio_environment(
    entry: &McpServerEntry,
    parent: impl IntoIterator<Item = (std::ffi::OsString, std::ffi::OsString)>,
    lookup: impl Fn(&str) -> Option<String>,
) -> Result<crate::child::Environment, String> {
    let owner = format!("the MCP server `{}`", entry.name);
    child_environment(&owner, &entry.env, parent, lookup)
}

fn env_var(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

/// The last lines of a stdio server's stderr.
#[derive(Default)]
struct StderrTail(Mutex<VecDeque<String>>);

impl StderrTail {
    const LINES: usize = 5;

    async fn collect(self: Arc<Self>, pipe: tokio::process::ChildStderr) {
        let mut lines = tokio::io::BufReader::new(pipe).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let mut tail = self.0.lock().unwrap_or_else(|e| e.into_inner());
            if tail.len() == Self::LINES {
                tail.pop_front();
            }
            tail.push_back(line.chars().take(300).collect());
        }
    }

    /// Logs the last lines (the server log is an admin's; a reason is shown to viewers and
    /// kept in results, and stderr may hold a token) and says so, or nothing without any.
    fn explain(&self, server: &str) -> String {
        let tail = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let lines: Vec<&str> = tail
            .iter()
            .map(String::as_str)
            .filter(|l| !l.trim().is_empty())
            .collect();
        if lines.is_empty() {
            return String::new();
        }
        tracing::warn!(
            mcp_server = server,
            "its last stderr lines: {}",
            lines.join(" / ")
        );
        "; its last stderr lines are in Evalstudio's log".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rust_type_names_are_left_out_of_messages() {
        assert_eq!(
            without_type_names(
                "Transport [rmcp::transport::worker::WorkerTransport<rmcp::X<reqwest::Client>>] error: \
                 Client error: error sending request for url (http://127.0.0.1:9/mcp)"
            )
            .as_deref(),
            Some("Client error: error sending request for url (http://127.0.0.1:9/mcp)")
        );
        assert_eq!(
            without_type_names("connection refused").as_deref(),
            Some("connection refused")
        );
        assert_eq!(without_type_names("Send message error rmcp::A<B>"), None);
    }

    fn stdio_entry(env: &[(&str, &str)], command: &str, args: &[&str]) -> McpServerEntry {
        McpServerEntry {
            name: "files".into(),
            command: Some(command.into()),
            args: args.iter().map(|a| a.to_string()).collect(),
            env: env.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            cwd: None,
            url: None,
            headers: Default::default(),
            tool_name_prefix: None,
            timeout_secs: Some(5.0),
        }
    }

    #[test]
    fn a_stdio_server_gets_path_home_the_locale_and_its_own_env_only() {
        let parent: [(std::ffi::OsString, std::ffi::OsString); 7] = [
            ("PATH", "/usr/bin"),
            ("HOME", "/home/me"),
            ("LC_ALL", "C.UTF-8"),
            ("DATABASE_URL", "postgres://u:hunter2@db/x"),
            ("EVALSTUDIO_TOKEN", "es_secret"),
            ("OPENAI_API_KEY", "sk-judge"),
            ("FILES_TOKEN", "files-secret"),
        ]
        .map(|(k, v)| (k.into(), v.into()));
        let lookup = |var: &str| {
            parent
                .iter()
                .find(|(k, _)| k == var)
                .map(|(_, v)| v.to_string_lossy().into())
        };
        let entry = stdio_entry(&[("API_TOKEN", "env:FILES_TOKEN"), ("MODE", "fast")], "npx", &[]);
        let environment = stdio_environment(&entry, parent.clone(), lookup).unwrap();
        let seen: Vec<(&str, &str)> = environment
            .iter()
            .map(|(k, v)| (k.to_str().unwrap(), v.to_str().unwrap()))
            .collect();
        assert_eq!(
            seen,
            [
                ("API_TOKEN", "files-secret"),
                ("HOME", "/home/me"),
                ("LC_ALL", "C.UTF-8"),
                ("MODE", "fast"),
                ("PATH", "/usr/bin"),
            ]
        );
        let missing = stdio_entry(&[("API_TOKEN", "env:NOPE")], "npx", &[]);
        assert_eq!(
            stdio_environment(&missing, parent.clone(), lookup).unwrap_err(),
            "the MCP server `files` needs the environment variable NOPE (its env.API_TOKEN), which is not set"
        );
    }

    /// A real child: a "server" that writes what it sees and exits (so connecting fails).
    #[tokio::test]
    async fn a_real_stdio_server_sees_only_the_kept_variables_and_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let seen_file = dir.path().join("env.txt");
        let script = format!("env > '{}'", seen_file.display());
        let server = McpServer::new(stdio_entry(&[("MODE", "fast")], "sh", &["-c", &script]));
        assert!(server.tools().await.is_err());
        let seen = std::fs::read_to_string(&seen_file).unwrap();
        let names: Vec<&str> = seen
            .lines()
            .filter_map(|line| line.split_once('='))
            .map(|(k, _)| k)
            .collect();
        assert!(seen.contains("MODE=fast\n") && names.contains(&"PATH"), "{seen}");
        // The test's own environment (cargo's CARGO_*, RUSTFLAGS, …) is not passed on; only the
        // shell adds PWD (and maybe SHLVL, _, OLDPWD).
        let shell = ["PWD", "OLDPWD", "SHLVL", "_"];
        let extra: Vec<&&str> = names
            .iter()
            .filter(|name| {
                !(crate::child::KEPT.contains(name)
                    || name.starts_with("LC_")
                    || **name == "MODE"
                    || shell.contains(name))
            })
            .collect();
        assert!(extra.is_empty(), "{extra:?} in {seen}");
    }
}
