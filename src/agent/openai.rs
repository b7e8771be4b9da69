//! The `openai` agent: any OpenAI-compatible `/v1/chat/completions` endpoint (OpenAI, Ollama,
//! vLLM, llama.cpp's server, LiteLLM, …) with streaming and function calling. The tool loop runs
//! here, on the server: the model asks for tools, we run them from the agent's `ToolRegistry`,
//! send the results back and call the model again until it answers with text.
//!
//! The API key is read from the environment variable named in the config each time a request is
//! made, sent only in the `Authorization` header, and never put into events, errors, logs or
//! `Debug` output.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use futures::stream::{BoxStream, FuturesOrdered, StreamExt};
use futures::Future;
use serde_json::{json, Map, Value};

use super::{turn_stream, Agent, AgentEvent, Emitter, SessionContext, ToolRegistry, Turn};

/// The longest `Retry-After` we honour; a server asking for more gets this.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(30);
/// The longest exponential backoff step (before jitter).
const MAX_BACKOFF: Duration = Duration::from_secs(8);
/// How much of a server's error body goes into an error message.
const MAX_SNIPPET: usize = 300;

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
        }
    }

    /// `{base_url}/chat/completions`, without a doubled slash.
    pub fn endpoint(&self) -> String {
        format!("{}/chat/completions", self.base_url.trim_end_matches('/'))
    }
}

/// Reads an environment variable; swapped out by tests so they need not mutate the process's
/// environment (which is shared by every test thread).
pub(super) type KeyLookup = fn(&str) -> Option<String>;

pub(super) fn env_lookup(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

pub struct OpenAiAgent {
    config: OpenAiConfig,
    tools: ToolRegistry,
    client: reqwest::Client,
    key_lookup: KeyLookup,
}

impl fmt::Debug for OpenAiAgent {
    // By hand, so that nothing added to the agent later can leak a key through `{:?}`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAiAgent")
            .field("config", &self.config)
            .field("tools", &self.tools)
            .finish_non_exhaustive()
    }
}

impl OpenAiAgent {
    pub fn new(config: OpenAiConfig, tools: ToolRegistry) -> Self {
        let client = reqwest::Client::builder()
            .connect_timeout(config.request_timeout)
            .build()
            .unwrap_or_else(|_| reqwest::Client::new());
        Self {
            config,
            tools,
            client,
            key_lookup: env_lookup,
        }
    }

    pub fn config(&self) -> &OpenAiConfig {
        &self.config
    }

    /// The tools offered to the model.
    pub fn tools(&self) -> &ToolRegistry {
        &self.tools
    }

    /// Tests read keys from a table instead of the process environment.
    #[cfg(test)]
    pub(super) fn with_key_lookup(mut self, lookup: KeyLookup) -> Self {
        self.key_lookup = lookup;
        self
    }

