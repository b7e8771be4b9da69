//! One metric over one case run: the scoring of each kind of metric, and how its scores make
//! ADK's `EvaluationResult` (a mean as ADK's evaluators take it, or Evalstudio's exact one).

use crate::eval::config::{MetricConfig, MetricKind};
use crate::eval::embedding_metrics::{answer_relevance_all, semantic_similarity_all};
use crate::eval::evaluators::{EvaluatorReply, EvaluatorRequest, EvaluatorTarget};
use crate::eval::evidence::Evidence;
use crate::eval::judge::{judge_case, CaseView, JudgeMetric};
use crate::eval::metrics::Need;
use crate::eval::result::{BreakdownDetails, EvalMetricResultDetails, EvalStatus};
use crate::eval::services::{InvocationScore, ScoringServices};
use crate::evalset::{EvalCase, Invocation};
use pure_metrics::efficiency::{evaluate_efficiency, Breakdown, Efficiency, EfficiencyResult};
use pure_metrics::exact_mean::exact_mean;
use pure_metrics::partial::{tool_used, trajectory_share};
use pure_metrics::rouge;
use pure_metrics::trajectory::tool_trajectory_score;
use serde_json::Map;

/// One metric on one case, as ADK's `EvaluationResult`.
pub(super) struct Evaluation {
    pub(super) overall_score: Option<f64>,
    pub(super) overall_status: EvalStatus,
    /// The case's details (the informational metrics' token or duration breakdown).
    pub(super) overall_details: EvalMetricResultDetails,
    /// Each invocation's score and details; empty when the metric produced none (then every
    /// invocation gets a NOT_EVALUATED entry).
    pub(super) per_invocation: Vec<(Option<f64>, EvalMetricResultDetails)>,
}

/// One metric over a case's invocations. A metric whose needs say it compares each turn with
/// its expected one is NOT_EVALUATED on a case without expected invocations (a conversation
/// scenario), as ADK's evaluators raise there.
pub(super) async fn evaluate_metric(
    metric: &MetricConfig,
    eval_set_id: &str,
    expected_case: &EvalCase,
    actual: &[Invocation],
    services: &ScoringServices,
) -> Evaluation {
    let expected = expected_case.conversation.as_deref();
    if expected.is_none() && compares_with_expected_turns(metric.needs) {
        return not_evaluated();
    }
    let pairs = || actual.iter().zip(expected.unwrap_or_default());
    match &metric.kind {
        MetricKind::Efficiency(efficiency) => {
            informational(evaluate_efficiency(*efficiency, actual), *efficiency)
        }
        MetricKind::Judge(judge) => evaluate_judged(metric, judge, expected_case, actual, services).await,
        MetricKind::Evaluator(target) => {
            evaluate_by_evaluator(metric, target, eval_set_id, expected_case, actual, services).await
        }
        MetricKind::AnswerRelevance => match services.embedder.as_deref() {
            None => no_embedder(metric, actual),
            Some(embedder) => {
                let actual: Vec<&Invocation> = actual.iter().collect();
                mean_of_scored(metric, answer_relevance_all(&actual, embedder).await)
            }
        },
        MetricKind::ToolUsed { tool_name } => {
            let per_invocation: Vec<InvocationScore> = actual
                .iter()
                .map(|a| InvocationScore::scored(tool_used(a, tool_name)))
                .collect();
            // The conversation passes when any turn used the tool.
            let overall = per_invocation
                .iter()
                .filter_map(|s| s.score)
                .fold(None, |best: Option<f64>, s| Some(best.map_or(s, |b| b.max(s))));
            finish(metric, overall, per_invocation)
        }
        MetricKind::ToolTrajectory(criterion) => adk_mean(
            metric,
            pairs()
                .map(|(a, e)| tool_trajectory_score(a, e, *criterion))
                .collect(),
        ),
        MetricKind::ResponseMatch => adk_mean(
            metric,
            pairs().map(|(a, e)| rouge::response_match_score(a, e)).collect(),
        ),
        MetricKind::SemanticSimilarity => match services.embedder.as_deref() {
            None => no_embedder(metric, actual),
            Some(embedder) => {
                let pairs: Vec<(&Invocation, &Invocation)> = pairs().collect();
                mean_of_scored(metric, semantic_similarity_all(&pairs, embedder).await)
            }
        },
        MetricKind::TrajectoryShare { share, ignore_args } => mean_of_scored(
            metric,
            pairs()
                .map(|(a, e)| InvocationScore::scored(trajectory_share(a, e, *share, *ignore_args)))
                .collect(),
        ),
    }
}

