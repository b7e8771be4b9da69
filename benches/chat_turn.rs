//! Server-side overhead of a chat turn: 1,000 turns through `POST /run_sse` of the real server
//! (real SQLite file, real HTTP on 127.0.0.1), with the demo agent, with an OpenAI-compatible
//! agent whose model server answers at once, and with that agent calling an MCP tool (the
//! reference server's get-sum over stdio, from end2end/node_modules: `make tools`) in every
//! turn. Prints p50 and p99 of the time to the first streamed byte and to the end of the turn
//! (recorded in the store).
//!
//! Run with `make bench` or `cargo bench --features ssr --bench chat_turn`.

// The fake model server of the tests; this bench uses a part of it.
#[allow(dead_code)]
#[path = "../src/testing/fake_openai.rs"]
mod fake_openai;

use axum::serve::ListenerExt;
use evalstudio::config::Config;
use evalstudio::server::{leptos_options, router, ServeConfig, DEFAULT_MAX_BODY_BYTES};
use evalstudio::service::Services;
use evalstudio::store::{Location, Store};
use serde_json::json;
use std::time::{Duration, Instant};

const TURNS: usize = 1_000;
/// A fresh session every few turns, as a person would start one: history stays realistic.
const TURNS_PER_SESSION: usize = 10;

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let model = spawn_instant_model().await;
        let model_url = &model.base_url;
        let tool_model = fake_openai::Server::always(fake_openai::Reply::call_then_echo(
            "get-sum",
            json!({"a": 2, "b": 3}),
        ))
        .await;
        let everything = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/end2end/node_modules/.bin/mcp-server-everything"
        );
        let config = format!(
            "[[profiles]]\nname = \"instant\"\nkind = \"openai\"\nmodel = \"m\"\nbase_url = \"{model_url}\"\n\
             [[mcp_servers]]\nname = \"everything\"\ncommand = \"{everything}\"\nargs = [\"stdio\"]\n\
             [[profiles]]\nname = \"mcp\"\nkind = \"openai\"\nmodel = \"m\"\nbase_url = \"{}\"\n\
             mcp_servers = [\"everything\"]\n",
            tool_model.base_url
        );
        let profiles = Config::parse(&config).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let serve = ServeConfig {
            addr: "127.0.0.1:0".parse().unwrap(),
            db: Location::Sqlite(dir.path().join("bench.db")),
            site_root: dir.path().to_string_lossy().into_owned(),
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            config_path: None,
            agents_dir: None,
            adk: None,
            adk_web_ui: None,
            insecure_no_auth: false,
            worker: Default::default(),
        };
        let store = Store::open(&serve.db).await.unwrap();
        let scoring = profiles.build_scoring();
        let services = Services::new(store, profiles.profiles, scoring);
        let app = router(services, leptos_options(&serve), DEFAULT_MAX_BODY_BYTES);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        // As `evalstudio serve` listens (see server::serve).
        let listener = listener.tap_io(|tcp| {
            let _ = tcp.set_nodelay(true);
        });
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        let http = reqwest::Client::new();
        for (app, message) in [
            ("demo", "What's the weather in Paris, and 20 EUR in USD?"),
            ("instant", "Hello"),
            ("mcp", "What is 2 + 3?"),
        ] {
            measure(&http, &base, app, message).await;
        }
    });
}

async fn measure(http: &reqwest::Client, base: &str, app: &str, message: &str) {
    let (mut first_byte, mut full) = (Vec::with_capacity(TURNS), Vec::with_capacity(TURNS));
    for turn in 0..TURNS {
        let session = format!("{app}-{}", turn / TURNS_PER_SESSION);
        if turn % TURNS_PER_SESSION == 0 {
            let created = http
                .post(format!("{base}/apps/{app}/users/bench/sessions/{session}"))
                .send()
                .await
                .unwrap();
            assert!(created.status().is_success());
        }
        let body = json!({"appName": app, "userId": "bench", "sessionId": session, "streaming": true,
                          "newMessage": {"parts": [{"text": message}]}});
        let started = Instant::now();
        let mut response = http
            .post(format!("{base}/run_sse"))
            .json(&body)
            .send()
            .await
            .unwrap();
        assert!(response.status().is_success(), "{}", response.status());
        let first = response.chunk().await.unwrap().expect("a streamed event");
        first_byte.push(started.elapsed());
        let mut text = String::from_utf8_lossy(&first).into_owned();
        while let Some(chunk) = response.chunk().await.unwrap() {
            text.push_str(&String::from_utf8_lossy(&chunk));
        }
        full.push(started.elapsed());
        assert!(!text.contains("AGENT_ERROR"), "{text}");
    }
    println!(
        "{app:>8} agent, {TURNS} turns: first byte p50 {} p99 {} | full turn p50 {} p99 {}",
        ms(percentile(&mut first_byte, 0.50)),
        ms(percentile(&mut first_byte, 0.99)),
        ms(percentile(&mut full, 0.50)),
        ms(percentile(&mut full, 0.99)),
    );
}

fn percentile(samples: &mut [Duration], p: f64) -> Duration {
    samples.sort();
    samples[((samples.len() as f64 - 1.0) * p).round() as usize]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

/// An OpenAI-protocol model server that streams a two-chunk answer immediately, in one write.
async fn spawn_instant_model() -> fake_openai::Server {
    let answer = [
        json!({"choices": [{"index": 0, "delta": {"role": "assistant", "content": "Hi, "}}]}),
        json!({"choices": [{"index": 0, "delta": {"content": "how can I help?"}, "finish_reason": "stop"}]}),
    ]
    .iter()
    .map(|chunk| format!("data: {chunk}\n\n"))
    .collect::<String>()
        + "data: [DONE]\n\n";
    fake_openai::Server::always(fake_openai::Reply::raw(vec![answer])).await
}
