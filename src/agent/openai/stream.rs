//! A chat completion read into a model reply: streamed as server-sent `data:` chunks with text
//! deltas (emitted as they arrive), tool-call deltas (assembled by index or id, however the
//! server numbers them) and token usage; or, for servers that call tools only unstreamed, one
//! JSON answer read the same way.

use futures::StreamExt;
use serde_json::Value;

use crate::agent::{AgentEvent, Emitter};
use crate::llm_http::{causes, error_text, fmt_duration, snippet, sse_data, Endpoint, Failure, SseLines};

/// What one model call answered.
pub(super) struct ModelReply {
    pub text: String,
    /// Tool calls in index order; none when the reply is the final answer.
    pub calls: Vec<PartialCall>,
    /// (prompt tokens, completion tokens), if the server said.
    pub usage: Option<(u64, u64)>,
    /// Why the model stopped (`stop`, `tool_calls`, `length`…), if the server said.
    pub finish_reason: Option<String>,
}

impl ModelReply {
    /// A reply that stopped to call tools but carries neither a call nor text: what a server
    /// that calls tools only in whole answers streams.
    pub fn asks_for_tools_without_calls(&self) -> bool {
        self.finish_reason.as_deref() == Some("tool_calls") && self.calls.is_empty() && self.text.is_empty()
    }
}

/// A tool call as assembled from deltas.
#[derive(Debug, Default)]
pub(super) struct PartialCall {
    index: u64,
    pub id: String,
    pub name: String,
    /// The arguments as the model sent them: JSON text, possibly broken.
    pub arguments: String,
}

/// The streamed answer. Text deltas are emitted as they arrive.
pub(super) async fn read_stream(
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

/// An unstreamed answer: one JSON body, its text emitted at once.
pub(super) async fn read_whole(
    response: reqwest::Response,
    endpoint: &Endpoint<'_>,
    out: &Emitter,
) -> Result<ModelReply, Failure> {
    let url = &endpoint.url;
    let text = endpoint.read_text(response).await?;
    let mut answer: Value = serde_json::from_str(&text).map_err(|e| {
        Failure::fatal(format!(
            "the model server at {url} answered with something that is not JSON ({e}): {}",
            snippet(&text)
        ))
    })?;
    // Whole calls carry no index; number them so that calls without ids stay apart.
    if let Some(calls) = answer
        .pointer_mut("/choices/0/message/tool_calls")
        .and_then(Value::as_array_mut)
    {
        for (index, call) in calls.iter_mut().enumerate() {
            if let Some(call) = call.as_object_mut() {
                call.entry("index").or_insert(Value::from(index));
            }
        }
    }
    let mut acc = Accumulator::default();
    acc.data(&answer.to_string(), out).map_err(Failure::fatal)?;
    Ok(acc.finish())
}

#[derive(Default)]
struct Accumulator {
    text: String,
    calls: Vec<PartialCall>,
    usage: Option<(u64, u64)>,
    finish_reason: Option<String>,
    data_lines: usize,
    done: bool,
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
            if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
                self.finish_reason = Some(reason.to_string());
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
            finish_reason: self.finish_reason,
        }
    }
}
