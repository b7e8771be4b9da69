//! MCP tool servers: the official reference server (`@modelcontextprotocol/server-everything`,
//! from npm, installed by `make tools`) over stdio and over streamable HTTP, offered to an
//! `openai` profile whose model is the fake OpenAI-protocol server. A tool call reaches the
//! server, its result is recorded as ADK records it, and a captured case keeps both.

use std::path::PathBuf;
use std::time::Duration;

use crate::common::fake_openai::{Reply, Server};
use crate::helpers::{run_request, spawn_app_with_config, TestApp};
use crate::wait::wait_until;
use reqwest::StatusCode;
use serde_json::{json, Value};

/// The reference server's program, from end2end/node_modules.
fn everything_bin() -> PathBuf {
    let bin =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("end2end/node_modules/.bin/mcp-server-everything");
    assert!(
        bin.exists(),
        "{} is missing: run `make tools` (npm installs the MCP reference server)",
        bin.display()
    );
    bin
}

/// A model reply asking for one tool.
fn calls(name: &str, args: Value) -> Reply {
    Reply::sse(vec![
        json!({"choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [
        {"index": 0, "id": "call_1", "type": "function",
         "function": {"name": name, "arguments": args.to_string()}}
    ]}, "finish_reason": "tool_calls"}]}),
    ])
}

fn says(text: &str) -> Reply {
    Reply::sse(vec![
        json!({"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": "stop"}]}),
    ])
}

/// An `openai` profile `mcp` offering the server described by `server_entry` (TOML lines).
fn config(model: &Server, server_entry: &str) -> String {
    format!(
        "[[mcp_servers]]\nname = \"everything\"\n{server_entry}\n\
         [[profiles]]\nname = \"mcp\"\nkind = \"openai\"\nmodel = \"m\"\nbase_url = \"{}\"\n\
         mcp_servers = [\"everything\"]\nmax_tool_steps = 2\n",
        model.base_url
    )
}

fn stdio_entry() -> String {
    format!(
        "command = \"{}\"\nargs = [\"stdio\"]\n",
        everything_bin().display()
    )
}

/// One chat turn; the events `/run` answers.
async fn turn(app: &TestApp, session: &str, text: &str) -> Vec<Value> {
    let response = app
        .post_json("/run", &run_request("mcp", "u", session, text))
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    response.json().await.unwrap()
}

fn function_response(events: &[Value]) -> Value {
    events
        .iter()
        .find_map(|e| e["content"]["parts"][0].get("functionResponse").cloned())
        .expect("a function response")["response"]
        .clone()
}

async fn sum_through_chat(app: &TestApp, model: &Server) {
    app.create_session("mcp", "u", "s1").await;
    let events = turn(app, "s1", "What is 2 + 3?").await;
    let call = &events[0]["content"]["parts"][0]["functionCall"];
    assert_eq!(call["name"], "get-sum");
    assert_eq!(call["args"], json!({"a": 2, "b": 3}));
    assert_eq!(
        function_response(&events),
        json!({"content": [{"type": "text", "text": "The sum of 2 and 3 is 5."}], "isError": false})
    );
    let declared = &model.bodies()[0]["tools"];
    let get_sum = declared
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == "get-sum")
        .expect("the server's tools are declared to the model");
    assert_eq!(
        get_sum["function"]["parameters"]["properties"]["a"]["type"],
        "number"
    );
    assert!(
        declared
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["function"]["name"] != "get_weather"),
        "a profile with mcp_servers offers no built-in tool unless it names one"
    );
}

#[tokio::test]
async fn a_stdio_server_s_tool_runs_in_a_chat_turn_and_lands_in_the_captured_case() {
    let model = Server::start(vec![calls("get-sum", json!({"a": 2, "b": 3})), says("5.")]).await;
    let app = spawn_app_with_config(&config(&model, &stdio_entry())).await;
    sum_through_chat(&app, &model).await;

    let case = app.capture_session("mcp", "captured", "sum", "s1").await;
    let data = &case["conversation"][0]["intermediate_data"];
    assert_eq!(data["tool_uses"][0]["name"], "get-sum");
    assert_eq!(data["tool_responses"][0]["name"], "get-sum");
    assert_eq!(
        data["tool_responses"][0]["response"]["content"][0]["text"],
        "The sum of 2 and 3 is 5."
    );
}

#[tokio::test]
async fn a_streamable_http_server_s_tool_runs_in_a_chat_turn() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut child = tokio::process::Command::new(everything_bin())
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    wait_until("the MCP server listens", || async {
        tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .ok()
            .map(drop)
    })
    .await;
    let model = Server::start(vec![calls("get-sum", json!({"a": 2, "b": 3})), says("5.")]).await;
    let entry = format!("url = \"http://127.0.0.1:{port}/mcp\"\nheaders = {{ X-Team = \"evals\" }}\n");
    let app = spawn_app_with_config(&config(&model, &entry)).await;
    sum_through_chat(&app, &model).await;
    child.kill().await.unwrap();
}

