//! The `openai` agent: any OpenAI-compatible `/v1/chat/completions` endpoint (OpenAI, Ollama,
//! vLLM, llama.cpp's server, LiteLLM, …) with streaming and function calling. The tool loop runs
//! here, on the server: the model asks for tools, we run them from the agent's `ToolRegistry`,
//! send the results back and call the model again until it answers with text.
//!
//! The API key is read from the environment variable named in the config each time a request is
//! made, sent only in the `Authorization` header, and never put into events, errors, logs or
//! `Debug` output.
//!
//! Here is the loop; `messages` builds what the model is sent, `stream` reads what it answers,
//! and `crate::llm_http` does the HTTP (timeouts, retries, error messages).

mod config;
mod messages;
mod quirks;
mod stream;
#[cfg(test)]
mod tests;

use std::fmt;
use std::time::Instant;

use futures::stream::{BoxStream, FuturesOrdered, StreamExt};
use serde_json::{json, Map, Value};

use super::replay::{answer_call, ReplayTable};
use super::{
    turn_stream, Agent, AgentEvent, Emitter, SessionContext, ToolRegistry, ToolSource, Toolbox, Turn,
};
use crate::llm_http::{api_key, env_lookup, snippet, Endpoint, KeyLookup};
pub use config::OpenAiConfig;
use quirks::{name_refused_tool, retries_without, without, OptionalField, Quirks};
use stream::{ModelReply, PartialCall};

pub struct OpenAiAgent {
    config: OpenAiConfig,
    tools: Toolbox,
    /// What the model server turned out not to do, remembered for the process.
    quirks: Quirks,
    /// One connection pool for every turn of this agent.
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
    pub fn new(config: OpenAiConfig, tools: impl Into<Toolbox>) -> Self {
        let client = crate::outbound::client(config.request_timeout);
        Self {
            config,
            tools: tools.into(),
            quirks: Quirks::default(),
            client,
            key_lookup: env_lookup,
        }
    }

    pub fn config(&self) -> &OpenAiConfig {
        &self.config
    }

    /// The tools offered to the model: built-in ones and those of MCP servers.
    pub fn tools(&self) -> &Toolbox {
        &self.tools
    }

    /// Tests read keys from a table instead of the process environment.
    #[cfg(test)]
    fn with_key_lookup(mut self, lookup: KeyLookup) -> Self {
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
            body_cap: crate::outbound::AGENT_BODY_CAP,
        }
    }

    /// One turn: model calls and tool runs until the model answers with text.
    async fn run(
        &self,
        replay: Option<&ReplayTable>,
        history: &[Turn],
        message: &str,
        out: &Emitter,
    ) -> Result<(), String> {
        let tools = &self.tools.for_turn().await?;
        let mut messages = messages::initial(self.config.system_prompt.as_deref(), history, message);
        // Model replies so far that asked for tools.
        let mut step = 0;
        loop {
            let started = Instant::now();
            let reply = self.call_model(&messages, tools, step == 0, out).await?;
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
                .map(|c| messages::tool_call(&c.id, &c.name, &c.raw_args))
                .collect();
            messages.push(messages::assistant_with_calls(&reply.text, tool_calls));
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
                .map(|call| async move { (call, run_tool(tools, replay, call).await) })
                .collect();
            while let Some((call, (response, duration_ms, source))) = results.next().await {
                messages.push(messages::tool_result(&call.id, &response));
                out.emit(AgentEvent::ToolResult {
                    id: call.id.clone(),
                    name: call.name.clone(),
                    response,
                    duration_ms,
                    source,
                });
            }
            step += 1;
        }
    }

    /// The request; `first` is the turn's first model call, the one `tool_choice` applies to.
    fn request_body(&self, messages: &[Value], tools: &ToolRegistry, first: bool, streamed: bool) -> Value {
        let mut body = Map::new();
        body.insert("model".into(), json!(self.config.model));
        body.insert("messages".into(), Value::Array(messages.to_vec()));
        if !tools.is_empty() {
            // An empty `tools` array is rejected by OpenAI; leave it out instead.
            body.insert("tools".into(), Value::Array(tools.declarations()));
            let choice = self.config.tool_choice.as_deref().filter(|_| first);
            if let Some(choice) = choice.filter(|_| !self.quirks.omits(OptionalField::ToolChoice)) {
                body.insert("tool_choice".into(), tool_choice(choice));
            }
        }
        body.insert("stream".into(), Value::Bool(streamed));
        if streamed && !self.quirks.omits(OptionalField::StreamOptions) {
            // Without this OpenAI sends no token counts when streaming; most other servers
            // ignore it, and one that refuses it is asked again without it (`call_model`).
            body.insert("stream_options".into(), json!({"include_usage": true}));
        }
        if let Some(t) = self.config.temperature {
            body.insert("temperature".into(), json!(t));
        }
        Value::Object(body)
    }

    /// One model call, retried on 429, 5xx and connection failures. A refused request is asked
    /// again without the optional fields servers refuse; a streamed answer that asks for tools
    /// but carries no calls is asked again whole. What cured it is remembered ([`Quirks`]).
    async fn call_model(
        &self,
        messages: &[Value],
        tools: &ToolRegistry,
        first: bool,
        out: &Emitter,
    ) -> Result<ModelReply, String> {
        let endpoint = self.endpoint();
        let key = api_key(endpoint.api_key_env, self.key_lookup)?;
        let offers_tools = !tools.is_empty();
        let streamed = self.config.stream && !(offers_tools && self.quirks.tools_unstreamed());
        let body = self.request_body(messages, tools, first, streamed);
        let (endpoint, key) = (&endpoint, key.as_deref());
        let send = |body: Value, streamed: bool| async move {
            endpoint
                .call_typed(key, &body, |response| async move {
                    if streamed {
                        stream::read_stream(response, endpoint, out).await
                    } else {
                        stream::read_whole(response, endpoint, out).await
                    }
                })
                .await
        };
        let (reply, body) = match send(body.clone(), streamed).await {
            Ok(reply) => (reply, body),
            Err(failure) if failure.refused => {
                let mut cured = None;
                for fields in retries_without(&body, &failure.message) {
                    let lighter = without(&body, &fields);
                    if let Ok(reply) = send(lighter.clone(), streamed).await {
                        cured = Some((reply, lighter, fields));
                        break;
                    }
                }
                let Some((reply, lighter, fields)) = cured else {
                    return Err(if offers_tools {
                        name_refused_tool(failure.message, tools)
                    } else {
                        failure.message
                    });
                };
                // Only a refusal that leaving the fields out cured is remembered.
                for field in fields {
                    self.quirks.omit(field);
                    tracing::info!(model = %self.config.model, field = field.key(), "the model server refuses a field; leaving it out");
                }
                (reply, lighter)
            }
            Err(failure) => return Err(failure.message),
        };
        if !(streamed && offers_tools && reply.asks_for_tools_without_calls()) {
            return Ok(reply);
        }
        let mut whole = without(&body, &[OptionalField::StreamOptions]);
        whole["stream"] = Value::Bool(false);
        let reply = send(whole, false).await.map_err(|failure| failure.message)?;
        if !reply.calls.is_empty() {
            self.quirks.call_tools_unstreamed();
            tracing::info!(model = %self.config.model, "the model server calls tools only in whole answers; asking for them unstreamed");
        }
        Ok(reply)
    }
}

