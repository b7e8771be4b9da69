//! The MCP servers of evalstudio.toml as the Settings page and the CLI see them: each one's
//! state and tools, connecting one (again) on request. Only servers of the config can be
//! named; a request never supplies a command. What is shown depends on who asks (the adapter
//! says): a URL never with its userinfo, query or fragment, a stdio server's arguments only to
//! an admin.

use super::errors::{DomainError, ErrorKind};
use super::Services;
use crate::access::Role;
use crate::agent::mcp::{McpServer, McpServerEntry, McpServerState};
use crate::records::mcp::{McpServerStatus, McpServerView, McpToolView};
use crate::redact::redacted_url;

#[derive(Debug, thiserror::Error)]
pub enum McpServerError {
    #[error("no MCP server is named `{0}` in evalstudio.toml")]
    NotFound(String),
}

impl DomainError for McpServerError {
    fn kind(&self) -> ErrorKind {
        match self {
            McpServerError::NotFound(_) => ErrorKind::NotFound,
        }
    }
}

/// Every configured server's state, starting none, as `shown_to` may see it.
pub fn list(services: &Services, shown_to: Role) -> Vec<McpServerView> {
    services
        .profiles
        .mcp_servers()
        .iter()
        .map(|server| view(server, server.state(), shown_to))
        .collect()
}

/// Stops the server `name` if it runs and connects it again; its new state (a failure is a
/// state, with its reason, not an error), as `shown_to` may see it.
pub async fn reconnect(
    services: &Services,
    name: &str,
    shown_to: Role,
) -> Result<McpServerView, McpServerError> {
    let server = services
        .profiles
        .mcp_servers()
        .get(name)
        .ok_or_else(|| McpServerError::NotFound(name.to_string()))?;
    Ok(view(server, server.reconnect().await, shown_to))
}

/// How the server is reached, for `shown_to`: the program (`stdio: npx`) or the URL without
/// userinfo, query or fragment (`http: https://host/path`); and a stdio server's arguments,
/// which may hold a token, for an admin alone.
fn transport(entry: &McpServerEntry, shown_to: Role) -> (String, Option<String>) {
    match (&entry.command, &entry.url) {
        (Some(command), _) => (
            format!("stdio: {command}"),
            shown_to.may(Role::Admin).then(|| entry.args.join(" ")),
        ),
        (None, Some(url)) => (format!("http: {}", redacted_url(url)), None),
        (None, None) => (String::new(), None),
    }
}

fn view(server: &McpServer, state: McpServerState, shown_to: Role) -> McpServerView {
    let (status, tools) = match state {
        McpServerState::NotStarted => (McpServerStatus::NotStarted, Vec::new()),
        McpServerState::Starting => (McpServerStatus::Starting, Vec::new()),
        McpServerState::Failed(reason) => (McpServerStatus::Failed { reason }, Vec::new()),
        McpServerState::Running(tools) => (McpServerStatus::Running, tools),
    };
    let (transport, args) = transport(server.entry(), shown_to);
    McpServerView {
        name: server.name().to_string(),
        transport,
        args,
        status,
        tools: tools
            .into_iter()
            .map(|tool| McpToolView {
                name: tool.name,
                remote_name: tool.remote_name,
                description: tool.description,
            })
            .collect(),
    }
}
