//! The `evalstudio` command: `serve` (the default), `import` and `export`.

#[cfg(feature = "ssr")]
mod cli {
    use clap::{Parser, Subcommand};
    use evalstudio::api::{import_file, DEFAULT_APP};
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
