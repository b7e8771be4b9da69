//! The real server on a random 127.0.0.1 port with a temporary SQLite file, driven over HTTP.

mod common;

use evalstudio::config::Config;
use evalstudio::evalset::{parse_evalset_file, to_adk_json, LegacyDefaults};
use evalstudio::server::{leptos_options, router, ServeConfig, DEFAULT_MAX_BODY_BYTES};
use evalstudio::store::Store;
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::path::PathBuf;

struct TestApp {
    base: String,
    http: reqwest::Client,
    dir: tempfile::TempDir,
}

impl TestApp {
    async fn spawn() -> TestApp {
        TestApp::spawn_with_limit(DEFAULT_MAX_BODY_BYTES).await
    }

    async fn spawn_with_limit(max_body_bytes: usize) -> TestApp {
        TestApp::spawn_with(max_body_bytes, Config::default()).await
    }

    async fn spawn_with(max_body_bytes: usize, profiles: Config) -> TestApp {
        let dir = tempfile::tempdir().unwrap();
        let config = ServeConfig {
            addr: "127.0.0.1:0".parse().unwrap(),
            db_path: dir.path().join("evalstudio.db"),
            site_root: dir.path().join("site").to_string_lossy().into_owned(),
            max_body_bytes,
            config_path: None,
        };
        let store = Store::open(&config.db_path).await.unwrap();
        let app = router(store, leptos_options(&config), max_body_bytes, profiles);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        TestApp {
            base,
            http: reqwest::Client::new(),
            dir,
        }
    }

    /// The app's SQLite file, for tests that act on the database behind its back.
    fn db_path(&self) -> std::path::PathBuf {
        self.dir.path().join("evalstudio.db")
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    async fn get(&self, path: &str) -> reqwest::Response {
        self.http.get(self.url(path)).send().await.unwrap()
    }

    async fn post(&self, path: &str, body: impl Into<reqwest::Body>) -> reqwest::Response {
        self.http.post(self.url(path)).body(body).send().await.unwrap()
    }

    async fn post_json(&self, path: &str, body: &Value) -> reqwest::Response {
        self.http.post(self.url(path)).json(body).send().await.unwrap()
    }

    async fn put_json(&self, path: &str, body: &Value) -> reqwest::Response {
        self.http.put(self.url(path)).json(body).send().await.unwrap()
    }

    async fn delete(&self, path: &str) -> reqwest::Response {
        self.http.delete(self.url(path)).send().await.unwrap()
    }

    async fn json(&self, path: &str) -> Value {
        let response = self.get(path).await;
        assert_eq!(response.status(), StatusCode::OK, "GET {path}");
        response.json().await.unwrap()
    }
}

fn fixture(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/fixtures/adk")
        .join(name);
    std::fs::read_to_string(path).unwrap()
}

/// The ADK file the server should export for `text`.
fn expected_export(text: &str) -> String {
    let mut id = || "x".to_string();
    let legacy = LegacyDefaults {
        name: "x",
        file_name: "x.json",
        now: 0.0,
        new_invocation_id: &mut id,
    };
    to_adk_json(&parse_evalset_file(text, legacy).unwrap().0)
}

async fn assert_error(response: reqwest::Response, status: StatusCode) -> Value {
    assert_eq!(response.status(), status);
    let body: Value = response.json().await.expect("errors are JSON");
    assert!(body["error"].as_str().is_some_and(|e| !e.is_empty()), "{body}");
    assert!(body.get("detail").is_some(), "{body}");
    body
}

#[tokio::test]
async fn create_list_and_delete_eval_sets() {
    let app = TestApp::spawn().await;
    assert_eq!(app.json("/apps/demo/eval_sets").await, json!([]));
    assert_eq!(
        app.post("/apps/demo/eval_sets/zeta", "").await.status(),
        StatusCode::CREATED
    );
    let created = app.post("/apps/demo/eval_sets/alpha", "").await;
    assert_eq!(created.status(), StatusCode::CREATED);
    let body: Value = created.json().await.unwrap();
    assert_eq!(
        (body["eval_set_id"].as_str(), body["name"].as_str()),
        (Some("alpha"), Some("alpha"))
    );
    assert_eq!(app.json("/apps/demo/eval_sets").await, json!(["alpha", "zeta"]));
    assert_error(
        app.post("/apps/demo/eval_sets/alpha", "").await,
        StatusCode::BAD_REQUEST,
    )
    .await;
    assert_error(
        app.post("/apps/demo/eval_sets/bad%20id", "").await,
        StatusCode::BAD_REQUEST,
    )
    .await;
    assert_eq!(
        app.json("/apps/other/eval_sets").await,
        json!([]),
        "apps are separate"
    );
    assert_eq!(
        app.delete("/apps/demo/eval_sets/zeta").await.status(),
        StatusCode::NO_CONTENT
    );
    assert_error(
        app.delete("/apps/demo/eval_sets/zeta").await,
        StatusCode::NOT_FOUND,
    )
    .await;
    assert_eq!(app.json("/apps/demo/eval_sets").await, json!(["alpha"]));
}

#[tokio::test]
async fn every_fixture_imports_and_exports_unchanged() {
    let app = TestApp::spawn().await;
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/adk");
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| !name.ends_with("_test_config.json"))
        .collect();
    names.sort();
    assert!(names.len() >= 7);
    for name in names {
        let text = fixture(&name);
        let response = app
            .post(&format!("/apps/fixtures/import?file_name={name}"), text.clone())
            .await;
        assert_eq!(response.status(), StatusCode::CREATED, "{name}");
        let summary: Value = response.json().await.unwrap();
        let id = summary["eval_set_id"].as_str().unwrap().to_string();
        let export_path = format!("/apps/fixtures/eval_sets/{id}/export");
        let exported = app.get(&export_path).await;
        assert_eq!(exported.status(), StatusCode::OK);
        let disposition = exported.headers()["content-disposition"]
            .to_str()
            .unwrap()
            .to_string();
        assert_eq!(disposition, format!("attachment; filename=\"{id}.evalset.json\""));
        let exported = exported.text().await.unwrap();
        if summary["format"] == "ADK evalset" {
            assert_eq!(exported, expected_export(&text), "{name}");
        } else {
            // Legacy lists get fresh invocation ids and timestamps, as in ADK; from then on they are stable.
            assert_eq!(summary["format"], "legacy .test.json list", "{name}");
            assert!(
                exported.contains("\"tool_uses\"") || !text.contains("tool_name"),
                "{name}"
            );
        }
        let again = app
            .post("/apps/fixtures/import?replace=true", exported.clone())
            .await;
        assert_eq!(again.status(), StatusCode::CREATED, "{name}");
        assert_eq!(
            app.get(&export_path).await.text().await.unwrap(),
            exported,
            "{name} round trip"
        );
    }
}

