//! `evalstudio serve`: the web app and the REST API; `evalstudio web AGENTS_DIR`: the same on
//! an ADK agents folder, whose evalset files it reads and writes.

use super::CliError;
use crate::folder::{default_db_path, AgentsDir};
use crate::server::{serve as serve_app, ServeConfig, DEFAULT_MAX_BODY_BYTES};
use crate::service::runs::workers::WorkerSettings;
use crate::store::Location;
use clap::Parser;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Where `make build` puts the site, for a binary run from another folder (a user's project).
const BUILT_SITE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/target/site");

#[derive(Parser)]
pub struct ServeArgs {
    #[command(flatten)]
    options: ServeOptions,
    /// Work on an ADK agents folder in place, as `evalstudio web` does.
    #[arg(long)]
    agents_dir: Option<PathBuf>,
}

/// What `serve` and `web` share.
#[derive(clap::Args)]
struct ServeOptions {
    /// Address to listen on. Beyond loopback (0.0.0.0:PORT) needs an [auth] section.
    #[arg(long, env = "EVALSTUDIO_ADDR", default_value = "127.0.0.1:3000")]
    addr: SocketAddr,
    /// Directory with the built site (pkg/ with the wasm, js and css); by default ./target/site,
    /// else the one this binary was built beside.
    #[arg(long, env = "LEPTOS_SITE_ROOT")]
    site_root: Option<String>,
    /// Largest request body accepted (imports included), in bytes.
    #[arg(long, env = "EVALSTUDIO_MAX_BODY_BYTES", default_value_t = DEFAULT_MAX_BODY_BYTES)]
    max_body_bytes: usize,
    /// Agent profiles (TOML); by default ./evalstudio.toml when it exists.
    #[arg(long, env = "EVALSTUDIO_CONFIG")]
    config: Option<PathBuf>,
    /// The `adk` command that runs the folder's api_server (default: the one on PATH).
    #[arg(long, env = "EVALSTUDIO_ADK")]
    adk: Option<PathBuf>,
    /// ADK's own web UI to serve at /dev-ui/: google-adk's `cli/browser` folder (in folder mode
    /// found beside `adk` when not given).
    #[arg(long)]
    adk_web_ui: Option<PathBuf>,
    /// Serve on an address beyond loopback without an [auth] section: anyone who can reach
    /// the server may read, edit and delete everything. Warns on every start.
    #[arg(long)]
    insecure_no_auth: bool,
    #[command(flatten)]
    worker: WorkerOptions,
}

/// How a server works on eval runs.
#[derive(clap::Args)]
struct WorkerOptions {
    /// Work on no eval runs here: they wait for `evalstudio worker` processes on the same
    /// database (a team's servers that only serve).
    #[arg(long)]
    no_worker: bool,
    /// Case runs of one eval run under way at once in this server's worker.
    #[arg(long, default_value_t = WorkerSettings::default().concurrency as u16, value_parser = clap::value_parser!(u16).range(1..))]
    worker_concurrency: u16,
}

#[derive(Parser)]
pub struct WebArgs {
    /// The ADK agents folder, as `adk web AGENTS_DIR` takes it: one app per subfolder.
    agents_dir: PathBuf,
    #[command(flatten)]
    options: ServeOptions,
}

/// Serves until the server stops. `db` is `--db`; without it, `data/evalstudio.db`, or in folder
/// mode a file in the user's cache kept for that folder.
pub async fn serve(db: Option<Location>, args: ServeArgs) -> Result<ExitCode, CliError> {
    let ServeArgs { options, agents_dir } = args;
    let db = match (db, &agents_dir) {
        (Some(db @ Location::Postgres(_)), Some(_)) => {
            return Err(CliError::Usage(format!(
                "folder mode keeps its database beside the folder in SQLite; {db} is PostgreSQL: \
                 leave out --db (and DATABASE_URL), or give a file"
            )))
        }
        (Some(db), _) => db,
        (None, Some(dir)) => {
            let dir = AgentsDir::new(dir).map_err(|e| {
                CliError::Serve(format!("cannot open the agents folder {}: {e}", dir.display()).into())
            })?;
            Location::Sqlite(default_db_path(&dir))
        }
        (None, None) => Location::Sqlite(super::DEFAULT_DB.into()),
    };
    let config = ServeConfig {
        addr: options.addr,
        db,
        site_root: options.site_root.unwrap_or_else(default_site_root),
        max_body_bytes: options.max_body_bytes,
        config_path: options.config,
        agents_dir,
        adk: options.adk,
        adk_web_ui: options.adk_web_ui,
        insecure_no_auth: options.insecure_no_auth,
        worker: WorkerSettings {
            enabled: !options.worker.no_worker,
            concurrency: options.worker.worker_concurrency.into(),
        },
    };
    serve_app(config).await.map_err(CliError::Serve)?;
    Ok(ExitCode::SUCCESS)
}

/// `evalstudio web AGENTS_DIR`: `serve --agents-dir AGENTS_DIR`.
pub async fn web(db: Option<Location>, args: WebArgs) -> Result<ExitCode, CliError> {
    let serve_args = ServeArgs {
        options: args.options,
        agents_dir: Some(args.agents_dir),
    };
    serve(db, serve_args).await
}

fn default_site_root() -> String {
    let local = "target/site";
    if Path::new(local).join("pkg").is_dir() || !Path::new(BUILT_SITE).join("pkg").is_dir() {
        local.to_string()
    } else {
        BUILT_SITE.to_string()
    }
}
