//! A command evaluator, declared only in evalstudio.toml (never by a request): the request is
//! written to the command's stdin as JSON, and what it prints on stdout is the reply. It runs in
//! the server's working directory, without a shell, and is killed at its time limit. Of the
//! server's environment it gets only PATH, HOME, the locale and the like, then its entry's `env`:
//! never the database's URL, a model key or a token. A failure's reason, which is stored with
//! the run and read by every viewer, names the evaluator and what went wrong, never its command
//! line or its stderr (either may hold a secret): those go to the server's log.

use super::{Evaluator, EvaluatorReply, EvaluatorRequest};
use crate::agent::mcp::config::{child_environment, EnvTable};
use futures::future::BoxFuture;
use futures::FutureExt;
use std::ffi::OsString;
use std::process::Stdio;
use std::time::Duration;
use tokio::io::AsyncWriteExt;

/// A command as evalstudio.toml's `[[evaluators]]` declares it.
#[derive(Debug, Clone, PartialEq)]
pub struct CommandSpec {
    /// The evaluator's name, for messages.
    pub name: String,
    /// The program and its arguments.
    pub argv: Vec<String>,
    pub timeout: Duration,
}

pub struct CommandEvaluator {
    spec: CommandSpec,
    /// Its entry's `env`, added to what it keeps of the server's environment.
    env: EnvTable,
}

impl CommandEvaluator {
    pub fn new(spec: CommandSpec) -> CommandEvaluator {
        CommandEvaluator {
            spec,
            env: EnvTable::default(),
        }
    }

    /// With its entry's `env` (each value itself or `env:NAME`, read when it runs).
    pub fn with_env(self, env: EnvTable) -> CommandEvaluator {
        CommandEvaluator { env, ..self }
    }

    /// Runs the command in an environment made from `parent`, the server's.
    async fn run(
        &self,
        request: &EvaluatorRequest,
        parent: Vec<(OsString, OsString)>,
    ) -> Result<EvaluatorReply, String> {
        let CommandSpec { name, argv, timeout } = &self.spec;
        let who = format!("evaluator `{name}`");
        // The reason shown, and in the server's log the command line and what it wrote on stderr.
        let failed = |reason: String, stderr: &str| {
            tracing::warn!(evaluator = %name, argv = ?argv, stderr = %tail(stderr), "{reason}");
            reason
        };
        let (program, args) = argv.split_first().ok_or(format!("{who} has an empty command"))?;
        let input =
            serde_json::to_vec(request).map_err(|e| format!("{who}: the request cannot be written: {e}"))?;
        let lookup = |var: &str| {
            let value = parent.iter().find(|(name, _)| name == var)?;
            value.1.to_str().map(str::to_string)
        };
        let environment = child_environment(&who, &self.env.0, parent.clone(), lookup)?;
        let mut child = tokio::process::Command::new(program)
            .args(args)
            .env_clear()
            .envs(environment)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| {
                failed(
                    format!("{who} could not be started: {e} (its command is in the server log)"),
                    "",
                )
            })?;
        let mut stdin = child.stdin.take().expect("stdin is piped");
        let finished = async move {
            // A command that exits without reading its input is not an error here: its
            // output decides.
            let _ = stdin.write_all(&input).await;
            drop(stdin);
            child.wait_with_output().await
        };
        let output = tokio::time::timeout(*timeout, finished)
            .await
            .map_err(|_| {
                failed(
                    format!("{who} did not finish within {timeout:?} and was stopped"),
                    "",
                )
            })?
            .map_err(|e| failed(format!("{who} failed while running: {e}"), ""))?;
        if !output.status.success() {
            let stderr = String::from_utf8_lossy(&output.stderr);
            let ended = output
                .status
                .code()
                .map_or("was stopped by a signal".to_string(), |code| {
                    format!("exited with status {code}")
                });
            let told = if stderr.trim().is_empty() {
                "it wrote nothing on stderr"
            } else {
                "its stderr is in the server log"
            };
            return Err(failed(format!("{who} {ended} ({told})"), &stderr));
        }
        let stdout = String::from_utf8_lossy(&output.stdout);
        EvaluatorReply::parse(&stdout)
            .map_err(|problem| format!("{who} printed something else than a reply: {problem}"))
    }
}

