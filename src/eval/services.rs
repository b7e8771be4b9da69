//! What scoring needs from outside the pure code: an LLM judge and sentence embeddings (and,
//! to run scenario cases, a chat model that plays the user). The
//! metrics that use them are pure functions over these traits; the server supplies the real
//! implementations (an OpenAI-compatible chat model, all-MiniLM-L6-v2 in candle) and tests
//! supply scripted ones.

use super::evaluators::Evaluators;
use super::evidence::Evidence;
use futures::future::BoxFuture;
use std::sync::Arc;

/// One prompt for the judge model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JudgeRequest<'a> {
    pub prompt: &'a str,
    /// The metric's `judge_model_options.judge_model`; the judge's own model when absent.
    pub model: Option<&'a str>,
}

/// A chat model used as a judge: a prompt in, the reply's text out. Transient errors are
/// retried by the implementation; an `Err` is final and makes the metric NOT_EVALUATED.
pub trait Judge: Send + Sync {
    fn complete<'a>(&'a self, request: JudgeRequest<'a>) -> BoxFuture<'a, Result<String, String>>;
}

/// Sentence embeddings, L2-normalised, one vector per text in order.
pub trait Embedder: Send + Sync {
    fn embed<'a>(&'a self, texts: &'a [String]) -> BoxFuture<'a, Result<Vec<Vec<f32>>, String>>;
}

/// The services one scoring may use. A metric that needs one that is missing is NOT_EVALUATED
/// with a reason saying what to configure.
#[derive(Clone, Default)]
pub struct ScoringServices {
    pub judge: Option<Arc<dyn Judge>>,
    pub embedder: Option<Arc<dyn Embedder>>,
    /// The chat model that plays the user of `conversation_scenario` cases (the runner's, not
    /// the metrics'); a scenario case without one is an ERROR saying what to configure.
    pub simulator: Option<Arc<dyn Judge>>,
    /// Evaluators users wrote: evalstudio.toml's, the harness's Rust ones, and HTTP ones.
    pub evaluators: Evaluators,
}

/// One metric's verdict on one invocation.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct InvocationScore {
    pub score: Option<f64>,
    /// Why there is no score, e.g. "the judge's reply was neither yes nor no".
    pub reason: Option<String>,
    /// What the score rests on, for display: a judge's replies and how it read them, or the
    /// texts an embedding metric compared.
    pub evidence: Option<Evidence>,
}

impl InvocationScore {
    pub fn scored(score: f64) -> InvocationScore {
        InvocationScore {
            score: Some(score),
            ..InvocationScore::default()
        }
    }

    pub fn not_evaluated(reason: impl Into<String>) -> InvocationScore {
        InvocationScore {
            reason: Some(reason.into()),
            ..InvocationScore::default()
        }
    }
}
