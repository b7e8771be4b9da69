//! The app under test, as it runs in production: the real router served on a random 127.0.0.1
//! port over a SQLite file in a temporary directory (or a new PostgreSQL database, see
//! `common::database`), with the requests and checks every test module makes.

use crate::common::database::scratch_database;
use evalstudio::access::Role;
use evalstudio::server::{ServeConfig, Server, DEFAULT_MAX_BODY_BYTES};
use evalstudio::service::auth;
use evalstudio::service::runs::workers::WorkerSettings;
use evalstudio::store::{Location, Store};
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::time::Duration;

/// How long the slow model (`common::spawn_slow_model`) takes to answer in tests that act while
/// it answers: they first see the request reach it, then have this long for a local request or
/// two, which is ample even on a busy machine.
pub const SLOW_MODEL_LATENCY: Duration = Duration::from_secs(2);

pub struct TestApp {
    /// `http://127.0.0.1:PORT`
    pub address: String,
    pub http: reqwest::Client,
    pub database: Location,
    /// Holds the database when it is a file; removed when the test ends.
    _dir: tempfile::TempDir,
}

/// The app with the default body limit and agent profiles (the built-in demo agent).
pub async fn spawn_app() -> TestApp {
    spawn(DEFAULT_MAX_BODY_BYTES, "", None).await
}

/// The app refusing request bodies over `max_body_bytes`.
pub async fn spawn_app_with_body_limit(max_body_bytes: usize) -> TestApp {
    spawn(max_body_bytes, "", None).await
}

/// The app with the agent profiles (and judge) of `config`, an evalstudio.toml.
pub async fn spawn_app_with_config(config: &str) -> TestApp {
    spawn(DEFAULT_MAX_BODY_BYTES, config, None).await
}

/// Starts the app in folder mode on `agents_dir`, as `evalstudio web` does, with the `adk` at
/// `adk` (none: chat off).
pub async fn spawn_folder_app(agents_dir: &std::path::Path, adk: &std::path::Path) -> TestApp {
    spawn(
        DEFAULT_MAX_BODY_BYTES,
        "",
        Some((agents_dir.to_path_buf(), adk.to_path_buf())),
    )
    .await
}

/// Starts the app as `evalstudio serve` does ([`Server::bind`]), its evalstudio.toml holding
/// `app_config`, on a random port.
async fn spawn(max_body_bytes: usize, app_config: &str, folder: Option<(PathBuf, PathBuf)>) -> TestApp {
    let dir = tempfile::tempdir().unwrap();
    // Folder mode is SQLite only, on either pass.
    let database = match folder {
        Some(_) => Location::Sqlite(dir.path().join("evalstudio.db")),
        None => scratch_database(dir.path()).await,
    };
    start(dir, database, max_body_bytes, app_config, folder, true).await
}

/// A server with the agent profiles of `config` that works on no eval runs (`--no-worker`), on
/// a new database: its runs wait for worker processes ([`TestApp::worker_process`]).
pub async fn spawn_app_without_worker(config: &str) -> TestApp {
    let dir = tempfile::tempdir().unwrap();
    let database = scratch_database(dir.path()).await;
    start(dir, database, DEFAULT_MAX_BODY_BYTES, config, None, false).await
}

/// Starts a server on `database`, its config and site in `dir`; it works on eval runs when
/// `worker`.
async fn start(
    dir: tempfile::TempDir,
    database: Location,
    max_body_bytes: usize,
    app_config: &str,
    folder: Option<(PathBuf, PathBuf)>,
    worker: bool,
) -> TestApp {
    let config_path = dir.path().join("evalstudio.toml");
    std::fs::write(&config_path, app_config).unwrap();
    let config = ServeConfig {
        addr: "127.0.0.1:0".parse().unwrap(),
        db: database.clone(),
        site_root: dir.path().join("site").to_string_lossy().into_owned(),
        max_body_bytes,
        config_path: Some(config_path),
        agents_dir: folder.as_ref().map(|(dir, _)| dir.clone()),
        adk: folder.map(|(_, adk)| adk),
        adk_web_ui: None,
        insecure_no_auth: false,
        worker: WorkerSettings {
            enabled: worker,
            ..WorkerSettings::default()
        },
    };
    let server = Server::bind(config).await.unwrap();
    let address = format!("http://{}", server.local_addr().unwrap());
    tokio::spawn(server.run(std::future::pending()));
    TestApp {
        address,
        http: reqwest::Client::new(),
        database,
        _dir: dir,
    }
}