    /// Where and how the model is called.
    fn endpoint(&self) -> Endpoint<'_> {
        Endpoint {
            client: &self.client,
            url: self.config.endpoint(),
            model: &self.config.model,
            api_key_env: self.config.api_key_env.as_deref(),
            request_timeout: self.config.request_timeout,
            timeout_setting: "request_timeout",
            max_retries: self.config.max_retries,
            retry_base_delay: self.config.retry_base_delay,
        }
    }

    /// One turn: model calls and tool runs until the model answers with text.
    async fn run(&self, history: &[Turn], message: &str, out: &Emitter) -> Result<(), String> {
        let mut messages = self.initial_messages(history, message);
        // Model replies so far that asked for tools.
        let mut step = 0;
        loop {
            let started = std::time::Instant::now();
            let reply = self.call_model(&messages, out).await?;
            out.emit(AgentEvent::ModelCall {
                duration_ms: started.elapsed().as_millis() as u64,
            });
            let usage = reply
                .usage
                .map(|(prompt_tokens, completion_tokens)| AgentEvent::Usage {
                    prompt_tokens,
                    completion_tokens,
                });
            if reply.calls.is_empty() {
                out.emit(AgentEvent::FinalResponse { text: reply.text });
                if let Some(usage) = usage {
                    out.emit(usage);
                }
                return Ok(());
            }
            if let Some(usage) = usage {
                out.emit(usage);
            }
            if step >= self.config.max_tool_steps {
                return Err(format!(
                    "the model kept calling tools after {} steps; raise max_tool_steps or check the \
                     system prompt",
                    self.config.max_tool_steps
                ));
            }
            let calls = prepare_calls(reply.calls, history.len(), step);
            let tool_calls: Vec<Value> = calls
                .iter()
                .map(|c| tool_call_json(&c.id, &c.name, &c.raw_args))
                .collect();
            messages.push(json!({
                "role": "assistant",
                "content": text_or_null(&reply.text),
                "tool_calls": tool_calls,
            }));
            for call in &calls {
                out.emit(AgentEvent::ToolCall {
                    id: call.id.clone(),
                    name: call.name.clone(),
                    args: call.args.clone().unwrap_or_default(),
                });
            }
            // Run the calls concurrently; report results in call order as soon as each is known.
            let mut results: FuturesOrdered<_> = calls
                .iter()
                .map(|call| async move { (call, self.run_tool(call).await) })
                .collect();
            while let Some((call, (response, duration_ms))) = results.next().await {
                messages.push(json!({
                    "role": "tool",
                    "tool_call_id": call.id,
                    "content": Value::Object(response.clone()).to_string(),
                }));
                out.emit(AgentEvent::ToolResult {
                    id: call.id.clone(),
                    name: call.name.clone(),
                    response,
                    duration_ms,
                });
            }
            step += 1;
        }
    }

    async fn run_tool(&self, call: &PreparedCall) -> (Map<String, Value>, u64) {
        let args = match &call.args {
            Ok(args) => args,
            Err(message) => return (error_object(message.clone()), 0),
        };
        let Some(tool) = self.tools.get(&call.name) else {
            let known: Vec<&str> = self.tools.iter().map(|t| t.name()).collect();
            let message = if known.is_empty() {
                format!("no tool named \"{}\"; no tools are available", call.name)
            } else {
                format!(
                    "no tool named \"{}\"; available tools: {}",
                    call.name,
                    known.join(", ")
                )
            };
            return (error_object(message), 0);
        };
        let started = Instant::now();
        let result = tool.call(args).await;
        let duration_ms = started.elapsed().as_millis() as u64;
        (result.unwrap_or_else(error_object), duration_ms)
    }

    /// System prompt, the session so far, the new message.
    fn initial_messages(&self, history: &[Turn], message: &str) -> Vec<Value> {
        let mut messages = Vec::new();
        if let Some(prompt) = self.config.system_prompt.as_deref().filter(|p| !p.is_empty()) {
            messages.push(json!({"role": "system", "content": prompt}));
        }
        for turn in history {
            replay_turn(turn, &mut messages);
        }
        messages.push(json!({"role": "user", "content": message}));
        messages
    }

    fn request_body(&self, messages: &[Value]) -> Value {
        let mut body = Map::new();
        body.insert("model".into(), json!(self.config.model));
        body.insert("messages".into(), Value::Array(messages.to_vec()));
        if !self.tools.is_empty() {
            // An empty `tools` array is rejected by OpenAI; leave it out instead.
            body.insert("tools".into(), Value::Array(self.tools.declarations()));
        }
        body.insert("stream".into(), Value::Bool(true));
        // Without this OpenAI sends no token counts when streaming; other servers ignore it.
        body.insert("stream_options".into(), json!({"include_usage": true}));
        if let Some(t) = self.config.temperature {
            body.insert("temperature".into(), json!(t));
        }
        Value::Object(body)
    }

    /// One model call, retried on 429, 5xx and connection failures.
    async fn call_model(&self, messages: &[Value], out: &Emitter) -> Result<ModelReply, String> {
        let endpoint = self.endpoint();
        let key = api_key(endpoint.api_key_env, self.key_lookup)?;
        let body = self.request_body(messages);
        endpoint
            .call(key.as_deref(), &body, |response| {
                Self::read_stream(response, &endpoint, out)
            })
            .await
    }

    /// The streamed answer. Text deltas are emitted as they arrive.
    async fn read_stream(
        response: reqwest::Response,
        endpoint: &Endpoint<'_>,
        out: &Emitter,
    ) -> Result<ModelReply, Failure> {
        let url = &endpoint.url;
        let timeout = endpoint.request_timeout;
        let mut bytes = response.bytes_stream();
        let mut lines = SseLines::default();
        let mut acc = Accumulator::default();
        let mut received_any = false;
        loop {
            let chunk = match tokio::time::timeout(timeout, bytes.next()).await {
                Err(_) => {
                    return Err(Failure::fatal(format!(
                        "the answer from {url} stalled: nothing arrived for {} (request_timeout)",
                        fmt_duration(timeout)
                    )))
                }
                Ok(None) => break,
                Ok(Some(Err(e))) => {
                    let message = format!(
                        "the connection to {url} broke while the answer was streaming: {}",
                        causes(&e)
                    );
                    // Only safe to retry if nothing of this answer was seen (or shown) yet.
                    return Err(if received_any {
                        Failure::fatal(message)
                    } else {
                        Failure::retry(message, None)
                    });
                }
                Ok(Some(Ok(chunk))) => chunk,
            };
            received_any |= !chunk.is_empty();
            for line in lines.push(&chunk) {
                if let Some(data) = sse_data(&line) {
                    acc.data(data, out).map_err(Failure::fatal)?;
                }
            }
            if acc.done {
                break;
            }
        }
        if !acc.done {
            if let Some(data) = lines.finish().as_deref().and_then(sse_data) {
                acc.data(data, out).map_err(Failure::fatal)?;
            }
        }
        if acc.data_lines == 0 {
            return Err(Failure::fatal(format!(
                "the model server at {url} answered without streaming (no `data:` lines); check \
                 that it supports \"stream\": true"
            )));
        }
        Ok(acc.finish())
    }
}

