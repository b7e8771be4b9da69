//! Scores actual invocations against an expected eval set: per run as ADK's `LocalEvalService`
//! does (`_evaluate_single_inference_result`), and over runs as its `AgentEvaluator` pools
//! them (`_process_metrics_and_get_failures`).

use super::config::{EvalConfig, MetricConfig, MetricKind};
use super::efficiency::{evaluate_efficiency, Breakdown, Efficiency, EfficiencyResult};
use super::embedding_metrics::{answer_relevance_all, semantic_similarity_all};
use super::evaluators::{EvaluatorReply, EvaluatorRequest};
use super::evidence::Evidence;
use super::exact_mean::exact_mean;
use super::judge::{judge_case, CaseView, JudgeMetric};
use super::lineup::{ActualItem, ExpectedCases, LineUp};
use super::partial::{tool_used, trajectory_share};
use super::result::{
    BreakdownDetails, CaseSummary, EvalCaseResult, EvalMetricResult, EvalMetricResultDetails,
    EvalMetricResultPerInvocation, EvalStatus, MetricSummary, ScoredEvalSet,
};
use super::rouge::response_match_score;
use super::services::{InvocationScore, ScoringServices};
use super::trajectory::tool_trajectory_score;
use crate::evalset::{CaseParts, EvalCase, EvalSet, Invocation};
use futures::future;
use futures::stream::{self, Stream, StreamExt};
use serde_json::Map;
use std::borrow::Cow;

/// Why the actual runs cannot be scored against the expected set.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{problem}")]
pub struct ScoreError {
    /// Index of the actual run (in the order given) the problem is in.
    pub run: usize,
    pub problem: String,
}

/// Scores each run (an eval set of actual invocations with the expected set's eval ids and
/// turn counts) against `expected` with the config's metrics. The runs' invocations move into
/// the results, as ADK's results hold them; results come run after run, each run in the
/// expected set's order.
pub async fn score_eval_set(
    expected: &EvalSet,
    runs: Vec<EvalSet>,
    config: &EvalConfig,
    services: &ScoringServices,
) -> Result<ScoredEvalSet, ScoreError> {
    let items = runs.into_iter().enumerate().flat_map(|(run, actual)| {
        let cases = actual.eval_cases.into_iter();
        cases
            .map(move |case| ActualItem::Case {
                run,
                case: Box::new(case),
                expected: None,
            })
            .chain(std::iter::once(ActualItem::RunEnd { run }))
    });
    let results = score_cases(expected, stream::iter(items), config, services, Keep::Results);
    futures::pin_mut!(results);
    let mut scored = Vec::new();
    while let Some(result) = results.next().await {
        scored.push(result?);
    }
    scored.sort_by_key(|s: &ScoredCase| (s.run, s.case_index));
    let mut case_results = Vec::with_capacity(scored.len());
    let mut runs = Vec::with_capacity(scored.len());
    for case in scored {
        runs.push((case.case_index, case.verdict.scores));
        case_results.extend(case.result);
    }
    let summaries = summarize_cases(expected, runs, config);
    Ok(ScoredEvalSet {
        case_results,
        summaries,
    })
}

/// One scored case run: which run, the expected case's place, its verdicts, and its whole
/// result when that was asked for.
#[derive(Debug)]
pub struct ScoredCase {
    pub run: usize,
    pub case_index: usize,
    pub verdict: CaseRunVerdict,
    /// `Some` when scored with [`Keep::Results`].
    pub result: Option<EvalCaseResult>,
}

/// What scoring keeps of each case run besides its verdicts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// ADK's whole result: the invocations, each one's metric results.
    Results,
    /// The verdicts alone: no result is built, and the invocations are let go of once scored.
    Verdicts,
}

impl Keep {
    /// The parts of each case scoring reads with `config`: with verdicts alone and metrics that
    /// all read a lean case, only those. [`score_cases`] reads expected cases so; whoever reads
    /// the actual ones may too.
    pub fn case_parts(self, config: &EvalConfig) -> CaseParts {
        let lean =
            self == Keep::Verdicts && config.metrics.iter().all(|metric| metric.kind.reads_lean_case());
        match lean {
            true => CaseParts::Lean,
            false => CaseParts::Whole,
        }
    }
}