impl Agent for OpenAiAgent {
    fn run_turn<'a>(
        &'a self,
        session: SessionContext<'a>,
        history: &'a [Turn],
        message: &'a str,
    ) -> BoxStream<'a, AgentEvent> {
        turn_stream(move |out| async move { self.run(session.replay, history, message, &out).await })
    }

    fn detected(&self) -> Vec<String> {
        self.quirks.detected()
    }
}

/// A tool call of the model's reply, ready to run.
struct PreparedCall {
    id: String,
    name: String,
    /// The arguments exactly as the model sent them (what goes back into the conversation).
    raw_args: String,
    /// Parsed arguments, or the error the tool result reports.
    args: Result<Map<String, Value>, String>,
}

/// The reply's calls with ids the conversation can answer: a missing id, or one an earlier call
/// of the reply already has (some servers number every call `call_0`), gets one of its own.
fn prepare_calls(calls: Vec<PartialCall>, turn: usize, step: usize) -> Vec<PreparedCall> {
    let mut seen = std::collections::HashSet::new();
    calls
        .into_iter()
        .enumerate()
        .map(|(n, call)| {
            let id = if call.id.is_empty() || seen.contains(&call.id) {
                format!("call_{turn}_{step}_{n}")
            } else {
                call.id
            };
            seen.insert(id.clone());
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

/// OpenAI's `tool_choice`: the words as they are, a tool's name as that function.
fn tool_choice(choice: &str) -> Value {
    match choice {
        "auto" | "required" | "none" => json!(choice),
        name => json!({"type": "function", "function": {"name": name}}),
    }
}

/// Runs one call of the model's reply (or answers it from the replay table); a failure becomes
/// the `{"error": …}` the model reads.
async fn run_tool(
    tools: &ToolRegistry,
    replay: Option<&ReplayTable>,
    call: &PreparedCall,
) -> (Map<String, Value>, u64, ToolSource) {
    let args = match &call.args {
        Ok(args) => args,
        Err(message) => return (error_object(message.clone()), 0, ToolSource::Live),
    };
    let live = async {
        match tools.get(&call.name) {
            Some(tool) => tool.call(args).await,
            None => Err(unknown_tool(tools, &call.name)),
        }
    };
    let (result, duration_ms, source) = answer_call(replay, &call.name, args, live).await;
    (result.unwrap_or_else(error_object), duration_ms, source)
}

fn unknown_tool(tools: &ToolRegistry, name: &str) -> String {
    let known: Vec<&str> = tools.iter().map(|t| t.name()).collect();
    if known.is_empty() {
        format!("no tool named \"{name}\"; no tools are available")
    } else {
        format!("no tool named \"{name}\"; available tools: {}", known.join(", "))
    }
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

fn error_object(message: String) -> Map<String, Value> {
    let mut map = Map::new();
    map.insert("error".into(), Value::String(message));
    map
}
