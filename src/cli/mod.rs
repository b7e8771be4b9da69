//! The `evalstudio` command line: `serve` (the default), `web` (an ADK agents folder), `import`,
//! `export`, `eval`, `score`, `score-traces`, `mcp`, `worker`, a shared server's `user` and `token`, and `push`/`pull` to and from one.
//! Each command returns the exit code of what it did (0 every case passed; 1 a case failed, its
//! agent errored or the run was cancelled), or a [`CliError`] (exit 2), which the binary prints.

mod error;
mod eval;
mod files;
mod import_export;
mod mcp;
mod process;
mod progress;
mod push_pull;
mod score;
mod score_files;
mod score_traces;
mod serve;
mod table;
#[cfg(test)]
pub(crate) mod test_summaries;
mod users;
mod worker;

pub use error::{CliError, ImportFailure};
pub use process::main;

use crate::store::Location;
use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "evalstudio",
    version,
    about = "Build and run ADK evalsets for tool-calling agents"
)]
pub struct Cli {
    /// The database: a SQLite file (created on first use) or a postgres:// URL; else
    /// DATABASE_URL, else data/evalstudio.db, or for `web` a file in the user's cache kept
    /// for that folder (folder mode is SQLite only).
    #[arg(long, global = true, env = "EVALSTUDIO_DB")]
    db: Option<Location>,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the web app and the REST API (the default).
    Serve(serve::ServeArgs),
    /// Work on an ADK agents folder in place: its evalset files are read and written as ADK
    /// does, its agents chat through ADK's own api_server, runs land in its eval history.
    Web(serve::WebArgs),
    /// Import evalset files (ADK evalset JSON or the legacy lists).
    Import(import_export::ImportArgs),
    /// Write an evalset as ADK's evalset JSON.
    Export(import_export::ExportArgs),
    /// Score actual invocations against an evalset's expected ones, without running an agent.
    /// Exits 0 when every case passed, 1 when any did not, 2 on bad input.
    Score(score::ScoreArgs),
    /// Score sessions an agent recorded as OpenTelemetry spans (OTLP/JSON files), without
    /// running it again. Exits 0 when every session passed, 1 when any did not, 2 on bad input.
    ScoreTraces(score_traces::ScoreTracesArgs),
    /// Run evalsets through an agent and score what it does.
    Eval(eval::EvalArgs),
    /// Try the MCP servers of the config: list their tools, call one.
    Mcp(mcp::McpArgs),
    /// Work on the eval runs queued in the database (a team's servers started with
    /// --no-worker, or more hands for long runs), until Ctrl-C.
    Worker(worker::WorkerArgs),
    /// Upload an evalset (a file, or an id in this database) to a team's server, whole;
    /// refused when the server's copy changed since this one was pulled, unless --force.
    Push(push_pull::PushArgs),
    /// Download an evalset from a team's server as ADK's evalset JSON, noting its version.
    Pull(push_pull::PullArgs),
    /// A shared server's users: add (the first admin too), password, list, remove.
    User(users::UserArgs),
    /// API tokens for the CLI and REST (`Authorization: Bearer`): create, revoke, list.
    Token(users::TokenArgs),
}

/// The database of every command but `web` when `--db` is not given.
const DEFAULT_DB: &str = "data/evalstudio.db";

/// `DATABASE_URL`, the variable many tools share, when it is set.
fn database_url() -> Result<Option<Location>, CliError> {
    match std::env::var("DATABASE_URL") {
        Ok(url) if !url.trim().is_empty() => url
            .parse()
            .map(Some)
            .map_err(|e| CliError::Usage(format!("DATABASE_URL: {e}"))),
        _ => Ok(None),
    }
}

/// Runs the command `cli` names; without one, serves with the serve flags' environment
/// variables and defaults.
pub async fn run(cli: Cli) -> Result<ExitCode, CliError> {
    crate::outbound::use_ring_for_tls();
    let command = cli
        .command
        .unwrap_or_else(|| Command::Serve(serve::ServeArgs::parse_from(["serve"])));
    let chosen = match cli.db {
        Some(db) => Some(db),
        None => database_url()?,
    };
    let db = || {
        chosen
            .clone()
            .unwrap_or_else(|| Location::Sqlite(DEFAULT_DB.into()))
    };
    match command {
        Command::Serve(args) => serve::serve(chosen.clone(), args).await,
        Command::Web(args) => serve::web(chosen.clone(), args).await,
        Command::Import(args) => import_export::import(&db(), args).await,
        Command::Export(args) => import_export::export(&db(), args).await,
        Command::Score(args) => score::score(args).await,
        Command::ScoreTraces(args) => score_traces::score_traces(args).await,
        Command::Eval(args) => eval::eval(&db(), args).await,
        Command::Mcp(args) => mcp::mcp(args).await,
        Command::Worker(args) => worker::worker(&db(), args).await,
        Command::Push(args) => push_pull::push(&db(), args).await,
        Command::Pull(args) => push_pull::pull(&db(), args).await,
        Command::User(args) => users::user(&db(), args).await,
        Command::Token(args) => users::token(&db(), args).await,
    }
}

/// The exit code of a command whose cases all ran: 0 when every one passed, else 1.
fn cases_exit_code(all_passed: bool) -> ExitCode {
    if all_passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

#[cfg(test)]
mod tests {
    use super::Cli;
    use clap::CommandFactory;

    #[test]
    fn every_command_is_well_formed() {
        Cli::command().debug_assert();
    }
}
