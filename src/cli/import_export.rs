//! `evalstudio import` and `evalstudio export`: evalset files into and out of the database.

use super::files::{read, write};
use super::{CliError, ImportFailure};
use crate::agent::DEFAULT_APP;
use crate::evalset::validate_app_name;
use crate::service::eval_sets::{export_eval_set, import_file, ImportMode};
use crate::store::{Location, Store};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct ImportArgs {
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// The app (agent profile) the evalsets belong to.
    #[arg(long, default_value = DEFAULT_APP)]
    app: String,
    /// Replace evalsets that already exist instead of failing.
    #[arg(long)]
    replace: bool,
}

#[derive(Args)]
pub struct ExportArgs {
    eval_set_id: String,
    #[arg(long, default_value = DEFAULT_APP)]
    app: String,
    /// Output file; standard output when absent.
    #[arg(short, long)]
    output: Option<PathBuf>,
}

/// Imports every file it can, saying so for each; the files it could not are the error.
pub async fn import(db: &Location, args: ImportArgs) -> Result<ExitCode, CliError> {
    validate_app_name(&args.app).map_err(CliError::Usage)?;
    let store = Store::open(db).await?;
    let mut failures = Vec::new();
    for file in args.files {
        let outcome = match read(&file) {
            Err(message) => Err(message),
            Ok(text) => {
                let name = file
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                import_file(
                    &store,
                    &args.app,
                    &name,
                    None,
                    text,
                    ImportMode::replacing(args.replace),
                )
                .await
                .map_err(|e| e.to_string())
            }
        };
        match outcome {
            Ok(summary) => println!(
                "imported {} ({} case{}, {}{}) from {}",
                summary.eval_set_id,
                summary.cases,
                if summary.cases == 1 { "" } else { "s" },
                summary.format,
                if summary.replaced { ", replaced" } else { "" },
                file.display()
            ),
            Err(message) => failures.push(ImportFailure { file, message }),
        }
    }
    if failures.is_empty() {
        Ok(ExitCode::SUCCESS)
    } else {
        Err(CliError::Import(failures))
    }
}

/// Writes the evalset to `--output`, or to standard output.
pub async fn export(db: &Location, args: ExportArgs) -> Result<ExitCode, CliError> {
    let store = Store::open(db).await?;
    let json = export_eval_set(&store, &args.app, &args.eval_set_id).await?;
    match args.output {
        Some(path) => write(&path, &json)?,
        None => println!("{json}"),
    }
    Ok(ExitCode::SUCCESS)
}
