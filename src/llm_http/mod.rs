//! HTTP to model servers: an OpenAI-compatible `/chat/completions` endpoint called with a
//! timeout, the API key and retries with backoff; server-sent events split into lines; error
//! messages that name the URL and the key's variable, never the key. The `openai` agent, the
//! `adk` agent and the LLM judge all talk to their servers through this module; it knows
//! nothing of agents or evals.

mod auth;
mod endpoint;
mod error_text;
mod retry;
mod sse;
#[cfg(test)]
mod tests;

pub(crate) use auth::{api_key, env_lookup, KeyLookup};
pub(crate) use endpoint::{Endpoint, Failure};
pub(crate) use error_text::{causes, error_text, fmt_duration, server_message, snippet};
pub(crate) use sse::{sse_data, SseLines};
