//! Assembling and running the HTTP server: Leptos pages and server functions, the REST API
//! under `/apps`, and the static site (wasm, css, favicon; `assets` serves the built ones).

mod adk_web_ui;
mod assets;
mod headers;
mod listen;

use crate::api::access::{
    guard_pages_and_server_fns, identify, limit_streams, refuse_page, AuthGate, Routes, StreamCounter,
    StreamLimits,
};
use crate::api::{rest, AppState};
use crate::app::{shell, App};
use crate::config::{AuthConfig, Config, OtlpConfig};
use crate::folder::{AdkServer, AgentsDir};
use crate::service::auth::LoginPolicy;
use crate::service::folder::Folder;
use crate::service::runs::workers::{stop_working, work_queue, WorkerSettings};
use crate::service::traces::{keep_pruning, OtlpSettings};
use crate::service::{startup, Services};
use crate::store::Location;
use crate::store::Store;
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::Uri;
use axum::middleware;
use axum::response::Response;
use axum::{Extension, Router};
use leptos::config::LeptosOptions;
use leptos_axum::{generate_route_list, AxumRouteListing, LeptosRoutes};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

/// The app's pages, listed once per process. Listing them runs the app with resource loading
/// suppressed process-wide (leptos_server's `SuppressResourceLoad`): a page another server of
/// the same process rendered meanwhile would wait forever for its data (leptos #4773), which
/// the API tests, many servers in one process, ran into.
fn page_routes() -> Vec<AxumRouteListing> {
    static ROUTES: OnceLock<Vec<AxumRouteListing>> = OnceLock::new();
    ROUTES.get_or_init(|| generate_route_list(App)).clone()
}

/// Default request body limit: imports of large evalsets fit, accidents do not.
pub const DEFAULT_MAX_BODY_BYTES: usize = 32 * 1024 * 1024;

#[derive(Debug, Clone)]
pub struct ServeConfig {
    pub addr: SocketAddr,
    pub db: Location,
    /// Directory holding `pkg/` (the built wasm, js and css) and the public assets.
    pub site_root: String,
    pub max_body_bytes: usize,
    /// The agent profiles file; `None` reads `evalstudio.toml` if it exists.
    pub config_path: Option<PathBuf>,
    /// Folder mode: the ADK agents folder whose evalset files are the truth, and the `adk`
    /// to run its api_server with (the one on PATH when `None`).
    pub agents_dir: Option<PathBuf>,
    pub adk: Option<PathBuf>,
    /// adk-web's folder (google-adk's `cli/browser`), served at `/dev-ui/`; in folder mode it is
    /// looked for in the `adk` environment when not given.
    pub adk_web_ui: Option<PathBuf>,
    /// Serve beyond loopback without `[auth]`: anyone who can reach it may do anything.
    pub insecure_no_auth: bool,
    /// Whether this server works on eval runs too (`--no-worker` turns it off), and how many
    /// case runs of a run at once.
    pub worker: WorkerSettings,
}

pub fn leptos_options(config: &ServeConfig) -> LeptosOptions {
    LeptosOptions::builder()
        .output_name("evalstudio")
        .site_root(config.site_root.as_str())
        .site_pkg_dir(assets::pkg_dir(&config.site_root))
        .site_addr(config.addr)
        .build()
}

/// The whole application as one router, auth off.
pub fn router(services: Services, options: LeptosOptions, max_body_bytes: usize) -> Router {
    router_with(
        services,
        options,
        max_body_bytes,
        None,
        Gate::Open,
        StreamLimits::default(),
    )
}

/// Every route the server declares, with the role each needs (the route-walk test lists them).
pub fn declared_routes(adk_web_ui: Option<&std::path::Path>) -> Routes {
    let web_ui = adk_web_ui.map(adk_web_ui::routes).unwrap_or_default();
    rest::routes().merge(web_ui)
}

/// Who may reach the router: anyone (auth off; `LoopbackOnly` answers only requests that name
/// a loopback host), or whoever the sign-in gate lets in.
pub enum Gate {
    Open,
    LoopbackOnly,
    SignIn(Arc<AuthGate>),
}

