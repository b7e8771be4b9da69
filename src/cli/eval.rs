//! `evalstudio eval`: evalsets run through an agent and scored, each run stored as it goes so
//! an interrupted or cancelled one can be resumed. This process is a worker on its runs (other
//! workers on the same database may help) until each is over.

use super::files::{read_compact_eval_set, read_eval_config, write_error, ResultFile};
use super::progress::Progress;
use super::{cases_exit_code, table, CliError};
use crate::agent::{Agent, DEFAULT_APP};
use crate::config::Config;
use crate::eval::config::EvalConfig;
use crate::eval::junit::JunitWriter;
use crate::eval::result::{CaseSummary, EvalStatus};
use crate::eval::runner::RunOptions;
use crate::evalset::CompactEvalSet;
use crate::records::runs::{EvalRunCase, RunScope, RunStatus};
use crate::service::runs::error::EvalRunError;
use crate::service::runs::export::adk_result_chunks;
use crate::service::runs::lifecycle::{settle_failure, stop_run};
use crate::service::runs::plan::{
    plan_run, record_run, take_up_run, tool_execution, RunEvalSet, RunMetrics, RunRequest,
};
use crate::service::runs::summaries::{run_verdicts, RunVerdicts};
use crate::service::runs::worker::execute_eval_run;
use crate::store::{EvalRunRecord, Location, Store};
use clap::Args;
use futures::StreamExt;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

#[derive(Args)]
pub struct EvalArgs {
    /// Evalset files (any form `import` takes), or ids of evalsets in the database.
    #[arg(required_unless_present = "resume", value_name = "FILE_OR_ID")]
    sets: Vec<String>,
    /// Resume an interrupted or cancelled run (its result id), or help a running one (a
    /// killed `eval`'s, whose cases are claimed once its leases end): only the case runs not
    /// stored yet run, with the eval set, config and agent it started with.
    #[arg(long, value_name = "RESULT_ID", conflicts_with_all = ["config", "agent", "num_runs", "metrics", "label", "tools", "replay_miss"])]
    resume: Option<String>,
    /// Eval config (ADK's test_config.json). Default: a test_config.json beside the evalset
    /// file, as ADK looks for it; else tool_trajectory_avg_score 1.0, response_match_score 0.8.
    #[arg(long)]
    config: Option<PathBuf>,
    /// The agent profile to run; by default the one named like --app.
    #[arg(long)]
    agent: Option<String>,
    /// The app whose evalsets ids name, and the app in result ids.
    #[arg(long, default_value = DEFAULT_APP)]
    app: String,
    /// Agent profiles (TOML); by default ./evalstudio.toml when it exists.
    #[arg(long, env = "EVALSTUDIO_CONFIG")]
    profiles: Option<PathBuf>,
    /// Runs per case; each metric is judged on the mean over all runs.
    #[arg(long, default_value_t = 1)]
    num_runs: usize,
    /// What to call the run where it is listed (the browser shows it instead of its time).
    #[arg(long)]
    label: Option<String>,
    /// `live` runs the tools; `replay` answers each call that matches one the case recorded
    /// (same name and arguments, in the same turn) with its recorded result.
    #[arg(long, value_name = "MODE", value_parser = ["live", "replay"])]
    tools: Option<String>,
    /// Under --tools replay, what a call with no recorded match gets: `live` runs the tool,
    /// `error` answers the model that there is no recorded result.
    #[arg(long, value_name = "MISS", value_parser = ["live", "error"], requires = "tools")]
    replay_miss: Option<String>,
    /// Cases run at the same time.
    #[arg(long, default_value_t = 8)]
    concurrency: usize,
    /// Only these metrics of the config, comma-separated.
    #[arg(long, value_delimiter = ',')]
    metrics: Option<Vec<String>>,
    /// Write the results as ADK's EvalSetResult JSON (an array of them for several evalsets).
    #[arg(long, value_name = "OUT")]
    json: Option<PathBuf>,
    /// Write the results as a JUnit XML report (one test case per eval case).
    #[arg(long, value_name = "OUT")]
    junit: Option<PathBuf>,
}