impl Agent for OpenAiAgent {
    fn run_turn<'a>(
        &'a self,
        _session: SessionContext<'a>,
        history: &'a [Turn],
        message: &'a str,
    ) -> BoxStream<'a, AgentEvent> {
        turn_stream(move |out| async move { self.run(history, message, &out).await })
    }
}

// ---------------------------------------------------------------------------------------------
// Messages

fn text_or_null(text: &str) -> Value {
    if text.is_empty() {
        Value::Null
    } else {
        Value::String(text.to_string())
    }
}

fn tool_call_json(id: &str, name: &str, arguments: &str) -> Value {
    json!({
        "id": id,
        "type": "function",
        "function": {"name": name, "arguments": arguments},
    })
}

fn error_object(message: String) -> Map<String, Value> {
    let mut map = Map::new();
    map.insert("error".into(), Value::String(message));
    map
}

/// Rebuilds the chat messages of a recorded turn: the user's message; per model reply with tool
/// calls an assistant message carrying them (its text as content, else null) followed by one tool
/// message per result; the final answer. A call without a recorded result gets an error result,
/// because the API rejects a conversation with an unanswered tool call.
fn replay_turn(turn: &Turn, messages: &mut Vec<Value>) {
    messages.push(json!({"role": "user", "content": turn.user}));
    let mut text = String::new();
    // Calls of the assistant message being built, not yet answered.
    let mut open_calls: Vec<String> = Vec::new();
    let mut awaiting_results = false;
    for event in &turn.events {
        match event {
            AgentEvent::TextDelta { text: delta } => {
                if awaiting_results {
                    close_calls(&mut open_calls, messages);
                    awaiting_results = false;
                }
                text.push_str(delta);
            }
            AgentEvent::ToolCall { id, name, args } => {
                let call = tool_call_json(id, name, &Value::Object(args.clone()).to_string());
                let last_has_calls = messages
                    .last()
                    .is_some_and(|m| m["role"] == "assistant" && m.get("tool_calls").is_some());
                if awaiting_results && last_has_calls {
                    if let Some(Value::Array(calls)) =
                        messages.last_mut().and_then(|m| m.get_mut("tool_calls"))
                    {
                        calls.push(call);
                    }
                } else {
                    close_calls(&mut open_calls, messages);
                    messages.push(json!({
                        "role": "assistant",
                        "content": text_or_null(&std::mem::take(&mut text)),
                        "tool_calls": [call],
                    }));
                    awaiting_results = true;
                }
                open_calls.push(id.clone());
            }
            AgentEvent::ToolResult { id, response, .. } => {
                // Results follow their calls; once one arrives no more calls join that message.
                awaiting_results = false;
                open_calls.retain(|open| open != id);
                messages.push(json!({
                    "role": "tool",
                    "tool_call_id": id,
                    "content": Value::Object(response.clone()).to_string(),
                }));
            }
            AgentEvent::FinalResponse { text: answer } => {
                close_calls(&mut open_calls, messages);
                awaiting_results = false;
                text.clear();
                messages.push(json!({"role": "assistant", "content": answer}));
            }
            AgentEvent::Error { .. }
            | AgentEvent::Usage { .. }
            | AgentEvent::ModelCall { .. }
            | AgentEvent::Author { .. } => {}
        }
    }
    close_calls(&mut open_calls, messages);
}

