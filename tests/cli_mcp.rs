//! `evalstudio mcp` as a user runs it, and the stdio MCP server's lifetime: it never outlives
//! Evalstudio, even when Evalstudio is killed with SIGKILL mid-call.

#[path = "common/wait.rs"]
mod wait;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn everything_bin() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("end2end/node_modules/.bin/mcp-server-everything")
}

/// A config whose stdio server is a shell that writes its pid to `pid_file`, runs the reference
/// server, and then lingers: a server that outlives its stdin, as servers with workers of
/// their own do. Only Evalstudio's own care ends it.
fn config(dir: &Path, pid_file: &Path) -> PathBuf {
    let path = dir.join("evalstudio.toml");
    let text = format!(
        "[[mcp_servers]]\nname = \"everything\"\ncommand = \"sh\"\nargs = [\"-c\", \"echo $$ > {}; {} stdio; sleep 120\"]\n",
        pid_file.display(),
        everything_bin().display()
    );
    std::fs::write(&path, text).unwrap();
    path
}

fn alive(pid: &str) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
        && !std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| stat.contains(") Z "))
}

#[test]
fn list_and_call_print_the_tools_and_the_recorded_result() {
    let dir = tempfile::tempdir().unwrap();
    let config = config(dir.path(), &dir.path().join("pid"));
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_evalstudio"))
            .args(["mcp", "--profiles", config.to_str().unwrap()])
            .args(args)
            .output()
            .unwrap()
    };
    let listed = run(&["list"]);
    let stdout = String::from_utf8_lossy(&listed.stdout);
    assert!(listed.status.success(), "{stdout}");
    assert!(stdout.contains("everything (stdio: sh -c"), "{stdout}");
    assert!(
        stdout.contains("  get-sum  Returns the sum of two numbers"),
        "{stdout}"
    );

    let called = run(&["call", "everything", "get-sum", r#"{"a": 1, "b": 2}"#]);
    assert_eq!(
        String::from_utf8_lossy(&called.stdout).trim(),
        r#"{"content":[{"type":"text","text":"The sum of 1 and 2 is 3."}],"isError":false}"#
    );
    let unknown = run(&["call", "nope", "get-sum"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&unknown.stderr)
        .contains("no MCP server is named `nope` in the config (known: everything)"));
}

#[tokio::test]
async fn the_server_dies_with_evalstudio_even_on_sigkill() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("pid");
    let config = config(dir.path(), &pid_file);
    let mut evalstudio = Command::new(env!("CARGO_BIN_EXE_evalstudio"))
        .args([
            "mcp",
            "--profiles",
            config.to_str().unwrap(),
            "call",
            "everything",
        ])
        .args([
            "trigger-long-running-operation",
            r#"{"duration": 60, "steps": 60}"#,
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = wait::wait_until("the MCP server starts", || async {
        std::fs::read_to_string(&pid_file)
            .ok()
            .filter(|p| !p.trim().is_empty())
    })
    .await;
    let pid = pid.trim().to_string();
    assert!(alive(&pid));
    evalstudio.kill().unwrap();
    evalstudio.wait().unwrap();
    wait::wait_until("the MCP server is gone", || async {
        (!alive(&pid)).then_some(())
    })
    .await;
}