/// Scores actual cases as they arrive (runs one after another, cases in any order; see
/// [`LineUp`]), several at once since judged metrics wait on a model; results come in arrival
/// order, and only the cases in flight are held. After an error the caller stops reading.
pub fn score_cases<'a, E: ExpectedCases>(
    expected: &'a E,
    actual: impl Stream<Item = ActualItem> + 'a,
    config: &'a EvalConfig,
    services: &'a ScoringServices,
    keep: Keep,
) -> impl Stream<Item = Result<ScoredCase, ScoreError>> + 'a {
    let mut lineup = LineUp::new(expected);
    let parts = keep.case_parts(config);
    actual
        .filter_map(move |item| future::ready(lineup.accept(item).transpose()))
        .map(move |lined| async move {
            let lined = lined?;
            let case = match lined.expected {
                Some(case) => Cow::Owned(*case),
                None => expected.case(lined.case_index, parts),
            };
            let eval_set_id = expected.eval_set_id();
            let evaluations = evaluate_case(eval_set_id, &case, &lined.actual, config, services).await;
            let verdict = CaseRunVerdict::of(&case.eval_id, &evaluations, lined.actual.len());
            let result = match keep {
                Keep::Results => Some(case_result(eval_set_id, case, lined.actual, config, evaluations)),
                Keep::Verdicts => None,
            };
            Ok(ScoredCase {
                run: lined.run,
                case_index: lined.case_index,
                verdict,
                result,
            })
        })
        .buffered(SCORING_CONCURRENCY)
}

/// Cases scored at once when scoring needs a judge.
const SCORING_CONCURRENCY: usize = 8;

/// One metric on one case, as ADK's `EvaluationResult`.
struct Evaluation {
    overall_score: Option<f64>,
    overall_status: EvalStatus,
    /// The case's details (the informational metrics' token or duration breakdown).
    overall_details: EvalMetricResultDetails,
    /// Each invocation's score and details; empty when the metric produced none (then every
    /// invocation gets a NOT_EVALUATED entry).
    per_invocation: Vec<(Option<f64>, EvalMetricResultDetails)>,
}

/// Scores one case's actual invocations (one run) against the expected case with every metric
/// of the config. An owned expected case gives its invocations to the result; a borrowed one
/// is copied.
pub async fn score_case(
    eval_set_id: &str,
    expected: Cow<'_, EvalCase>,
    actual: Vec<Invocation>,
    config: &EvalConfig,
    services: &ScoringServices,
) -> EvalCaseResult {
    let evaluations = evaluate_case(eval_set_id, &expected, &actual, config, services).await;
    case_result(eval_set_id, expected, actual, config, evaluations)
}

/// Every metric of the config over one case run, in the config's order.
async fn evaluate_case(
    eval_set_id: &str,
    expected: &EvalCase,
    actual: &[Invocation],
    config: &EvalConfig,
    services: &ScoringServices,
) -> Vec<Evaluation> {
    let mut evaluations = Vec::with_capacity(config.metrics.len());
    for metric in &config.metrics {
        evaluations.push(evaluate_metric(metric, eval_set_id, expected, actual, services).await);
    }
    evaluations
}

/// ADK's result of a case run from its evaluations: the invocations move into it.
fn case_result(
    eval_set_id: &str,
    expected: Cow<'_, EvalCase>,
    actual: Vec<Invocation>,
    config: &EvalConfig,
    evaluations: Vec<Evaluation>,
) -> EvalCaseResult {
    let eval_id = expected.eval_id.clone();
    let user_id = expected
        .session_input
        .as_ref()
        .map(|input| input.user_id.as_str())
        .filter(|id| !id.is_empty())
        .unwrap_or("test_user_id")
        .to_string();
    let mut expected_invocations = match expected {
        Cow::Owned(case) => case.conversation.unwrap_or_default(),
        Cow::Borrowed(case) => case.conversation.clone().unwrap_or_default(),
    }
    .into_iter();
    let mut per_invocation: Vec<EvalMetricResultPerInvocation> = actual
        .into_iter()
        .map(|invocation| EvalMetricResultPerInvocation {
            actual_invocation: invocation,
            expected_invocation: expected_invocations.next(),
            eval_metric_results: Vec::with_capacity(config.metrics.len()),
        })
        .collect();
    let mut overall = Vec::with_capacity(config.metrics.len());
    for (metric, evaluation) in config.metrics.iter().zip(evaluations) {
        overall.push(metric_result(
            metric,
            evaluation.overall_score,
            evaluation.overall_status,
            evaluation.overall_details,
        ));
        let mut scores = evaluation.per_invocation.into_iter();
        for slot in per_invocation.iter_mut() {
            let (score, details) = scores.next().unwrap_or_default();
            slot.eval_metric_results.push(metric_result(
                metric,
                score,
                invocation_status(metric, score),
                details,
            ));
        }
    }
    EvalCaseResult {
        eval_set_file: Some(eval_set_id.to_string()),
        eval_set_id: eval_set_id.to_string(),
        eval_id,
        final_eval_status: EvalStatus::of_case(overall.iter().map(|r| r.eval_status)),
        eval_metric_results: None,
        overall_eval_metric_results: overall,
        eval_metric_result_per_invocation: per_invocation,
        session_id: String::new(),
        session_details: None,
        user_id: Some(user_id),
        error: None,
        tool_sources: Vec::new(),
    }
}

