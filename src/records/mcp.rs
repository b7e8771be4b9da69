//! The configured MCP servers as the Settings page shows them.

use serde::{Deserialize, Serialize};

/// An MCP server as the Settings page shows it. Holds no secret: the transport names the
/// program or the URL without userinfo, query or fragment (`redact::redacted_url`), never an
/// env or header value; a stdio server's arguments only for an admin.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct McpServerView {
    pub name: String,
    /// `stdio: npx` or `http: https://host/path`.
    pub transport: String,
    /// A stdio server's arguments, joined by spaces, which may hold a token: shown to admins
    /// alone (`None` for anyone else, and for an HTTP server).
    #[serde(default)]
    pub args: Option<String>,
    pub status: McpServerStatus,
    /// The tools it offers while running, in its order.
    pub tools: Vec<McpToolView>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum McpServerStatus {
    /// Not used yet: servers start on first use.
    NotStarted,
    Starting,
    Running,
    Failed {
        reason: String,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct McpToolView {
    /// The name the model sees.
    pub name: String,
    /// The server's own name for it.
    pub remote_name: String,
    pub description: String,
}
