//! A command evaluator, declared only in evalstudio.toml (never by a request): the request is
//! written to the command's stdin as JSON, and what it prints on stdout is the reply. It runs in
//! the server's working directory, without a shell, and is killed at its time limit.

use super::{Evaluator, EvaluatorReply, EvaluatorRequest};
use futures::future::BoxFuture;
use futures::FutureExt;
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
}

impl CommandEvaluator {
    pub fn new(spec: CommandSpec) -> CommandEvaluator {
        CommandEvaluator { spec }
    }

    async fn run(&self, request: &EvaluatorRequest) -> Result<EvaluatorReply, String> {
        let CommandSpec { name, argv, timeout } = &self.spec;
        let who = format!("evaluator `{name}` ({})", argv.join(" "));
        let (program, args) = argv.split_first().ok_or(format!("{who} has an empty command"))?;
        let input =
            serde_json::to_vec(request).map_err(|e| format!("{who}: the request cannot be written: {e}"))?;
        let mut child = tokio::process::Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| format!("{who} could not be started: {e}"))?;
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
            .map_err(|_| format!("{who} did not finish within {timeout:?} and was stopped"))?
            .map_err(|e| format!("{who} failed while running: {e}"))?;
        if !output.status.success() {
            let stderr = String::from_utf8_lossy(&output.stderr);
            let excerpt: String = stderr.trim().chars().take(400).collect();
            let code = output
                .status
                .code()
                .map_or("a signal".to_string(), |code| format!("code {code}"));
            return Err(format!("{who} exited with {code}: {excerpt}"));
        }
        let stdout = String::from_utf8_lossy(&output.stdout);
        EvaluatorReply::parse(&stdout)
            .map_err(|problem| format!("{who} printed something else than a reply: {problem}"))
    }
}

impl Evaluator for CommandEvaluator {
    fn evaluate<'a>(
        &'a self,
        request: &'a EvaluatorRequest,
    ) -> BoxFuture<'a, Result<EvaluatorReply, String>> {
        self.run(request).boxed()
    }
}