/// An `evalstudio worker` process, killed (-9) when dropped.
pub struct WorkerProcess {
    child: std::process::Child,
    log: PathBuf,
    _dir: tempfile::TempDir,
}

impl WorkerProcess {
    /// Kills it as `kill -9` does: it stores nothing more and renews no lease.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Stops it as Ctrl-C does, and waits for it to exit; answers whether it exited cleanly.
    pub fn interrupt(&mut self) -> bool {
        let pid = self.child.id().to_string();
        let sent = std::process::Command::new("kill")
            .args(["-INT", &pid])
            .status()
            .unwrap();
        assert!(sent.success(), "kill -INT {pid}");
        self.child.wait().unwrap().success()
    }

    /// What it has logged so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for WorkerProcess {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Serves `router` on a random 127.0.0.1 port until the test ends; returns its `http://` address.
pub async fn serve(router: axum::Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    address
}

impl TestApp {
    /// A user of this app's sign-in with `role` (no `password`: by token or proxy header only).
    pub async fn add_user(&self, name: &str, role: Role, password: Option<&str>) {
        let store = Store::open(&self.database).await.unwrap();
        auth::add_user(&store, name, role, password.map(str::to_string))
            .await
            .unwrap();
    }

    /// A new API token of `user`, named `name`: its secret.
    pub async fn new_token(&self, user: &str, name: &str) -> String {
        let store = Store::open(&self.database).await.unwrap();
        auth::create_token(&store, user, name).await.unwrap()
    }

    /// A second server on this one's database, as a team runs several behind a load balancer.
    pub async fn another_server(&self) -> TestApp {
        let dir = tempfile::tempdir().unwrap();
        start(dir, self.database.clone(), DEFAULT_MAX_BODY_BYTES, "", None, true).await
    }

    /// A second server on this one's database with the agent profiles of `config`, working on
    /// no eval runs.
    pub async fn another_server_without_worker(&self, config: &str) -> TestApp {
        let dir = tempfile::tempdir().unwrap();
        start(
            dir,
            self.database.clone(),
            DEFAULT_MAX_BODY_BYTES,
            config,
            None,
            false,
        )
        .await
    }

    /// The database as `--db` takes it (its password included, unlike `Display`).
    pub fn db_arg(&self) -> String {
        match &self.database {
            Location::Sqlite(path) => path.display().to_string(),
            Location::Postgres(url) => url.clone(),
        }
    }

    /// `evalstudio worker` on this app's database, with the agent profiles of `config` and
    /// `concurrency` case runs at once; killed when dropped.
    pub fn worker_process(&self, config: &str, concurrency: usize) -> WorkerProcess {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("evalstudio.toml"), config).unwrap();
        let log = dir.path().join("worker.log");
        let child = std::process::Command::new(env!("CARGO_BIN_EXE_evalstudio"))
            .arg("worker")
            .arg("--db")
            .arg(self.db_arg())
            .args([
                "--config",
                "evalstudio.toml",
                "--concurrency",
                &concurrency.to_string(),
            ])
            .current_dir(dir.path())
            .env_remove("DATABASE_URL")
            .stdout(std::process::Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        WorkerProcess {
            child,
            log,
            _dir: dir,
        }
    }

    /// Runs SQL on the app's database behind its back: `sqlite` or `postgres`, as it is.
    pub async fn execute_sql(&self, sqlite: &str, postgres: &str) {
        match &self.database {
            Location::Sqlite(path) => {
                let pool = sqlx::SqlitePool::connect(&format!("sqlite://{}", path.display()))
                    .await
                    .unwrap();
                sqlx::raw_sql(sqlite).execute(&pool).await.unwrap();
            }
            Location::Postgres(url) => {
                let pool = sqlx::PgPool::connect(url).await.unwrap();
                sqlx::raw_sql(postgres).execute(&pool).await.unwrap();
            }
        };
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.address)
    }

    pub async fn get(&self, path: &str) -> reqwest::Response {
        self.http.get(self.url(path)).send().await.unwrap()
    }

    /// GETs `path`, which must answer 200, as JSON.
    pub async fn get_json(&self, path: &str) -> Value {
        let response = self.get(path).await;
        assert_eq!(response.status(), StatusCode::OK, "GET {path}");
        response.json().await.unwrap()
    }

