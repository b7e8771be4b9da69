//! Scores actual invocations against an expected eval set: per run as ADK's `LocalEvalService`
//! does (`_evaluate_single_inference_result`), and over runs as its `AgentEvaluator` pools
//! them (`_process_metrics_and_get_failures`).

use super::config::{EvalConfig, MetricConfig};
use super::lineup::{ActualItem, ExpectedCases, LineUp};
use super::result::{
    CaseSummary, EvalCaseResult, EvalMetricResult, EvalMetricResultDetails, EvalMetricResultPerInvocation,
    EvalStatus, MetricSummary, ScoredEvalSet,
};
use super::services::ScoringServices;
use crate::evalset::{CaseParts, EvalCase, EvalSet, Invocation};
use futures::future;
use futures::stream::{self, Stream, StreamExt};
use metric::{evaluate_metric, Evaluation};
use pure_metrics::exact_mean::exact_mean;
use std::borrow::Cow;

mod metric;

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
        let lean = self == Keep::Verdicts && config.metrics.iter().all(|metric| metric.reads_lean_case);
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