/// An invocation's status for `metric`, from its score.
fn invocation_status(metric: &MetricConfig, score: Option<f64>) -> EvalStatus {
    match score {
        _ if metric.is_informational() => EvalStatus::Informational,
        Some(score) => EvalStatus::from_score(score, metric.threshold),
        None => EvalStatus::NotEvaluated,
    }
}

/// One metric over a case's invocations. A case without expected invocations (a conversation
/// scenario) or without invocations is NOT_EVALUATED for metrics that compare with a
/// reference, as ADK's evaluators raise there.
async fn evaluate_metric(
    metric: &MetricConfig,
    eval_set_id: &str,
    expected_case: &EvalCase,
    actual: &[Invocation],
    services: &ScoringServices,
) -> Evaluation {
    // Metrics that compare with the expected invocations cannot score a conversation scenario.
    let expected = expected_case.conversation.as_deref();
    let pairs = || actual.iter().zip(expected.unwrap_or_default());
    match &metric.kind {
        MetricKind::Efficiency(efficiency) => {
            informational(evaluate_efficiency(*efficiency, actual), *efficiency)
        }
        MetricKind::Judge(judge) => evaluate_judged(metric, judge, expected_case, actual, services).await,
        MetricKind::Evaluator(target) => {
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
        _ if expected.is_none() => not_evaluated(),
        MetricKind::ToolTrajectory(criterion) => adk_mean(
            metric,
            pairs()
                .map(|(a, e)| tool_trajectory_score(a, e, *criterion))
                .collect(),
        ),
        MetricKind::ResponseMatch => {
            adk_mean(metric, pairs().map(|(a, e)| response_match_score(a, e)).collect())
        }
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

fn metric_result(
    metric: &MetricConfig,
    score: Option<f64>,
    eval_status: EvalStatus,
    details: EvalMetricResultDetails,
) -> EvalMetricResult {
    // ADK appends the informational metrics with neither threshold nor criterion.
    let informational = metric.is_informational();
    EvalMetricResult {
        metric_name: metric.name.clone(),
        threshold: metric.shown_threshold(),
        criterion: (!informational).then(|| metric.criterion.clone()),
        custom_function_path: None,
        score,
        eval_status,
        details,
    }
}

/// What a case's summary needs of one of its runs: the status and each metric's
/// per-invocation scores (so summaries can be made without keeping whole results).
#[derive(Debug, Clone, PartialEq)]
pub struct CaseRunScores {
    pub final_eval_status: EvalStatus,
    /// The agent could not finish the run.
    pub error: bool,
    /// Per metric of the config, each invocation's score (`None` when it got none).
    pub metric_scores: Vec<Vec<Option<f64>>>,
}

impl CaseRunScores {
    pub fn of(result: &EvalCaseResult, config: &EvalConfig) -> CaseRunScores {
        let metric_scores = (0..config.metrics.len())
            .map(|index| {
                result
                    .eval_metric_result_per_invocation
                    .iter()
                    .map(|invocation| invocation.eval_metric_results.get(index).and_then(|r| r.score))
                    .collect()
            })
            .collect();
        CaseRunScores {
            final_eval_status: result.final_eval_status,
            error: result.error.is_some(),
            metric_scores,
        }
    }

    fn passed(&self) -> bool {
        !self.error && self.final_eval_status == EvalStatus::Passed
    }
}

/// A scored case run without its invocations: each metric's score and status over the case,
/// and what its case's summary needs.
#[derive(Debug, Clone, PartialEq)]
pub struct CaseRunVerdict {
    pub eval_id: String,
    /// Per metric of the config, in its order.
    pub metrics: Vec<MetricVerdict>,
    /// Why the agent could not finish the run.
    pub error: Option<String>,
    pub scores: CaseRunScores,
}

/// One metric over a case run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MetricVerdict {
    pub score: Option<f64>,
    pub eval_status: EvalStatus,
}

impl CaseRunVerdict {
    /// From a case run's evaluations, as [`case_result`] would make its result.
    fn of(eval_id: &str, evaluations: &[Evaluation], invocations: usize) -> CaseRunVerdict {
        let metrics: Vec<MetricVerdict> = evaluations
            .iter()
            .map(|evaluation| MetricVerdict {
                score: evaluation.overall_score,
                eval_status: evaluation.overall_status,
            })
            .collect();
        let metric_scores = evaluations
            .iter()
            .map(|evaluation| {
                let scores = evaluation.per_invocation.iter().map(|(score, _)| *score);
                scores.chain(std::iter::repeat(None)).take(invocations).collect()
            })
            .collect();
        let final_eval_status = EvalStatus::of_case(metrics.iter().map(|m| m.eval_status));
        CaseRunVerdict {
            eval_id: eval_id.to_string(),
            metrics,
            error: None,
            scores: CaseRunScores {
                final_eval_status,
                error: false,
                metric_scores,
            },
        }
    }

    /// The verdict of a whole result: what [`score_cases`] makes beside it with [`Keep::Results`].
    pub fn of_result(result: &EvalCaseResult, config: &EvalConfig) -> CaseRunVerdict {
        CaseRunVerdict {
            eval_id: result.eval_id.clone(),
            metrics: result
                .overall_eval_metric_results
                .iter()
                .map(|m| MetricVerdict {
                    score: m.score,
                    eval_status: m.eval_status,
                })
                .collect(),
            error: result.error.clone(),
            scores: CaseRunScores::of(result, config),
        }
    }
}

/// The summaries of scored case runs, each given with its case's position in `expected`, in
/// the eval set's order; runs of a case are pooled in the order given, and cases with no run
/// are left out.
pub fn summarize_cases(
    expected: &impl ExpectedCases,
    runs: impl IntoIterator<Item = (usize, CaseRunScores)>,
    config: &EvalConfig,
) -> Vec<CaseSummary> {
    let mut by_case: Vec<Vec<CaseRunScores>> = vec![Vec::new(); expected.case_count()];
    for (case_index, scores) in runs {
        if let Some(case_runs) = by_case.get_mut(case_index) {
            case_runs.push(scores);
        }
    }
    // Sized up front: grown as it goes, the list is copied and its memory faulted in again.
    let mut summaries = Vec::with_capacity(by_case.iter().filter(|runs| !runs.is_empty()).count());
    for (index, case_runs) in by_case.iter().enumerate() {
        if !case_runs.is_empty() {
            summaries.push(summarize_case(expected.eval_id(index), case_runs, config));
        }
    }
    summaries
}

/// A case over all runs: per metric, the exact mean of every per-invocation score of every run
/// against the threshold (NOT_EVALUATED when there is none), then the case status from those;
/// with several runs, pass@k and pass^k for k = 1..runs. An informational metric is
/// INFORMATIONAL with its mean, or NOT_EVALUATED when no run had an invocation (as ADK's
/// `AgentEvaluator` pools them).
pub fn summarize_case(eval_id: &str, runs: &[CaseRunScores], config: &EvalConfig) -> CaseSummary {
    let metrics: Vec<MetricSummary> = config
        .metrics
        .iter()
        .enumerate()
        .map(|(index, metric)| {
            let per_invocation: Vec<Option<f64>> = runs
                .iter()
                .flat_map(|run| run.metric_scores.get(index).into_iter().flatten().copied())
                .collect();
            let scores: Vec<f64> = per_invocation.iter().flatten().copied().collect();
            let score = exact_mean(&scores);
            let eval_status = match score {
                _ if metric.is_informational() && !per_invocation.is_empty() => EvalStatus::Informational,
                Some(score) if !metric.is_informational() => EvalStatus::from_score(score, metric.threshold),
                _ => EvalStatus::NotEvaluated,
            };
            MetricSummary {
                metric_name: metric.name.clone(),
                threshold: metric.shown_threshold(),
                score,
                eval_status,
            }
        })
        .collect();
    let passed_runs = runs.iter().filter(|run| run.passed()).count();
    let errors = runs.iter().filter(|run| run.error).count();
    let (pass_at_k, pass_hat_k) = if runs.len() > 1 {
        pass_at_and_hat_k(runs.len(), passed_runs)
    } else {
        (Vec::new(), Vec::new())
    };
    CaseSummary {
        eval_id: eval_id.to_string(),
        // A case the agent could not finish fails, whatever the partial scores say.
        final_eval_status: if errors > 0 {
            EvalStatus::Failed
        } else {
            EvalStatus::of_case(metrics.iter().map(|m| m.eval_status))
        },
        num_runs: runs.len(),
        metrics,
        passed_runs,
        errors,
        pass_at_k,
        pass_hat_k,
    }
}

/// For n runs of which c passed, for k = 1..=n: pass@k, the chance that at least one of k runs
/// drawn without replacement passed (1 - C(n-c, k) / C(n, k), Chen et al. 2021), and pass^k,
/// the chance that all k passed (C(c, k) / C(n, k), τ-bench).
pub fn pass_at_and_hat_k(n: usize, c: usize) -> (Vec<f64>, Vec<f64>) {
    (1..=n)
        .map(|k| {
            let all_fail = ratio_of_choices(n - c, n, k);
            (1.0 - all_fail, ratio_of_choices(c, n, k))
        })
        .unzip()
}

/// C(a, k) / C(n, k) for a <= n, as a product of ratios so large n does not overflow.
fn ratio_of_choices(a: usize, n: usize, k: usize) -> f64 {
    if k > a {
        return 0.0;
    }
    (0..k).map(|i| (a - i) as f64 / (n - i) as f64).product()
}
