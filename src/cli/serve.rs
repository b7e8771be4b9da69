//! `evalstudio serve`: the web app and the REST API.

use super::CliError;
use crate::server::{serve as serve_app, ServeConfig, DEFAULT_MAX_BODY_BYTES};
use clap::Parser;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
pub struct ServeArgs {
    /// Address to listen on. Use 0.0.0.0:PORT only on a trusted network.
    #[arg(long, env = "EVALSTUDIO_ADDR", default_value = "127.0.0.1:3000")]
    addr: SocketAddr,
    /// Directory with the built site (pkg/ with the wasm, js and css).
    #[arg(long, env = "LEPTOS_SITE_ROOT", default_value = "target/site")]
    site_root: String,
    /// Largest request body accepted (imports included), in bytes.
    #[arg(long, env = "EVALSTUDIO_MAX_BODY_BYTES", default_value_t = DEFAULT_MAX_BODY_BYTES)]
    max_body_bytes: usize,
    /// Agent profiles (TOML); by default ./evalstudio.toml when it exists.
    #[arg(long, env = "EVALSTUDIO_CONFIG")]
    config: Option<PathBuf>,
}

/// Serves until the server stops.
pub async fn serve(db: PathBuf, args: ServeArgs) -> Result<ExitCode, CliError> {
    let config = ServeConfig {
        addr: args.addr,
        db_path: db,
        site_root: args.site_root,
        max_body_bytes: args.max_body_bytes,
        config_path: args.config,
    };
    serve_app(config).await.map_err(CliError::Serve)?;
    Ok(ExitCode::SUCCESS)
}