/// Whether a metric with these needs compares each turn with its expected one itself: it needs
/// expected tool calls or an expected response, and no judge reads them (a judge says on each
/// turn what it lacks).
fn compares_with_expected_turns(needs: &[Need]) -> bool {
    !needs.contains(&Need::JudgeModel) && needs.iter().any(|need| need.is_expected_invocations())
}

/// A user's evaluator over the case, given the whole case and the run's invocations.
async fn evaluate_by_evaluator(
    metric: &MetricConfig,
    target: &EvaluatorTarget,
    eval_set_id: &str,
    expected_case: &EvalCase,
    actual: &[Invocation],
    services: &ScoringServices,
) -> Evaluation {
    let request = EvaluatorRequest {
        metric_name: metric.name.clone(),
        criterion: Map::clone(&metric.criterion),
        eval_set_id: eval_set_id.to_string(),
        eval_case: expected_case.clone(),
        expected_invocations: expected_case.conversation.clone(),
        actual_invocations: actual.to_vec(),
        session_state: expected_case
            .session_input
            .as_ref()
            .map(|input| input.state.clone())
            .unwrap_or_default(),
    };
    let reply = match services.evaluators.find(target) {
        Ok(evaluator) => evaluator.evaluate(&request).await,
        Err(reason) => Err(reason),
    };
    evaluated(metric, reply, actual.len())
}

/// A judge metric over the case, as ADK's evaluator for it aggregates.
async fn evaluate_judged(
    metric: &MetricConfig,
    judge_metric: &JudgeMetric,
    expected_case: &EvalCase,
    actual: &[Invocation],
    services: &ScoringServices,
) -> Evaluation {
    let Some(judge) = services.judge.as_deref() else {
        return missing_service(
            metric,
            actual,
            "no judge model is configured: add a [judge] table (base_url, model, api_key_env) to evalstudio.toml",
        );
    };
    let case = CaseView {
        actual,
        expected: expected_case.conversation.as_deref(),
        case_rubrics: expected_case.rubrics.as_deref().unwrap_or_default(),
        scenario: expected_case.conversation_scenario.as_ref(),
        threshold: metric.threshold,
    };
    let judged = judge_case(judge_metric, &case, judge).await;
    finish(metric, judged.overall, judged.per_invocation)
}

/// A user's evaluator scores the whole conversation: its score and reason stand for the case
/// and are repeated on each invocation; its `passed`, when given, decides the case's status.
fn evaluated(metric: &MetricConfig, reply: Result<EvaluatorReply, String>, invocations: usize) -> Evaluation {
    let reply = match reply {
        Ok(reply) => reply,
        Err(reason) => {
            let details = EvalMetricResultDetails::with_evidence(Some(reason), None);
            return Evaluation {
                overall_score: None,
                overall_status: EvalStatus::NotEvaluated,
                overall_details: details.clone(),
                per_invocation: vec![(None, details); invocations],
            };
        }
    };
    let details = EvalMetricResultDetails::with_evidence(reply.reason, reply.details.map(Evidence::Raw));
    Evaluation {
        overall_score: Some(reply.score),
        overall_status: match reply.passed {
            Some(true) => EvalStatus::Passed,
            Some(false) => EvalStatus::Failed,
            None => EvalStatus::from_score(reply.score, metric.threshold),
        },
        overall_details: details.clone(),
        per_invocation: vec![(Some(reply.score), details); invocations],
    }
}

