//! LLM-as-judge metrics: ADK's `final_response_match_v2` and
//! `rubric_based_final_response_quality_v1` (its prompts, parsers and sample aggregation), yes/no
//! and `{score, feedback}` judges after Spring AI and LlamaIndex, Ragas-style RAG metrics over
//! the invocation's tool responses, and custom judge prompts from the eval config.
//!
//! Pure: prompts are built and replies read here, the model is behind [`Judge`]. Each score
//! keeps its evidence, a typed [`JudgeEvidence`] (the judge's replies, claims and verdicts); a
//! reply that cannot be read or a judge error makes the invocation NOT_EVALUATED with the
//! reason, never a silent 0. The exception is `client.rs` (server only), the [`Judge`] that
//! asks an OpenAI-compatible model.

mod asking;
mod case;
#[cfg(test)]
mod case_tests;
#[cfg(feature = "ssr")]
mod client;
#[cfg(all(test, feature = "ssr"))]
mod client_tests;
mod config;
mod evidence;
mod g_eval;
mod hallucinations;
mod input;
mod multi_turn;
mod parse;
pub mod prompted;
mod prompts;
mod python_json;
mod rag;
#[cfg(test)]
mod reply_tests;
mod rubrics;
mod settings;
mod simulator_quality;
mod template;
#[cfg(test)]
mod tests;

pub use case::{judge_case, CaseJudgement, CaseView};
#[cfg(feature = "ssr")]
pub use client::{JudgeConfig, OpenAiJudge};
pub use config::parse_judge_metric;
pub(super) use config::{criterion_rubrics, g_eval_settings, hallucinations_judge, simulator_quality_judge};
pub use evidence::{
    AnsweredWith, CheckedResponse, ContextItem, JudgeEvidence, RubricOutcome, RubricScores, Sample,
    SentenceLabel, StatementCheck, ValidityLabel, ValidityParser, Verdict, Votes, YesNo,
};
pub use g_eval::{GEval, GEvalParam};
pub use input::{AgentWork, JudgeInput};

use super::approximations::{Approximation, Scope};
use super::evidence::Evidence;
use super::services::{InvocationScore, Judge};
use crate::evalset::Rubric;
use asking::{ask, averaged, voted, with_evidence, Asker};
use parse::Validity;
use prompted::PromptedJudge;
use pure_metrics::exact_mean::exact_mean;
use rag::{context_precision, supported_fraction};
use rubrics::{effective_rubrics, rubric_list, rubric_verdicts};
use template::fill;

/// ADK's rubric types: each rubric-based metric takes the invocations' rubrics of its type.
const FINAL_RESPONSE_QUALITY: &str = "FINAL_RESPONSE_QUALITY";
const TOOL_USE_QUALITY: &str = "TOOL_USE_QUALITY";
const TRAJECTORY_QUALITY: &str = "TRAJECTORY_QUALITY";

/// One judge metric of the eval config.
#[derive(Debug, Clone, PartialEq)]
pub struct JudgeMetric {
    /// The name in the config's `criteria`.
    pub name: String,
    pub kind: JudgeKind,
    pub options: JudgeModelOptions,
    /// Show the judge the agent's texts before its tool calls too, not just the final response.
    pub include_intermediate_responses_in_final: bool,
}