fn close_calls(open_calls: &mut Vec<String>, messages: &mut Vec<Value>) {
    for id in open_calls.drain(..) {
        messages.push(json!({
            "role": "tool",
            "tool_call_id": id,
            "content": json!({"error": "no result was recorded for this call"}).to_string(),
        }));
    }
}

struct PreparedCall {
    id: String,
    name: String,
    /// The arguments exactly as the model sent them (what goes back into the conversation).
    raw_args: String,
    /// Parsed arguments, or the error the tool result reports.
    args: Result<Map<String, Value>, String>,
}

fn prepare_calls(calls: Vec<PartialCall>, turn: usize, step: usize) -> Vec<PreparedCall> {
    calls
        .into_iter()
        .enumerate()
        .map(|(n, call)| {
            let id = if call.id.is_empty() {
                format!("call_{turn}_{step}_{n}")
            } else {
                call.id
            };
            let args = parse_args(&call.arguments);
            let raw_args = if call.arguments.trim().is_empty() {
                "{}".to_string()
            } else {
                call.arguments
            };
            PreparedCall {
                id,
                name: call.name,
                raw_args,
                args,
            }
        })
        .collect()
}

fn parse_args(raw: &str) -> Result<Map<String, Value>, String> {
    if raw.trim().is_empty() {
        // Some servers send "" for a call without arguments.
        return Ok(Map::new());
    }
    match serde_json::from_str::<Value>(raw) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(other) => Err(format!(
            "the model sent arguments that are not a JSON object: {}",
            snippet(&other.to_string())
        )),
        Err(e) => Err(format!(
            "the model sent arguments that are not JSON: {e}; they were: {}",
            snippet(raw)
        )),
    }
}

// ---------------------------------------------------------------------------------------------
// Streaming

/// Splits a byte stream into lines. Lines may be cut anywhere between network chunks; `\r\n` and
/// `\n` both end a line.
#[derive(Default)]
pub(super) struct SseLines {
    buf: Vec<u8>,
}

impl SseLines {
    /// The lines completed by `bytes`.
    pub(super) fn push(&mut self, bytes: &[u8]) -> Vec<String> {
        self.buf.extend_from_slice(bytes);
        let mut lines = Vec::new();
        let mut start = 0;
        while let Some(end) = self.buf[start..].iter().position(|&b| b == b'\n') {
            lines.push(decode_line(&self.buf[start..start + end]));
            start += end + 1;
        }
        self.buf.drain(..start);
        lines
    }

    /// Whatever is left when the stream ends without a final newline.
    pub(super) fn finish(&mut self) -> Option<String> {
        if self.buf.is_empty() {
            None
        } else {
            let line = decode_line(&self.buf);
            self.buf.clear();
            Some(line)
        }
    }
}

fn decode_line(bytes: &[u8]) -> String {
    // A newline byte never occurs inside a UTF-8 sequence, so a whole line decodes cleanly.
    let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
    String::from_utf8_lossy(bytes).into_owned()
}

/// The payload of a `data:` line; None for comments (`: keep-alive`), blank lines and other fields.
pub(super) fn sse_data(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("data:")?;
    Some(rest.strip_prefix(' ').unwrap_or(rest))
}

/// A tool call being assembled from deltas.
#[derive(Debug, Default)]
struct PartialCall {
    index: u64,
    id: String,
    name: String,
    arguments: String,
}

#[derive(Default)]
struct Accumulator {
    text: String,
    calls: Vec<PartialCall>,
    usage: Option<(u64, u64)>,
    data_lines: usize,
    done: bool,
}

struct ModelReply {
    text: String,
    calls: Vec<PartialCall>,
    usage: Option<(u64, u64)>,
}

