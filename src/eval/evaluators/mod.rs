//! Evaluators users write themselves, without forking Evalstudio: an HTTP endpoint (a criterion's
//! `url`), a command from evalstudio.toml's `[[evaluators]]` (a criterion's `evaluator`), or Rust
//! code given to the `cargo test` harness. All three read the same [`EvaluatorRequest`] (the case,
//! the expected and actual invocations in ADK's JSON, the session state) and answer an
//! [`EvaluatorReply`] (`{score, passed?, reason?, details?}`).
//!
//! Pure: the request, the reply's reading and the registry. The exceptions, server only:
//! `http.rs` and `command.rs`, which reach the evaluators.

#[cfg(feature = "ssr")]
mod command;
#[cfg(feature = "ssr")]
mod http;
#[cfg(test)]
mod tests;

#[cfg(feature = "ssr")]
pub use command::{CommandEvaluator, CommandSpec};
#[cfg(feature = "ssr")]
pub use http::HttpEvaluator;

use crate::evalset::{EvalCase, Invocation};
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Duration;

/// A metric computed by code the user wrote: one async method over one case run. Give it to
/// the `cargo test` harness by name, and name it in the config's criterion.
///
/// ```
/// use evalstudio::agent::DemoAgent;
/// use evalstudio::eval::config::EvalConfig;
/// use evalstudio::eval::evaluators::{Evaluator, EvaluatorReply, EvaluatorRequest};
/// use evalstudio::eval::harness::AgentEvaluator;
/// use futures::future::BoxFuture;
///
/// /// Passes when the agent's last answer is at most 30 words.
/// struct Brief;
///
/// impl Evaluator for Brief {
///     fn evaluate<'a>(&'a self, request: &'a EvaluatorRequest) -> BoxFuture<'a, Result<EvaluatorReply, String>> {
///         Box::pin(async move {
///             let words = request.final_response_text().split_whitespace().count();
///             let score = if words <= 30 { 1.0 } else { 0.0 };
///             Ok(EvaluatorReply::scored(score).because(format!("{words} words")))
///         })
///     }
/// }
///
/// let evalset = r#"{"eval_set_id": "weather", "eval_cases": [{"eval_id": "paris", "conversation": [{
///     "user_content": {"role": "user", "parts": [{"text": "What's the weather in Paris?"}]}
/// }]}]}"#;
/// let config = EvalConfig::parse(r#"{"criteria": {"brief": {"threshold": 1, "evaluator": "brief"}}}"#).unwrap();
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let report = AgentEvaluator::new(DemoAgent::new())
///     .with_config(config)
///     .with_evaluator("brief", Brief)
///     .evaluate_json(evalset)
///     .await
///     .unwrap();
/// report.assert_passed();
/// let brief = &report.results[0].overall_eval_metric_results[0];
/// assert!(brief.details.reason.as_deref().unwrap().ends_with(" words"));
/// # });
/// ```
pub trait Evaluator: Send + Sync {
    /// Scores one case run; an `Err` makes the metric NOT_EVALUATED with it as the reason.
    fn evaluate<'a>(&'a self, request: &'a EvaluatorRequest)
        -> BoxFuture<'a, Result<EvaluatorReply, String>>;
}

/// What an evaluator gets: the JSON body an HTTP evaluator is posted and a command reads on
/// stdin.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvaluatorRequest {
    /// The metric's name in the config.
    pub metric_name: String,
    /// The metric's criterion as written (threshold, url, and any keys of the user's own).
    pub criterion: Map<String, Value>,
    pub eval_set_id: String,
    /// The case as stored (ADK's EvalCase).
    pub eval_case: EvalCase,
    /// The case's expected invocations; none for a conversation scenario.
    pub expected_invocations: Option<Vec<Invocation>>,
    /// What the agent did, one invocation per user turn.
    pub actual_invocations: Vec<Invocation>,
    /// The state the session started from (`session_input.state`).
    pub session_state: Map<String, Value>,
}

impl EvaluatorRequest {
    /// The agent's last final response, as text.
    pub fn final_response_text(&self) -> String {
        self.actual_invocations
            .last()
            .and_then(|invocation| invocation.final_response.as_ref())
            .map(|content| content.joined_text())
            .unwrap_or_default()
    }
}

/// An evaluator's verdict on a case run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvaluatorReply {
    pub score: f64,
    /// Pass or fail, when the evaluator decides it; otherwise the score against the threshold.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub passed: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Anything else to keep with the result; shown as JSON.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
}

impl EvaluatorReply {
    pub fn scored(score: f64) -> EvaluatorReply {
        EvaluatorReply {
            score,
            passed: None,
            reason: None,
            details: None,
        }
    }

    pub fn because(mut self, reason: impl Into<String>) -> EvaluatorReply {
        self.reason = Some(reason.into());
        self
    }

