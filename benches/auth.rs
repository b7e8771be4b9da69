//! What sign-in costs a shared server: the time a request spends being let in (a small REST
//! read, `GET /apps/demo/eval_sets`, 2,000 times over real HTTP on 127.0.0.1) with auth off,
//! with an API token (one indexed read of its SHA-256) and with a session cookie; and a login
//! (argon2id with its default parameters), right and wrong. Prints p50 and p99.
//!
//! Run with `make bench` or `cargo bench --features ssr --bench auth`.

use evalstudio::access::Role;
use evalstudio::server::{ServeConfig, Server, DEFAULT_MAX_BODY_BYTES};
use evalstudio::service::auth;
use evalstudio::store::{Location, Store};
use reqwest::header::{HeaderMap, HeaderValue, AUTHORIZATION, COOKIE, ORIGIN, SET_COOKIE};
use std::time::{Duration, Instant};

const READS: usize = 2_000;
const LOGINS: usize = 20;
const PASSWORD: &str = "a long enough password";

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let open = spawn(dir.path(), "open", "").await;
        let signed = spawn(dir.path(), "signed", "[auth]\nfailed_login_limit = 1000\n").await;
        let store = Store::open(&Location::Sqlite(dir.path().join("signed.db")))
            .await
            .unwrap();
        auth::add_user(&store, "bench", Role::Editor, Some(PASSWORD.into()))
            .await
            .unwrap();
        let token = auth::create_token(&store, "bench", "bench").await.unwrap();
        let cookie = log_in(&signed, PASSWORD).await.1.unwrap();

        println!("auth on each request: {READS} reads of GET /apps/demo/eval_sets, whole request time");
        report("auth off (loopback)", reads(&open, HeaderMap::new()).await);
        report(
            "API token",
            reads(&signed, header(AUTHORIZATION, &format!("Bearer {token}"))).await,
        );
        report("session cookie", reads(&signed, header(COOKIE, &cookie)).await);
        println!("logging in: {LOGINS} each, argon2id (default parameters) off the async threads");
        report("right password", logins(&signed, PASSWORD).await);
        report("wrong password", logins(&signed, "not the password").await);
    });
}

async fn spawn(dir: &std::path::Path, name: &str, config: &str) -> String {
    let config_path = dir.join(format!("{name}.toml"));
    std::fs::write(&config_path, config).unwrap();
    let server = Server::bind(ServeConfig {
        addr: "127.0.0.1:0".parse().unwrap(),
        db: Location::Sqlite(dir.join(format!("{name}.db"))),
        site_root: dir.to_string_lossy().into_owned(),
        max_body_bytes: DEFAULT_MAX_BODY_BYTES,
        config_path: Some(config_path),
        agents_dir: None,
        adk: None,
        adk_web_ui: None,
        insecure_no_auth: false,
        worker: Default::default(),
    })
    .await
    .unwrap();
    let address = format!("http://{}", server.local_addr().unwrap());
    tokio::spawn(server.run(std::future::pending()));
    address
}

fn header(name: reqwest::header::HeaderName, value: &str) -> HeaderMap {
    let mut headers = HeaderMap::new();
    headers.insert(name, HeaderValue::from_str(value).unwrap());
    headers
}

async fn reads(base: &str, headers: HeaderMap) -> Vec<Duration> {
    let client = reqwest::Client::builder()
        .default_headers(headers)
        .build()
        .unwrap();
    let url = format!("{base}/apps/demo/eval_sets");
    let mut times = Vec::with_capacity(READS);
    for _ in 0..READS {
        let started = Instant::now();
        let response = client.get(&url).send().await.unwrap();
        assert!(response.status().is_success(), "{}", response.status());
        response.bytes().await.unwrap();
        times.push(started.elapsed());
    }
    times
}

/// One login: its time, and the session cookie when it succeeded.
async fn log_in(base: &str, password: &str) -> (Duration, Option<String>) {
    let started = Instant::now();
    let response = reqwest::Client::new()
        .post(format!("{base}/api/log_in"))
        .header(ORIGIN, base)
        .form(&[("name", "bench"), ("password", password)])
        .send()
        .await
        .unwrap();
    let cookie = response
        .headers()
        .get(SET_COOKIE)
        .map(|value| value.to_str().unwrap().split(';').next().unwrap().to_string());
    (started.elapsed(), cookie)
}

async fn logins(base: &str, password: &str) -> Vec<Duration> {
    let mut times = Vec::with_capacity(LOGINS);
    for _ in 0..LOGINS {
        times.push(log_in(base, password).await.0);
    }
    times
}

fn report(what: &str, mut times: Vec<Duration>) {
    times.sort();
    let at = |q: f64| times[((times.len() - 1) as f64 * q) as usize].as_secs_f64() * 1000.0;
    println!("  {what:<22} p50 {:>7.3} ms   p99 {:>7.3} ms", at(0.5), at(0.99));
}