/// Records a run per evalset (or takes the one to resume), runs them one after the other and
/// prints each one's table; exits 0 when every case passed, 1 when any did not or the run was
/// cancelled (Ctrl-C).
pub async fn eval(db: &Location, args: EvalArgs) -> Result<ExitCode, CliError> {
    if args.concurrency == 0 {
        return Err(CliError::Usage("--concurrency must be at least 1".into()));
    }
    let config = Config::load(args.profiles.as_deref()).map_err(CliError::Profiles)?;
    let store = Store::open(db).await?;
    let services = config.build_scoring_for_own_files();
    // Each run with its agent: a resumed run keeps the one it started with.
    let mut runs: Vec<(EvalRunRecord, Arc<dyn Agent>)> = Vec::new();
    if let Some(result_id) = &args.resume {
        let evaluators = &services.evaluators;
        runs.push(take_up_run(&store, &config.profiles, evaluators, &args.app, result_id).await?);
    }
    for name in &args.sets {
        let request = run_request(&store, &args, name).await?;
        let plan = plan_run(&store, &config.profiles, &services.evaluators, request).await?;
        runs.push((record_run(&store, &plan).await?, plan.agent));
    }

    let options = RunOptions {
        num_runs: args.num_runs,
        concurrency: args.concurrency,
        ..RunOptions::default()
    };
    // Ctrl-C stops the run; what finished stays stored and `--resume` picks it up.
    let (cancel, cancelled) = tokio::sync::watch::channel(false);
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            let _ = cancel.send(true);
        }
    });
    let mut json = JsonResults::create(args.json.as_deref(), runs.len())?;
    let mut junit = args.junit.as_deref().map(JunitFile::create).transpose()?;
    let mut all_passed = true;
    for (record, agent) in runs {
        let summary = &record.summary;
        let case_count = summary.case_count();
        eprintln!(
            "running {} ({} case{} × {} run{}) on agent `{}`, results as `{}`",
            summary.eval_set_id,
            case_count,
            if case_count == 1 { "" } else { "s" },
            summary.num_runs,
            if summary.num_runs == 1 { "" } else { "s" },
            summary.agent,
            summary.result_id,
        );
        let mut progress = Progress::new(summary.total as usize, summary.done as usize);
        let outcome = execute_eval_run(
            &store,
            &record,
            agent,
            &services,
            &options,
            cancelled.clone(),
            |case| progress.step(case),
        )
        .await;
        progress.finish();
        let status = match outcome {
            Ok(status) => status,
            Err(failure) => {
                settle_failure(&store, &record, &failure).await;
                return Err(CliError::Run(failure.to_string()));
            }
        };
        if status != RunStatus::Finished {
            if status == RunStatus::Cancelled {
                // Stopped here by Ctrl-C: the store hears it too, for the other workers.
                stop_run(&store, &record).await?;
            }
            eprintln!(
                "{}; the finished cases are stored. Resume with: evalstudio eval --resume {} --app {}",
                status.as_str(),
                summary.result_id,
                summary.app_name
            );
            // Not every case ran, so not every case passed.
            return Ok(cases_exit_code(false));
        }
        let verdicts = run_verdicts(&store, &summary.app_name, &summary.result_id).await?;
        let summaries = &verdicts.summaries;
        let errors: Vec<&EvalRunCase> = verdicts.errors.iter().collect();
        println!("{}", summary.eval_set_id);
        print_results(summaries, summary.num_runs as usize, &errors)?;
        all_passed &= summaries
            .iter()
            .all(|case| case.final_eval_status == EvalStatus::Passed);
        if let Some(junit) = &mut junit {
            junit.suite(&verdicts)?;
        }
        if let Some(json) = &mut json {
            json.append(&store, &record).await?;
        }
    }
    if let Some(json) = json {
        json.finish()?;
    }
    if let Some(junit) = junit {
        junit.finish()?;
    }
    Ok(cases_exit_code(all_passed))
}

/// Prints a run's table and its agent errors, a row at a time.
fn print_results(summaries: &[CaseSummary], runs: usize, errors: &[&EvalRunCase]) -> Result<(), CliError> {
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    table::write_results_table(&mut out, summaries, runs)
        .and_then(|()| out.write_all(table::error_lines(errors).as_bytes()))
        .and_then(|()| out.flush())
        .map_err(|err| CliError::Run(format!("cannot print the results: {err}")))
}

/// `--json`: ADK's EvalSetResult of each run (a list of them when there are several), each
/// read from the store a page at a time once its run has finished, so memory never holds a
/// whole result.
struct JsonResults {
    file: ResultFile,
    several: bool,
    written: usize,
}

impl JsonResults {
    fn create(path: Option<&Path>, runs: usize) -> Result<Option<Self>, CliError> {
        let Some(path) = path else { return Ok(None) };
        Ok(Some(JsonResults {
            file: ResultFile::create(path)?,
            several: runs > 1,
            written: 0,
        }))
    }

    /// Appends the finished run.
    async fn append(&mut self, store: &Store, record: &EvalRunRecord) -> Result<(), CliError> {
        let before: &[u8] = match (self.several, self.written) {
            (false, _) => b"",
            (true, 0) => b"[\n  ",
            (true, _) => b",\n  ",
        };
        self.write(before)?;
        let summary = &record.summary;
        let run_failed = |err: EvalRunError| CliError::Run(err.to_string());
        let mut chunks = adk_result_chunks(
            store,
            &summary.app_name,
            &summary.result_id,
            usize::from(self.several),
        )
        .await
        .map_err(run_failed)?
        .chunks;
        while let Some(chunk) = chunks.next().await {
            self.write(&chunk.map_err(run_failed)?)?;
        }
        self.written += 1;
        Ok(())
    }