impl Accumulator {
    /// One `data:` payload.
    fn data(&mut self, data: &str, out: &Emitter) -> Result<(), String> {
        let data = data.trim();
        if data.is_empty() {
            return Ok(());
        }
        self.data_lines += 1;
        if data == "[DONE]" {
            self.done = true;
            return Ok(());
        }
        let chunk: Value = serde_json::from_str(data).map_err(|e| {
            format!(
                "the model server sent a stream event that is not JSON ({e}): {}",
                snippet(data)
            )
        })?;
        if let Some(error) = chunk.get("error").filter(|e| !e.is_null()) {
            return Err(format!(
                "the model server reported an error while streaming: {}",
                snippet(&error_text(error))
            ));
        }
        if let Some(usage) = chunk.get("usage").and_then(Value::as_object) {
            let count = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
            self.usage = Some((count("prompt_tokens"), count("completion_tokens")));
        }
        let choices = chunk.get("choices").and_then(Value::as_array);
        for choice in choices.into_iter().flatten() {
            // Only the first choice matters (we never ask for more than one).
            if choice.get("index").and_then(Value::as_u64).unwrap_or(0) != 0 {
                continue;
            }
            let Some(delta) = choice.get("delta").or_else(|| choice.get("message")) else {
                continue;
            };
            if let Some(text) = delta.get("content").and_then(Value::as_str) {
                if !text.is_empty() {
                    self.text.push_str(text);
                    out.emit(AgentEvent::TextDelta {
                        text: text.to_string(),
                    });
                }
            }
            if let Some(calls) = delta.get("tool_calls").and_then(Value::as_array) {
                for call in calls {
                    self.tool_call_delta(call);
                }
            }
        }
        Ok(())
    }

    fn tool_call_delta(&mut self, delta: &Value) {
        let id = delta
            .get("id")
            .and_then(Value::as_str)
            .filter(|id| !id.is_empty());
        let next_index = self.calls.iter().map(|c| c.index + 1).max().unwrap_or(0);
        let index = match delta.get("index").and_then(Value::as_u64) {
            // A different id at a taken index: a server that numbers every call 0.
            Some(index) => match (id, self.calls.iter().find(|c| c.index == index)) {
                (Some(id), Some(call)) if !call.id.is_empty() && call.id != id => next_index,
                _ => index,
            },
            // No index (some servers, for a single call): a new id starts a new call, anything
            // else continues the latest one.
            None => match id {
                Some(id) => match self.calls.iter().find(|c| c.id == id) {
                    Some(call) => call.index,
                    None => next_index,
                },
                None => self.calls.last().map_or(0, |c| c.index),
            },
        };
        let position = match self.calls.iter().position(|c| c.index == index) {
            Some(position) => position,
            None => {
                self.calls.push(PartialCall {
                    index,
                    ..PartialCall::default()
                });
                self.calls.len() - 1
            }
        };
        let call = &mut self.calls[position];
        if let Some(id) = id {
            if call.id.is_empty() {
                call.id = id.to_string();
            }
        }
        let function = delta.get("function");
        if let Some(name) = function.and_then(|f| f.get("name")).and_then(Value::as_str) {
            // The name normally comes whole in the first delta; some servers repeat it.
            if call.name.is_empty() {
                call.name = name.to_string();
            } else if call.name != name {
                call.name.push_str(name);
            }
        }
        match function.and_then(|f| f.get("arguments")) {
            Some(Value::String(part)) => call.arguments.push_str(part),
            // Non-standard, but seen: the arguments as an object rather than a string.
            Some(value @ Value::Object(_)) => call.arguments.push_str(&value.to_string()),
            _ => {}
        }
    }

