//! The `evalstudio` binary: parses the command line and runs it (see the library's `cli`).

#[cfg(feature = "ssr")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[cfg(feature = "ssr")]
fn main() -> std::process::ExitCode {
    use clap::Parser;
    let cli = evalstudio::cli::Cli::parse();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| "info,sqlx=warn,tower_http=warn,rmcp=warn".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    let runtime = tokio::runtime::Runtime::new().expect("the tokio runtime starts");
    match runtime.block_on(evalstudio::cli::run(cli)) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {err}");
            err.exit_code()
        }
    }
}

#[cfg(not(feature = "ssr"))]
pub fn main() {
    // The binary is built with the "ssr" feature; the browser side is the library's hydrate().
}
