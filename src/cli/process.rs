//! What the `evalstudio` binary does, all of it here in the library: the binary's `main` only
//! calls [`main`]. (Code in the binary crate is compiled again in every release build of it,
//! and the log subscriber's layered generics alone took most of a minute there.)

use super::{run, Cli};
use clap::Parser;
use std::process::ExitCode;

/// Parses the command line, logs to stderr (`RUST_LOG`, by default info without sqlx's,
/// tower-http's and rmcp's chatter), runs the command and says how it went.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| "info,sqlx=warn,tower_http=warn,rmcp=warn".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    let runtime = tokio::runtime::Runtime::new().expect("the tokio runtime starts");
    match runtime.block_on(run(cli)) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {err}");
            err.exit_code()
        }
    }
}
