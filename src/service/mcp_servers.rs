//! The MCP servers of evalstudio.toml as the Settings page and the CLI see them: each one's
//! state and tools, connecting one (again) on request. Only servers of the config can be
//! named; a request never supplies a command.

use super::errors::{DomainError, ErrorKind};
use super::Services;
use crate::agent::mcp::{McpServer, McpServerState};
use crate::records::{McpServerStatus, McpServerView, McpToolView};

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

/// Every configured server's state, starting none.
pub fn list(services: &Services) -> Vec<McpServerView> {
    services
        .profiles
        .mcp_servers()
        .iter()
        .map(|server| view(server, server.state()))
        .collect()
}

/// Stops the server `name` if it runs and connects it again; its new state (a failure is a
/// state, with its reason, not an error).
pub async fn reconnect(services: &Services, name: &str) -> Result<McpServerView, McpServerError> {
    let server = services
        .profiles
        .mcp_servers()
        .get(name)
        .ok_or_else(|| McpServerError::NotFound(name.to_string()))?;
    Ok(view(server, server.reconnect().await))
}

fn view(server: &McpServer, state: McpServerState) -> McpServerView {
    let (status, tools) = match state {
        McpServerState::NotStarted => (McpServerStatus::NotStarted, Vec::new()),
        McpServerState::Starting => (McpServerStatus::Starting, Vec::new()),
        McpServerState::Failed(reason) => (McpServerStatus::Failed { reason }, Vec::new()),
        McpServerState::Running(tools) => (McpServerStatus::Running, tools),
    };
    McpServerView {
        name: server.name().to_string(),
        transport: server.entry().transport_text(),
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
