//! Sign-in on a shared server: roles over REST, API tokens, browser logins (the cookie's
//! flags, the rate limit on failures, cross-site changes refused), the trusted proxy's header,
//! and a walk over every declared route and server function checking that each one checks.

use crate::helpers::{assert_error, spawn_app_with_config, TestApp};
use evalstudio::access::Role;
use evalstudio::api::access::{server_fn_access, Access};
use evalstudio::server::{ServeConfig, Server, DEFAULT_MAX_BODY_BYTES};
use evalstudio::service::auth;
use evalstudio::store::{Location, Store};
use reqwest::header::{HeaderMap, HeaderValue, AUTHORIZATION, ORIGIN, SET_COOKIE};
use reqwest::{Client, Method, StatusCode};
use serde_json::{json, Value};

const EVALSET: &str = r#"{"eval_set_id": "weather", "eval_cases": [{"eval_id": "paris", "conversation": [{
    "invocation_id": "i1",
    "user_content": {"role": "user", "parts": [{"text": "Weather in Paris?"}]},
    "final_response": {"role": "model", "parts": [{"text": "Sunny."}]}
}]}]}"#;
const CASE: &str = "/apps/demo/eval_sets/weather/evals/paris";
const PASSWORD: &str = "correct horse battery";

/// A server with `[auth]` (and `more` of its keys) holding the weather evalset.
async fn auth_app(more: &str) -> TestApp {
    let app = spawn_app_with_config(&format!("[auth]\n{more}")).await;
    let admin = client_with_token(&token_for(&app, "root", Role::Admin).await);
    let response = admin
        .post(app.url("/apps/demo/import"))
        .body(EVALSET)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::CREATED);
    app
}

async fn store(app: &TestApp) -> Store {
    Store::open(&app.database).await.unwrap()
}

/// Adds `name` with `role` and the test password.
async fn add_user(app: &TestApp, name: &str, role: Role) {
    app.add_user(name, role, Some(PASSWORD)).await;
}

/// A new user `name` with `role`, and a token of theirs.
async fn token_for(app: &TestApp, name: &str, role: Role) -> String {
    add_user(app, name, role).await;
    app.new_token(name, &format!("{name}-token")).await
}

fn client_with(headers: HeaderMap) -> Client {
    Client::builder()
        .default_headers(headers)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

fn client_with_token(token: &str) -> Client {
    let mut headers = HeaderMap::new();
    headers.insert(
        AUTHORIZATION,
        HeaderValue::from_str(&format!("Bearer {token}")).unwrap(),
    );
    client_with(headers)
}

fn anonymous() -> Client {
    client_with(HeaderMap::new())
}

/// Logs in through the login form's endpoint as a browser on this server's own page does.
async fn log_in(app: &TestApp, name: &str, password: &str) -> reqwest::Response {
    log_in_with(anonymous(), app, name, password).await
}

/// Logs in as [`log_in`] does, from the loopback address `from` (`127.0.0.2`, …): the server
/// sees another client's address.
async fn log_in_from(app: &TestApp, from: &str, name: &str, password: &str) -> reqwest::Response {
    let client = Client::builder()
        .local_address(Some(from.parse().unwrap()))
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    log_in_with(client, app, name, password).await
}

async fn log_in_with(client: Client, app: &TestApp, name: &str, password: &str) -> reqwest::Response {
    client
        .post(app.url("/api/log_in"))
        .header(ORIGIN, &app.address)
        .form(&[("name", name), ("password", password), ("next", "/runs")])
        .send()
        .await
        .unwrap()
}

fn signed_in(response: &reqwest::Response) -> bool {
    (response.status().is_success() || response.status().is_redirection())
        && response.headers().get(SET_COOKIE).is_some()
}

/// A 429's `Retry-After`, in seconds.
fn retry_after(response: &reqwest::Response) -> u64 {
    assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS);
    response.headers()[reqwest::header::RETRY_AFTER]
        .to_str()
        .unwrap()
        .parse()
        .unwrap()
}