fn no_embedder(metric: &MetricConfig, actual: &[Invocation]) -> Evaluation {
    missing_service(
        metric,
        actual,
        "no sentence-embedding model: run `make model`, or set EVALSTUDIO_EMBEDDING_MODEL to a directory with all-MiniLM-L6-v2",
    )
}

/// Every invocation NOT_EVALUATED because scoring lacks a service the metric needs.
fn missing_service(metric: &MetricConfig, actual: &[Invocation], reason: &str) -> Evaluation {
    finish(
        metric,
        None,
        actual
            .iter()
            .map(|_| InvocationScore::not_evaluated(reason))
            .collect(),
    )
}

fn not_evaluated() -> Evaluation {
    Evaluation {
        overall_score: None,
        overall_status: EvalStatus::NotEvaluated,
        overall_details: EvalMetricResultDetails::default(),
        per_invocation: Vec::new(),
    }
}

/// An informational metric: INFORMATIONAL whatever its value, with its breakdown in the
/// details field ADK uses for it.
fn informational(result: EfficiencyResult, metric: Efficiency) -> Evaluation {
    let details = |breakdown: Option<Breakdown>| match metric {
        Efficiency::TokenUsage => EvalMetricResultDetails {
            token_usage_details: breakdown.map(|b| BreakdownDetails::Scored(Box::new(b))),
            ..EvalMetricResultDetails::default()
        },
        Efficiency::InvocationDuration => EvalMetricResultDetails {
            duration_details: breakdown.map(|b| BreakdownDetails::Scored(Box::new(b))),
            ..EvalMetricResultDetails::default()
        },
        Efficiency::ToolCallCount | Efficiency::InferenceCallCount => EvalMetricResultDetails::default(),
    };
    Evaluation {
        overall_score: result.overall,
        overall_status: EvalStatus::Informational,
        overall_details: details(result.overall_details),
        per_invocation: result
            .per_invocation
            .into_iter()
            .map(|(score, value)| (score, details(value)))
            .collect(),
    }
}

/// ADK's evaluators: a score per invocation pair and their plain running-sum mean (which can
/// differ from an exact mean in the last bit, and ADK compares that with the threshold).
fn adk_mean(metric: &MetricConfig, scores: Vec<f64>) -> Evaluation {
    if scores.is_empty() {
        return not_evaluated();
    }
    let mut total = 0.0;
    for score in &scores {
        total += score;
    }
    let overall = total / scores.len() as f64;
    finish(
        metric,
        Some(overall),
        scores.into_iter().map(InvocationScore::scored).collect(),
    )
}

/// Evalstudio's metrics: the exact mean of the invocations that got a score; invocations a
/// judge could not score do not count, and none scored leaves the metric NOT_EVALUATED.
fn mean_of_scored(metric: &MetricConfig, per_invocation: Vec<InvocationScore>) -> Evaluation {
    let scores: Vec<f64> = per_invocation.iter().filter_map(|s| s.score).collect();
    finish(metric, exact_mean(&scores), per_invocation)
}

fn finish(metric: &MetricConfig, overall: Option<f64>, per_invocation: Vec<InvocationScore>) -> Evaluation {
    Evaluation {
        overall_score: overall,
        overall_status: overall.map_or(EvalStatus::NotEvaluated, |score| {
            EvalStatus::from_score(score, metric.threshold)
        }),
        overall_details: EvalMetricResultDetails::default(),
        per_invocation: per_invocation
            .into_iter()
            .map(|s| {
                (
                    s.score,
                    EvalMetricResultDetails::with_evidence(s.reason, s.evidence),
                )
            })
            .collect(),
    }
}