    pub async fn post(&self, path: &str, body: impl Into<reqwest::Body>) -> reqwest::Response {
        self.http.post(self.url(path)).body(body).send().await.unwrap()
    }

    pub async fn post_json(&self, path: &str, body: &Value) -> reqwest::Response {
        self.http.post(self.url(path)).json(body).send().await.unwrap()
    }

    /// Runs an evalset and waits (REST `run_eval`), answering ADK's case results; the run
    /// must succeed.
    pub async fn run_eval(&self, app_name: &str, eval_set_id: &str, body: &Value) -> Vec<Value> {
        let path = format!("/apps/{app_name}/eval_sets/{eval_set_id}/run_eval");
        let response = self.post_json(&path, body).await;
        assert_eq!(response.status(), reqwest::StatusCode::OK, "POST {path}");
        response.json().await.unwrap()
    }

    /// Starts a run of `eval_set_id`, scored by `response_match_score` 0.8, without waiting for
    /// it (`"wait": false`, answered 202); returns its result id.
    pub async fn start_run(&self, app_name: &str, eval_set_id: &str) -> String {
        let started = self
            .post_json(
                &format!("/apps/{app_name}/eval_sets/{eval_set_id}/run_eval"),
                &json!({"wait": false, "evalMetrics": [{"metricName": "response_match_score", "threshold": 0.8}]}),
            )
            .await;
        assert_eq!(started.status(), StatusCode::ACCEPTED);
        started.json::<Value>().await.unwrap()["eval_set_result_id"]
            .as_str()
            .unwrap()
            .to_string()
    }

    pub async fn put_json(&self, path: &str, body: &Value) -> reqwest::Response {
        self.http.put(self.url(path)).json(body).send().await.unwrap()
    }

    pub async fn delete(&self, path: &str) -> reqwest::Response {
        self.http.delete(self.url(path)).send().await.unwrap()
    }

    /// Imports an evalset file into `app_name` as a new eval set; returns its id.
    pub async fn import(&self, app_name: &str, file: impl Into<reqwest::Body>) -> String {
        let response = self.post(&format!("/apps/{app_name}/import"), file).await;
        assert_eq!(response.status(), StatusCode::CREATED, "import into {app_name}");
        let summary: Value = response.json().await.unwrap();
        summary["eval_set_id"].as_str().unwrap().to_string()
    }

    /// Add current session: a new evalset `eval_set_id` of `app_name` gets session
    /// `session_id` of user `u` as case `eval_id`; answers the stored case.
    pub async fn capture_session(
        &self,
        app_name: &str,
        eval_set_id: &str,
        eval_id: &str,
        session_id: &str,
    ) -> Value {
        let set = format!("/apps/{app_name}/eval_sets/{eval_set_id}");
        assert_eq!(
            self.post(&set, "").await.status(),
            StatusCode::CREATED,
            "POST {set}"
        );
        let add = json!({"evalId": eval_id, "sessionId": session_id, "userId": "u"});
        let added = self.post_json(&format!("{set}/add_session"), &add).await;
        assert_eq!(added.status(), StatusCode::OK, "POST {set}/add_session");
        added.json().await.unwrap()
    }

    /// Creates session `session_id` of `user` in `app_name`, with no state.
    pub async fn create_session(&self, app_name: &str, user: &str, session_id: &str) {
        let path = format!("/apps/{app_name}/users/{user}/sessions/{session_id}");
        assert_eq!(self.post(&path, "").await.status(), StatusCode::OK, "POST {path}");
    }
}

/// The body of a `/run` request: one user message to a session.
pub fn run_request(app_name: &str, user: &str, session_id: &str, text: &str) -> Value {
    json!({"appName": app_name, "userId": user, "sessionId": session_id,
           "newMessage": {"parts": [{"text": text}]}})
}

/// Checks that `response` is an error with `status` and the app's error body (a non-empty
/// `error` and a `detail`); returns the body.
pub async fn assert_error(response: reqwest::Response, status: StatusCode) -> Value {
    assert_eq!(response.status(), status);
    let body: Value = response.json().await.expect("errors are JSON");
    assert!(body["error"].as_str().is_some_and(|e| !e.is_empty()), "{body}");
    assert!(body.get("detail").is_some(), "{body}");
    body
}
