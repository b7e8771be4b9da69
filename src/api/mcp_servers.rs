//! Server functions of the Settings page's MCP section: the servers' states, and (re)connecting
//! one by name. The name picks a server of evalstudio.toml; nothing in a request is run.

use leptos::prelude::*;

use crate::records::McpServerView;
#[cfg(feature = "ssr")]
use crate::{api::server_error, api::services, service::mcp_servers};

#[server]
pub async fn list_mcp_servers() -> Result<Vec<McpServerView>, ServerFnError> {
    Ok(mcp_servers::list(&services()))
}

#[server]
pub async fn reconnect_mcp_server(name: String) -> Result<McpServerView, ServerFnError> {
    mcp_servers::reconnect(&services(), &name)
        .await
        .map_err(server_error)
}