/// The router: the REST routes from their registry, Leptos's pages and server functions behind
/// their own check, ADK's web UI at `/dev-ui/` when its folder is given, and around it all the
/// gate that finds the caller (`auth`; `None`: auth off).
pub fn router_with(
    services: Services,
    options: LeptosOptions,
    max_body_bytes: usize,
    adk_web_ui: Option<&std::path::Path>,
    gate: Gate,
    streams: StreamLimits,
) -> Router {
    let (site_root, pkg_dir) = (options.site_root.to_string(), options.site_pkg_dir.to_string());
    let state = AppState {
        services,
        leptos_options: options,
        loopback_only: matches!(gate, Gate::LoopbackOnly),
        auth: match gate {
            Gate::SignIn(gate) => Some(gate),
            Gate::Open | Gate::LoopbackOnly => None,
        },
    };
    let pages = Router::new()
        .leptos_routes(&state, page_routes(), {
            let options = state.leptos_options.clone();
            move || shell(options.clone())
        })
        .route_layer(middleware::from_fn(guard_pages_and_server_fns));
    let app = declared_routes(adk_web_ui)
        .into_router()
        .merge(pages)
        .fallback(fallback);
    assets::serve_assets(app, &site_root, &pkg_dir)
        .layer(middleware::from_fn_with_state(
            StreamCounter::new(streams),
            limit_streams,
        ))
        .layer(middleware::from_fn_with_state(state.clone(), identify))
        .layer(middleware::from_fn(headers::security_headers))
        .layer(DefaultBodyLimit::max(max_body_bytes))
        .layer(Extension(rest::BodyLimit(max_body_bytes)))
        .with_state(state)
}

/// What no route matched: a file of the site (the favicon; anyone's), else the app rendered at
/// that path (a mistyped or trailing-slash path renders pages too: a viewer's, as theirs are).
async fn fallback(State(state): State<AppState>, uri: Uri, request: Request) -> Response {
    let site_file = !uri.path().contains("..")
        && std::path::Path::new(&*state.leptos_options.site_root)
            .join(uri.path().trim_start_matches('/'))
            .is_file();
    if !site_file {
        if let Some(refused) = refuse_page(&request) {
            return refused;
        }
    }
    leptos_axum::file_and_error_handler::<AppState, _>(shell)(uri, State(state), request).await
}

/// A server that has opened its store and bound its address, ready to serve.
pub struct Server {
    listener: tokio::net::TcpListener,
    app: Router,
    /// Folder mode's ADK api_server, stopped with the server.
    adk: Option<AdkServer>,
    /// The worker looking for eval runs to work on, stopped with the server.
    worker: Background,
    /// What deletes spans past the `[otlp]` retention, when the receiver is on.
    pruner: Option<Background>,
    /// What the app works with, for what the server does as it stops.
    services: Services,
}

/// A task that ends when its handle is dropped.
struct Background(tokio::task::JoinHandle<()>);

