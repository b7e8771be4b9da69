//! Agents: anything that turns a conversation plus a new user message into a stream of events
//! (text, tool calls, tool results, the final answer). Sessions record these events as they
//! come; evals compare them with expectations. The built-in `demo` agent runs offline and is
//! deterministic, so a new user gets real tool calls without any API key.
//!
//! The event types are shared with the browser (the chat page renders them); the agents and
//! tools themselves run on the server only.

#[cfg(feature = "ssr")]
pub mod adk;
#[cfg(feature = "ssr")]
mod adk_event;
#[cfg(feature = "ssr")]
mod demo;
#[cfg(feature = "ssr")]
mod knowledge;
#[cfg(feature = "ssr")]
pub mod mcp;
#[cfg(feature = "ssr")]
pub mod openai;
pub mod outline;
#[cfg(feature = "ssr")]
pub mod profiles;
#[cfg(feature = "ssr")]
pub mod replay;
pub mod to_eval_case;
#[cfg(feature = "ssr")]
pub mod toolbox;
#[cfg(feature = "ssr")]
pub mod tools;

#[cfg(all(test, feature = "ssr"))]
mod adk_tests;
#[cfg(all(test, feature = "ssr"))]
mod test_support;
#[cfg(all(test, feature = "ssr"))]
mod tests;

use std::collections::BTreeMap;
use std::sync::Arc;

use futures::future::BoxFuture;
use futures::stream::BoxStream;
#[cfg(feature = "ssr")]
use futures::{channel::mpsc, stream, Future, StreamExt};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

#[cfg(feature = "ssr")]
pub use adk::{AdkAgent, AdkConfig};
#[cfg(feature = "ssr")]
pub use demo::{DemoAgent, DemoFaults};
#[cfg(feature = "ssr")]
pub use knowledge::{Doc, DOCS};
#[cfg(feature = "ssr")]
pub use openai::{OpenAiAgent, OpenAiConfig};
#[cfg(feature = "ssr")]
pub use profiles::{AgentKind, AgentProfile, AgentProfiles};
#[cfg(feature = "ssr")]
pub use toolbox::Toolbox;

/// One thing an agent did during a turn, in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AgentEvent {
    /// A piece of the answer; the deltas of a turn concatenate to its `FinalResponse`.
    TextDelta {
        text: String,
    },
    ToolCall {
        id: String,
        name: String,
        args: Map<String, Value>,
    },
    /// `id` repeats the matching `ToolCall`'s id. A failed tool reports `{"error": message}`.
    ToolResult {
        id: String,
        name: String,
        response: Map<String, Value>,
        duration_ms: u64,
        /// Whether the tool ran; only tool replay in evals answers otherwise.
        #[serde(default, skip_serializing_if = "ToolSource::is_live")]
        source: ToolSource,
    },
    FinalResponse {
        text: String,
    },
    /// The turn failed; no `FinalResponse` follows.
    Error {
        message: String,
    },
    Usage {
        prompt_tokens: u64,
        completion_tokens: u64,
    },
    /// A model call answered, `duration_ms` after its request went out (retries of it
    /// included; a call that finally fails ends the turn with an `Error` instead). Agents that
    /// time their model calls say so once per call; the runner adds these up into an
    /// invocation's `model_duration`.
    ModelCall {
        duration_ms: u64,
    },
    /// The events that follow come from this (sub-)agent. Only multi-agent systems (ADK) say so;
    /// without it everything is the app's own agent.
    Author {
        name: String,
    },
}

/// Where a tool result came from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolSource {
    /// The tool ran.
    #[default]
    Live,
    /// Tool replay answered with the case's recorded result.
    Replayed,
    /// Tool replay found no recorded result and, as asked, answered the model with an error.
    Unrecorded,
}

impl ToolSource {
    pub fn is_live(&self) -> bool {
        *self == ToolSource::Live
    }
}

/// How an eval run's agent gets its tool results (adk-web's name for the option).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolExecutionMode {
    /// The tools run, as in a chat.
    #[default]
    Live,
    /// A call matching one the case recorded gets that call's result instead of running.
    Replay,
}

/// Under replay, what a call without a recorded match gets.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReplayMiss {
    /// The tool runs.
    #[default]
    Live,
    /// The model is answered with an error saying there is no recorded result.
    Error,
}

/// How an eval run gets its tool results: the mode, and under replay what a call without a
/// recorded match gets. The default runs the tools live.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolExecution {
    pub mode: ToolExecutionMode,
    pub replay_miss: ReplayMiss,
}

impl ToolExecution {
    pub fn is_replay(&self) -> bool {
        self.mode == ToolExecutionMode::Replay
    }
}

impl ToolExecutionMode {
    pub fn as_str(self) -> &'static str {
        match self {
            ToolExecutionMode::Live => "live",
            ToolExecutionMode::Replay => "replay",
        }
    }

    /// `live` or `replay`, in any case (adk-web writes the enum's names).
    pub fn parse(text: &str) -> Option<ToolExecutionMode> {
        match text.to_ascii_lowercase().as_str() {
            "live" => Some(ToolExecutionMode::Live),
            "replay" => Some(ToolExecutionMode::Replay),
            _ => None,
        }
    }
}

impl ReplayMiss {
    pub fn as_str(self) -> &'static str {
        match self {
            ReplayMiss::Live => "live",
            ReplayMiss::Error => "error",
        }
    }

    /// `live` or `error`, in any case.
    pub fn parse(text: &str) -> Option<ReplayMiss> {
        match text.to_ascii_lowercase().as_str() {
            "live" => Some(ReplayMiss::Live),
            "error" => Some(ReplayMiss::Error),
            _ => None,
        }
    }
}