    /// Reads an HTTP evaluator's body or a command's output; the error says what is wrong with
    /// it and quotes the start of it.
    pub fn parse(text: &str) -> Result<EvaluatorReply, String> {
        let quoted = || {
            let trimmed = text.trim();
            let mut cut: String = trimmed.chars().take(200).collect();
            if cut.len() < trimmed.len() {
                cut.push('…');
            }
            format!("`{cut}`")
        };
        let value: Value = serde_json::from_str(text.trim())
            .map_err(|e| format!("the reply is not JSON ({e}): {}", quoted()))?;
        let Value::Object(object) = &value else {
            return Err(format!(
                "the reply is not a JSON object such as {{\"score\": 1.0, \"reason\": \"…\"}}: {}",
                quoted()
            ));
        };
        let score = match object.get("score") {
            Some(Value::Number(n)) => n.as_f64().filter(|s| s.is_finite()),
            _ => None,
        }
        .ok_or_else(|| format!("the reply has no number `score`: {}", quoted()))?;
        let passed = match object.get("passed") {
            None | Some(Value::Null) => None,
            Some(Value::Bool(passed)) => Some(*passed),
            Some(_) => return Err(format!("the reply's `passed` is not true or false: {}", quoted())),
        };
        let reason = match object.get("reason") {
            None | Some(Value::Null) => None,
            Some(Value::String(reason)) => Some(reason.clone()),
            Some(other) => Some(other.to_string()),
        };
        Ok(EvaluatorReply {
            score,
            passed,
            reason,
            details: object.get("details").filter(|d| !d.is_null()).cloned(),
        })
    }
}

/// Which evaluator a metric uses.
#[derive(Debug, Clone, PartialEq)]
pub enum EvaluatorTarget {
    /// One of evalstudio.toml's `[[evaluators]]`, or a Rust evaluator given to the harness.
    Named(String),
    /// An HTTP endpoint named in the criterion.
    Http(HttpTarget),
}

/// An HTTP evaluator as evalstudio.toml (or, for the CLI alone, a criterion) describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpTarget {
    pub url: String,
    /// Limit on each request.
    pub timeout: Duration,
    /// Further tries after a connection failure, a timeout, 429 or 5xx.
    pub retries: u32,
    /// Sent with each request (evalstudio.toml's `headers`).
    pub headers: EvaluatorHeaders,
}

/// A declared evaluator's request headers, each a value or `env:NAME` (the variable's value,
/// read when it is called). Shown by name only: a value may be a secret.
#[derive(Clone, Default, PartialEq, Deserialize)]
#[serde(transparent)]
pub struct EvaluatorHeaders(pub BTreeMap<String, String>);

impl std::fmt::Debug for EvaluatorHeaders {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.0.keys()).finish()
    }
}

/// Why a criterion's own `url` is not called here.
pub const UNDECLARED_URL: &str = "a server calls only the evaluators its evalstudio.toml declares: declare [[evaluators]] with a name and this url there, then use {\"evaluator\": \"<name>\"} in the criterion";

/// The default limit on one evaluator call.
pub const DEFAULT_EVALUATOR_TIMEOUT: Duration = Duration::from_secs(30);
/// The default number of retries of an HTTP evaluator.
pub const DEFAULT_EVALUATOR_RETRIES: u32 = 2;

/// Makes the HTTP evaluator for a criterion's url: the CLI's, scoring files its user gave it.
/// A server has none: it calls only the evaluators its evalstudio.toml declares.
pub type HttpEvaluatorFactory = Arc<dyn Fn(&HttpTarget) -> Arc<dyn Evaluator> + Send + Sync>;

/// The evaluators one scoring may use.
#[derive(Clone, Default)]
pub struct Evaluators {
    named: HashMap<String, Arc<dyn Evaluator>>,
    http: Option<HttpEvaluatorFactory>,
}

impl Evaluators {
    pub fn with_http(mut self, factory: HttpEvaluatorFactory) -> Evaluators {
        self.http = Some(factory);
        self
    }

    /// Whether a criterion's own `url` is called (the CLI on its user's files), or refused.
    pub fn calls_criterion_urls(&self) -> bool {
        self.http.is_some()
    }

    /// Registers `evaluator` under `name` (replacing one of that name).
    pub fn insert(&mut self, name: impl Into<String>, evaluator: Arc<dyn Evaluator>) {
        self.named.insert(name.into(), evaluator);
    }

    /// The names registered, sorted.
    pub fn names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.named.keys().map(String::as_str).collect();
        names.sort_unstable();
        names
    }

    /// The evaluator a metric names, or why there is none.
    pub fn find(&self, target: &EvaluatorTarget) -> Result<Arc<dyn Evaluator>, String> {
        match target {
            EvaluatorTarget::Named(name) => self.named.get(name).cloned().ok_or_else(|| {
                let known = self.names();
                format!(
                    "no evaluator named `{name}`: declare it in evalstudio.toml as [[evaluators]] name = \"{name}\" with a command or a url{}",
                    if known.is_empty() {
                        String::new()
                    } else {
                        format!(" (declared: {})", known.join(", "))
                    }
                )
            }),
            EvaluatorTarget::Http(http) => match &self.http {
                Some(factory) => Ok(factory(http)),
                None => Err(UNDECLARED_URL.into()),
            },
        }
    }
}