/// How a judge metric judges: the judges of the metric table (their rows build them, those
/// that read settings of their own with what their criterion said), and the custom ones.
#[derive(Debug, Clone, PartialEq)]
pub enum JudgeKind {
    /// ADK's: valid or invalid against the reference, majority over samples (ties are invalid).
    FinalResponseMatchV2,
    /// One prompt and one kind of reply, declared as data (prompted.rs).
    Prompted(&'static PromptedJudge),
    /// Per context item, useful or not; mean precision at the useful items.
    ContextPrecision,
    /// The fraction of the reference's statements the context supports.
    ContextRecall,
    /// The fraction of the response's claims the context supports.
    Faithfulness,
    /// A stand-in for a metric only Vertex AI scores, with its own prompt.
    Approximation(&'static Approximation),
    /// Yes or no per rubric, majority over samples per rubric, mean over rubrics. `rubrics` are
    /// the criterion's; invocations add theirs of type `FINAL_RESPONSE_QUALITY`.
    RubricBasedFinalResponseQualityV1 {
        rubrics: Vec<Rubric>,
    },
    /// As the final response one, on the tool calls and their responses; invocations add their
    /// rubrics of type `TOOL_USE_QUALITY`.
    RubricBasedToolUseQualityV1 {
        rubrics: Vec<Rubric>,
    },
    /// The whole conversation judged once against the rubrics, on its last turn; the last
    /// invocation adds its rubrics of type `TRAJECTORY_QUALITY`.
    RubricBasedMultiTurnTrajectoryQualityV1 {
        rubrics: Vec<Rubric>,
    },
    /// ADK's: the share of the response's sentences the context supports (or that need no
    /// support), the judge segmenting and then labelling.
    HallucinationsV1 {
        /// Check the texts the agent wrote before its final response too.
        evaluate_intermediate_nl_responses: bool,
    },
    /// ADK's: how well a simulated user kept to its conversation scenario, turn by turn.
    PerTurnUserSimulatorQualityV1 {
        /// The text that ends the simulated user's conversation.
        stop_signal: String,
    },
    /// DeepEval's G-Eval: steps written from a criterion, then a 1-10 score by them.
    GEval(GEval),
    Custom(CustomJudge),
}

/// A judge prompt written in the eval config.
#[derive(Debug, Clone, PartialEq)]
pub struct CustomJudge {
    /// With `{query}`, `{response}`, `{context}` and `{reference}` placeholders.
    pub prompt: String,
    pub reply: ReplyKind,
    /// The range of a `score_json` reply's score; mapped onto 0..1.
    pub score_range: (f64, f64),
    /// Where the prompt is declared, e.g. `criteria.tone.judge_prompt`, for messages.
    pub prompt_field: String,
}

/// What a custom judge prompt asks the judge to reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplyKind {
    /// Yes (1.0) or no (0.0).
    YesNo,
    /// A JSON object `{"score": number, "feedback": text}`.
    ScoreJson,
}

/// ADK's `judge_model_options`.
#[derive(Debug, Clone, PartialEq)]
pub struct JudgeModelOptions {
    /// The model to ask; the judge's configured model when absent.
    pub judge_model: Option<String>,
    /// Replies asked per invocation (ADK's default is 5 for its metrics; 1 for the others).
    pub num_samples: usize,
    /// Most judge requests of one invocation at a time; all at once when absent.
    pub parallelism_limit: Option<usize>,
}

impl JudgeKind {
    /// It asks the judge once per statement or context item, so one sample each.
    pub fn asks_per_item(&self) -> bool {
        matches!(
            self,
            JudgeKind::ContextPrecision | JudgeKind::ContextRecall | JudgeKind::Faithfulness
        )
    }

