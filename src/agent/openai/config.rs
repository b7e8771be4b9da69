//! How the `openai` agent reaches its model.

use std::time::Duration;

/// How to reach the model. Holds the *name* of the variable with the API key, never the key.
#[derive(Debug, Clone, PartialEq)]
pub struct OpenAiConfig {
    /// Up to and including the version, e.g. `https://api.openai.com/v1` or
    /// `http://127.0.0.1:8080/v1`; `/chat/completions` is appended.
    pub base_url: String,
    pub model: String,
    /// Environment variable holding the API key, read at request time. `None` sends no
    /// `Authorization` header (local servers usually need none).
    pub api_key_env: Option<String>,
    pub system_prompt: Option<String>,
    pub temperature: Option<f64>,
    /// How many model replies asking for tools one turn may have before it fails.
    pub max_tool_steps: usize,
    /// Limit on waiting for the response headers and on any silence while the answer streams.
    pub request_timeout: Duration,
    /// Retries after 429, 5xx and connection failures (so up to `max_retries + 1` attempts).
    pub max_retries: u32,
    /// First backoff step; each retry doubles it (capped at 8 s), ±20% jitter.
    pub retry_base_delay: Duration,
    /// Whether answers stream. Off for servers that send tool calls only in whole answers
    /// (llama-cpp-python's server, for one); the text then arrives at once.
    pub stream: bool,
    /// `tool_choice` for the model's first reply of each turn: `auto`, `required`, `none` or a
    /// tool's name (that tool must be called). Later replies of the turn choose freely, so a
    /// forced call cannot loop. `None` sends nothing (the server's default).
    pub tool_choice: Option<String>,
}

impl OpenAiConfig {
    pub const DEFAULT_MAX_TOOL_STEPS: usize = 8;
    pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(60);
    pub const DEFAULT_MAX_RETRIES: u32 = 3;
    pub const DEFAULT_RETRY_BASE_DELAY: Duration = Duration::from_millis(500);

    /// A config with the defaults: no key, no system prompt, the server's temperature.
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        Self {
            base_url: base_url.into(),
            model: model.into(),
            api_key_env: None,
            system_prompt: None,
            temperature: None,
            max_tool_steps: Self::DEFAULT_MAX_TOOL_STEPS,
            request_timeout: Self::DEFAULT_REQUEST_TIMEOUT,
            max_retries: Self::DEFAULT_MAX_RETRIES,
            retry_base_delay: Self::DEFAULT_RETRY_BASE_DELAY,
            stream: true,
            tool_choice: None,
        }
    }

    /// `{base_url}/chat/completions`, without a doubled slash.
    pub fn endpoint(&self) -> String {
        format!("{}/chat/completions", self.base_url.trim_end_matches('/'))
    }
}