impl Drop for Background {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl Server {
    /// Loads the config, opens the database (tidying it: old deleted cases forgotten), builds
    /// the app, starts its worker and binds its address: all that `evalstudio serve` does
    /// before it serves, and what the tests start.
    pub async fn bind(config: ServeConfig) -> Result<Server, Box<dyn std::error::Error>> {
        crate::outbound::use_ring_for_tls();
        let mut app_config = Config::load(config.config_path.as_deref())?;
        let store = Store::open(&config.db).await?;
        tidy(&store).await?;
        let (folder, adk) = match &config.agents_dir {
            Some(dir) => {
                let (folder, adk) = open_folder(dir, config.adk.as_deref(), &store, &mut app_config).await?;
                (Some(folder), adk)
            }
            None => (None, None),
        };
        let gate = gate(&config, app_config.auth.as_ref())?;
        let listener = tokio::net::TcpListener::bind(config.addr).await.map_err(|e| {
            format!(
                "could not listen on {}: {e} (pick another with --addr)",
                config.addr
            )
        })?;
        let names: Vec<&str> = app_config.profiles.iter().map(|p| p.name.as_str()).collect();
        tracing::info!("agent profiles: {}", names.join(", "));
        if !PathBuf::from(&config.site_root).join("pkg").is_dir() {
            tracing::warn!(
                "no built site at {}/pkg: pages will load without scripts and styles. \
                 Build with `make build`, or point --site-root at the site directory",
                config.site_root
            );
        }
        let scoring = app_config.build_scoring();
        let mut services = Services::new(store, app_config.profiles, scoring);
        services.worker = config.worker;
        if let Some(folder) = folder {
            services = services.with_folder(folder);
        }
        services.otlp = app_config.otlp.as_ref().map(otlp_settings);
        let pruner = services.otlp.clone().map(|settings| {
            tracing::info!("receiving OpenTelemetry traces at /v1/traces");
            Background(tokio::spawn(keep_pruning(services.store.clone(), settings)))
        });
        if !config.worker.enabled {
            tracing::warn!(
                "no worker here (--no-worker): eval runs wait for an `evalstudio worker` on this database"
            );
        }
        let worker = Background(tokio::spawn(work_queue(services.clone())));
        let kept = services.clone();
        let web_ui = config.adk_web_ui.clone().or_else(|| {
            let adk = adk.as_ref()?;
            adk_web_ui::find_in_adk_environment(adk.command())
        });
        if let Some(dir) = &web_ui {
            tracing::info!("ADK's web UI from {} at /dev-ui/", dir.display());
        }
        let app = router_with(
            services,
            leptos_options(&config),
            config.max_body_bytes,
            web_ui.as_deref(),
            gate,
            StreamLimits {
                per_user: app_config.limits.event_streams_per_user,
                total: app_config.limits.event_streams_total,
            },
        );
        tracing::info!(db = %config.db, "Evalstudio listening on http://{}", listener.local_addr()?);
        Ok(Server {
            listener,
            app,
            adk,
            worker,
            pruner,
            services: kept,
        })
    }