#[tokio::test]
async fn a_server_that_is_not_installed_fails_the_turn_with_a_sentence() {
    let model = Server::start(vec![says("never asked")]).await;
    let app = spawn_app_with_config(&config(&model, "command = \"/nonexistent/mcp-server\"\n")).await;
    app.create_session("mcp", "u", "s1").await;
    let events = turn(&app, "s1", "hi").await;
    let text = events.last().unwrap().to_string();
    assert!(
        text.contains(
            "cannot start the MCP server `everything`: the program `/nonexistent/mcp-server` was not found"
        ),
        "{text}"
    );
    assert_eq!(
        model.request_count(),
        0,
        "the model is not asked without its tools"
    );
}

#[tokio::test]
async fn a_server_that_is_not_installed_leaves_the_other_profiles_working() {
    let model = Server::start(vec![says("never asked")]).await;
    let app = spawn_app_with_config(&config(&model, "command = \"/nonexistent/mcp-server\"\n")).await;
    app.create_session("mcp", "u", "s1").await;
    turn(&app, "s1", "hi").await;
    app.create_session("demo", "u", "d1").await;
    let demo = app
        .post_json("/run", &run_request("demo", "u", "d1", "Weather in Paris?"))
        .await;
    assert_eq!(demo.status(), StatusCode::OK, "the rest of Evalstudio is fine");
}

#[tokio::test]
async fn a_call_past_the_timeout_answers_the_model_with_an_error() {
    let model = Server::start(vec![
        calls(
            "trigger-long-running-operation",
            json!({"duration": 5, "steps": 5}),
        ),
        says("It took too long."),
    ])
    .await;
    let entry = format!("{}timeout_secs = 1\n", stdio_entry());
    let app = spawn_app_with_config(&config(&model, &entry)).await;
    app.create_session("mcp", "u", "s1").await;
    let events = turn(&app, "s1", "run the long operation").await;
    let error = function_response(&events)["error"].as_str().unwrap().to_string();
    assert!(
        error.contains("did not answer the call to `trigger-long-running-operation` within 1 s"),
        "{error}"
    );
    assert_eq!(
        events.last().unwrap()["content"]["parts"][0]["text"],
        "It took too long."
    );
}

/// A chat whose MCP server is killed (-9) half a second into a long call; the app, its model
/// (which next asks for get-sum), the turn's events and the folder the server's pid is written
/// in (each time it starts).
async fn server_killed_mid_call() -> (TestApp, Server, Vec<Value>, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("pid");
    let entry = format!(
        "command = \"sh\"\nargs = [\"-c\", \"echo $$ > {}; exec {} stdio\"]\n",
        pid_file.display(),
        everything_bin().display()
    );
    let model = Server::start(vec![
        calls(
            "trigger-long-running-operation",
            json!({"duration": 30, "steps": 30}),
        ),
        says("The server died."),
        calls("get-sum", json!({"a": 2, "b": 3})),
        says("5."),
    ])
    .await;
    let app = spawn_app_with_config(&config(&model, &entry)).await;
    app.create_session("mcp", "u", "s1").await;
    let killer = async {
        wait_until("the model asks for the tool", || async {
            (model.request_count() >= 1).then_some(())
        })
        .await;
        tokio::time::sleep(Duration::from_millis(500)).await;
        let pid = std::fs::read_to_string(&pid_file).unwrap();
        let killed = std::process::Command::new("kill")
            .args(["-9", pid.trim()])
            .status()
            .unwrap();
        assert!(killed.success());
    };
    let (events, ()) = tokio::join!(turn(&app, "s1", "run the long operation"), killer);
    (app, model, events, dir)
}

#[tokio::test]
async fn a_server_killed_mid_call_is_an_error() {
    let (_app, _model, events, _dir) = server_killed_mid_call().await;
    let error = function_response(&events)["error"].as_str().unwrap().to_string();
    assert!(
        error.contains("stopped during the call to `trigger-long-running-operation`"),
        "{error}"
    );
}

#[tokio::test]
async fn a_server_killed_mid_call_starts_again_on_the_next_call() {
    let (app, _model, _, _dir) = server_killed_mid_call().await;
    let events = turn(&app, "s1", "What is 2 + 3?").await;
    assert_eq!(
        function_response(&events)["content"][0]["text"],
        "The sum of 2 and 3 is 5."
    );
}

/// A config with two copies of the everything server, `one` and `two` (the second's entry ending
/// in `prefix`), both offered by profile `mcp` whose model is at `base_url`.
fn two_servers(prefix: &str, base_url: &str) -> String {
    format!(
        "[[mcp_servers]]\nname = \"one\"\n{entry}\n[[mcp_servers]]\nname = \"two\"\n{entry}{prefix}\n\
         [[profiles]]\nname = \"mcp\"\nkind = \"openai\"\nmodel = \"m\"\nbase_url = \"{base_url}\"\n\
         mcp_servers = [\"one\", \"two\"]\n",
        entry = stdio_entry()
    )
}