/// The `Error` a turn ends with when the user stops it.
pub const STOPPED_MESSAGE: &str = "stopped by the user";

/// The app every fresh install has: the built-in, offline demo agent's profile.
pub const DEFAULT_APP: &str = "demo";

/// A finished turn of the session so far: what the user said and what the agent did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Turn {
    pub user: String,
    pub events: Vec<AgentEvent>,
}

impl Turn {
    /// The agent's answer, if the turn got that far.
    pub fn final_response(&self) -> Option<&str> {
        self.events.iter().find_map(|e| match e {
            AgentEvent::FinalResponse { text } => Some(text.as_str()),
            _ => None,
        })
    }
}

/// The session a turn belongs to. Agents that keep their own session on a server (ADK's
/// api_server) address it with these; the others only need the history.
#[derive(Debug, Clone, Copy)]
pub struct SessionContext<'a> {
    pub user_id: &'a str,
    pub session_id: &'a str,
    /// The session's state when it started, for agents that create their session remotely.
    pub state: &'a Map<String, Value>,
    /// Under tool replay (evals only), the recorded results this turn's calls are answered with.
    #[cfg(feature = "ssr")]
    pub replay: Option<&'a replay::ReplayTable>,
}

pub trait Agent: Send + Sync {
    /// Streams the events of one turn. Dyn-compatible on purpose (agents are chosen at run time).
    fn run_turn<'a>(
        &'a self,
        session: SessionContext<'a>,
        history: &'a [Turn],
        message: &'a str,
    ) -> BoxStream<'a, AgentEvent>;

    /// What the agent found out about its model server while talking to it (features it
    /// lacks and how they are worked around), for the Settings page. Nothing by default.
    fn detected(&self) -> Vec<String> {
        Vec::new()
    }
}

/// Hands an agent's events to the consumer of its turn stream.
#[cfg(feature = "ssr")]
#[derive(Clone)]
pub(crate) struct Emitter(mpsc::UnboundedSender<AgentEvent>);

#[cfg(feature = "ssr")]
impl Emitter {
    pub(crate) fn emit(&self, event: AgentEvent) {
        // Fails only if the consumer dropped the stream, which also drops the turn's work.
        let _ = self.0.unbounded_send(event);
    }
}

/// A turn's event stream for an agent whose work is one future: `run` emits events as they
/// happen, and an `Err` it returns becomes the turn's last event, an `Error`. The work runs
/// inside the returned stream (no spawned task, so it may borrow, and it stops when the stream
/// is dropped).
#[cfg(feature = "ssr")]
pub(crate) fn turn_stream<'a, Work>(run: impl FnOnce(Emitter) -> Work) -> BoxStream<'a, AgentEvent>
where
    Work: Future<Output = Result<(), String>> + Send + 'a,
{
    let (tx, rx) = mpsc::unbounded();
    let out = Emitter(tx);
    let work = run(out.clone());
    let driver = async move {
        if let Err(message) = work.await {
            out.emit(AgentEvent::Error { message });
        }
    };
    let driver = stream::once(driver).filter_map(|()| async { None::<AgentEvent> });
    stream::select(driver, rx).boxed()
}

/// A function an agent may call. Arguments and results are JSON objects, as in every
/// tool-calling API, so the same tools can be offered to an LLM agent.
pub trait Tool: Send + Sync {
    fn name(&self) -> &str;
    fn description(&self) -> &str;
    /// JSON schema of the arguments object.
    fn parameters(&self) -> Value;
    /// `Err` carries a message meant for the model (and the user), not a Rust error type.
    fn call<'a>(&'a self, args: &'a Map<String, Value>) -> BoxFuture<'a, Result<Map<String, Value>, String>>;
}

/// Tools by name. Ordered so that declarations sent to a model are stable between runs. Clones
/// share the tools.
#[derive(Default, Clone)]
pub struct ToolRegistry {
    tools: BTreeMap<String, Arc<dyn Tool>>,
}

impl ToolRegistry {
    pub fn new() -> Self {
        Self::default()
    }

    /// The demo agent's tools: weather, currency, orders, help-center search and arithmetic.
    #[cfg(feature = "ssr")]
    pub fn demo() -> Self {
        let mut registry = Self::new();
        registry.register(tools::weather::GetWeather);
        registry.register(tools::currency::ConvertCurrency);
        registry.register(tools::orders::GetOrderStatus);
        registry.register(tools::search::SearchKnowledgeBase);
        registry.register(tools::calculate::Calculate);
        registry
    }

    /// Adds a tool, replacing any tool of the same name.
    pub fn register(&mut self, tool: impl Tool + 'static) {
        self.tools.insert(tool.name().to_string(), Arc::new(tool));
    }

    /// Keeps only the tools whose names pass `keep`.
    pub fn retain(&mut self, keep: impl Fn(&str) -> bool) {
        self.tools.retain(|name, _| keep(name));
    }

    pub fn get(&self, name: &str) -> Option<&dyn Tool> {
        self.tools.get(name).map(|t| t.as_ref())
    }

    /// Tools in name order.
    pub fn iter(&self) -> impl Iterator<Item = &dyn Tool> {
        self.tools.values().map(|t| t.as_ref())
    }

    pub fn len(&self) -> usize {
        self.tools.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// OpenAI-style function declarations, in name order.
    pub fn declarations(&self) -> Vec<Value> {
        self.iter()
            .map(|t| {
                json!({
                    "type": "function",
                    "function": {
                        "name": t.name(),
                        "description": t.description(),
                        "parameters": t.parameters(),
                    },
                })
            })
            .collect()
    }
}

impl std::fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.tools.keys()).finish()
    }
}
