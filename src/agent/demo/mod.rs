//! The built-in `demo` agent: a rule-based planner that calls the real demo tools and answers from
//! their results. No model, no network, no randomness: the same conversation always produces the
//! same events (apart from measured durations), which makes it a fair baseline for evals.
//!
//! Here is the turn: `lex` tokenizes the message, `intents` plans the tool calls (or a reply
//! without tools), `phrasing` words the answer from the tools' results.

mod intents;
mod lex;
mod phrasing;

use std::time::{Duration, Instant};

use futures::stream::{self, BoxStream, StreamExt};
use serde_json::{Map, Value};

use super::replay::{answer_call, ReplayTable};
use super::{Agent, AgentEvent, SessionContext, ToolRegistry, Turn};
use intents::{plan, Plan};
use phrasing::{describe, reply_text};

/// Faults the demo agent can simulate, so a runner's timeouts and error handling can be tested
/// without a flaky network. The default simulates none.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct DemoFaults {
    /// Delay before each turn is answered.
    pub latency_ms: u64,
    /// Fraction of turns, in [0, 1], that fail with an `Error` event. Which turns fail depends only
    /// on the message and the history length, so a rerun fails the same turns.
    pub error_rate: f64,
}

#[derive(Debug)]
pub struct DemoAgent {
    tools: ToolRegistry,
    faults: DemoFaults,
}

impl Default for DemoAgent {
    fn default() -> Self {
        Self::new()
    }
}

impl DemoAgent {
    pub fn new() -> Self {
        Self::with_faults(DemoFaults::default())
    }

    pub fn with_faults(faults: DemoFaults) -> Self {
        Self {
            tools: ToolRegistry::demo(),
            faults,
        }
    }

    pub fn faults(&self) -> DemoFaults {
        self.faults
    }

    /// The tools this agent calls (the same ones an LLM agent could be offered).
    pub fn tools(&self) -> &ToolRegistry {
        &self.tools
    }

    async fn turn(&self, replay: Option<&ReplayTable>, history: &[Turn], message: &str) -> Vec<AgentEvent> {
        // The demo's "model call" is its injected latency (its rules take no measurable time).
        let thinking = Instant::now();
        if self.faults.latency_ms > 0 {
            tokio::time::sleep(Duration::from_millis(self.faults.latency_ms)).await;
        }
        let model_call = AgentEvent::ModelCall {
            duration_ms: thinking.elapsed().as_millis() as u64,
        };
        if fault_roll(message, history.len()) < self.faults.error_rate {
            return vec![AgentEvent::Error {
                message: format!(
                    "demo agent: injected fault (error_rate {})",
                    self.faults.error_rate
                ),
            }];
        }

        let mut events = Vec::new();
        let mut answer = Vec::new();
        let mut prompt_words = history
            .iter()
            .map(|t| words(&t.user) + t.final_response().map_or(0, words))
            .sum::<usize>()
            + words(message);
        let mut completion_words = 0;
        match plan(history, message) {
            Plan::Reply(reply) => answer.push(reply_text(reply)),
            Plan::Calls(calls) => {
                for (n, call) in calls.into_iter().enumerate() {
                    let id = format!("call_{}_{n}", history.len());
                    completion_words += words(&Value::Object(call.args.clone()).to_string());
                    events.push(AgentEvent::ToolCall {
                        id: id.clone(),
                        name: call.name.to_string(),
                        args: call.args.clone(),
                    });
                    let live = async {
                        match self.tools.get(call.name) {
                            Some(tool) => tool.call(&call.args).await,
                            None => Err(format!("unknown tool \"{}\"", call.name)),
                        }
                    };
                    let (result, duration_ms, source) =
                        answer_call(replay, call.name, &call.args, live).await;
                    let response = match &result {
                        Ok(map) => map.clone(),
                        Err(message) => {
                            let mut map = Map::new();
                            map.insert("error".into(), Value::String(message.clone()));
                            map
                        }
                    };
                    prompt_words += words(&Value::Object(response.clone()).to_string());
                    events.push(AgentEvent::ToolResult {
                        id,
                        name: call.name.to_string(),
                        response,
                        duration_ms,
                        source,
                    });
                    answer.push(describe(call.name, &call.args, &result));
                }
            }
        }

        let text = answer.join(" ");
        completion_words += words(&text);
        events.extend(
            chunks(&text)
                .into_iter()
                .map(|text| AgentEvent::TextDelta { text }),
        );
        events.push(AgentEvent::FinalResponse { text });
        events.push(model_call);
        events.push(AgentEvent::Usage {
            prompt_tokens: estimate_tokens(prompt_words),
            completion_tokens: estimate_tokens(completion_words),
        });
        events
    }
}

impl Agent for DemoAgent {
    fn run_turn<'a>(
        &'a self,
        session: SessionContext<'a>,
        history: &'a [Turn],
        message: &'a str,
    ) -> BoxStream<'a, AgentEvent> {
        // The tools answer instantly, so buffering a turn's events changes only their timing.
        stream::once(self.turn(session.replay, history, message))
            .flat_map(stream::iter)
            .boxed()
    }
}

// ---------------------------------------------------------------------------------------------
// Streaming and accounting helpers

/// Splits on word boundaries, three words per chunk; the chunks concatenate to `text` exactly.
fn chunks(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for (i, word) in text.split_inclusive(' ').enumerate() {
        current.push_str(word);
        if i % 3 == 2 {
            out.push(std::mem::take(&mut current));
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

fn words(text: &str) -> usize {
    text.split_whitespace().count()
}

/// About 4 tokens per 3 words, as for English text with common tokenizers.
fn estimate_tokens(words: usize) -> u64 {
    (words as u64 * 4 + 1) / 3
}

/// Maps (message, history length) to [0, 1) with FNV-1a and a final avalanche step.
fn fault_roll(message: &str, history_len: usize) -> f64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in message
        .bytes()
        .chain([0xff])
        .chain((history_len as u64).to_le_bytes())
    {
        h ^= u64::from(byte);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    (h >> 11) as f64 / (1u64 << 53) as f64
}