    fn finish(mut self) -> ModelReply {
        self.calls.sort_by_key(|c| c.index);
        // A delta list with no name at all is noise, not a call.
        self.calls
            .retain(|c| !c.name.is_empty() || !c.arguments.is_empty() || !c.id.is_empty());
        ModelReply {
            text: self.text,
            calls: self.calls,
            usage: self.usage,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Errors and retries

/// The key, if one is configured: read from the variable named `api_key_env` now. Err if the
/// variable is named but unset or empty.
pub(super) fn api_key(api_key_env: Option<&str>, lookup: KeyLookup) -> Result<Option<String>, String> {
    let Some(var) = api_key_env else {
        return Ok(None);
    };
    match lookup(var) {
        Some(key) if !key.trim().is_empty() => Ok(Some(key.trim().to_string())),
        _ => Err(format!(
            "the API key variable ${var} is not set (or is empty); export it in the server's \
             environment, or clear api_key_env if the model server needs no key"
        )),
    }
}

/// One chat-completions endpoint as the agent and the judge call it: a POST with a timeout,
/// errors that name the URL, the model and the key's variable (never the key), and retries with
/// backoff after 429, 5xx and connection failures.
pub(super) struct Endpoint<'a> {
    pub client: &'a reqwest::Client,
    /// `{base_url}/chat/completions`.
    pub url: String,
    pub model: &'a str,
    pub api_key_env: Option<&'a str>,
    /// Limit on waiting for the response headers, and on each wait while reading the answer.
    pub request_timeout: Duration,
    /// The setting that sets `request_timeout`, named in timeout errors.
    pub timeout_setting: &'static str,
    pub max_retries: u32,
    pub retry_base_delay: Duration,
}

impl Endpoint<'_> {
    /// Posts `body` and reads a successful response with `read`; retries what can be retried.
    pub(super) async fn call<T, Read, Reading>(
        &self,
        key: Option<&str>,
        body: &Value,
        read: Read,
    ) -> Result<T, String>
    where
        Read: Fn(reqwest::Response) -> Reading,
        Reading: Future<Output = Result<T, Failure>>,
    {
        let mut attempt = 0;
        loop {
            let result = match self.send(body, key).await {
                Ok(response) => read(response).await,
                Err(failure) => Err(failure),
            };
            let failure = match result {
                Ok(answer) => return Ok(answer),
                Err(failure) => failure,
            };
            let message = scrub(&failure.message, key);
            if !failure.retryable || attempt >= self.max_retries {
                return Err(if attempt > 0 {
                    format!("{message} (gave up after {} attempts)", attempt + 1)
                } else {
                    message
                });
            }
            let delay = failure
                .retry_after
                .unwrap_or_else(|| backoff(self.retry_base_delay, attempt, next_salt()));
            tracing::warn!(
                "{message}; retrying in {} ms (retry {} of {})",
                delay.as_millis(),
                attempt + 1,
                self.max_retries
            );
            tokio::time::sleep(delay).await;
            attempt += 1;
        }
    }

    /// One request; the response if its status is a success.
    async fn send(&self, body: &Value, key: Option<&str>) -> Result<reqwest::Response, Failure> {
        let url = &self.url;
        let timeout = self.request_timeout;
        let mut request = self.client.post(url).json(body);
        if let Some(key) = key {
            request = request.bearer_auth(key);
        }
        let response = match tokio::time::timeout(timeout, request.send()).await {
            Err(_) => {
                return Err(Failure::fatal(format!(
                    "the model server at {url} did not answer within {} ({})",
                    fmt_duration(timeout),
                    self.timeout_setting
                )))
            }
            Ok(Err(e)) => return Err(send_failure(url, &e)),
            Ok(Ok(response)) => response,
        };
        let status = response.status();
        if status.is_success() {
            return Ok(response);
        }
        let retry_after = retry_after(response.headers());
        let text = match tokio::time::timeout(timeout, response.text()).await {
            Ok(Ok(text)) => text,
            _ => String::new(),
        };
        Err(self.status_failure(status, &text, retry_after))
    }

    fn status_failure(
        &self,
        status: reqwest::StatusCode,
        body: &str,
        retry_after: Option<Duration>,
    ) -> Failure {
        let (url, model) = (&self.url, self.model);
        let detail = server_message(body);
        let detail = if detail.is_empty() {
            String::new()
        } else {
            format!(": {detail}")
        };
        match status.as_u16() {
            // The body is left out: some servers echo part of the key they rejected.
            401 => Failure::fatal(match self.api_key_env {
                Some(var) => format!(
                    "the model server at {url} rejected the API key ({status}); check the API key in ${var}"
                ),
                None => format!(
                    "the model server at {url} requires an API key ({status}); set api_key_env to the \
                     name of the environment variable that holds it"
                ),
            }),
            403 => Failure::fatal(format!(
                "the model server at {url} refused the request ({status}); check that the API key{} \
                 may use model \"{model}\"{detail}",
                self.api_key_env.map(|v| format!(" in ${v}")).unwrap_or_default()
            )),
            404 => Failure::fatal(format!(
                "model \"{model}\" or the endpoint {url} was not found ({status}); check the model name \
                 and base_url{detail}"
            )),
            429 => Failure::retry(
                format!("the model server at {url} is rate limiting requests ({status}){detail}"),
                retry_after,
            ),
            code if code >= 500 => Failure::retry(
                format!("the model server at {url} failed ({status}){detail}"),
                retry_after,
            ),
            _ => Failure::fatal(format!(
                "the model server at {url} rejected the request for model \"{model}\" ({status}){detail}"
            )),
        }
    }
}

pub(super) struct Failure {
    message: String,
    retryable: bool,
    retry_after: Option<Duration>,
}

impl Failure {
    pub(super) fn fatal(message: String) -> Self {
        Self {
            message,
            retryable: false,
            retry_after: None,
        }
    }

