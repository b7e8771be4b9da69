//! MCP tool servers (Model Context Protocol), configured as `[[mcp_servers]]` in
//! evalstudio.toml and offered to `openai` profiles that name them. `rmcp` (the official Rust
//! SDK) speaks the protocol; here are the entry and its checks (`config`), the names the model
//! sees (`names`), a result as ADK records it (`dump`), and one server's connection (`server`).
//! Servers start on first use and are shared by every chat and eval that uses them.

pub mod config;
pub mod dump;
pub mod names;
mod server;

use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::{Map, Value};

pub use config::{check_mcp_servers, McpServerEntry};
pub use server::{McpServer, McpServerState, McpToolInfo};

use super::Tool;

/// The configured servers, in file order. Clones share the servers (and their connections).
#[derive(Clone, Default)]
pub struct McpServers(Vec<Arc<McpServer>>);

impl McpServers {
    /// One server per entry, none started yet. The entries are checked by `check_mcp_servers`.
    pub fn new(entries: Vec<McpServerEntry>) -> McpServers {
        McpServers(entries.into_iter().map(|e| Arc::new(McpServer::new(e))).collect())
    }

    pub fn get(&self, name: &str) -> Option<&Arc<McpServer>> {
        self.0.iter().find(|server| server.name() == name)
    }

    pub fn iter(&self) -> impl Iterator<Item = &Arc<McpServer>> {
        self.0.iter()
    }
}

impl std::fmt::Debug for McpServers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.0.iter().map(|s| s.name())).finish()
    }
}

/// A server's tool as the agents' `Tool`.
pub struct McpTool {
    server: Arc<McpServer>,
    info: McpToolInfo,
}

impl McpTool {
    pub fn new(server: Arc<McpServer>, info: McpToolInfo) -> McpTool {
        McpTool { server, info }
    }
}

impl Tool for McpTool {
    fn name(&self) -> &str {
        &self.info.name
    }

    fn description(&self) -> &str {
        &self.info.description
    }

    fn parameters(&self) -> Value {
        Value::Object(self.info.input_schema.clone())
    }

    fn call<'a>(&'a self, args: &'a Map<String, Value>) -> BoxFuture<'a, Result<Map<String, Value>, String>> {
        Box::pin(self.server.call(&self.info.remote_name, args))
    }
}