/// The session cookie a successful login set, as the browser sends it back.
async fn session_of(app: &TestApp, name: &str) -> (String, String) {
    let response = log_in(app, name, PASSWORD).await;
    assert!(
        response.status().is_success() || response.status().is_redirection(),
        "{}",
        response.status()
    );
    let set_cookie = response.headers()[SET_COOKIE].to_str().unwrap().to_string();
    let pair = set_cookie.split(';').next().unwrap().to_string();
    (pair, set_cookie)
}

fn client_with_cookie(cookie: &str, origin: Option<&str>) -> Client {
    let mut headers = HeaderMap::new();
    headers.insert(reqwest::header::COOKIE, HeaderValue::from_str(cookie).unwrap());
    if let Some(origin) = origin {
        headers.insert(ORIGIN, HeaderValue::from_str(origin).unwrap());
    }
    client_with(headers)
}

async fn edited_case(app: &TestApp, client: &Client) -> Value {
    let mut case: Value = client
        .get(app.url(CASE))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    case["conversation"][0]["final_response"]["parts"][0]["text"] = json!("Rainy.");
    case
}

#[tokio::test]
async fn anonymous_callers_are_refused_and_pages_send_them_to_log_in() {
    let app = auth_app("").await;
    let refused = anonymous()
        .get(app.url("/apps/demo/eval_sets"))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.headers()["www-authenticate"], "Bearer");
    let body = assert_error(refused, StatusCode::UNAUTHORIZED).await;
    assert!(body["error"].as_str().unwrap().contains("/login"), "{body}");
    let page = anonymous().get(app.url("/runs?x=1")).send().await.unwrap();
    assert!(page.status().is_redirection(), "{}", page.status());
    assert_eq!(page.headers()["location"], "/login?next=/runs%3Fx%3D1");
    let login = anonymous().get(app.url("/login")).send().await.unwrap();
    assert_eq!(login.status(), StatusCode::OK);
    assert!(login.text().await.unwrap().contains("Sign in"));
}

#[tokio::test]
async fn a_viewer_reads_but_may_not_edit() {
    let app = auth_app("").await;
    let viewer = client_with_token(&token_for(&app, "vera", Role::Viewer).await);
    let case = edited_case(&app, &viewer).await;
    assert_eq!(case["eval_id"], "paris");
    let refused = viewer.put(app.url(CASE)).json(&case).send().await.unwrap();
    let body = assert_error(refused, StatusCode::FORBIDDEN).await;
    assert_eq!(
        body["error"],
        "your role, viewer, may not do this: it needs editor"
    );
}

#[tokio::test]
async fn an_editors_save_is_recorded_under_their_name() {
    let app = auth_app("").await;
    let editor = client_with_token(&token_for(&app, "edna", Role::Editor).await);
    let case = edited_case(&app, &editor).await;
    let saved = editor.put(app.url(CASE)).json(&case).send().await.unwrap();
    assert_eq!(saved.status(), StatusCode::OK);
    let history: Value = editor
        .get(app.url(&format!("{CASE}/versions")))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let by: Vec<&Value> = history
        .as_array()
        .unwrap()
        .iter()
        .map(|v| &v["saved_by"])
        .collect();
    assert_eq!(
        by,
        [&json!("edna"), &json!("root")],
        "newest first: edna's edit of root's import"
    );
}

#[tokio::test]
async fn a_revoked_token_is_refused_at_once() {
    let app = auth_app("").await;
    let token = token_for(&app, "edna", Role::Editor).await;
    let client = client_with_token(&token);
    assert_eq!(
        client.get(app.url(CASE)).send().await.unwrap().status(),
        StatusCode::OK
    );
    auth::revoke_token(&store(&app).await, "edna-token")
        .await
        .unwrap();
    let refused = client.get(app.url(CASE)).send().await.unwrap();
    let body = assert_error(refused, StatusCode::UNAUTHORIZED).await;
    assert_eq!(body["error"], "this bearer token is unknown or revoked");
}

