//! A judge metric over one case's invocations, as ADK's evaluator for it walks them: most
//! judge each invocation on its own (several at once); `hallucinations_v1` checks each
//! invocation's responses in turn; the multi-turn trajectory and simulator-quality metrics
//! judge the conversation as a whole.

use super::input::invocation_rubrics;
use super::template::fill;
use super::{
    ask, effective_rubrics, evaluate_judge_metric, hallucinations, multi_turn, rubric_verdicts,
    simulator_quality, Asker, JudgeInput, JudgeKind, JudgeMetric, TRAJECTORY_QUALITY,
};
use crate::eval::approximations::Scope;
use crate::eval::services::{InvocationScore, Judge};
use crate::evalset::{ConversationScenario, Invocation, Rubric};
use futures::stream::{self, StreamExt};
use std::future::Future;

/// Invocations judged at once by the metrics that judge them one by one.
const CONCURRENT_INVOCATIONS: usize = 8;

/// What a judge metric sees of a case.
pub struct CaseView<'a> {
    pub actual: &'a [Invocation],
    /// The expected invocations; `None` for a conversation scenario.
    pub expected: Option<&'a [Invocation]>,
    pub case_rubrics: &'a [Rubric],
    pub scenario: Option<&'a ConversationScenario>,
    /// The metric's threshold, which the simulator-quality metric counts passed turns by.
    pub threshold: f64,
}

/// Each invocation's score, and the metric's over the case.
pub struct CaseJudgement {
    pub per_invocation: Vec<InvocationScore>,
    pub overall: Option<f64>,
}

/// Scores a case with a judge metric.
pub async fn judge_case(metric: &JudgeMetric, case: &CaseView<'_>, judge: &dyn Judge) -> CaseJudgement {
    let asker = Asker {
        judge,
        model: metric.options.judge_model.as_deref(),
        parallelism_limit: metric.options.parallelism_limit,
    };
    let samples = metric.options.num_samples;
    match &metric.kind {
        JudgeKind::RubricBasedMultiTurnTrajectoryQualityV1 { rubrics } => {
            multi_turn_case(&asker, rubrics, case, samples).await
        }
        JudgeKind::Approximation(of) if of.scope == Scope::Conversation => {
            let Some((_, earlier)) = case.actual.split_last() else {
                return none_evaluated(0, "");
            };
            let prompt = fill(of.prompt, &[("conversation", &multi_turn::dialogue(case.actual))]);
            let judged = ask(&asker, &prompt, samples, of.reply, of.score_range).await;
            on_the_last_turn(earlier.len(), judged)
        }
        JudgeKind::PerTurnUserSimulatorQualityV1 { stop_signal } => {
            let judged = simulator_quality::evaluate(
                &asker,
                case.actual,
                case.scenario,
                stop_signal,
                samples,
                case.threshold,
            )
            .await;
            match judged {
                Ok(judged) => CaseJudgement {
                    per_invocation: judged.per_invocation,
                    overall: judged.overall,
                },
                Err(reason) => none_evaluated(case.actual.len(), &reason),
            }
        }
        JudgeKind::HallucinationsV1 {
            evaluate_intermediate_nl_responses,
        } => {
            let checks: Vec<_> = case
                .actual
                .iter()
                .map(|invocation| {
                    hallucinations::evaluate(&asker, invocation, *evaluate_intermediate_nl_responses)
                })
                .collect();
            turn_by_turn(metric, checks).await
        }
        _ => {
            let expected = case.expected.unwrap_or_default();
            if let Some(problem) = missing_rubrics(metric, case) {
                return none_evaluated(case.actual.len(), &problem);
            }
            // Built up front: a lazily mapped stream here makes the future not provably Send.
            let judgements: Vec<_> = case
                .actual
                .iter()
                .enumerate()
                .map(|(index, invocation)| {
                    let input = JudgeInput::new(
                        invocation,
                        expected.get(index),
                        case.case_rubrics,
                        metric.include_intermediate_responses_in_final,
                    );
                    async move { evaluate_judge_metric(metric, &input, judge).await }
                })
                .collect();
            turn_by_turn(metric, judgements).await
        }
    }
}

/// Each turn judged on its own, several at once; the metric's score as ADK aggregates it.
async fn turn_by_turn<F: Future<Output = InvocationScore>>(
    metric: &JudgeMetric,
    judgements: Vec<F>,
) -> CaseJudgement {
    let per_invocation: Vec<InvocationScore> = stream::iter(judgements)
        .buffered(CONCURRENT_INVOCATIONS)
        .collect()
        .await;
    let overall = metric.overall_score(&per_invocation);
    CaseJudgement {
        per_invocation,
        overall,
    }
}

/// The conversation judged once, on its last turn, against the criterion's rubrics and the
/// last invocation's of type `TRAJECTORY_QUALITY`.
async fn multi_turn_case(
    asker: &Asker<'_>,
    criterion_rubrics: &[Rubric],
    case: &CaseView<'_>,
    samples: usize,
) -> CaseJudgement {
    let Some((last, earlier)) = case.actual.split_last() else {
        return none_evaluated(0, "");
    };
    let expected = case.expected.and_then(|expected| expected.get(earlier.len()));
    let carried = invocation_rubrics(last, expected, case.case_rubrics);
    let rubrics = match effective_rubrics(criterion_rubrics, &carried, TRAJECTORY_QUALITY) {
        Ok(rubrics) => rubrics,
        Err(problem) => return none_evaluated(case.actual.len(), &problem),
    };
    let prompt = multi_turn::prompt(case.actual, &rubrics);
    on_the_last_turn(
        earlier.len(),
        rubric_verdicts(asker, &rubrics, &prompt, samples).await,
    )
}

/// A conversation's judgement: the last turn carries it and the metric's score; the turns
/// before it are NOT_EVALUATED.
fn on_the_last_turn(earlier: usize, judged: InvocationScore) -> CaseJudgement {
    let overall = judged.score;
    let mut per_invocation: Vec<InvocationScore> = (0..earlier)
        .map(|_| InvocationScore::not_evaluated("the conversation is judged as a whole, on its last turn"))
        .collect();
    per_invocation.push(judged);
    CaseJudgement {
        per_invocation,
        overall,
    }
}

/// For ADK's single-turn rubric metrics, the first invocation without rubrics to judge by:
/// ADK's evaluator then raises, which leaves the whole metric NOT_EVALUATED.
fn missing_rubrics(metric: &JudgeMetric, case: &CaseView<'_>) -> Option<String> {
    let (criterion, rubric_type) = metric.kind.single_turn_rubrics()?;
    let expected = case.expected.unwrap_or_default();
    case.actual.iter().enumerate().find_map(|(index, invocation)| {
        let carried = invocation_rubrics(invocation, expected.get(index), case.case_rubrics);
        effective_rubrics(criterion, &carried, rubric_type)
            .err()
            .map(|problem| format!("turn {}: {problem}", index + 1))
    })
}

fn none_evaluated(invocations: usize, reason: &str) -> CaseJudgement {
    CaseJudgement {
        per_invocation: (0..invocations)
            .map(|_| InvocationScore::not_evaluated(reason))
            .collect(),
        overall: None,
    }
}
