//! The judge metrics that are one prompt and one kind of reply, declared as data: the prompt,
//! what fills each of its placeholders, and how the reply scores. Evalstudio's `relevancy`,
//! `fact_checking`, `answer_correctness`, `answer_faithfulness` and `answer_relevancy` are
//! entries here, each named once in the metric table (`eval/metrics/table.rs`, as
//! `Build::Prompted`); another judge of their kind is one more entry and one more row there.

use super::{prompts, JudgeInput, ReplyKind};

/// What fills a prompt's placeholder, from the invocation judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    /// The user's message.
    Query,
    /// The agent's final response.
    Response,
    /// The tool responses, one per paragraph.
    Context,
    /// The expected final response; an invocation without one is not evaluated.
    Reference,
}

/// One prompted judge metric.
#[derive(Debug, PartialEq)]
pub struct PromptedJudge {
    pub prompt: &'static str,
    /// Each placeholder of the prompt and what fills it.
    pub slots: &'static [(&'static str, Slot)],
    pub reply: ReplyKind,
    /// A score reply's range, mapped onto 0..1.
    pub score_range: (f64, f64),
}

impl PromptedJudge {
    /// The prompt for `input`, `context` being its tool responses as one block; None when a
    /// slot wants the expected response and the invocation has none.
    pub(super) fn prompt_for(&self, input: &JudgeInput, context: &str) -> Option<String> {
        let mut values = Vec::with_capacity(self.slots.len());
        for &(name, slot) in self.slots {
            let value = match slot {
                Slot::Query => input.query.as_str(),
                Slot::Response => input.response.as_str(),
                Slot::Context => context,
                Slot::Reference => super::reference(input)?,
            };
            values.push((name, value));
        }
        Some(super::template::fill(self.prompt, &values))
    }
}

const QUERY_RESPONSE_CONTEXT: &[(&str, Slot)] = &[
    ("query", Slot::Query),
    ("response", Slot::Response),
    ("context", Slot::Context),
];

/// Yes if the response is in line with the query and the context.
pub const RELEVANCY: PromptedJudge = PromptedJudge {
    prompt: prompts::RELEVANCY,
    slots: QUERY_RESPONSE_CONTEXT,
    reply: ReplyKind::YesNo,
    score_range: (0.0, 1.0),
};

/// Yes if the context (the document) supports the response (the claim).
pub const FACT_CHECKING: PromptedJudge = PromptedJudge {
    prompt: prompts::FACT_CHECKING,
    slots: &[("document", Slot::Context), ("claim", Slot::Response)],
    reply: ReplyKind::YesNo,
    score_range: (0.0, 1.0),
};

/// Yes if the response agrees with the reference.
pub const ANSWER_CORRECTNESS: PromptedJudge = PromptedJudge {
    prompt: prompts::ANSWER_CORRECTNESS,
    slots: &[
        ("query", Slot::Query),
        ("response", Slot::Response),
        ("reference", Slot::Reference),
    ],
    reply: ReplyKind::YesNo,
    score_range: (0.0, 1.0),
};

/// A 0..1 score of how well the context supports the response.
pub const ANSWER_FAITHFULNESS: PromptedJudge = PromptedJudge {
    prompt: prompts::ANSWER_FAITHFULNESS,
    slots: QUERY_RESPONSE_CONTEXT,
    reply: ReplyKind::ScoreJson,
    score_range: (0.0, 1.0),
};

/// A 0..1 score of how well the response addresses the query.
pub const ANSWER_RELEVANCY: PromptedJudge = PromptedJudge {
    prompt: prompts::ANSWER_RELEVANCY,
    slots: QUERY_RESPONSE_CONTEXT,
    reply: ReplyKind::ScoreJson,
    score_range: (0.0, 1.0),
};