#[tokio::test]
async fn a_tokens_use_is_noted() {
    let app = auth_app("").await;
    let client = client_with_token(&token_for(&app, "edna", Role::Editor).await);
    let unused = auth::list_tokens(&store(&app).await).await.unwrap();
    assert!(unused
        .iter()
        .all(|t| t.name != "edna-token" || t.last_used_at.is_none()));
    client.get(app.url(CASE)).send().await.unwrap();
    let tokens = auth::list_tokens(&store(&app).await).await.unwrap();
    let edna = tokens.iter().find(|t| t.name == "edna-token").unwrap();
    assert_eq!(edna.user, "edna");
    assert!(edna.last_used_at.is_some());
}

#[tokio::test]
async fn the_ingest_role_may_do_nothing_else() {
    let app = auth_app("").await;
    let ingest = client_with_token(&token_for(&app, "otel", Role::Ingest).await);
    let refused = ingest.get(app.url("/apps/demo/eval_sets")).send().await.unwrap();
    let body = assert_error(refused, StatusCode::FORBIDDEN).await;
    assert_eq!(
        body["error"],
        "your role, ingest, may not do this: it needs viewer"
    );
}

#[tokio::test]
async fn a_login_sets_an_httponly_lax_session_cookie_that_signs_the_browser_in() {
    let app = auth_app("").await;
    add_user(&app, "edna", Role::Editor).await;
    let (cookie, set_cookie) = session_of(&app, "edna").await;
    assert!(cookie.starts_with("evalstudio_session=ess_"), "{set_cookie}");
    for flag in ["HttpOnly", "SameSite=Lax", "Path=/", "Max-Age=43200"] {
        assert!(set_cookie.contains(flag), "{flag} in {set_cookie}");
    }
    assert!(!set_cookie.contains("Secure"), "plain http: {set_cookie}");
    let browser = client_with_cookie(&cookie, Some(&app.address));
    let me: Value = browser
        .post(app.url("/api/who_am_i"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        me,
        json!({"auth_on": true, "user": {"name": "edna", "role": "editor"}})
    );
    let case = edited_case(&app, &browser).await;
    assert_eq!(
        browser
            .put(app.url(CASE))
            .json(&case)
            .send()
            .await
            .unwrap()
            .status(),
        StatusCode::OK
    );
}

#[tokio::test]
async fn logging_out_ends_the_session() {
    let app = auth_app("").await;
    add_user(&app, "edna", Role::Editor).await;
    let (cookie, _) = session_of(&app, "edna").await;
    let browser = client_with_cookie(&cookie, Some(&app.address));
    let out = browser.post(app.url("/api/log_out")).send().await.unwrap();
    assert!(out.headers()[SET_COOKIE].to_str().unwrap().contains("Max-Age=0"));
    let after = browser.get(app.url(CASE)).send().await.unwrap();
    assert_eq!(after.status(), StatusCode::UNAUTHORIZED);
}

/// Logs in as a browser on this server's page served over https (through a TLS proxy).
async fn log_in_over_tls(app: &TestApp, forwarded_proto: bool) -> String {
    let mut request = anonymous()
        .post(app.url("/api/log_in"))
        .header(ORIGIN, app.address.replace("http://", "https://"))
        .form(&[("name", "edna"), ("password", PASSWORD)]);
    if forwarded_proto {
        request = request.header("x-forwarded-proto", "https");
    }
    let response = request.send().await.unwrap();
    response.headers()[SET_COOKIE].to_str().unwrap().to_string()
}

#[tokio::test]
async fn the_cookie_is_secure_over_tls_by_setting_or_from_a_trusted_proxy() {
    let app = auth_app("secure_cookie = true").await;
    add_user(&app, "edna", Role::Editor).await;
    let cookie = log_in_over_tls(&app, false).await;
    assert!(
        cookie.starts_with("__Host-evalstudio_session=ess_") && cookie.contains("; Secure"),
        "{cookie}"
    );

    let behind_proxy = auth_app("trusted_proxies = [\"127.0.0.1\"]").await;
    add_user(&behind_proxy, "edna", Role::Editor).await;
    let cookie = log_in_over_tls(&behind_proxy, true).await;
    assert!(
        cookie.starts_with("__Host-evalstudio_session=") && cookie.contains("; Secure"),
        "{cookie}"
    );
}

#[tokio::test]
async fn behind_a_trusted_proxy_the_origin_is_the_host_the_browser_asked_for() {
    let app = auth_app("trusted_proxies = [\"127.0.0.1\"]").await;
    add_user(&app, "edna", Role::Editor).await;
    let through_proxy = |origin: &str| {
        anonymous()
            .post(app.url("/api/log_in"))
            .header(ORIGIN, origin)
            .header("x-forwarded-host", "evalstudio.example")
            .header("x-forwarded-proto", "https")
            .form(&[("name", "edna"), ("password", PASSWORD)])
    };
    let signed_in = through_proxy("https://evalstudio.example").send().await.unwrap();
    assert!(
        signed_in.headers().contains_key(SET_COOKIE),
        "{}",
        signed_in.status()
    );
    let elsewhere = through_proxy(&app.address).send().await.unwrap();
    assert_eq!(elsewhere.status(), StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn a_wrong_password_is_refused_and_repeated_failures_are_throttled() {
    let app = auth_app("failed_login_limit = 3").await;
    add_user(&app, "edna", Role::Editor).await;
    for _ in 0..3 {
        let wrong = log_in(&app, "edna", "not the password").await;
        assert_eq!(wrong.status(), StatusCode::UNAUTHORIZED);
        assert!(wrong.headers().get(SET_COOKIE).is_none());
        assert!(wrong
            .text()
            .await
            .unwrap()
            .contains("wrong user name or password"));
    }
    let throttled = log_in(&app, "edna", PASSWORD).await;
    assert_eq!(
        throttled.status(),
        StatusCode::TOO_MANY_REQUESTS,
        "even the right password from this address, until the window passes"
    );
    assert!(throttled.headers().get(SET_COOKIE).is_none());
    assert!(throttled
        .text()
        .await
        .unwrap()
        .contains("try again in 15 minute(s)"));
    // The count is per user and address: another user from the same address signs in.
    add_user(&app, "otto", Role::Editor).await;
    assert!(signed_in(&log_in(&app, "otto", PASSWORD).await));
}

#[tokio::test]
async fn failures_from_one_address_do_not_lock_the_user_out_from_another() {
    let app = auth_app("").await;
    add_user(&app, "alice", Role::Editor).await;
    for _ in 0..8 {
        let wrong = log_in_from(&app, "127.0.0.2", "alice", "not the password").await;
        assert!(
            [StatusCode::UNAUTHORIZED, StatusCode::TOO_MANY_REQUESTS].contains(&wrong.status()),
            "{}",
            wrong.status()
        );
    }
    let elsewhere = log_in_from(&app, "127.0.0.3", "alice", PASSWORD).await;
    assert!(signed_in(&elsewhere), "{}", elsewhere.status());
}

#[tokio::test]
async fn past_the_limit_even_the_right_password_is_told_when_to_try_again() {
    let app = auth_app("").await;
    add_user(&app, "alice", Role::Editor).await;
    for _ in 0..5 {
        let wrong = log_in_from(&app, "127.0.0.4", "alice", "not the password").await;
        assert_eq!(wrong.status(), StatusCode::UNAUTHORIZED);
    }
    let sixth = log_in_from(&app, "127.0.0.4", "alice", "not the password").await;
    assert!((1..=900).contains(&retry_after(&sixth)));
    let right = log_in_from(&app, "127.0.0.4", "alice", PASSWORD).await;
    let seconds = retry_after(&right);
    assert!((1..=900).contains(&seconds), "Retry-After: {seconds}");
    assert!(right.headers().get(SET_COOKIE).is_none());
    // Refused attempts are not failures: the count stays at the five checked.
    let counted = store(&app)
        .await
        .failed_logins(Some("alice"), None, 3600.0)
        .await
        .unwrap();
    assert_eq!(counted.0, 5);
}

#[tokio::test]
async fn one_address_failing_for_many_names_is_throttled_for_every_name() {
    let app = auth_app("").await;
    add_user(&app, "alice", Role::Editor).await;
    for n in 0..20 {
        let wrong = log_in_from(&app, "127.0.0.5", &format!("guess{n}"), "not the password").await;
        assert_eq!(wrong.status(), StatusCode::UNAUTHORIZED);
    }
    let throttled = log_in_from(&app, "127.0.0.5", "alice", PASSWORD).await;
    assert!((1..=900).contains(&retry_after(&throttled)));
    assert!(signed_in(
        &log_in_from(&app, "127.0.0.6", "alice", PASSWORD).await
    ));
}

#[tokio::test]
async fn past_a_users_hourly_ceiling_only_addresses_that_failed_for_them_are_refused() {
    // Per user and address 1 failure in 1.2 s; per user 20 an hour from all addresses.
    let app = auth_app("failed_login_limit = 1\nfailed_login_window_minutes = 0.02").await;
    add_user(&app, "alice", Role::Editor).await;
    for n in 1..=21 {
        let wrong = log_in_from(&app, &format!("127.0.1.{n}"), "alice", "not the password").await;
        assert_eq!(wrong.status(), StatusCode::UNAUTHORIZED, "attempt {n}");
    }
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    let again = log_in_from(&app, "127.0.1.1", "alice", PASSWORD).await;
    let seconds = retry_after(&again);
    assert!((900..=3600).contains(&seconds), "Retry-After: {seconds}");
    let fresh = log_in_from(&app, "127.0.2.1", "alice", PASSWORD).await;
    assert!(signed_in(&fresh), "{}", fresh.status());
}

#[tokio::test]
async fn a_user_name_no_user_could_have_is_refused_unrecorded() {
    let app = auth_app("").await;
    let huge = "a".repeat(100 * 1024);
    for name in [huge.as_str(), "al ice", ""] {
        let refused = log_in(&app, name, PASSWORD).await;
        assert_eq!(refused.status(), StatusCode::UNAUTHORIZED);
        assert!(refused
            .text()
            .await
            .unwrap()
            .contains("wrong user name or password"));
    }
    let recorded = store(&app).await.failed_logins(None, None, 3600.0).await.unwrap();
    assert_eq!(recorded.0, 0, "no failed login stored");
}

#[tokio::test]
async fn changes_from_another_site_are_refused() {
    let app = auth_app("").await;
    add_user(&app, "edna", Role::Editor).await;
    let (cookie, _) = session_of(&app, "edna").await;
    let case = edited_case(&app, &client_with_cookie(&cookie, None)).await;
    for origin in [Some("http://evil.example"), None] {
        let browser = client_with_cookie(&cookie, origin);
        let refused = browser.put(app.url(CASE)).json(&case).send().await.unwrap();
        let body = assert_error(refused, StatusCode::FORBIDDEN).await;
        assert!(
            body["error"].as_str().unwrap().contains("another site"),
            "{origin:?}: {body}"
        );
    }
    let login_from_elsewhere = anonymous()
        .post(app.url("/api/log_in"))
        .header(ORIGIN, "http://evil.example")
        .form(&[("name", "edna"), ("password", PASSWORD)])
        .send()
        .await
        .unwrap();
    assert_eq!(login_from_elsewhere.status(), StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn a_trusted_proxys_header_names_the_user_and_nobody_elses_does() {
    let config = "trusted_proxies = [\"127.0.0.1\"]\nproxy_header = \"X-Forwarded-User\"";
    let app = auth_app(config).await;
    add_user(&app, "edna", Role::Editor).await;
    let mut headers = HeaderMap::new();
    headers.insert("x-forwarded-user", HeaderValue::from_static("edna"));
    let via_proxy = client_with(headers.clone());
    let me: Value = via_proxy
        .post(app.url("/api/who_am_i"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(me["user"]["name"], "edna");
    headers.insert("x-forwarded-user", HeaderValue::from_static("mallory"));
    let unknown = client_with(headers.clone())
        .get(app.url(CASE))
        .send()
        .await
        .unwrap();
    assert_eq!(unknown.status(), StatusCode::FORBIDDEN);

    let untrusting = auth_app("trusted_proxies = [\"10.9.9.9\"]\nproxy_header = \"X-Forwarded-User\"").await;
    let ignored = client_with(headers)
        .get(untrusting.url(CASE))
        .send()
        .await
        .unwrap();
    assert_eq!(
        ignored.status(),
        StatusCode::UNAUTHORIZED,
        "the header counts only from a listed proxy"
    );
}

/// `path` with each `{param}` (or `:param`) filled in.
fn filled(path: &str) -> String {
    path.split('/')
        .map(|part| {
            if part.starts_with('{') || part.starts_with(':') || part.starts_with('*') {
                "x"
            } else {
                part
            }
        })
        .collect::<Vec<_>>()
        .join("/")
}

#[tokio::test]
async fn every_declared_route_and_server_function_checks_its_caller() {
    let app = auth_app("").await;
    let viewer = client_with_token(&token_for(&app, "vera", Role::Viewer).await);
    let routes = evalstudio::server::declared_routes(None);
    let mut walked = 0;
    for route in routes.entries() {
        let url = app.url(&filled(&route.path));
        let anonymous = anonymous()
            .request(route.method.clone(), &url)
            .send()
            .await
            .unwrap();
        let viewers = viewer.request(route.method.clone(), &url).send().await.unwrap();
        match route.access {
            Access::Public => {}
            Access::Role(needed) => {
                assert_eq!(
                    anonymous.status(),
                    StatusCode::UNAUTHORIZED,
                    "{} {}",
                    route.method,
                    route.path
                );
                if !Role::Viewer.may(needed) {
                    assert_eq!(
                        viewers.status(),
                        StatusCode::FORBIDDEN,
                        "{} {}",
                        route.method,
                        route.path
                    );
                }
            }
        }
        walked += 1;
    }
    assert!(walked > 60, "{walked} routes");
    // ADK's web UI, served only where its folder is given, is a viewer's.
    let with_web_ui = evalstudio::server::declared_routes(Some(std::path::Path::new("/nowhere")));
    let web_ui: Vec<_> = with_web_ui
        .entries()
        .iter()
        .filter(|e| !routes.entries().contains(e))
        .collect();
    assert_eq!(web_ui.len(), 4);
    assert!(
        web_ui.iter().all(|e| e.access == Access::Role(Role::Viewer)),
        "{web_ui:?}"
    );
    let declared = server_fn_access();
    for (path, method) in leptos::server_fn::axum::server_fn_paths() {
        let access = declared
            .get(path)
            .unwrap_or_else(|| panic!("server function {path} declares no role"));
        let method = Method::from_bytes(method.as_str().as_bytes()).unwrap();
        let answer = anonymous()
            .request(method, app.url(path))
            .header(ORIGIN, &app.address)
            .send()
            .await
            .unwrap();
        if *access != Access::Public {
            assert_eq!(answer.status(), StatusCode::UNAUTHORIZED, "{path}");
        }
    }
    // Pages, and what the router falls back to for paths it does not match (a trailing slash the
    // app's own router still resolves, a mistyped path): each renders pages, so each is a viewer's.
    let pages = [
        "/",
        "/chat",
        "/settings",
        "/runs",
        "/runs/x/y",
        "/evalsets/x/y",
        "/evalsets/x/y/case",
    ];
    let fallbacks = [
        "/evalsets/demo/weather/",
        "/runs/",
        "/chat/",
        "/x/../runs",
        "/no/such/page",
    ];
    for page in pages.into_iter().chain(fallbacks) {
        let answer = anonymous().get(app.url(page)).send().await.unwrap();
        assert!(answer.status().is_redirection(), "{page}: {}", answer.status());
    }
}

fn serve_config(dir: &std::path::Path, addr: &str, config: &str, insecure_no_auth: bool) -> ServeConfig {
    std::fs::write(dir.join("evalstudio.toml"), config).unwrap();
    ServeConfig {
        addr: addr.parse().unwrap(),
        db: Location::Sqlite(dir.join("evalstudio.db")),
        site_root: dir.to_string_lossy().into_owned(),
        max_body_bytes: DEFAULT_MAX_BODY_BYTES,
        config_path: Some(dir.join("evalstudio.toml")),
        agents_dir: None,
        adk: None,
        adk_web_ui: None,
        insecure_no_auth,
        worker: Default::default(),
    }
}

#[tokio::test]
async fn serving_beyond_loopback_needs_auth_or_the_insecure_flag() {
    let dir = tempfile::tempdir().unwrap();
    let refused = Server::bind(serve_config(dir.path(), "0.0.0.0:0", "", false)).await;
    let message = refused.err().unwrap().to_string();
    assert!(
        message.contains("refusing to serve on 0.0.0.0:0 without sign-in"),
        "{message}"
    );
    assert!(
        message.contains("[auth]") && message.contains("--insecure-no-auth"),
        "{message}"
    );
    for (config, insecure) in [("[auth]\n", false), ("", true)] {
        let bound = Server::bind(serve_config(dir.path(), "0.0.0.0:0", config, insecure)).await;
        assert!(bound.is_ok(), "{config:?} {insecure}");
    }
}

/// Runs the `evalstudio` binary on `db` with `stdin`; answers its exit code, stdout, stderr.
fn evalstudio(db: &str, args: &[&str], stdin: &str) -> (i32, String, String) {
    use std::io::Write;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_evalstudio"))
        .args(["--db", db])
        .args(args)
        .env_remove("DATABASE_URL")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let text = |bytes: Vec<u8>| String::from_utf8(bytes).unwrap();
    (out.status.code().unwrap(), text(out.stdout), text(out.stderr))
}

#[tokio::test]
async fn the_cli_adds_users_and_prints_a_token_alone() {
    let app = auth_app("").await;
    let db = app.db_arg();
    let added = evalstudio(
        &db,
        &["user", "add", "ci", "--role", "editor", "--password-stdin"],
        "long enough pw\n",
    );
    assert_eq!(added.0, 0, "{}", added.2);
    let (code, stdout, stderr) = evalstudio(&db, &["token", "create", "nightly", "--user", "ci"], "");
    assert_eq!(code, 0, "{stderr}");
    let token = stdout.strip_suffix('\n').unwrap();
    assert!(
        token.starts_with("est_") && token.len() == 68 && !token.contains(char::is_whitespace),
        "{stdout:?}"
    );
    let client = client_with_token(token);
    assert_eq!(
        client.get(app.url(CASE)).send().await.unwrap().status(),
        StatusCode::OK
    );
    assert_eq!(
        log_in(&app, "ci", "long enough pw").await.status(),
        StatusCode::OK
    );

    let short = evalstudio(
        &db,
        &["user", "add", "x", "--role", "viewer", "--password-stdin"],
        "short\n",
    );
    assert_eq!(short.0, 2);
    assert!(
        short.2.contains("too short: use at least 8 characters"),
        "{}",
        short.2
    );
    let bad_role = evalstudio(&db, &["user", "add", "x", "--role", "root", "--no-password"], "");
    assert!(
        bad_role.2.contains("expected viewer, editor, admin or ingest"),
        "{}",
        bad_role.2
    );
    let revoked = evalstudio(&db, &["token", "revoke", "nightly"], "");
    assert_eq!(revoked.0, 0, "{}", revoked.2);
    assert_eq!(
        client.get(app.url(CASE)).send().await.unwrap().status(),
        StatusCode::UNAUTHORIZED
    );
}

#[tokio::test]
async fn logins_sent_at_once_cannot_slip_under_the_limit() {
    let app = auth_app("failed_login_limit = 3").await;
    add_user(&app, "edna", Role::Editor).await;
    let attempts = (0..10).map(|_| log_in(&app, "edna", "not the password"));
    let answers = futures::future::join_all(attempts).await;
    let checked = answers
        .iter()
        .filter(|a| a.status() == StatusCode::UNAUTHORIZED)
        .count();
    let throttled = answers
        .iter()
        .filter(|a| a.status() == StatusCode::TOO_MANY_REQUESTS)
        .count();
    assert!(checked <= 3, "{checked} passwords checked of 10 at once");
    assert_eq!(checked + throttled, 10);
}

#[tokio::test]
async fn a_new_password_ends_the_users_sessions() {
    let app = auth_app("").await;
    add_user(&app, "edna", Role::Editor).await;
    let (cookie, _) = session_of(&app, "edna").await;
    let browser = client_with_cookie(&cookie, None);
    assert_eq!(
        browser.get(app.url(CASE)).send().await.unwrap().status(),
        StatusCode::OK
    );
    auth::set_password(&store(&app).await, "edna", "another long one".into())
        .await
        .unwrap();
    assert_eq!(
        browser.get(app.url(CASE)).send().await.unwrap().status(),
        StatusCode::UNAUTHORIZED
    );
}

#[tokio::test]
async fn with_auth_off_a_change_from_another_site_or_host_name_is_refused() {
    let app = crate::helpers::spawn_app().await;
    app.import("demo", EVALSET).await;
    let from_a_page_elsewhere = anonymous()
        .post(app.url("/apps/demo/eval_sets/weather/delete_evals"))
        .header(ORIGIN, "http://evil.example")
        .json(&json!({"eval_ids": ["paris"]}))
        .send()
        .await
        .unwrap();
    let body = assert_error(from_a_page_elsewhere, StatusCode::FORBIDDEN).await;
    assert!(body["error"].as_str().unwrap().contains("another site"), "{body}");
    let rebound = anonymous()
        .get(app.url(CASE))
        .header(reqwest::header::HOST, "evil.example")
        .send()
        .await
        .unwrap();
    let body = assert_error(rebound, StatusCode::FORBIDDEN).await;
    assert!(
        body["error"].as_str().unwrap().contains("loopback only"),
        "{body}"
    );
    let own_page = anonymous()
        .get(app.url(CASE))
        .header(reqwest::header::HOST, "localhost")
        .send()
        .await
        .unwrap();
    assert_eq!(own_page.status(), StatusCode::OK);
}

/// A server function as a signed-in browser's page or a script calls it: a form, with a token.
async fn call_server_fn(app: &TestApp, token: &str, path: &str, form: &str) -> reqwest::Response {
    client_with_token(token)
        .post(app.url(path))
        .header(reqwest::header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(form.to_string())
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn editors_and_admins_server_functions_let_their_roles_through() {
    // Past the gate, each such body checks the caller again (`api::access::require`): it must
    // find the caller the gate identified, or no one could edit.
    use evalstudio::api::auth::ListTokens;
    use evalstudio::api::CreateEvalSet;
    use leptos::server_fn::ServerFn;
    let app = auth_app("").await;
    let editor = token_for(&app, "edna", Role::Editor).await;
    let created = call_server_fn(&app, &editor, CreateEvalSet::PATH, "app=demo&eval_set_id=fresh").await;
    assert_eq!(created.status(), StatusCode::OK);
    let listed = client_with_token(&editor)
        .get(app.url("/apps/demo/eval_sets"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(listed.contains("fresh"), "{listed}");

    let refused = call_server_fn(&app, &editor, ListTokens::PATH, "").await;
    assert_eq!(refused.status(), StatusCode::FORBIDDEN);
    let admin = token_for(&app, "ada", Role::Admin).await;
    let tokens = call_server_fn(&app, &admin, ListTokens::PATH, "").await;
    assert_eq!(tokens.status(), StatusCode::OK);
    assert!(tokens.text().await.unwrap().contains("edna-token"));
}
