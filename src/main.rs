//! The `evalstudio` command: `serve` (the default), `import`, `export` and `score`.

#[cfg(feature = "ssr")]
mod cli {
    use clap::{Parser, Subcommand};
    use evalstudio::api::{import_file, now_seconds, DEFAULT_APP};
    use evalstudio::eval::{score_eval_set, EvalConfig, EvalSetResult, EvalStatus, ScoredEvalSet};
    use evalstudio::evalset::{eval_set_id_from_file_name, parse_evalset_file, EvalSet, LegacyDefaults};
    use evalstudio::server::{serve, ServeConfig, DEFAULT_MAX_BODY_BYTES};
    use evalstudio::store::Store;
    use std::net::SocketAddr;
    use std::path::{Path, PathBuf};
    use std::process::ExitCode;

    #[derive(Parser)]
    #[command(
        name = "evalstudio",
        version,
        about = "Build and run ADK evalsets for tool-calling agents"
    )]
    struct Cli {
        /// SQLite database file (created on first use).
        #[arg(
            long,
            global = true,
            env = "EVALSTUDIO_DB",
            default_value = "data/evalstudio.db"
        )]
        db: PathBuf,
        #[command(subcommand)]
        command: Option<Command>,
    }

    #[derive(Subcommand)]
    enum Command {
        /// Serve the web app and the REST API (the default).
        Serve(ServeArgs),
        /// Import evalset files (ADK evalset JSON or the legacy lists).
        Import {
            #[arg(required = true)]
            files: Vec<PathBuf>,
            /// The app (agent profile) the evalsets belong to.
            #[arg(long, default_value = DEFAULT_APP)]
            app: String,
            /// Replace evalsets that already exist instead of failing.
            #[arg(long)]
            replace: bool,
        },
        /// Write an evalset as ADK's evalset JSON.
        Export {
            eval_set_id: String,
            #[arg(long, default_value = DEFAULT_APP)]
            app: String,
            /// Output file; standard output when absent.
            #[arg(short, long)]
            output: Option<PathBuf>,
        },
        /// Score actual invocations against an evalset's expected ones, without running an agent.
        /// Exits 0 when every case passed, 1 when any did not, 2 on bad input.
        Score {
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
        },
    }

    #[derive(Parser)]
    struct ServeArgs {
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

    pub async fn main() -> ExitCode {
        let cli = Cli::parse();
        let serve_args = || ServeArgs::parse_from(["serve"]);
        match cli.command.unwrap_or_else(|| Command::Serve(serve_args())) {
            Command::Serve(args) => {
                let config = ServeConfig {
                    addr: args.addr,
                    db_path: cli.db,
                    site_root: args.site_root,
                    max_body_bytes: args.max_body_bytes,
                    config_path: args.config,
                };
                match serve(config).await {
                    Ok(()) => ExitCode::SUCCESS,
                    Err(err) => fail(err),
                }
            }
            Command::Import { files, app, replace } => import(&cli.db, &files, &app, replace).await,
            Command::Export {
                eval_set_id,
                app,
                output,
            } => export(&cli.db, &eval_set_id, &app, output).await,
            Command::Score {
                expected,
                actual,
                config,
                json,
                app,
            } => score(&expected, &actual, config.as_deref(), json.as_deref(), &app),
        }
    }

    async fn import(db: &Path, files: &[PathBuf], app: &str, replace: bool) -> ExitCode {
        if let Err(message) = evalstudio::api::validate_app_name(app) {
            return fail(message);
        }
        let store = match Store::open(db).await {
            Ok(store) => store,
            Err(err) => return fail(err),
        };
        let mut failed = false;
        for file in files {
            let outcome = match std::fs::read_to_string(file) {
                Err(err) => Err(format!("cannot read it: {err}")),
                Ok(text) => {
                    let name = file
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    import_file(&store, app, &name, None, &text, replace)
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
                Err(message) => {
                    eprintln!("error: {}: {message}", file.display());
                    failed = true;
                }
            }
        }
        if failed {
            ExitCode::from(2)
        } else {
            ExitCode::SUCCESS
        }
    }

    async fn export(db: &Path, eval_set_id: &str, app: &str, output: Option<PathBuf>) -> ExitCode {
        let store = match Store::open(db).await {
            Ok(store) => store,
            Err(err) => return fail(err),
        };
        let json = match store.export_adk_json(app, eval_set_id).await {
            Ok(json) => json,
            Err(err) => return fail(err),
        };
        let written = match &output {
            Some(path) => {
                std::fs::write(path, &json).map_err(|e| format!("cannot write {}: {e}", path.display()))
            }
            None => {
                println!("{json}");
                Ok(())
            }
        };
        match written {
            Ok(()) => ExitCode::SUCCESS,
            Err(message) => fail(message),
        }
    }

    fn score(
        expected: &Path,
        actual: &[PathBuf],
        config: Option<&Path>,
        json: Option<&Path>,
        app: &str,
    ) -> ExitCode {
        let config = match config {
            None => EvalConfig::default(),
            Some(path) => {
                match read(path).and_then(|text| EvalConfig::parse(&text).map_err(|e| e.to_string())) {
                    Ok(config) => config,
                    Err(message) => return fail(format!("{}: {message}", path.display())),
                }
            }
        };
        let expected_set = match read_eval_set(expected) {
            Ok(set) => set,
            Err(message) => return fail(format!("{}: {message}", expected.display())),
        };
        let mut runs = Vec::with_capacity(actual.len());
        for path in actual {
            match read_eval_set(path) {
                Ok(set) => runs.push(set),
                Err(message) => return fail(format!("{}: {message}", path.display())),
            }
        }
        let scored = match score_eval_set(&expected_set, &runs, &config) {
            Ok(scored) => scored,
            Err(err) => return fail(format!("{}: {err}", actual[err.run].display())),
        };
        print_table(&scored, runs.len());
        let all_passed = scored
            .summaries
            .iter()
            .all(|case| case.final_eval_status == EvalStatus::Passed);
        if let Some(path) = json {
            let result = EvalSetResult::new(app, &expected_set.eval_set_id, scored, now_seconds());
            let text = serde_json::to_string_pretty(&result).expect("results serialise");
            if let Err(err) = std::fs::write(path, text) {
                return fail(format!("cannot write {}: {err}", path.display()));
            }
        }
        if all_passed {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        }
    }

    fn read(path: &Path) -> Result<String, String> {
        std::fs::read_to_string(path).map_err(|e| format!("cannot read it: {e}"))
    }

    /// Reads an evalset file in any form `import` accepts.
    fn read_eval_set(path: &Path) -> Result<EvalSet, String> {
        let text = read(path)?;
        let file_name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut new_invocation_id = || uuid::Uuid::new_v4().to_string();
        let legacy = LegacyDefaults {
            name: &eval_set_id_from_file_name(&file_name),
            file_name: &file_name,
            now: now_seconds(),
            new_invocation_id: &mut new_invocation_id,
        };
        parse_evalset_file(&text, legacy)
            .map(|(set, _)| set)
            .map_err(|e| e.to_string())
    }

    /// One row per case and metric, then the counts.
    fn print_table(scored: &ScoredEvalSet, runs: usize) {
        let number = |value: Option<f64>| value.map_or("-".to_string(), |v| format!("{v:.4}"));
        let mut rows = vec![["case", "metric", "score", "threshold", "status"].map(String::from)];
        for case in &scored.summaries {
            for metric in &case.metrics {
                rows.push([
                    case.eval_id.clone(),
                    metric.metric_name.clone(),
                    number(metric.score),
                    number(Some(metric.threshold)),
                    metric.eval_status.to_string(),
                ]);
            }
            let status = case.final_eval_status.to_string();
            rows.push([
                case.eval_id.clone(),
                "(case)".into(),
                String::new(),
                String::new(),
                status,
            ]);
        }
        let widths: Vec<usize> = (0..5)
            .map(|column| {
                rows.iter()
                    .map(|row| row[column].chars().count())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        for row in &rows {
            let [case, metric, score, threshold, status] = row;
            println!(
                "{case:<w0$}  {metric:<w1$}  {score:>w2$}  {threshold:>w3$}  {status}",
                w0 = widths[0],
                w1 = widths[1],
                w2 = widths[2],
                w3 = widths[3],
            );
        }
        let count = |status: EvalStatus| {
            scored
                .summaries
                .iter()
                .filter(|case| case.final_eval_status == status)
                .count()
        };
        let over_runs = if runs > 1 {
            format!(" (scores are means over {runs} runs)")
        } else {
            String::new()
        };
        let cases = scored.summaries.len();
        println!(
            "{cases} case{}: {} passed, {} failed, {} not evaluated{over_runs}",
            if cases == 1 { "" } else { "s" },
            count(EvalStatus::Passed),
            count(EvalStatus::Failed),
            count(EvalStatus::NotEvaluated),
        );
    }

    fn fail(err: impl std::fmt::Display) -> ExitCode {
        eprintln!("error: {err}");
        ExitCode::from(2)
    }
}

#[cfg(feature = "ssr")]
#[tokio::main]
async fn main() -> std::process::ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| "info,sqlx=warn,tower_http=warn".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    cli::main().await
}

#[cfg(not(feature = "ssr"))]
pub fn main() {
    // The binary is built with the "ssr" feature; the browser side is the library's hydrate().
}
