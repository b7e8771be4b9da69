//! The `evalstudio` command: `serve` (the default), `import`, `export`, `eval` and `score`.

#[cfg(feature = "ssr")]
mod cli {
    use clap::{Parser, Subcommand};
    use evalstudio::api::evals::{
        case_summaries, create_eval_run, eval_set_result_json, execute_eval_run, stored_plan, EvalRunPlan,
    };
    use evalstudio::api::{import_file, now_seconds, DEFAULT_APP};
    use evalstudio::config::Config;
    use evalstudio::eval::{
        score_eval_set, CaseSummary, EvalConfig, EvalSetResult, EvalStatus, FinishedCase, LazyMiniLm,
        RunOptions, ScoringServices,
    };
    use evalstudio::evalset::{eval_set_id_from_file_name, parse_evalset_file, EvalSet, LegacyDefaults};
    use evalstudio::server::{serve, ServeConfig, DEFAULT_MAX_BODY_BYTES};
    use evalstudio::store::Store;
    use evalstudio::store::{EvalRunCase, EvalRunRecord, RunStatus};
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
            /// Where the judge model is configured (its [judge] table); by default
            /// ./evalstudio.toml when it exists.
            #[arg(long, env = "EVALSTUDIO_CONFIG")]
            profiles: Option<PathBuf>,
        },
        /// Run evalsets through an agent and score what it does.
        Eval(EvalArgs),
    }

    #[derive(Parser)]
    struct EvalArgs {
        /// Evalset files (any form `import` takes), or ids of evalsets in the database.
        #[arg(required_unless_present = "resume", value_name = "FILE_OR_ID")]
        sets: Vec<String>,
        /// Resume an interrupted or cancelled run (its result id): only the case runs not
        /// stored yet run, with the eval set, config and agent it started with.
        #[arg(long, value_name = "RESULT_ID", conflicts_with_all = ["config", "agent", "num_runs", "metrics"])]
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
                profiles,
            } => {
                score(
                    &expected,
                    &actual,
                    config.as_deref(),
                    json.as_deref(),
                    &app,
                    profiles.as_deref(),
                )
                .await
            }
            Command::Eval(args) => eval(&cli.db, args).await,
        }
    }

    async fn eval(db: &Path, args: EvalArgs) -> ExitCode {
        if args.num_runs == 0 || args.concurrency == 0 {
            return fail("--num-runs and --concurrency must be at least 1");
        }
        let app_config = match Config::load(args.profiles.as_deref()) {
            Ok(app_config) => app_config,
            Err(message) => return fail(message),
        };
        let store = match Store::open(db).await {
            Ok(store) => store,
            Err(err) => return fail(err),
        };
        if let Err(err) = store.mark_interrupted_eval_runs().await {
            return fail(err);
        }
        let resumed = match &args.resume {
            None => None,
            Some(result_id) => match store.eval_run(&args.app, result_id).await {
                Err(err) => return fail(err),
                Ok(record) => match record.summary.check_resumable() {
                    Ok(()) => Some(record),
                    Err(message) => return fail(message),
                },
            },
        };
        // A resumed run keeps the agent it started with.
        let profile = match &resumed {
            Some(record) => record.summary.agent.clone(),
            None => args.agent.clone().unwrap_or_else(|| args.app.clone()),
        };
        let agent: std::sync::Arc<dyn evalstudio::agent::Agent> =
            match app_config.profiles.agent_or_error(&profile) {
                Ok(agent) => agent,
                Err(message) => return fail(message),
            };

        let mut records: Vec<EvalRunRecord> = resumed.into_iter().collect();
        for name in &args.sets {
            let path = Path::new(name);
            let input = if path.exists() {
                read_eval_set(path).map(|set| (set, Some(path)))
            } else {
                match store.export_adk_json(&args.app, name).await {
                    Err(err) => Err(format!("no such file, and {err}")),
                    Ok(json) => read_eval_set_text(&json, name).map(|set| (set, None)),
                }
            };
            let (set, file) = match input {
                Ok(input) => input,
                Err(message) => return fail(format!("{name}: {message}")),
            };
            let config = match eval_config(args.config.as_deref(), file, args.metrics.as_deref()) {
                Ok(config) => config,
                Err(message) => return fail(message),
            };
            let plan = EvalRunPlan {
                app_name: &args.app,
                expected: &set,
                config: &config,
                agent_name: &profile,
                num_runs: args.num_runs,
            };
            match create_eval_run(&store, &plan).await {
                Ok(record) => records.push(record),
                Err(err) => return fail(err),
            }
        }

        let options = RunOptions {
            num_runs: args.num_runs,
            concurrency: args.concurrency,
            ..RunOptions::default()
        };
        let services = ScoringServices {
            judge: app_config.build_judge(),
            embedder: LazyMiniLm::from_environment(),
        };
        // Ctrl-C stops the run; what finished stays stored and `--resume` picks it up.
        let (cancel, cancelled) = tokio::sync::watch::channel(false);
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                let _ = cancel.send(true);
            }
        });
        let mut results = Vec::new();
        let mut junit_suites = Vec::new();
        let mut all_passed = true;
        for record in records {
            let (expected, config) = match stored_plan(&record) {
                Ok(plan) => plan,
                Err(message) => return fail(message),
            };
            let summary = &record.summary;
            eprintln!(
                "running {} ({} case{} × {} run{}) on agent `{}`, results as `{}`",
                expected.eval_set_id,
                expected.eval_cases.len(),
                if expected.eval_cases.len() == 1 { "" } else { "s" },
                summary.num_runs,
                if summary.num_runs == 1 { "" } else { "s" },
                summary.agent,
                summary.result_id,
            );
            let mut progress = Progress::new(summary.total as usize, summary.done as usize);
            let outcome = execute_eval_run(
                &store,
                &record,
                agent.clone(),
                &services,
                &options,
                cancelled.clone(),
                |case| progress.step(case),
            )
            .await;
            progress.finish();
            match outcome {
                Err(message) => return fail(message),
                Ok(RunStatus::Cancelled) => {
                    eprintln!(
                        "cancelled; the finished cases are stored. Resume with: evalstudio eval --resume {} --app {}",
                        summary.result_id, summary.app_name
                    );
                    return ExitCode::from(1);
                }
                Ok(_) => {}
            }
            let cases = match store.eval_run_cases(record.row, false).await {
                Ok(cases) => cases,
                Err(err) => return fail(err),
            };
            let summaries = case_summaries(&expected, &config, &cases);
            let errors: Vec<&EvalRunCase> = cases.iter().filter(|c| c.error.is_some()).collect();
            println!("{}", expected.eval_set_id);
            print_table(&summaries, summary.num_runs as usize);
            for case in &errors {
                println!(
                    "ERROR {} (run {}): {}",
                    case.eval_id,
                    case.run_index + 1,
                    case.error.as_deref().unwrap_or_default()
                );
            }
            all_passed &= summaries
                .iter()
                .all(|case| case.final_eval_status == EvalStatus::Passed);
            junit_suites.push(junit_suite(&expected.eval_set_id, &summaries, &errors));
            if args.json.is_some() {
                let record = match store.eval_run(&summary.app_name, &summary.result_id).await {
                    Ok(record) => record,
                    Err(err) => return fail(err),
                };
                match eval_set_result_json(&store, &record).await {
                    Ok(result) => results.push(result),
                    Err(message) => return fail(message),
                }
            }
        }

        if let Some(path) = &args.json {
            let text = if results.len() == 1 {
                serde_json::to_string_pretty(&results[0])
            } else {
                serde_json::to_string_pretty(&results)
            }
            .expect("results serialise");
            if let Err(err) = std::fs::write(path, text) {
                return fail(format!("cannot write {}: {err}", path.display()));
            }
        }
        if let Some(path) = &args.junit {
            let xml = format!(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"evalstudio\">\n{}</testsuites>\n",
                junit_suites.concat()
            );
            if let Err(err) = std::fs::write(path, xml) {
                return fail(format!("cannot write {}: {err}", path.display()));
            }
        }
        if all_passed {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        }
    }

    /// The config to score with: `--config`, else a test_config.json beside the evalset file,
    /// else ADK's defaults; narrowed to `--metrics` when given.
    fn eval_config(
        explicit: Option<&Path>,
        file: Option<&Path>,
        only: Option<&[String]>,
    ) -> Result<EvalConfig, String> {
        let beside = file
            .and_then(Path::parent)
            .map(|dir| dir.join("test_config.json"))
            .filter(|path| path.is_file());
        let mut config = match explicit.map(Path::to_path_buf).or(beside) {
            None => EvalConfig::default(),
            Some(path) => read(&path)
                .and_then(|text| EvalConfig::parse(&text).map_err(|e| e.to_string()))
                .map_err(|message| format!("{}: {message}", path.display()))?,
        };
        if let Some(only) = only {
            if let Some(unknown) = only
                .iter()
                .find(|name| !config.metrics.iter().any(|m| &m.name == *name))
            {
                let known: Vec<&str> = config.metrics.iter().map(|m| m.name.as_str()).collect();
                return Err(format!(
                    "--metrics: `{unknown}` is not in the eval config (it has: {})",
                    known.join(", ")
                ));
            }
            // The informational metrics stay: every eval reports them, as in ADK.
            config
                .metrics
                .retain(|m| m.is_informational() || only.contains(&m.name));
        }
        Ok(config)
    }

    /// A one-line progress bar on standard error (only when it is a terminal).
    struct Progress {
        total: usize,
        done: usize,
        errors: usize,
        visible: bool,
    }

    impl Progress {
        /// `done`: case runs already stored (when resuming).
        fn new(total: usize, done: usize) -> Progress {
            use std::io::IsTerminal;
            Progress {
                total,
                done,
                errors: 0,
                visible: std::io::stderr().is_terminal(),
            }
        }

        fn step(&mut self, case: &FinishedCase) {
            self.done += 1;
            self.errors += usize::from(case.result.error.is_some());
            if self.visible {
                const WIDTH: usize = 30;
                let filled = WIDTH * self.done / self.total.max(1);
                eprint!(
                    "\r[{}{}] {}/{} case runs{}",
                    "#".repeat(filled),
                    " ".repeat(WIDTH - filled),
                    self.done,
                    self.total,
                    if self.errors > 0 {
                        format!(", {} errors", self.errors)
                    } else {
                        String::new()
                    }
                );
            }
        }

        fn finish(&self) {
            if self.visible {
                eprintln!();
            }
        }
    }

    /// One `<testsuite>`: a test case per eval case, failed when its status is not PASSED, an
    /// error when the agent failed on it.
    fn junit_suite(eval_set_id: &str, summaries: &[CaseSummary], errors: &[&EvalRunCase]) -> String {
        let mut cases = String::new();
        let (mut failures, mut error_count) = (0, 0);
        for summary in summaries {
            let metrics: Vec<String> = summary
                .metrics
                .iter()
                .map(|m| {
                    let score = m.score.map_or("-".to_string(), |s| format!("{s:.4}"));
                    format!(
                        "{}: {score} ({}) {}",
                        m.metric_name,
                        m.threshold_label(),
                        m.eval_status
                    )
                })
                .collect();
            let case_errors: Vec<String> = errors
                .iter()
                .filter(|e| e.eval_id == summary.eval_id)
                .map(|e| {
                    format!(
                        "run {}: {}",
                        e.run_index + 1,
                        e.error.as_deref().unwrap_or_default()
                    )
                })
                .collect();
            let body = if !case_errors.is_empty() {
                error_count += 1;
                format!(
                    "<error message=\"{}\">{}</error>",
                    xml_escape(&case_errors[0]),
                    xml_escape(&[case_errors.join("\n"), metrics.join("\n")].join("\n"))
                )
            } else if summary.final_eval_status != EvalStatus::Passed {
                failures += 1;
                format!(
                    "<failure message=\"{}\">{}</failure>",
                    xml_escape(&summary.final_eval_status.to_string()),
                    xml_escape(&metrics.join("\n"))
                )
            } else {
                String::new()
            };
            cases.push_str(&format!(
                "    <testcase classname=\"{}\" name=\"{}\">{body}</testcase>\n",
                xml_escape(eval_set_id),
                xml_escape(&summary.eval_id)
            ));
        }
        format!(
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failures}\" errors=\"{error_count}\">\n{cases}  </testsuite>\n",
            xml_escape(eval_set_id),
            summaries.len()
        )
    }

    fn xml_escape(text: &str) -> String {
        text.chars()
            .filter(|c| !c.is_control() || matches!(c, '\n' | '\t'))
            .map(|c| match c {
                '&' => "&amp;".to_string(),
                '<' => "&lt;".to_string(),
                '>' => "&gt;".to_string(),
                '"' => "&quot;".to_string(),
                '\'' => "&apos;".to_string(),
                other => other.to_string(),
            })
            .collect()
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

    async fn score(
        expected: &Path,
        actual: &[PathBuf],
        config: Option<&Path>,
        json: Option<&Path>,
        app: &str,
        profiles: Option<&Path>,
    ) -> ExitCode {
        let services = match Config::load(profiles) {
            Ok(app_config) => ScoringServices {
                judge: app_config.build_judge(),
                embedder: LazyMiniLm::from_environment(),
            },
            Err(message) => return fail(message),
        };
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
        let run_count = runs.len();
        let scored = match score_eval_set(&expected_set, runs, &config, &services).await {
            Ok(scored) => scored,
            Err(err) => return fail(format!("{}: {err}", actual[err.run].display())),
        };
        print_table(&scored.summaries, run_count);
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
        read_eval_set_text(&text, &file_name)
    }

    fn read_eval_set_text(text: &str, file_name: &str) -> Result<EvalSet, String> {
        let mut new_invocation_id = || uuid::Uuid::new_v4().to_string();
        let legacy = LegacyDefaults {
            name: &eval_set_id_from_file_name(file_name),
            file_name,
            now: now_seconds(),
            new_invocation_id: &mut new_invocation_id,
        };
        parse_evalset_file(text, legacy)
            .map(|(set, _)| set)
            .map_err(|e| e.to_string())
    }

    /// One row per case and metric, then the counts.
    fn print_table(summaries: &[CaseSummary], runs: usize) {
        let number = |value: Option<f64>| value.map_or("-".to_string(), |v| format!("{v:.4}"));
        let mut rows = vec![["case", "metric", "score", "threshold", "status"].map(String::from)];
        for case in summaries {
            for metric in &case.metrics {
                rows.push([
                    case.eval_id.clone(),
                    metric.metric_name.clone(),
                    number(metric.score),
                    number(metric.threshold),
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
            summaries
                .iter()
                .filter(|case| case.final_eval_status == status)
                .count()
        };
        let over_runs = if runs > 1 {
            format!(" (scores are means over {runs} runs)")
        } else {
            String::new()
        };
        let cases = summaries.len();
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
