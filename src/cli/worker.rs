//! `evalstudio worker`: works on the eval runs queued in the database until it is stopped.
//! Stopped (Ctrl-C), it lets go of its cases for other workers at once; killed, it only stops
//! renewing its leases, and other workers take its cases up once they end.

use super::CliError;
use crate::config::Config;
use crate::service::runs::workers::{stop_working, work_queue, WorkerSettings};
use crate::service::Services;
use crate::store::{Location, Store};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct WorkerArgs {
    /// Agent profiles (TOML): the agents this worker can run; by default ./evalstudio.toml when
    /// it exists. A run whose agent is no profile here is left to other workers.
    #[arg(long, env = "EVALSTUDIO_CONFIG")]
    config: Option<PathBuf>,
    /// Case runs of one eval run under way at once.
    #[arg(long, default_value_t = WorkerSettings::default().concurrency as u16, value_parser = clap::value_parser!(u16).range(1..))]
    concurrency: u16,
}

pub async fn worker(db: &Location, args: WorkerArgs) -> Result<ExitCode, CliError> {
    let config = Config::load(args.config.as_deref()).map_err(CliError::Profiles)?;
    let store = Store::open(db).await?;
    let scoring = config.build_scoring();
    let mut services = Services::new(store, config.profiles, scoring);
    services.worker = WorkerSettings {
        enabled: true,
        concurrency: args.concurrency.into(),
    };
    let names: Vec<&str> = services.profiles.iter().map(|p| p.name.as_str()).collect();
    tracing::info!(db = %db, "worker started; agent profiles: {}", names.join(", "));
    tokio::select! {
        () = work_queue(services.clone()) => {}
        _ = tokio::signal::ctrl_c() => {}
    }
    stop_working(&services).await;
    tracing::info!("worker stopped");
    Ok(ExitCode::SUCCESS)
}
