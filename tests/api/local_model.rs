//! A real local model server: llama.cpp's OpenAI-compatible server from llama-cpp-python (built
//! once by `make llama`) with Qwen2.5-Coder-0.5B-Instruct, greedy (temperature 0, fixed seed),
//! its first reply of each turn forced to call get_weather (`tool_choice`; the server honours a
//! named function, while with `auto` this small model writes its call as text). Two chat turns
//! with tool calls, then Add current session.

use std::path::PathBuf;

use crate::helpers::{run_request, spawn_app_with_config, TestApp};
use crate::wait::wait_until;
use reqwest::StatusCode;
use serde_json::Value;

/// The llama venv and model `make test` names, or why this machine cannot run them.
fn llama() -> Result<(PathBuf, PathBuf), String> {
    let (Some(venv), Some(model)) = (
        std::env::var_os("EVALSTUDIO_LLAMA_VENV"),
        std::env::var_os("EVALSTUDIO_LLAMA_MODEL"),
    ) else {
        return Err(
            "EVALSTUDIO_LLAMA_VENV and EVALSTUDIO_LLAMA_MODEL are not set (`make test` sets them)".into(),
        );
    };
    let (venv, model) = (PathBuf::from(venv), PathBuf::from(model));
    if let Ok(reason) = std::fs::read_to_string(venv.join(".unavailable")) {
        return Err(reason.trim().to_string());
    }
    assert!(
        venv.join(".installed").exists(),
        "{} has no llama-cpp-python: run `make llama`",
        venv.display()
    );
    assert!(model.exists(), "{} is missing: run `make llama`", model.display());
    Ok((venv, model))
}

/// llama.cpp's server on a free port until the test ends; its `/v1` base URL.
async fn start_llama(venv: &std::path::Path, model: &std::path::Path) -> (tokio::process::Child, String) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = tokio::process::Command::new(venv.join("bin/python"))
        .args([
            "-m",
            "llama_cpp.server",
            "--host",
            "127.0.0.1",
            "--n_ctx",
            "4096",
            "--seed",
            "7",
        ])
        .arg("--port")
        .arg(port.to_string())
        .arg("--model")
        .arg(model)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let base_url = format!("http://127.0.0.1:{port}/v1");
    let models = format!("{base_url}/models");
    wait_until("llama.cpp's server answers", || async {
        reqwest::get(&models)
            .await
            .ok()
            .filter(|r| r.status().is_success())
            .map(drop)
    })
    .await;
    (child, base_url)
}

async fn turn(app: &TestApp, text: &str) -> Vec<Value> {
    let response = app
        .post_json("/run", &run_request("local", "u", "s1", text))
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    response.json().await.unwrap()
}

fn called_city(events: &[Value]) -> String {
    let call = &events[0]["content"]["parts"][0]["functionCall"];
    assert_eq!(call["name"], "get_weather", "{events:?}");
    call["args"]["city"].as_str().unwrap_or_default().to_lowercase()
}

#[tokio::test]
async fn two_turns_with_llama_cpp_call_tools_and_become_a_case() {
    let (venv, model) = match llama() {
        Ok(paths) => paths,
        Err(reason) => return println!("skipped: {reason}"),
    };
    let (_server, base_url) = start_llama(&venv, &model).await;
    let config = format!(
        "[[profiles]]\nname = \"local\"\nkind = \"openai\"\nmodel = \"qwen2.5-coder-0.5b\"\nbase_url = \"{base_url}\"\n\
         temperature = 0\ntools = [\"get_weather\"]\ntool_choice = \"get_weather\"\n"
    );
    let app = spawn_app_with_config(&config).await;
    app.create_session("local", "u", "s1").await;

    let first = turn(&app, "What's the weather in Paris?").await;
    assert!(called_city(&first).contains("paris"), "{first:?}");
    let second = turn(&app, "And what's the weather in Rome?").await;
    assert!(called_city(&second).contains("rome"), "{second:?}");

    let case = app
        .capture_session("local", "local_model", "paris_then_rome", "s1")
        .await;
    let turns = case["conversation"].as_array().unwrap();
    assert_eq!(turns.len(), 2);
    for turn in turns {
        assert_eq!(
            turn["intermediate_data"]["tool_uses"][0]["name"], "get_weather",
            "{turn}"
        );
    }
}