    /// For ADK's single-turn rubric metrics: the criterion's rubrics and the rubric type the
    /// metric takes from invocations.
    fn single_turn_rubrics(&self) -> Option<(&[Rubric], &'static str)> {
        match self {
            JudgeKind::RubricBasedFinalResponseQualityV1 { rubrics } => {
                Some((rubrics, FINAL_RESPONSE_QUALITY))
            }
            JudgeKind::RubricBasedToolUseQualityV1 { rubrics } => Some((rubrics, TOOL_USE_QUALITY)),
            _ => None,
        }
    }
}

impl JudgeMetric {
    /// The metric over a case's per-invocation scores, as ADK aggregates: the rubric-based one is
    /// the mean of every rubric score of every invocation (not of the invocations' means), the
    /// others the mean of the invocations that were evaluated. None when nothing was.
    pub fn overall_score(&self, scores: &[InvocationScore]) -> Option<f64> {
        let values: Vec<f64> = match self.kind {
            // ADK's statistics.mean: exact, as its pooled rubric scores are 0s and 1s.
            JudgeKind::HallucinationsV1 { .. } => {
                return exact_mean(&scores.iter().filter_map(|s| s.score).collect::<Vec<_>>())
            }
            JudgeKind::RubricBasedFinalResponseQualityV1 { .. }
            | JudgeKind::RubricBasedToolUseQualityV1 { .. } => scores
                .iter()
                .filter_map(|s| s.evidence.as_ref()?.judge()?.rubrics.as_ref())
                .flatten()
                .filter_map(|rubric| rubric.score)
                .collect(),
            _ => scores.iter().filter_map(|s| s.score).collect(),
        };
        if values.is_empty() {
            return None;
        }
        Some(values.iter().sum::<f64>() / values.len() as f64)
    }
}

/// Scores one invocation with a judge metric.
pub async fn evaluate_judge_metric(
    metric: &JudgeMetric,
    input: &JudgeInput,
    judge: &dyn Judge,
) -> InvocationScore {
    let asker = Asker {
        judge,
        model: metric.options.judge_model.as_deref(),
        parallelism_limit: metric.options.parallelism_limit,
    };
    let samples = metric.options.num_samples;
    let (asker, name) = (&asker, metric.name.as_str());
    match &metric.kind {
        JudgeKind::FinalResponseMatchV2 => final_response_match(name, input, asker, samples).await,
        JudgeKind::Approximation(of) if of.scope == Scope::Turn => {
            let prompt = fill(
                of.prompt,
                &[("query", &input.query), ("response", &input.response)],
            );
            ask(asker, &prompt, samples, of.reply, of.score_range).await
        }
        JudgeKind::Prompted(judge) => match judge.prompt_for(input, &context_block(input)) {
            Some(prompt) => ask(asker, &prompt, samples, judge.reply, judge.score_range).await,
            None => no_reference(name),
        },
        JudgeKind::ContextPrecision => context_precision(asker, input).await,
        JudgeKind::ContextRecall => match reference(input) {
            Some(reference) => supported_fraction(asker, input, reference, "reference").await,
            None => no_reference(name),
        },
        JudgeKind::Faithfulness => supported_fraction(asker, input, &input.response, "response").await,
        JudgeKind::RubricBasedFinalResponseQualityV1 { .. }
        | JudgeKind::RubricBasedToolUseQualityV1 { .. } => {
            single_turn_rubrics(&metric.kind, input, asker, samples).await
        }
        JudgeKind::Approximation(_)
        | JudgeKind::HallucinationsV1 { .. }
        | JudgeKind::RubricBasedMultiTurnTrajectoryQualityV1 { .. }
        | JudgeKind::PerTurnUserSimulatorQualityV1 { .. } => judges_the_case(name),
        JudgeKind::GEval(g_eval) => g_eval_score(g_eval, input, asker, samples).await,
        JudgeKind::Custom(custom) => custom_judge(custom, input, asker, samples).await,
    }
}

/// For a metric that judges a case's invocations together, not one by one.
fn judges_the_case(metric: &str) -> InvocationScore {
    InvocationScore::not_evaluated(format!(
        "{metric} judges the invocations themselves, not one invocation's texts"
    ))
}

/// ADK's `final_response_match_v2`: valid or not against the expected final response.
async fn final_response_match(
    metric: &str,
    input: &JudgeInput,
    asker: &Asker<'_>,
    samples: usize,
) -> InvocationScore {
    let Some(reference) = &input.reference else {
        return InvocationScore::not_evaluated(format!(
            "{metric} compares with the expected final response, and there is no expected invocation"
        ));
    };
    let prompt = fill(
        prompts::FINAL_RESPONSE_MATCH_V2,
        &[
            ("prompt", &input.query),
            ("response", &input.response),
            ("golden_response", reference),
        ],
    );
    let read = |reply: &str| {
        parse::validity(reply).map(|(label, by_adk)| {
            let verdict = Verdict::Validity {
                label: match label {
                    Validity::Valid => ValidityLabel::Valid,
                    Validity::Invalid => ValidityLabel::Invalid,
                },
                parser: if by_adk {
                    ValidityParser::Adk
                } else {
                    ValidityParser::Tolerant
                },
            };
            (label == Validity::Valid, verdict)
        })
    };
    voted(asker, &prompt, samples, read).await
}

/// ADK's final-response and tool-use rubric metrics on one invocation.
async fn single_turn_rubrics(
    kind: &JudgeKind,
    input: &JudgeInput,
    asker: &Asker<'_>,
    samples: usize,
) -> InvocationScore {
    let (criterion, rubric_type) = kind.single_turn_rubrics().expect("a single-turn rubric metric");
    let rubrics = match effective_rubrics(criterion, &input.rubrics, rubric_type) {
        Ok(rubrics) => rubrics,
        Err(problem) => return InvocationScore::not_evaluated(problem),
    };
    let (work, listed) = (&input.agent_work, rubric_list(&rubrics));
    let prompt = if rubric_type == FINAL_RESPONSE_QUALITY {
        fill(
            prompts::RUBRIC_BASED_FINAL_RESPONSE_QUALITY_V1,
            &[
                ("developer_instructions", &work.developer_instructions),
                ("tool_declarations", &work.tool_declarations),
                ("user_input", &input.query),
                ("response_steps", &work.response_steps),
                ("grounding_metadata", &work.grounding_metadata),
                ("final_response", &input.response),
                ("rubrics", &listed),
            ],
        )
    } else {
        fill(
            prompts::RUBRIC_BASED_TOOL_USE_QUALITY_V1,
            &[
                ("tool_declarations", &work.tool_declarations),
                ("user_input", &input.query),
                ("tool_usage", &work.response_steps),
                ("rubrics", &listed),
            ],
        )
    };
    rubric_verdicts(asker, &rubrics, &prompt, samples).await
}

/// G-Eval on one invocation: the steps (given, or written once by the judge), then the score.
async fn g_eval_score(
    g_eval: &GEval,
    input: &JudgeInput,
    asker: &Asker<'_>,
    samples: usize,
) -> InvocationScore {
    let steps = match &g_eval.steps {
        Some(steps) => steps.clone(),
        None => {
            let written = g_eval
                .written_steps
                .get_or_write(|| async {
                    let prompt = g_eval::steps_prompt(g_eval);
                    let reply = asker.ask_all(vec![prompt.as_str()]).await.into_iter().next();
                    match reply {
                        Some(Ok(reply)) => g_eval::parse_steps(&reply),
                        Some(Err(error)) => Err(format!("the judge failed to write G-Eval's steps: {error}")),
                        None => Err("the judge was not asked for G-Eval's steps".into()),
                    }
                })
                .await;
            match written {
                Ok(steps) => steps,
                Err(reason) => return InvocationScore::not_evaluated(reason),
            }
        }
    };
    let prompt = match g_eval::score_prompt(g_eval, &steps, input) {
        Ok(prompt) => prompt,
        Err(reason) => return InvocationScore::not_evaluated(reason),
    };
    let mut score = averaged(asker, &prompt, samples, g_eval::SCORE_RANGE).await;
    if let Some(Evidence::Judge(evidence)) = score.evidence.as_mut() {
        evidence.steps = Some(steps);
    }
    score
}

/// A judge prompt of the eval config on one invocation.
async fn custom_judge(
    custom: &CustomJudge,
    input: &JudgeInput,
    asker: &Asker<'_>,
    samples: usize,
) -> InvocationScore {
    let context = context_block(input);
    let prompt = template::render(&custom.prompt, |name| match name {
        "query" => Some(input.query.as_str()),
        "response" => Some(input.response.as_str()),
        "context" => Some(context.as_str()),
        "reference" => reference(input),
        _ => None,
    });
    // The config admits only these four names, so only a missing reference fails.
    let Ok(prompt) = prompt else {
        return InvocationScore::not_evaluated(format!(
            "{} uses {{reference}}, and this invocation has no expected final response",
            custom.prompt_field
        ));
    };
    ask(asker, &prompt, samples, custom.reply, custom.score_range).await
}

/// The expected final response, if there is one with text.
fn reference(input: &JudgeInput) -> Option<&str> {
    input.reference.as_deref().filter(|r| !r.trim().is_empty())
}

fn no_reference(metric: &str) -> InvocationScore {
    InvocationScore::not_evaluated(format!(
        "{metric} needs the expected final response, and this invocation has none"
    ))
}

/// The tool responses, one per paragraph, for a `{context}` placeholder.
fn context_block(input: &JudgeInput) -> String {
    if input.context.is_empty() {
        prompts::NO_CONTEXT.to_string()
    } else {
        input.context.join("\n\n")
    }
}
