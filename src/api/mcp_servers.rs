//! Server functions of the Settings page's MCP section: the servers' states, and (re)connecting
//! one by name. The name picks a server of evalstudio.toml; nothing in a request is run. What
//! each shows is shaped for the caller's role (a stdio server's arguments for admins alone).

use leptos::prelude::*;

use crate::records::mcp::McpServerView;
#[cfg(feature = "ssr")]
use crate::{access::Role, api::access::require};
#[cfg(feature = "ssr")]
use crate::{api::caller_role, api::server_error, api::services, service::mcp_servers};

#[server]
pub async fn list_mcp_servers() -> Result<Vec<McpServerView>, ServerFnError> {
    Ok(mcp_servers::list(&services(), caller_role()))
}

#[server]
pub async fn reconnect_mcp_server(name: String) -> Result<McpServerView, ServerFnError> {
    require(Role::Editor)?;
    mcp_servers::reconnect(&services(), &name, caller_role())
        .await
        .map_err(server_error)
}
