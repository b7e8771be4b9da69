//! `evalstudio mcp`: try the MCP servers of evalstudio.toml without a model. `list` connects
//! each server and prints its tools as the model sees them; `call` calls one tool and prints
//! the function response a trajectory would record (exactly as ADK records it).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use serde_json::{Map, Value};

use super::CliError;
use crate::agent::mcp::McpServers;
use crate::config::Config;

#[derive(Args)]
pub struct McpArgs {
    /// The config file with the `[[mcp_servers]]`; by default ./evalstudio.toml.
    #[arg(long, env = "EVALSTUDIO_CONFIG", global = true)]
    profiles: Option<PathBuf>,
    #[command(subcommand)]
    command: McpCommand,
}

#[derive(Subcommand)]
enum McpCommand {
    /// Connect every server (or the one named) and list its tools. Exits 1 if one failed.
    List { server: Option<String> },
    /// Call one tool and print the recorded function response as JSON.
    Call {
        server: String,
        /// The server's own name for the tool.
        tool: String,
        /// The arguments, a JSON object.
        #[arg(default_value = "{}")]
        args: String,
    },
}

pub async fn mcp(args: McpArgs) -> Result<ExitCode, CliError> {
    let config = Config::load(args.profiles.as_deref()).map_err(CliError::Profiles)?;
    let servers = config.profiles.mcp_servers();
    match args.command {
        McpCommand::List { server } => list(servers, server.as_deref()).await,
        McpCommand::Call { server, tool, args } => call(servers, &server, &tool, &args).await,
    }
}

async fn list(servers: &McpServers, only: Option<&str>) -> Result<ExitCode, CliError> {
    if let Some(name) = only {
        find(servers, name)?;
    }
    let mut all_up = true;
    for server in servers.iter().filter(|s| only.is_none_or(|n| n == s.name())) {
        println!("{} ({})", server.name(), server.entry().transport_text());
        match server.tools().await {
            Ok(tools) => {
                for tool in tools {
                    println!("  {}  {}", tool.name, first_line(&tool.description));
                }
            }
            Err(reason) => {
                all_up = false;
                println!("  failed: {reason}");
            }
        }
    }
    Ok(if all_up {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

async fn call(servers: &McpServers, name: &str, tool: &str, args: &str) -> Result<ExitCode, CliError> {
    let server = find(servers, name)?;
    let args: Map<String, Value> = serde_json::from_str(args)
        .map_err(|e| CliError::Usage(format!("ARGS must be a JSON object: {e}")))?;
    let response = server.call(tool, &args).await.map_err(CliError::Run)?;
    println!("{}", Value::Object(response));
    Ok(ExitCode::SUCCESS)
}

fn find<'a>(
    servers: &'a McpServers,
    name: &str,
) -> Result<&'a std::sync::Arc<crate::agent::mcp::McpServer>, CliError> {
    servers.get(name).ok_or_else(|| {
        let known: Vec<&str> = servers.iter().map(|s| s.name()).collect();
        CliError::Usage(format!(
            "no MCP server is named `{name}` in the config (known: {})",
            if known.is_empty() {
                "none".to_string()
            } else {
                known.join(", ")
            }
        ))
    })
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or_default()
}
