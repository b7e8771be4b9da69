//! The judge of the LLM-as-judge metrics: an OpenAI-compatible `/chat/completions` endpoint
//! asked one prompt at a time, without streaming, at temperature 0 unless configured. It talks
//! through `crate::llm_http` as the `openai` agent does (key lookup, timeouts, error messages,
//! retries with backoff on 429, 5xx and connection failures); the API key stays on the server
//! and is never put into errors or logs.

use std::fmt;
use std::time::Duration;

use futures::future::BoxFuture;
use futures::FutureExt;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::eval::services::{Judge, JudgeRequest};
use crate::llm_http::{api_key, env_lookup, error_text, snippet, Endpoint, Failure, KeyLookup};

/// How to reach the judge model: the `[judge]` table of evalstudio.toml (`crate::config` reads
/// and checks it). Holds the *name* of the key's variable, never the key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JudgeConfig {
    /// Up to and including the version; `/chat/completions` is appended.
    pub base_url: String,
    /// The model asked when a metric names none (`judge_model_options.judge_model`).
    pub model: String,
    #[serde(default)]
    pub api_key_env: Option<String>,
    /// Default 0.
    #[serde(default)]
    pub temperature: Option<f64>,
    /// Limit on each wait for the server; default 60.
    #[serde(default)]
    pub timeout_secs: Option<f64>,
    /// Retries after 429, 5xx and connection failures; default 3.
    #[serde(default)]
    pub max_retries: Option<u32>,
}

impl JudgeConfig {
    pub const DEFAULT_TEMPERATURE: f64 = 0.0;
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);
    pub const DEFAULT_MAX_RETRIES: u32 = 3;

    /// A config with the defaults: no key, temperature 0, 60 s timeout, 3 retries.
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        JudgeConfig {
            base_url: base_url.into(),
            model: model.into(),
            api_key_env: None,
            temperature: None,
            timeout_secs: None,
            max_retries: None,
        }
    }

    fn temperature(&self) -> f64 {
        self.temperature.unwrap_or(Self::DEFAULT_TEMPERATURE)
    }

    fn request_timeout(&self) -> Duration {
        self.timeout_secs
            .map_or(Self::DEFAULT_TIMEOUT, Duration::from_secs_f64)
    }

    fn max_retries(&self) -> u32 {
        self.max_retries.unwrap_or(Self::DEFAULT_MAX_RETRIES)
    }

    /// `{base_url}/chat/completions`, without a doubled slash.
    pub fn endpoint(&self) -> String {
        format!("{}/chat/completions", self.base_url.trim_end_matches('/'))
    }
}

/// First backoff step between retries; each retry doubles it (capped at 8 s), ±20% jitter.
const RETRY_BASE_DELAY: Duration = Duration::from_millis(500);

pub struct OpenAiJudge {
    config: JudgeConfig,
    client: reqwest::Client,
    key_lookup: KeyLookup,
    retry_base_delay: Duration,
}

impl fmt::Debug for OpenAiJudge {
    // By hand, so that nothing added to the judge later can leak a key through `{:?}`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAiJudge")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl OpenAiJudge {
    pub fn new(config: JudgeConfig) -> Self {
        let client = crate::outbound::client(config.request_timeout());
        OpenAiJudge {
            config,
            client,
            key_lookup: env_lookup,
            retry_base_delay: RETRY_BASE_DELAY,
        }
    }

    pub fn config(&self) -> &JudgeConfig {
        &self.config
    }

    /// Tests read keys from a table instead of the process environment, and retry at once.
    #[cfg(test)]
    pub(super) fn for_tests(mut self, lookup: KeyLookup, retry_base_delay: Duration) -> Self {
        self.key_lookup = lookup;
        self.retry_base_delay = retry_base_delay;
        self
    }

    async fn ask(&self, request: JudgeRequest<'_>) -> Result<String, String> {
        let endpoint = Endpoint {
            client: &self.client,
            url: self.config.endpoint(),
            model: request.model.unwrap_or(&self.config.model),
            api_key_env: self.config.api_key_env.as_deref(),
            request_timeout: self.config.request_timeout(),
            timeout_setting: "timeout_secs",
            max_retries: self.config.max_retries(),
            retry_base_delay: self.retry_base_delay,
            body_cap: crate::outbound::EVALUATOR_BODY_CAP,
        };
        let key = api_key(endpoint.api_key_env, self.key_lookup)?;
        let body = json!({
            "model": endpoint.model,
            "messages": [{"role": "user", "content": request.prompt}],
            "temperature": self.config.temperature(),
        });
        endpoint
            .call(key.as_deref(), &body, |response| {
                read_completion(response, &endpoint)
            })
            .await
    }
}

impl Judge for OpenAiJudge {
    fn complete<'a>(&'a self, request: JudgeRequest<'a>) -> BoxFuture<'a, Result<String, String>> {
        self.ask(request).boxed()
    }
}

/// The text of a non-streamed chat completion: `choices[0].message.content`, a string or a list
/// of text parts.
async fn read_completion(response: reqwest::Response, endpoint: &Endpoint<'_>) -> Result<String, Failure> {
    let url = &endpoint.url;
    let text = endpoint.read_text(response).await?;
    let answer: Value = serde_json::from_str(&text).map_err(|e| {
        Failure::fatal(format!(
            "the judge model server at {url} answered with something that is not JSON ({e}): {}",
            snippet(&text)
        ))
    })?;
    if let Some(error) = answer.get("error").filter(|e| !e.is_null()) {
        return Err(Failure::fatal(format!(
            "the judge model server at {url} reported an error: {}",
            snippet(&error_text(error))
        )));
    }
    let Some(choice) = answer
        .get("choices")
        .and_then(Value::as_array)
        .and_then(|choices| choices.first())
    else {
        return Err(Failure::fatal(format!(
            "the judge model server at {url} answered with no choices: {}",
            snippet(&text)
        )));
    };
    let message = choice.get("message");
    let content = match message.and_then(|m| m.get("content")) {
        Some(Value::String(content)) => Some(content.clone()),
        // Some servers send content as parts: [{"type": "text", "text": "..."}].
        Some(Value::Array(parts)) => Some(
            parts
                .iter()
                .filter_map(|part| part.get("text").and_then(Value::as_str))
                .collect::<String>(),
        ),
        _ => None,
    };
    content.ok_or_else(|| {
        let refusal = message
            .and_then(|m| m.get("refusal"))
            .and_then(Value::as_str)
            .map(|r| format!("; it refused: {}", snippet(r)))
            .unwrap_or_default();
        let finish = choice
            .get("finish_reason")
            .and_then(Value::as_str)
            .map(|r| format!(" (finish_reason: {r})"))
            .unwrap_or_default();
        Failure::fatal(format!(
            "the judge model server at {url} answered without text{finish}{refusal}"
        ))
    })
}
