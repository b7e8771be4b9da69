//! The tools an agent offers in a turn: its built-in tools and the tools of the MCP servers its
//! profile names, listed when the turn starts (a server starts on first use). Two tools that
//! would reach the model under one name are an error naming both, never a silent rename: the
//! name is what a recorded trajectory says.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::mcp::{McpServer, McpTool};
use super::ToolRegistry;

pub struct Toolbox {
    builtin: ToolRegistry,
    servers: Vec<Arc<McpServer>>,
}

impl Toolbox {
    pub fn new(builtin: ToolRegistry, servers: Vec<Arc<McpServer>>) -> Toolbox {
        Toolbox { builtin, servers }
    }

    /// Built-in tools only.
    pub fn builtin_only(builtin: ToolRegistry) -> Toolbox {
        Toolbox::new(builtin, Vec::new())
    }

    pub fn builtin(&self) -> &ToolRegistry {
        &self.builtin
    }

    pub fn servers(&self) -> &[Arc<McpServer>] {
        &self.servers
    }

    /// Every tool of this turn by the name the model sees. `Err` says which server could not
    /// be reached or which two tools share a name.
    pub async fn for_turn(&self) -> Result<ToolRegistry, String> {
        let mut tools = self.builtin.clone();
        if self.servers.is_empty() {
            return Ok(tools);
        }
        let mut owners: BTreeMap<String, String> = tools
            .iter()
            .map(|tool| {
                (
                    tool.name().to_string(),
                    format!("the built-in tool `{}`", tool.name()),
                )
            })
            .collect();
        for server in &self.servers {
            for info in server.tools().await? {
                let owner = format!("the MCP server `{}`'s tool `{}`", server.name(), info.remote_name);
                if let Some(first) = owners.get(&info.name) {
                    return Err(format!(
                        "two tools reach the model as `{}`: {first} and {owner}; give one of the servers \
                         a tool_name_prefix in evalstudio.toml",
                        info.name
                    ));
                }
                owners.insert(info.name.clone(), owner);
                tools.register(McpTool::new(server.clone(), info));
            }
        }
        Ok(tools)
    }
}

impl From<ToolRegistry> for Toolbox {
    fn from(builtin: ToolRegistry) -> Toolbox {
        Toolbox::builtin_only(builtin)
    }
}

impl std::fmt::Debug for Toolbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Toolbox")
            .field("builtin", &self.builtin)
            .field(
                "servers",
                &self.servers.iter().map(|s| s.name()).collect::<Vec<_>>(),
            )
            .finish()
    }
}