    fn write(&mut self, bytes: &[u8]) -> Result<(), CliError> {
        self.file.write_all(bytes).map_err(|err| self.file.error(err))
    }

    fn finish(mut self) -> Result<(), CliError> {
        if self.several {
            self.write(b"\n]")?;
        }
        self.file.keep()
    }
}

/// `--junit`: a suite per run, written once its run has ended.
struct JunitFile {
    path: PathBuf,
    writer: JunitWriter<ResultFile>,
}

impl JunitFile {
    fn create(path: &Path) -> Result<Self, CliError> {
        let writer = JunitWriter::begin(ResultFile::create(path)?).map_err(|err| write_error(path, err))?;
        Ok(JunitFile {
            path: path.to_path_buf(),
            writer,
        })
    }

    fn suite(&mut self, verdicts: &RunVerdicts) -> Result<(), CliError> {
        self.writer
            .suite(
                &verdicts.summary.eval_set_id,
                &verdicts.summaries,
                &verdicts.junit_errors(),
            )
            .map_err(|err| write_error(&self.path, err))
    }

    fn finish(self) -> Result<(), CliError> {
        let path = self.path;
        self.writer
            .finish()
            .map_err(|err| write_error(&path, err))?
            .keep()
    }
}

/// The run `args` ask for of the evalset `name` (a file, else an evalset id in the database).
async fn run_request(store: &Store, args: &EvalArgs, name: &str) -> Result<RunRequest, CliError> {
    let path = Path::new(name);
    let (set, file) = if path.exists() {
        (read_compact_eval_set(path)?, Some(path))
    } else {
        let input_error = |message| CliError::Input {
            name: name.to_string(),
            message,
        };
        let json = store
            .export_adk_json(&args.app, name)
            .await
            .map_err(|err| input_error(format!("no such file, and {err}")))?;
        let set = CompactEvalSet::from_adk_json(&json).map_err(|err| input_error(err.to_string()))?;
        (set, None)
    };
    let config = eval_config(args.config.as_deref(), file)?;
    let config = match &args.metrics {
        Some(only) => only_metrics(config, only)?,
        None => config,
    };
    Ok(RunRequest {
        app_name: args.app.clone(),
        eval_set: RunEvalSet::Given(set),
        scope: RunScope::All,
        metrics: RunMetrics::Config(config),
        simulator: None,
        agent: args.agent.clone(),
        num_runs: args.num_runs,
        label: args.label.clone(),
        tools: tool_execution(args.tools.as_deref(), args.replay_miss.as_deref())?,
    })
}

/// The config to score with: `--config`, else a test_config.json beside the evalset file,
/// else ADK's defaults.
fn eval_config(explicit: Option<&Path>, file: Option<&Path>) -> Result<EvalConfig, CliError> {
    let beside = file
        .and_then(Path::parent)
        .map(|dir| dir.join("test_config.json"))
        .filter(|path| path.is_file());
    match explicit.map(Path::to_path_buf).or(beside) {
        None => Ok(EvalConfig::default()),
        Some(path) => read_eval_config(&path),
    }
}

/// The config narrowed to the `--metrics` named, each of which it must have.
fn only_metrics(mut config: EvalConfig, only: &[String]) -> Result<EvalConfig, CliError> {
    if let Some(unknown) = only
        .iter()
        .find(|name| !config.metrics.iter().any(|m| &m.name == *name))
    {
        let known: Vec<&str> = config.metrics.iter().map(|m| m.name.as_str()).collect();
        return Err(CliError::Usage(format!(
            "--metrics: `{unknown}` is not in the eval config (it has: {})",
            known.join(", ")
        )));
    }
    // The informational metrics stay: every eval reports them, as in ADK.
    config
        .metrics
        .retain(|m| m.is_informational() || only.contains(&m.name));
    Ok(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(config: &EvalConfig) -> Vec<&str> {
        config.metrics.iter().map(|m| m.name.as_str()).collect()
    }

    #[test]
    fn metrics_narrow_the_config_and_keep_the_informational_ones() {
        let config = only_metrics(EvalConfig::default(), &["response_match_score".into()]).unwrap();
        let names = names(&config);
        assert!(names.contains(&"response_match_score"), "{names:?}");
        assert!(!names.contains(&"tool_trajectory_avg_score"), "{names:?}");
        assert!(names.contains(&"token_usage_v1"), "{names:?}");
    }

    #[test]
    fn a_metric_not_in_the_config_is_a_usage_error_naming_those_that_are() {
        let err = only_metrics(EvalConfig::default(), &["bleu".into()]).unwrap_err();
        assert!(matches!(err, CliError::Usage(_)), "{err:?}");
        assert!(
            err.to_string().starts_with(
                "--metrics: `bleu` is not in the eval config (it has: tool_trajectory_avg_score, "
            ),
            "{err}"
        );
    }
}