#[tokio::test]
async fn import_conflicts_unless_replacing() {
    let app = TestApp::spawn().await;
    let text = fixture("simple_multi_turn_conversation.test.json");
    let first = app.post("/apps/demo/import", text.clone()).await;
    assert_eq!(first.status(), StatusCode::CREATED);
    let summary: Value = first.json().await.unwrap();
    assert_eq!(summary["cases"], 1);
    assert_eq!(summary["format"], "ADK evalset");
    let id = summary["eval_set_id"].as_str().unwrap().to_string();
    assert_error(
        app.post("/apps/demo/import", text.clone()).await,
        StatusCode::CONFLICT,
    )
    .await;
    let replaced = app.post("/apps/demo/import?replace=true", text).await;
    assert_eq!(replaced.status(), StatusCode::CREATED);
    assert_eq!(replaced.json::<Value>().await.unwrap()["replaced"], true);
    let ids = app.json(&format!("/apps/demo/eval_sets/{id}/evals")).await;
    assert_eq!(ids.as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn legacy_lists_take_their_id_from_the_file_name() {
    let app = TestApp::spawn().await;
    let legacy = r#"[{"query": "Weather in Paris?", "expected_tool_use": [{"tool_name": "get_weather", "tool_input": {"city": "Paris"}}], "reference": "Sunny."}]"#;
    let response = app
        .post("/apps/demo/import?file_name=weather%20check.test.json", legacy)
        .await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let summary: Value = response.json().await.unwrap();
    assert_eq!(summary["eval_set_id"], "weather_check");
    assert_eq!(summary["format"], "legacy .test.json list");
    let case = app
        .json("/apps/demo/eval_sets/weather_check/evals/weather%20check.test.json")
        .await;
    assert_eq!(
        case["conversation"][0]["intermediate_data"]["tool_uses"][0]["args"]["city"],
        "Paris"
    );
    let renamed = app.post("/apps/demo/import?eval_set_id=renamed", legacy).await;
    assert_eq!(renamed.json::<Value>().await.unwrap()["eval_set_id"], "renamed");
}

#[tokio::test]
async fn a_bad_file_is_rejected_with_its_location_and_changes_nothing() {
    let app = TestApp::spawn().await;
    let bad = "{\"eval_set_id\": \"s\", \"eval_cases\": [\n  {\"eval_id\": \"ok\", \"conversation\": []},\n  {\"conversation\": []}\n]}";
    let body = assert_error(app.post("/apps/demo/import", bad).await, StatusCode::BAD_REQUEST).await;
    assert_eq!(body["detail"]["path"], "eval_cases[1]");
    assert_eq!(body["detail"]["line"], 3);
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .contains("missing field `eval_id`"),
        "{body}"
    );
    let syntax = assert_error(
        app.post("/apps/demo/import", "{\"eval_set_id\": ").await,
        StatusCode::BAD_REQUEST,
    )
    .await;
    assert_eq!(syntax["detail"]["line"], 1);
    assert_error(
        app.post("/apps/demo/import", vec![0xff_u8, 0xfe]).await,
        StatusCode::BAD_REQUEST,
    )
    .await;
    assert_eq!(app.json("/apps/demo/eval_sets").await, json!([]));
}

#[tokio::test]
async fn a_body_over_the_limit_gets_413() {
    let app = TestApp::spawn_with_limit(1024).await;
    let big = format!(
        r#"{{"eval_set_id": "big", "eval_cases": [], "padding": "{}"}}"#,
        "x".repeat(4096)
    );
    assert_error(
        app.post("/apps/demo/import", big).await,
        StatusCode::PAYLOAD_TOO_LARGE,
    )
    .await;
    assert_eq!(app.json("/apps/demo/eval_sets").await, json!([]));
    let small = r#"{"eval_set_id": "small", "eval_cases": []}"#;
    assert_eq!(
        app.post("/apps/demo/import", small).await.status(),
        StatusCode::CREATED
    );
}

#[tokio::test]
async fn cases_are_read_edited_with_versions_and_deleted() {
    let app = TestApp::spawn().await;
    let import = app
        .post("/apps/demo/import", fixture("trip_inquiry.test.json"))
        .await;
    let id = import.json::<Value>().await.unwrap()["eval_set_id"]
        .as_str()
        .unwrap()
        .to_string();
    let ids = app.json(&format!("/apps/demo/eval_sets/{id}/evals")).await;
    let eval_id = ids[0].as_str().unwrap().to_string();
    let path = format!("/apps/demo/eval_sets/{id}/evals/{}", eval_id.replace('/', "%2F"));
    let case = app.json(&path).await;
    assert_eq!(case["version"], 1);
    assert_eq!(case["eval_id"], eval_id.as_str());

    let mut edited = case.clone();
    edited["tags"] = json!(["edited"]);
    let response = app.put_json(&path, &edited).await;
    assert_eq!(response.status(), StatusCode::OK);
    let saved: Value = response.json().await.unwrap();
    assert_eq!(
        (saved["version"].as_i64(), &saved["tags"]),
        (Some(2), &json!(["edited"]))
    );

    // The same stale version again: refused, nothing changes.
    let mut stale = case.clone();
    stale["tags"] = json!(["lost update"]);
    assert_error(app.put_json(&path, &stale).await, StatusCode::CONFLICT).await;
    assert_eq!(app.json(&path).await["tags"], json!(["edited"]));

    let mut unversioned = saved.clone();
    unversioned.as_object_mut().unwrap().remove("version");
    assert_error(app.put_json(&path, &unversioned).await, StatusCode::BAD_REQUEST).await;
    let mut other_id = saved.clone();
    other_id["eval_id"] = json!("different");
    assert_error(app.put_json(&path, &other_id).await, StatusCode::BAD_REQUEST).await;
    let mut invalid = saved.clone();
    invalid["conversation"] = json!("not a list");
    let body = assert_error(app.put_json(&path, &invalid).await, StatusCode::BAD_REQUEST).await;
    assert_eq!(body["detail"]["path"], "conversation");
    let bad_json = app
        .http
        .put(app.url(&path))
        .body("{\"eval_id\": ")
        .send()
        .await
        .unwrap();
    assert_error(bad_json, StatusCode::BAD_REQUEST).await;

    assert_eq!(app.delete(&path).await.status(), StatusCode::NO_CONTENT);
    assert_error(app.get(&path).await, StatusCode::NOT_FOUND).await;
    assert_error(app.delete(&path).await, StatusCode::NOT_FOUND).await;
    assert_eq!(
        app.json(&format!("/apps/demo/eval_sets/{id}/evals")).await,
        json!([])
    );
}

#[tokio::test]
async fn missing_things_are_404_json() {
    let app = TestApp::spawn().await;
    assert_error(
        app.get("/apps/demo/eval_sets/nope/evals").await,
        StatusCode::NOT_FOUND,
    )
    .await;
    assert_error(
        app.get("/apps/demo/eval_sets/nope/export").await,
        StatusCode::NOT_FOUND,
    )
    .await;
    assert_error(
        app.get("/apps/demo/eval_sets/nope/evals/x").await,
        StatusCode::NOT_FOUND,
    )
    .await;
    assert_error(
        app.put_json(
            "/apps/demo/eval_sets/nope/evals/x",
            &json!({"eval_id": "x", "conversation": [], "version": 1}),
        )
        .await,
        StatusCode::NOT_FOUND,
    )
    .await;
    assert_error(app.get("/apps/demo/no_such_route").await, StatusCode::NOT_FOUND).await;
}

#[tokio::test]
async fn pages_render_on_the_server() {
    let app = TestApp::spawn().await;
    let import = app
        .post(
            "/apps/demo/import",
            fixture("simple_multi_turn_conversation.test.json"),
        )
        .await;
    let id = import.json::<Value>().await.unwrap()["eval_set_id"]
        .as_str()
        .unwrap()
        .to_string();

    let home = app.get("/").await;
    assert_eq!(home.status(), StatusCode::OK);
    let html = home.text().await.unwrap();
    assert!(
        html.contains("Evalsets") && html.contains(&id),
        "home lists the evalset"
    );

    let set_page = app
        .get(&format!("/evalsets/demo/{id}"))
        .await
        .text()
        .await
        .unwrap();
    assert!(
        set_page.contains("Turn off device_2 in the Bedroom."),
        "case list shows the first message"
    );

    let eval_id =
        "tests/integration/fixture/home_automation_agent/test_files/simple_multi_turn_conversation.test.json";
    let case_page = app
        .get(&format!(
            "/evalsets/demo/{id}/case?eval_id={}",
            eval_id.replace('/', "%2F")
        ))
        .await
        .text()
        .await
        .unwrap();
    assert!(
        case_page.contains("set_device_info"),
        "case page shows the tool call"
    );
    assert!(case_page.contains("I have set the device 2 status to off."));

    assert_eq!(app.get("/no/such/page").await.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn imported_text_is_escaped_in_pages() {
    let app = TestApp::spawn().await;
    let hostile = json!({"eval_set_id": "xss", "eval_cases": [{"eval_id": "<img src=x onerror=alert(1)>",
        "conversation": [{"user_content": {"parts": [{"text": "<script>alert('pwned')</script>"}]}}]}]});
    assert_eq!(
        app.post("/apps/demo/import", hostile.to_string()).await.status(),
        StatusCode::CREATED
    );
    let html = app.get("/evalsets/demo/xss").await.text().await.unwrap();
    assert!(
        !html.contains("<script>alert('pwned')</script>"),
        "user text must not become markup"
    );
    assert!(
        !html.contains("<img src=x onerror"),
        "eval ids must not become markup"
    );
    assert!(
        html.contains("&lt;script&gt;alert(&#x27;pwned&#x27;)&lt;/script&gt;")
            || html.contains("&lt;script&gt;")
    );
}

#[tokio::test]
async fn chat_through_run_then_add_the_session_as_an_eval_case() {
    let app = TestApp::spawn().await;
    let created = app
        .post(
            "/apps/demo/users/alice/sessions",
            r#"{"state": {"tier": "gold"}}"#,
        )
        .await;
    assert_eq!(created.status(), StatusCode::OK);
    let session: Value = created.json().await.unwrap();
    let session_id = session["id"].as_str().unwrap().to_string();
    assert_eq!(
        (
            session["appName"].as_str(),
            session["events"].as_array().map(Vec::len)
        ),
        (Some("demo"), Some(0))
    );

    let run = |text: &str| {
        json!({"appName": "demo", "userId": "alice", "sessionId": session_id,
               "newMessage": {"role": "user", "parts": [{"text": text}]}})
    };
    let first = app
        .http
        .post(app.url("/run"))
        .json(&run("weather in Paris and 20 EUR in USD"))
        .send()
        .await
        .unwrap();
    assert_eq!(first.status(), StatusCode::OK);
    let events: Vec<Value> = first.json().await.unwrap();
    let calls: Vec<&str> = events
        .iter()
        .filter_map(|e| e["content"]["parts"][0]["functionCall"]["name"].as_str())
        .collect();
    assert_eq!(calls, ["get_weather", "convert_currency"]);
    assert!(events.last().unwrap()["content"]["parts"][0]["text"]
        .as_str()
        .unwrap()
        .contains("Paris"));
    // A follow-up uses the earlier turn; snake_case request keys work too.
    let second = json!({"app_name": "demo", "user_id": "alice", "session_id": session_id,
                        "new_message": {"parts": [{"text": "and in London?"}]}});
    let events: Vec<Value> = app.post_json("/run", &second).await.json().await.unwrap();
    assert_eq!(
        events[0]["content"]["parts"][0]["functionCall"]["args"]["city"],
        "London"
    );

    let stored = app
        .json(&format!("/apps/demo/users/alice/sessions/{session_id}"))
        .await;
    let authors: Vec<&str> = stored["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["author"].as_str())
        .collect();
    assert_eq!(authors.iter().filter(|a| **a == "user").count(), 2);
    assert_eq!(stored["title"], "weather in Paris and 20 EUR in USD");

    assert_eq!(
        app.post("/apps/demo/eval_sets/chats", "").await.status(),
        StatusCode::CREATED
    );
    let add = json!({"evalId": "paris_then_london", "sessionId": session_id, "userId": "alice"});
    let added = app
        .post_json("/apps/demo/eval_sets/chats/add_session", &add)
        .await;
    assert_eq!(added.status(), StatusCode::OK);
    let case: Value = added.json().await.unwrap();
    assert_eq!(case["version"], 1);
    assert_eq!(case["session_input"]["state"]["tier"], "gold");
    let turns = case["conversation"].as_array().unwrap();
    assert_eq!(turns.len(), 2);
    assert_eq!(
        turns[0]["intermediate_data"]["tool_uses"][1]["args"],
        json!({"amount": 20, "from": "EUR", "to": "USD"})
    );
    assert_eq!(turns[1]["user_content"]["parts"][0]["text"], "and in London?");

    // The same id again: a clear 409, unless overwriting.
    let again = app
        .post_json("/apps/demo/eval_sets/chats/add_session", &add)
        .await;
    let body = assert_error(again, StatusCode::CONFLICT).await;
    assert!(body["error"].as_str().unwrap().contains("overwrite"));
    let mut overwrite = add.clone();
    overwrite["overwrite"] = json!(true);
    let replaced: Value = app
        .post_json("/apps/demo/eval_sets/chats/add_session", &overwrite)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(replaced["version"], 2);

    let exported = app
        .get("/apps/demo/eval_sets/chats/export")
        .await
        .text()
        .await
        .unwrap();
    assert!(
        exported.contains("\"eval_id\": \"paris_then_london\"") && exported.contains("\"convert_currency\"")
    );
}

#[tokio::test]
async fn session_errors_are_clear() {
    let app = TestApp::spawn().await;
    let run = json!({"appName": "demo", "userId": "u", "sessionId": "missing", "newMessage": {"parts": [{"text": "hi"}]}});
    assert_error(app.post_json("/run", &run).await, StatusCode::NOT_FOUND).await;
    let mut no_agent = run.clone();
    no_agent["appName"] = json!("nobody");
    assert_error(app.post_json("/run", &no_agent).await, StatusCode::NOT_FOUND).await;
    assert_error(app.post("/run", "{\"appName\": ").await, StatusCode::BAD_REQUEST).await;
    assert_eq!(
        app.post("/apps/demo/users/u/sessions/s1", "").await.status(),
        StatusCode::OK
    );
    assert_error(
        app.post("/apps/demo/users/u/sessions/s1", "").await,
        StatusCode::BAD_REQUEST,
    )
    .await;
    let empty_turn =
        json!({"appName": "demo", "userId": "u", "sessionId": "s1", "newMessage": {"parts": []}});
    assert_error(app.post_json("/run", &empty_turn).await, StatusCode::BAD_REQUEST).await;
    assert_eq!(
        app.post("/apps/demo/eval_sets/set", "").await.status(),
        StatusCode::CREATED
    );
    let add = json!({"evalId": "x", "sessionId": "s1", "userId": "u"});
    let no_turns = app.post_json("/apps/demo/eval_sets/set/add_session", &add).await;
    assert_error(no_turns, StatusCode::BAD_REQUEST).await;
    let mut missing = add.clone();
    missing["sessionId"] = json!("nope");
    let not_found = app
        .post_json("/apps/demo/eval_sets/set/add_session", &missing)
        .await;
    assert_error(not_found, StatusCode::NOT_FOUND).await;
    assert_eq!(
        app.delete("/apps/demo/users/u/sessions/s1").await.status(),
        StatusCode::NO_CONTENT
    );
    assert_error(
        app.get("/apps/demo/users/u/sessions/s1").await,
        StatusCode::NOT_FOUND,
    )
    .await;
    assert_eq!(app.json("/apps/demo/users/u/sessions").await, json!([]));
}

#[tokio::test]
async fn run_sse_streams_adk_events_and_records_the_turn() {
    let app = TestApp::spawn().await;
    assert_eq!(
        app.post("/apps/demo/users/u/sessions/s1", "").await.status(),
        StatusCode::OK
    );
    let request = json!({"appName": "demo", "userId": "u", "sessionId": "s1", "streaming": true,
                         "newMessage": {"parts": [{"text": "Where is my order A1003?"}]}});
    let response = app.post_json("/run_sse", &request).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert!(response.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/event-stream"));
    let body = response.text().await.unwrap();
    let events: Vec<Value> = body
        .lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .map(|data| serde_json::from_str(data).unwrap())
        .collect();
    assert_eq!(
        events[0]["content"]["parts"][0]["functionCall"]["name"],
        "get_order_status"
    );
    assert_eq!(
        events[1]["content"]["parts"][0]["functionResponse"]["name"],
        "get_order_status"
    );
    let partial: String = events
        .iter()
        .filter(|e| e["partial"] == true)
        .filter_map(|e| e["content"]["parts"][0]["text"].as_str())
        .collect();
    let last = events.last().unwrap();
    assert_eq!(
        last["content"]["parts"][0]["text"].as_str(),
        Some(partial.as_str()),
        "partials add up to the answer"
    );
    assert!(events
        .iter()
        .all(|e| e["invocationId"] == events[0]["invocationId"]));
    let ids: std::collections::HashSet<_> = events
        .iter()
        .map(|e| e["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids.len(), events.len(), "event ids are unique");

    // The turn was recorded once the stream ended.
    let session = app.json("/apps/demo/users/u/sessions/s1").await;
    assert_eq!(
        session["events"][0]["content"]["parts"][0]["text"],
        "Where is my order A1003?"
    );
    assert_eq!(
        session["events"].as_array().unwrap().len(),
        4,
        "user, call, response, answer"
    );
}

/// A model server speaking OpenAI's streaming chat-completions protocol: the first call asks
/// for get_weather (arguments split across chunks), the second answers in text.
async fn spawn_scripted_openai() -> (String, std::sync::Arc<std::sync::Mutex<Vec<Value>>>) {
    use axum::routing::post;
    let requests = std::sync::Arc::new(std::sync::Mutex::new(Vec::<Value>::new()));
    let seen = requests.clone();
    let app = axum::Router::new().route(
        "/v1/chat/completions",
        post(move |axum::Json(body): axum::Json<Value>| {
            let seen = seen.clone();
            async move {
                let calls_so_far = {
                    let mut seen = seen.lock().unwrap();
                    seen.push(body);
                    seen.len()
                };
                let chunks: Vec<Value> = if calls_so_far == 1 {
                    vec![
                        json!({"choices": [{"index": 0, "delta": {"role": "assistant", "content": null,
                            "tool_calls": [{"index": 0, "id": "call_x1", "type": "function",
                                            "function": {"name": "get_weather", "arguments": "{\"ci"}}]}}]}),
                        json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0,
                            "function": {"arguments": "ty\": \"Tokyo\"}"}}]}, "finish_reason": "tool_calls"}]}),
                    ]
                } else {
                    vec![
                        json!({"choices": [{"index": 0, "delta": {"content": "Tokyo is "}}]}),
                        json!({"choices": [{"index": 0, "delta": {"content": "sunny."}, "finish_reason": "stop"}]}),
                    ]
                };
                let mut sse: String = chunks.iter().map(|c| format!("data: {c}\n\n")).collect();
                sse.push_str("data: [DONE]\n\n");
                ([(axum::http::header::CONTENT_TYPE, "text/event-stream")], sse)
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}/v1", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (base, requests)
}

#[tokio::test]
async fn an_openai_profile_from_the_config_file_drives_a_session() {
    let (base_url, requests) = spawn_scripted_openai().await;
    let config = format!(
        "[[profiles]]\nname = \"scripted\"\nkind = \"openai\"\nmodel = \"test-model\"\nbase_url = \"{base_url}\"\n\
         system_prompt = \"Be brief.\"\ntools = [\"get_weather\"]\n"
    );
    let profiles = Config::parse(&config).unwrap();
    let app = TestApp::spawn_with(DEFAULT_MAX_BODY_BYTES, profiles).await;
    assert_eq!(
        app.post("/apps/scripted/users/u/sessions/s1", "").await.status(),
        StatusCode::OK
    );
    let run = json!({"appName": "scripted", "userId": "u", "sessionId": "s1",
                     "newMessage": {"parts": [{"text": "Weather in Tokyo?"}]}});
    let events: Vec<Value> = app.post_json("/run", &run).await.json().await.unwrap();
    assert_eq!(
        events[0]["content"]["parts"][0]["functionCall"]["args"],
        json!({"city": "Tokyo"})
    );
    assert_eq!(
        events[1]["content"]["parts"][0]["functionResponse"]["response"]["city"],
        "Tokyo"
    );
    assert_eq!(events[2]["content"]["parts"][0]["text"], "Tokyo is sunny.");

    let sent = requests.lock().unwrap().clone();
    assert_eq!(sent.len(), 2);
    assert_eq!(sent[0]["model"], "test-model");
    assert_eq!(
        sent[0]["messages"][0],
        json!({"role": "system", "content": "Be brief."})
    );
    let tool_names: Vec<&str> = sent[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["function"]["name"].as_str())
        .collect();
    assert_eq!(
        tool_names,
        ["get_weather"],
        "the profile's tool list is what the model is offered"
    );
    let tool_message = sent[1]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .unwrap();
    assert_eq!(tool_message["tool_call_id"], "call_x1");

    assert_eq!(
        app.post("/apps/scripted/eval_sets/s", "").await.status(),
        StatusCode::CREATED
    );
    let add = json!({"evalId": "tokyo", "sessionId": "s1", "userId": "u"});
    let case: Value = app
        .post_json("/apps/scripted/eval_sets/s/add_session", &add)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        case["conversation"][0]["intermediate_data"]["tool_uses"][0]["id"],
        "call_x1"
    );
    assert_eq!(
        case["conversation"][0]["final_response"]["parts"][0]["text"],
        "Tokyo is sunny."
    );
}

/// An ADK api_server stand-in that answers /run_sse with a recording of a real one
/// (tests/fixtures/adk_run_sse) and accepts session creation.
async fn spawn_adk_replay(recording: &str) -> String {
    use axum::routing::post;
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("tests/fixtures/adk_run_sse/{recording}.sse"));
    let body = std::fs::read_to_string(path).unwrap();
    let app = axum::Router::new()
        .route(
            "/apps/{app}/users/{user}/sessions/{id}",
            post(|| async { axum::Json(json!({})) }),
        )
        .route(
            "/run_sse",
            post(move || {
                let body = body.clone();
                async move { ([(axum::http::header::CONTENT_TYPE, "text/event-stream")], body) }
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    base
}

#[tokio::test]
async fn an_adk_profile_records_sub_agents_and_event_times() {
    let base_url = spawn_adk_replay("sub_agent-1").await;
    let config = format!("[[profiles]]\nname = \"support\"\nkind = \"adk\"\nbase_url = \"{base_url}\"\nadk_app = \"sub_agent\"\n");
    let app = TestApp::spawn_with(DEFAULT_MAX_BODY_BYTES, Config::parse(&config).unwrap()).await;
    app.post("/apps/support/users/u/sessions/s1", "").await;
    let run = json!({"appName": "support", "userId": "u", "sessionId": "s1",
                     "newMessage": {"parts": [{"text": "Where is order A1001?"}]}});
    let events: Vec<Value> = app.post_json("/run", &run).await.json().await.unwrap();
    let authors: Vec<&str> = events.iter().map(|e| e["author"].as_str().unwrap()).collect();
    assert_eq!(authors, ["assistant", "assistant", "orders", "orders", "orders"]);
    assert_eq!(
        events[4]["content"]["parts"][0]["text"],
        "Order A1001 has shipped."
    );

    // Each stored event has its own time, in order, within the turn.
    let session = app.json("/apps/support/users/u/sessions/s1").await;
    let times: Vec<f64> = session["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["timestamp"].as_f64().unwrap())
        .collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "{times:?}");

    app.post("/apps/support/eval_sets/s", "").await;
    let add = json!({"evalId": "a1001", "sessionId": "s1", "userId": "u"});
    let case: Value = app
        .post_json("/apps/support/eval_sets/s/add_session", &add)
        .await
        .json()
        .await
        .unwrap();
    let data = &case["conversation"][0]["intermediate_data"];
    let names: Vec<&str> = data["tool_uses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["transfer_to_agent", "get_order_status"]);
    assert_eq!(
        data["intermediate_responses"],
        json!([["orders", [{"text": "Looking up A1001."}]]])
    );
}

#[tokio::test]
async fn a_session_runs_one_turn_at_a_time() {
    // A model that takes a while to answer.
    let (base_url, _) = common::spawn_slow_model("done", std::time::Duration::from_millis(600)).await;
    let config = common::slow_profile(&base_url);
    let app = TestApp::spawn_with(DEFAULT_MAX_BODY_BYTES, Config::parse(&config).unwrap()).await;
    app.post("/apps/slow/users/u/sessions/s1", "").await;
    let run = json!({"appName": "slow", "userId": "u", "sessionId": "s1",
                     "newMessage": {"parts": [{"text": "hi"}]}});
    let first = app.post_json("/run", &run);
    let second = async {
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        app.post_json("/run", &run).await
    };
    let (first, second) = tokio::join!(first, second);
    assert_eq!(first.status(), StatusCode::OK);
    let error = assert_error(second, StatusCode::CONFLICT).await;
    assert!(
        error["error"]
            .as_str()
            .unwrap()
            .contains("already running a turn"),
        "{error}"
    );
    // Once the first turn is over the session takes the next one.
    assert_eq!(app.post_json("/run", &run).await.status(), StatusCode::OK);
    let session = app.json("/apps/slow/users/u/sessions/s1").await;
    assert_eq!(
        session["events"].as_array().unwrap().len(),
        4,
        "two turns of user + answer"
    );
}

#[tokio::test]
async fn run_eval_scores_stores_and_lists_results_like_adk() {
    let app = TestApp::spawn().await;
    let set = common::recorded_eval_set(&[
        ("paris", &["weather in Paris and 20 EUR in USD"][..]),
        ("order", &["Where is my order A1003?"][..]),
    ])
    .await;
    let imported = app.post("/apps/demo/import", to_adk_json(&set)).await;
    assert_eq!(imported.status(), StatusCode::CREATED);

    let body = json!({"evalIds": [], "numRuns": 2, "evalMetrics": [
        {"metricName": "tool_trajectory_avg_score", "threshold": 1.0},
        {"metricName": "tool_trajectory_f1", "criterion": {"threshold": 0.9}}
    ]});
    let response = app
        .post_json("/apps/demo/eval_sets/regression/run_eval", &body)
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    let results: Vec<Value> = response.json().await.unwrap();
    assert_eq!(results.len(), 4, "two cases × two runs");
    for result in &results {
        assert_eq!(result["final_eval_status"], 1, "{result}");
        assert_eq!(result["eval_set_id"], "regression");
        assert!(result["session_id"].as_str().unwrap().starts_with("eval-"));
        let names: Vec<&str> = result["overall_eval_metric_results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["metric_name"].as_str().unwrap())
            .collect();
        // ADK appends its informational metrics to every eval.
        assert_eq!(
            names,
            [
                "tool_trajectory_avg_score",
                "tool_trajectory_f1",
                "tool_call_count_v1",
                "inference_call_count_v1",
                "token_usage_v1",
                "invocation_duration_v1"
            ]
        );
        // The runner timed each turn; informational metrics never pass or fail.
        let duration = &result["overall_eval_metric_results"][5];
        assert_eq!(duration["eval_status"], 4, "{duration}");
        assert!(duration["score"].as_f64().unwrap() >= 0.0, "{duration}");
        assert_eq!(duration["threshold"], Value::Null);
        assert!(duration["details"]["duration_details"]["total_seconds"].is_number());
        // The demo agent times its model call, so the framework's share is known too.
        for part in ["model_seconds", "tool_seconds", "framework_seconds"] {
            assert!(
                duration["details"]["duration_details"][part].is_number(),
                "{part}: {duration}"
            );
        }
        // Runs are recorded as ADK's generator records them, so model calls and tokens count.
        let model_calls = &result["overall_eval_metric_results"][3];
        assert_eq!(model_calls["score"], 1.0, "{model_calls}");
        let tokens = &result["overall_eval_metric_results"][4];
        assert_eq!(tokens["eval_status"], 4, "{tokens}");
        assert!(tokens["score"].as_f64().unwrap() > 0.0, "{tokens}");
        assert!(
            tokens["details"]["token_usage_details"]["output_tokens"]
                .as_f64()
                .unwrap()
                > 0.0
        );
        let events = &result["eval_metric_result_per_invocation"][0]["actual_invocation"]
            ["intermediate_data"]["invocation_events"];
        assert!(events.as_array().is_some_and(|e| !e.is_empty()), "{events}");
    }

    let ids: Vec<String> = serde_json::from_value(app.json("/apps/demo/eval_results").await).unwrap();
    assert_eq!(ids.len(), 1);
    assert!(ids[0].starts_with("demo_regression_"), "{ids:?}");
    let stored = app.json(&format!("/apps/demo/eval_results/{}", ids[0])).await;
    assert_eq!(stored["eval_set_result_id"], ids[0].as_str());
    assert_eq!(stored["status"], "finished");
    assert_eq!(stored["eval_case_results"].as_array().unwrap().len(), 4);
    let summaries = stored["case_summaries"].as_array().unwrap();
    assert_eq!(summaries.len(), 2);
    assert_eq!(summaries[0]["eval_id"], "paris");
    assert_eq!(summaries[0]["passed_runs"], 2);
    assert_eq!(summaries[0]["pass_at_k"], json!([1.0, 1.0]));
    assert_eq!(summaries[0]["pass_hat_k"], json!([1.0, 1.0]));

    // One case only, ADK's 2.x field name.
    let one = json!({"eval_case_ids": ["order"], "eval_metrics": [{"metric_name": "tool_single_use",
        "criterion": {"threshold": 1, "tool_name": "get_order_status"}}]});
    let results: Vec<Value> = app
        .post_json("/apps/demo/eval_sets/regression/run_eval", &one)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(results.len(), 1);
    assert_eq!(results[0]["eval_id"], "order");
    assert_eq!(
        results[0]["overall_eval_metric_results"][0]["score"], 1.0,
        "{}",
        results[0]
    );

    let metrics = app.json("/apps/demo/eval_metrics").await;
    let names: Vec<&str> = metrics
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["metric_name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"response_match_score") && names.contains(&"tool_trajectory_recall"),
        "{names:?}"
    );
    assert_eq!(metrics[0]["metric_value_info"]["interval"]["max_value"], 1.0);
}

#[tokio::test]
async fn run_eval_rejects_bad_requests_with_the_reason() {
    let app = TestApp::spawn().await;
    let set = common::recorded_eval_set(&[("hi", &["hello"])]).await;
    app.post("/apps/demo/import", to_adk_json(&set)).await;
    let url = app.url("/apps/demo/eval_sets/regression/run_eval");
    // The reason a run request is refused with 400.
    let refused = |body: Value| {
        let request = app.http.post(&url).json(&body).send();
        async move {
            let error = assert_error(request.await.unwrap(), StatusCode::BAD_REQUEST).await;
            error["error"].as_str().unwrap().to_string()
        }
    };

    assert_eq!(
        refused(json!({"evalIds": ["nope"]})).await,
        "eval case `nope` is not in eval set `regression`"
    );
    let error = refused(json!({"evalMetrics": [{"metricName": "bleu", "threshold": 1}]})).await;
    assert!(error.contains("criteria.bleu: unknown metric `bleu`"), "{error}");
    assert_eq!(
        refused(json!({"evalMetrics": [{"metricName": "response_match_score"}]})).await,
        "eval_metrics[0].threshold: missing"
    );
    let error = refused(json!({"agent": "ghost"})).await;
    assert!(error.contains("no agent profile is named `ghost`"), "{error}");
    assert_error(
        app.post_json("/apps/demo/eval_sets/missing/run_eval", &json!({}))
            .await,
        StatusCode::NOT_FOUND,
    )
    .await;
    assert_error(
        app.get("/apps/demo/eval_results/nope").await,
        StatusCode::NOT_FOUND,
    )
    .await;
    // Nothing was recorded by the rejected requests.
    assert_eq!(app.json("/apps/demo/eval_results").await, json!([]));
}

/// An app whose `slow` agent takes `latency` per answer, with the three-case eval set `three`
/// imported (each case expects "ok", which it gets).
async fn app_with_three_slow_cases(latency: std::time::Duration) -> TestApp {
    let (base_url, _) = common::spawn_slow_model("ok", latency).await;
    let config = common::slow_profile(&base_url);
    let app = TestApp::spawn_with(DEFAULT_MAX_BODY_BYTES, Config::parse(&config).unwrap()).await;
    let cases: Vec<Value> = (0..3)
        .map(|i| {
            json!({"eval_id": format!("c{i}"), "conversation": [{
                "invocation_id": format!("i{i}"),
                "user_content": {"role": "user", "parts": [{"text": "q"}]},
                "final_response": {"role": "model", "parts": [{"text": "ok"}]}
            }]})
        })
        .collect();
    let set = json!({"eval_set_id": "three", "eval_cases": cases});
    assert_eq!(
        app.post("/apps/slow/import", set.to_string()).await.status(),
        StatusCode::CREATED
    );
    app
}

/// Starts a run of `three` in the background; returns its result id.
async fn start_three(app: &TestApp) -> String {
    let started = app
        .post_json(
            "/apps/slow/eval_sets/three/run_eval",
            &json!({"wait": false, "evalMetrics": [{"metricName": "response_match_score", "threshold": 0.8}]}),
        )
        .await;
    assert_eq!(started.status(), StatusCode::ACCEPTED);
    started.json::<Value>().await.unwrap()["eval_set_result_id"]
        .as_str()
        .unwrap()
        .to_string()
}

/// Polls the stored run until its status is `status`, for up to `tries` × 50 ms.
async fn wait_for_status(app: &TestApp, id: &str, status: &str, tries: usize) -> Value {
    let path = format!("/apps/slow/eval_results/{id}");
    let mut result = app.json(&path).await;
    for _ in 0..tries {
        if result["status"] == status {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        result = app.json(&path).await;
    }
    result
}

#[tokio::test]
async fn a_failed_write_interrupts_the_run_which_resumes_once_the_store_is_writable() {
    let app = app_with_three_slow_cases(std::time::Duration::from_millis(300)).await;
    // Behind the app's back, every case write now fails, as on a full disk.
    let db = sqlx::SqlitePool::connect(&format!("sqlite://{}", app.db_path().display()))
        .await
        .unwrap();
    sqlx::query(
        "CREATE TRIGGER refuse_case_writes BEFORE INSERT ON eval_run_cases \
         BEGIN SELECT RAISE(FAIL, 'disk is full'); END",
    )
    .execute(&db)
    .await
    .unwrap();
    let id = start_three(&app).await;
    let result = wait_for_status(&app, &id, "interrupted", 100).await;
    assert_eq!(result["status"], "interrupted", "{result}");
    assert_eq!(result["eval_case_results"].as_array().unwrap().len(), 0);

    sqlx::query("DROP TRIGGER refuse_case_writes")
        .execute(&db)
        .await
        .unwrap();
    assert_eq!(
        app.post(&format!("/apps/slow/eval_results/{id}/resume"), "")
            .await
            .status(),
        StatusCode::ACCEPTED
    );
    assert_eq!(
        app.json(&format!("/apps/slow/eval_results/{id}")).await["status"],
        "running"
    );
    let result = wait_for_status(&app, &id, "finished", 100).await;
    assert_eq!(result["status"], "finished", "{result}");
    assert_eq!(common::case_statuses(&result), [1, 1, 1]);
}

#[tokio::test]
async fn a_running_eval_can_be_cancelled_and_resumed() {
    // A model that takes a while to answer.
    let app = app_with_three_slow_cases(std::time::Duration::from_millis(400)).await;
    let id = start_three(&app).await;
    let running = app.json(&format!("/apps/slow/eval_results/{id}")).await;
    assert_eq!(running["status"], "running");
    let error = assert_error(
        app.post(&format!("/apps/slow/eval_results/{id}/resume"), "")
            .await,
        StatusCode::CONFLICT,
    )
    .await;
    assert!(error["error"].as_str().unwrap().contains("is running"), "{error}");
    assert_eq!(
        app.post(&format!("/apps/slow/eval_results/{id}/cancel"), "")
            .await
            .status(),
        StatusCode::ACCEPTED
    );
    let result = wait_for_status(&app, &id, "cancelled", 20).await;
    assert_eq!(result["status"], "cancelled");
    assert!(result["eval_case_results"].as_array().unwrap().len() < 3);

    assert_eq!(
        app.post(&format!("/apps/slow/eval_results/{id}/resume"), "")
            .await
            .status(),
        StatusCode::ACCEPTED
    );
    let result = wait_for_status(&app, &id, "finished", 100).await;
    assert_eq!(result["status"], "finished");
    assert_eq!(common::case_statuses(&result), [1, 1, 1]);
}

#[tokio::test]
async fn judged_metrics_use_the_configured_judge_and_keep_its_evidence() {
    use axum::routing::post;
    // A judge that answers YES to relevancy prompts and rambles (no verdict) otherwise.
    let judge = axum::Router::new().route(
        "/v1/chat/completions",
        post(|axum::Json(body): axum::Json<Value>| async move {
            let prompt = body["messages"][0]["content"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            let reply = if prompt.contains("Paris") && !prompt.contains("reference") {
                "**YES**"
            } else {
                "I would rather not say."
            };
            axum::Json(
                json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": reply},
                "finish_reason": "stop"}]}),
            )
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, judge).await.unwrap() });
    let config = format!("[judge]\nbase_url = \"{base_url}\"\nmodel = \"judge-model\"\n");
    let app = TestApp::spawn_with(DEFAULT_MAX_BODY_BYTES, Config::parse(&config).unwrap()).await;
    let set = common::recorded_eval_set(&[("paris", &["weather in Paris"][..])]).await;
    app.post("/apps/demo/import", to_adk_json(&set)).await;

    let body = json!({"evalMetrics": [
        {"metricName": "relevancy", "threshold": 1.0},
        {"metricName": "answer_correctness", "threshold": 1.0}
    ]});
    let results: Vec<Value> = app
        .post_json("/apps/demo/eval_sets/regression/run_eval", &body)
        .await
        .json()
        .await
        .unwrap();
    let metrics = &results[0]["eval_metric_result_per_invocation"][0]["eval_metric_results"];
    assert_eq!(metrics[0]["score"], 1.0, "{metrics}");
    assert!(
        metrics[0]["details"]["evidence"].to_string().contains("**YES**"),
        "{metrics}"
    );
    // An answer with no verdict is not a silent 0: NOT_EVALUATED, with why and what was said.
    assert_eq!(metrics[1]["score"], Value::Null, "{metrics}");
    assert_eq!(metrics[1]["eval_status"], 3);
    assert!(
        metrics[1]["details"]["reason"].as_str().unwrap().len() > 10,
        "{metrics}"
    );
    assert!(
        metrics[1]["details"]["evidence"]
            .to_string()
            .contains("I would rather not say."),
        "{metrics}"
    );
    assert_eq!(
        results[0]["final_eval_status"], 1,
        "relevancy passed, correctness not evaluated"
    );

    // Without a [judge] table the metric says what to configure.
    let app = TestApp::spawn().await;
    app.post("/apps/demo/import", to_adk_json(&set)).await;
    let results: Vec<Value> = app
        .post_json(
            "/apps/demo/eval_sets/regression/run_eval",
            &json!({"evalMetrics": [{"metricName": "relevancy", "threshold": 1.0}]}),
        )
        .await
        .json()
        .await
        .unwrap();
    let reason =
        &results[0]["eval_metric_result_per_invocation"][0]["eval_metric_results"][0]["details"]["reason"];
    assert!(reason.as_str().unwrap().contains("[judge]"), "{reason}");
}
