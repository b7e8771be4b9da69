//! `evalstudio score`: actual invocations scored against an evalset's expected ones, with no
//! agent run.

use super::files::{read_eval_config, read_eval_set, write};
use super::{cases_exit_code, table, CliError};
use crate::agent::DEFAULT_APP;
use crate::clock::now_seconds;
use crate::config::Config;
use crate::eval::{score_eval_set, EvalConfig, EvalSetResult, EvalStatus};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct ScoreArgs {
    /// Evalset with the expected invocations.
    expected: PathBuf,
    /// Evalsets with the actual invocations: the same eval ids and turn counts. Give
    /// several for several runs; each metric is then judged on the mean over all runs.
    #[arg(required = true)]
    actual: Vec<PathBuf>,
    /// Eval config (ADK's test_config.json); without it, tool_trajectory_avg_score 1.0
    /// and response_match_score 0.8.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Also write the results as ADK's EvalSetResult JSON to this file.
    #[arg(long, value_name = "OUT")]
    json: Option<PathBuf>,
    /// The app named in the result id, as ADK names results.
    #[arg(long, default_value = DEFAULT_APP)]
    app: String,
    /// Where the judge model is configured (its [judge] table); by default
    /// ./evalstudio.toml when it exists.
    #[arg(long, env = "EVALSTUDIO_CONFIG")]
    profiles: Option<PathBuf>,
}

/// Prints the results table (and writes `--json`); exits 0 when every case passed, else 1.
pub async fn score(args: ScoreArgs) -> Result<ExitCode, CliError> {
    let config = Config::load(args.profiles.as_deref()).map_err(CliError::Profiles)?;
    let services = config.build_scoring();
    let config = match &args.config {
        None => EvalConfig::default(),
        Some(path) => read_eval_config(path)?,
    };
    let expected = read_eval_set(&args.expected)?;
    let runs = args
        .actual
        .iter()
        .map(|path| read_eval_set(path))
        .collect::<Result<Vec<_>, _>>()?;
    let run_count = runs.len();
    let scored = score_eval_set(&expected, runs, &config, &services)
        .await
        .map_err(|source| CliError::Score {
            run: args.actual[source.run].clone(),
            source,
        })?;
    print!("{}", table::results_table(&scored.summaries, run_count));
    let all_passed = scored
        .summaries
        .iter()
        .all(|case| case.final_eval_status == EvalStatus::Passed);
    if let Some(path) = args.json {
        let result = EvalSetResult::new(&args.app, &expected.eval_set_id, scored, now_seconds());
        let text = serde_json::to_string_pretty(&result.to_adk_value()).expect("results serialise");
        write(&path, text)?;
    }
    Ok(cases_exit_code(all_passed))
}