/// The last lines of what a command wrote on stderr, as the log keeps them.
fn tail(stderr: &str) -> String {
    const KEPT: usize = 2000;
    let text = stderr.trim();
    let skipped = text.chars().count().saturating_sub(KEPT);
    match skipped {
        0 => text.to_string(),
        _ => format!("…{}", text.chars().skip(skipped).collect::<String>()),
    }
}

impl Evaluator for CommandEvaluator {
    fn evaluate<'a>(
        &'a self,
        request: &'a EvaluatorRequest,
    ) -> BoxFuture<'a, Result<EvaluatorReply, String>> {
        self.run(request, std::env::vars_os().collect()).boxed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn request() -> EvaluatorRequest {
        serde_json::from_value(json!({
            "metric_name": "env", "criterion": {}, "eval_set_id": "set",
            "eval_case": {"eval_id": "c"}, "actual_invocations": [], "session_state": {}
        }))
        .unwrap()
    }

    /// A command that answers with the names of the variables it sees, and KEY's and MODE's values.
    fn printing_its_environment(env: &[(&str, &str)]) -> CommandEvaluator {
        let script = r#"cat >/dev/null; printf '{"score": 1, "reason": "%s", "details": {"key": "%s", "mode": "%s"}}' "$(env | cut -d= -f1 | sort | tr '\n' ' ')" "$KEY" "$MODE""#;
        CommandEvaluator::new(CommandSpec {
            name: "env".into(),
            argv: vec!["sh".into(), "-c".into(), script.into()],
            timeout: Duration::from_secs(10),
        })
        .with_env(EnvTable(
            env.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        ))
    }

    fn names(reply: &EvaluatorReply) -> Vec<&str> {
        reply.reason.as_deref().unwrap().split_whitespace().collect()
    }

    #[tokio::test]
    async fn a_command_sees_path_home_the_locale_and_its_own_env_never_the_servers_secrets() {
        let parent: Vec<(OsString, OsString)> = [
            ("PATH", std::env::var("PATH").unwrap().as_str()),
            ("HOME", "/home/me"),
            ("LANG", "C.UTF-8"),
            ("DATABASE_URL", "postgres://evalstudio:hunter2@db/evalstudio"),
            ("EVALSTUDIO_TOKEN", "es_secret"),
            ("OPENAI_API_KEY", "sk-judge"),
            ("ORDERS_DB_KEY", "orders-secret"),
        ]
        .map(|(k, v)| (k.into(), v.into()))
        .into();
        let evaluator = printing_its_environment(&[("KEY", "env:ORDERS_DB_KEY"), ("MODE", "strict")]);
        let reply = evaluator.run(&request(), parent.clone()).await.unwrap();
        // dash adds PWD.
        let seen: Vec<&str> = names(&reply).into_iter().filter(|n| *n != "PWD").collect();
        assert_eq!(seen, ["HOME", "KEY", "LANG", "MODE", "PATH"], "{reply:?}");
        assert_eq!(
            reply.details,
            Some(json!({"key": "orders-secret", "mode": "strict"}))
        );

        let unset = printing_its_environment(&[("KEY", "env:NOT_SET_ANYWHERE")]);
        let error = unset.run(&request(), parent).await.unwrap_err();
        assert_eq!(
            error,
            "evaluator `env` needs the environment variable NOT_SET_ANYWHERE (its env.KEY), which is not set"
        );
    }

    /// Through `evaluate`, from the test's own environment: cargo's CARGO_* variables, RUSTFLAGS
    /// and the rest stay out. (dash adds PWD.)
    #[tokio::test]
    async fn the_servers_own_environment_is_not_passed_on() {
        const KEPT: &[&str] = &[
            "PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "TMPDIR", "MODE", "PWD",
        ];
        let reply = printing_its_environment(&[("MODE", "strict")])
            .evaluate(&request())
            .await
            .unwrap();
        let extra: Vec<&str> = names(&reply)
            .into_iter()
            .filter(|name| !(KEPT.contains(name) || name.starts_with("LC_")))
            .collect();
        assert!(extra.is_empty(), "{extra:?} in {reply:?}");
        assert!(names(&reply).contains(&"PATH"), "{reply:?}");
    }
}