#[tokio::test]
async fn two_servers_offering_one_name_stop_the_turn_naming_both() {
    let model = Server::start(vec![says("never asked")]).await;
    let app = spawn_app_with_config(&two_servers("", &model.base_url)).await;
    app.create_session("mcp", "u", "s1").await;
    let error = turn(&app, "s1", "hi").await.last().unwrap().to_string();
    assert!(
        error.contains("two tools reach the model as `echo`: the MCP server `one`'s tool `echo` and the MCP server `two`'s tool `echo`"),
        "{error}"
    );
}

#[tokio::test]
async fn a_tool_name_prefix_tells_two_servers_tools_apart() {
    let model = Server::start(vec![calls("two_get-sum", json!({"a": 2, "b": 3})), says("5.")]).await;
    let prefixed = two_servers("tool_name_prefix = \"two\"\n", &model.base_url);
    let app = spawn_app_with_config(&prefixed).await;
    app.create_session("mcp", "u", "s1").await;
    let events = turn(&app, "s1", "What is 2 + 3?").await;
    assert_eq!(
        events[0]["content"]["parts"][0]["functionCall"]["name"],
        "two_get-sum"
    );
    assert_eq!(
        function_response(&events)["content"][0]["text"],
        "The sum of 2 and 3 is 5."
    );
}

/// Secrets in the config's URLs and a stdio server's arguments: what the Settings page's lists
/// answer each role.
const WITH_SECRETS: &str = "[[mcp_servers]]\nname = \"local\"\ncommand = \"sh\"\n\
    args = [\"-c\", \"exec tool-server --token=SECRET-ARG\"]\n\
    [[mcp_servers]]\nname = \"remote\"\n\
    url = \"https://me:SECRET-PASS@mcp.example.com/mcp?token=SECRET-QUERY#SECRET-FRAGMENT\"\n\
    [[profiles]]\nname = \"remote_model\"\nkind = \"openai\"\nmodel = \"m\"\n\
    base_url = \"http://key:SECRET-PASS@127.0.0.1:9/v1?token=SECRET-QUERY\"\n\
    mcp_servers = [\"local\", \"remote\"]\n";

/// A server function's JSON answer to a bearer token (or to no one, auth off).
async fn server_fn_answer(app: &TestApp, path: &str, token: Option<&str>) -> String {
    let mut request = reqwest::Client::new()
        .post(app.url(path))
        .header(reqwest::header::CONTENT_TYPE, "application/x-www-form-urlencoded");
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK, "{path}");
    response.text().await.unwrap()
}

/// The MCP servers' list and the agent profiles' list, as `token`'s user reads them.
async fn settings_lists(app: &TestApp, token: Option<&str>) -> (String, String) {
    use evalstudio::api::chat::ListAgentProfiles;
    use evalstudio::api::mcp_servers::ListMcpServers;
    use leptos::server_fn::ServerFn;
    (
        server_fn_answer(app, ListMcpServers::PATH, token).await,
        server_fn_answer(app, ListAgentProfiles::PATH, token).await,
    )
}

fn server<'a>(servers: &'a Value, name: &str) -> &'a Value {
    servers
        .as_array()
        .unwrap()
        .iter()
        .find(|server| server["name"] == name)
        .unwrap()
}

#[tokio::test]
async fn viewers_see_no_url_secrets_and_no_arguments_which_admins_alone_see() {
    use evalstudio::access::Role;
    let app = spawn_app_with_config(&format!("[auth]\n{WITH_SECRETS}")).await;
    let mut tokens = Vec::new();
    for (name, role) in [
        ("vera", Role::Viewer),
        ("edna", Role::Editor),
        ("ada", Role::Admin),
    ] {
        app.add_user(name, role, None).await;
        tokens.push((role, app.new_token(name, &format!("{name}-token")).await));
    }
    for (role, token) in &tokens {
        let (servers, profiles) = settings_lists(&app, Some(token)).await;
        let (servers, profiles): (Value, Value) = (
            serde_json::from_str(&servers).unwrap(),
            serde_json::from_str(&profiles).unwrap(),
        );
        let local = server(&servers, "local");
        assert_eq!(local["transport"], "stdio: sh", "{role}");
        assert_eq!(
            server(&servers, "remote")["transport"],
            "http: https://mcp.example.com/mcp",
            "{role}"
        );
        let profile = profiles
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == "remote_model")
            .unwrap();
        assert_eq!(profile["base_url"], "http://127.0.0.1:9/v1", "{role}");
        let everything = format!("{servers}{profiles}");
        if *role == Role::Admin {
            assert_eq!(local["args"], "-c exec tool-server --token=SECRET-ARG");
            assert!(
                !everything.replace("SECRET-ARG", "").contains("SECRET"),
                "{everything}"
            );
        } else {
            assert_eq!(local["args"], Value::Null, "{role}");
            assert!(!everything.contains("SECRET"), "{role}: {everything}");
            assert!(!everything.contains("token="), "{role}: {everything}");
        }
    }
    // Without [auth] the one local user may do everything: they see the arguments too.
    let local_only = spawn_app_with_config(WITH_SECRETS).await;
    let (servers, _) = settings_lists(&local_only, None).await;
    let servers: Value = serde_json::from_str(&servers).unwrap();
    assert_eq!(
        server(&servers, "local")["args"],
        "-c exec tool-server --token=SECRET-ARG"
    );
}