    /// The address it listens on (the port chosen, when the config asked for port 0).
    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// Serves until `shutdown` completes.
    pub async fn run(
        self,
        shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
        // The peer's address reaches the gate: the login's rate limit, which proxies are trusted.
        let served = listen::serve(self.listener, self.app, shutdown).await;
        drop(self.worker);
        drop(self.pruner);
        stop_working(&self.services).await;
        drop(self.adk);
        served
    }
}

/// The receiver's settings from evalstudio.toml's `[otlp]`.
fn otlp_settings(otlp: &OtlpConfig) -> OtlpSettings {
    OtlpSettings {
        max_body_bytes: otlp.max_body_bytes(),
        retention_seconds: otlp.retention_days * 86_400.0,
        keep_spans: otlp.retention_spans,
        quiet_seconds: otlp.quiet_period_secs,
    }
}

/// Opens the agents folder: starts ADK's api_server on it (its apps are what ADK lists, each an
/// `adk` profile of its own name), reads the evalset files and keeps them in step. Without
/// `adk`, the apps are the folders that look like ADK's and chat is off.
async fn open_folder(
    dir: &std::path::Path,
    adk: Option<&std::path::Path>,
    store: &Store,
    config: &mut Config,
) -> Result<(Arc<Folder>, Option<AdkServer>), Box<dyn std::error::Error>> {
    let dir =
        AgentsDir::new(dir).map_err(|e| format!("cannot open the agents folder {}: {e}", dir.display()))?;
    tracing::info!("starting ADK's api_server for {}", dir.root().display());
    let secrets = config.secret_variable_names();
    let (apps, server, chat_off) = match AdkServer::start(&dir, adk, &secrets).await {
        Ok(server) => {
            for app in server.apps() {
                config
                    .profiles
                    .add_adk_app(app, server.base_url(), &server.request_headers());
            }
            (server.apps().to_vec(), Some(server), None)
        }
        Err(err) => {
            tracing::warn!("{err}");
            (dir.apps_without_adk(), None, Some(err.to_string()))
        }
    };
    tracing::info!("apps in {}: {}", dir.root().display(), apps.join(", "));
    let folder = Folder::open(store, dir, apps, chat_off).await?;
    Ok((folder, server))
}

/// Who may reach this server: with `[auth]`, whoever signs in; without it on a loopback bind,
/// the local user (auth off); elsewhere a missing `[auth]` refuses to start, unless the user
/// insisted.
fn gate(config: &ServeConfig, auth: Option<&AuthConfig>) -> Result<Gate, String> {
    let Some(auth) = auth else {
        if config.addr.ip().is_loopback() {
            return Ok(Gate::LoopbackOnly);
        }
        if config.insecure_no_auth {
            tracing::warn!(
                "serving {} with NO AUTH (--insecure-no-auth): anyone who reaches it can read, edit and \
                 delete every case and run evals on your model keys",
                config.addr
            );
            return Ok(Gate::Open);
        }
        return Err(format!(
            "refusing to serve on {} without sign-in: anyone who can reach it could edit every case and \
             run evals on your keys. Add an [auth] section to evalstudio.toml and a user \
             (`evalstudio user add NAME --role admin`), bind 127.0.0.1, or pass --insecure-no-auth",
            config.addr
        ));
    };
    let proxy_header = match &auth.proxy_header {
        Some(name) => Some(
            name.parse::<axum::http::HeaderName>()
                .map_err(|e| format!("auth.proxy_header: {e}"))?,
        ),
        None => None,
    };
    tracing::info!("auth is on: sign in at /login, or send an API token");
    if !config.addr.ip().is_loopback() && !auth.secure_cookie && auth.trusted_proxies.is_empty() {
        tracing::warn!(
            "serving {} over plain HTTP: passwords, tokens and session cookies cross the network \
             readable; put a TLS proxy in front (auth.trusted_proxies) or set auth.secure_cookie when \
             TLS ends here",
            config.addr
        );
    }
    Ok(Gate::SignIn(Arc::new(AuthGate {
        policy: LoginPolicy {
            session_seconds: auth.session_hours * 3600.0,
            failure_limit: auth.failed_login_limit.into(),
            window_seconds: auth.failed_login_window_minutes * 60.0,
        },
        secure_cookie: auth.secure_cookie,
        trusted_proxies: auth.trusted_proxies.clone(),
        proxy_header,
        proxy_secret_digest: proxy_secret_digest(auth)?,
    })))
}

/// The digest of the secret a trusted proxy sends, read from `proxy_secret_env`; warns when
/// a loopback proxy is believed without one (every local process could claim to be it).
fn proxy_secret_digest(auth: &AuthConfig) -> Result<Option<String>, String> {
    let Some(var) = &auth.proxy_secret_env else {
        if auth.trusted_proxies.iter().any(|ip| ip.is_loopback()) {
            tracing::warn!(
                "auth.trusted_proxies lists a loopback address: any process on this machine (an MCP \
                 server, an evaluator command, agent code) can send the proxy's headers; set \
                 auth.proxy_secret_env so the proxy proves itself with a secret"
            );
        }
        return Ok(None);
    };
    match std::env::var(var) {
        Ok(secret) if secret.len() >= 16 => Ok(Some(crate::service::auth::digest(&secret))),
        Ok(_) => Err(format!(
            "auth.proxy_secret_env: {var} holds fewer than 16 characters"
        )),
        Err(_) => Err(format!(
            "auth.proxy_secret_env: the environment variable {var} is not set"
        )),
    }
}

/// Tidies the store as start-up does, saying what it did.
async fn tidy(store: &Store) -> Result<(), crate::store::StoreError> {
    let tidied = startup::tidy(store).await?;
    if tidied.forgotten_cases > 0 {
        tracing::info!(
            "forgot {} eval case(s) deleted more than a day ago",
            tidied.forgotten_cases
        );
    }
    Ok(())
}

/// Opens the database, binds and serves until Ctrl-C.
pub async fn serve(config: ServeConfig) -> Result<(), Box<dyn std::error::Error>> {
    let server = Server::bind(config).await?;
    server
        .run(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await?;
    Ok(())
}