    pub(super) fn retry(message: String, retry_after: Option<Duration>) -> Self {
        Self {
            message,
            retryable: true,
            retry_after,
        }
    }
}

/// A request that got no response at all.
fn send_failure(url: &str, e: &reqwest::Error) -> Failure {
    if e.is_builder() {
        return Failure::fatal(format!("cannot send a request to {url}: {}", causes(e)));
    }
    if e.is_connect() {
        return Failure::retry(
            format!("could not connect to the model server at {url}: {}", causes(e)),
            None,
        );
    }
    Failure::retry(format!("the request to {url} failed: {}", causes(e)), None)
}

/// The causes under reqwest's own message (which only repeats the URL), most specific last.
pub(super) fn causes(e: &(dyn std::error::Error + 'static)) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut source = e.source();
    while let Some(err) = source {
        let text = err.to_string();
        if !text.is_empty() && !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        source = err.source();
    }
    if parts.is_empty() {
        e.to_string()
    } else {
        parts.join(": ")
    }
}

/// `Retry-After` in seconds, capped; HTTP dates are ignored (the backoff applies instead).
fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let value = headers.get(reqwest::header::RETRY_AFTER)?.to_str().ok()?.trim();
    let seconds: f64 = value.parse().ok()?;
    if !seconds.is_finite() || seconds < 0.0 {
        return None;
    }
    Some(Duration::from_secs_f64(
        seconds.min(MAX_RETRY_AFTER.as_secs_f64()),
    ))
}

/// Exponential backoff: `base * 2^attempt`, capped at 8 s, then ±20% jitter from `salt`.
pub(super) fn backoff(base: Duration, attempt: u32, salt: u64) -> Duration {
    let exp = base.saturating_mul(1u32.checked_shl(attempt.min(31)).unwrap_or(u32::MAX));
    let capped = exp.min(MAX_BACKOFF);
    let unit = (splitmix64(salt ^ u64::from(attempt).wrapping_mul(0x9E37_79B9_7F4A_7C15)) >> 11) as f64
        / (1u64 << 53) as f64;
    capped.mul_f64(0.8 + 0.4 * unit)
}

/// A different salt per retry, so concurrent clients do not retry in lockstep.
fn next_salt() -> u64 {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos() as u64);
    splitmix64(n ^ (nanos << 20))
}

fn splitmix64(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// The message of an error body: OpenAI's `{"error": {"message"}}`, a plain `{"error": "..."}`,
/// `{"message"}`/`{"detail"}`, or the text itself, shortened.
pub(super) fn server_message(body: &str) -> String {
    let body = body.trim();
    if body.is_empty() {
        return String::new();
    }
    let text = match serde_json::from_str::<Value>(body) {
        Ok(value) => ["error", "message", "detail"]
            .iter()
            .find_map(|k| value.get(*k).filter(|v| !v.is_null()))
            .map_or_else(|| value.to_string(), error_text),
        Err(_) => body.to_string(),
    };
    snippet(&text)
}

pub(super) fn error_text(error: &Value) -> String {
    match error {
        Value::String(s) => s.clone(),
        Value::Object(map) => match map.get("message").and_then(Value::as_str) {
            Some(message) => message.to_string(),
            None => error.to_string(),
        },
        other => other.to_string(),
    }
}

/// At most `MAX_SNIPPET` characters, on one line.
pub(super) fn snippet(text: &str) -> String {
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= MAX_SNIPPET {
        one_line
    } else {
        let cut: String = one_line.chars().take(MAX_SNIPPET).collect();
        format!("{cut}…")
    }
}

/// Removes the key from a message, in case a server echoed it.
fn scrub(message: &str, key: Option<&str>) -> String {
    match key {
        Some(key) if key.len() >= 4 => message.replace(key, "[redacted]"),
        _ => message.to_string(),
    }
}

pub(super) fn fmt_duration(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{} ms", d.as_millis())
    }
}
