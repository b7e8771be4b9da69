//! Scores actual invocations against an expected eval set: per run as ADK's `LocalEvalService`
//! does (`_evaluate_single_inference_result`), and over runs as its `AgentEvaluator` pools
//! them (`_process_metrics_and_get_failures`).

use super::config::{EvalConfig, MetricConfig, MetricKind};
use super::exact_mean::exact_mean;
use super::result::{
    CaseSummary, EvalCaseResult, EvalMetricResult, EvalMetricResultDetails, EvalMetricResultPerInvocation,
    EvalStatus, MetricSummary, ScoredEvalSet,
};
use super::rouge::{response_text, rouge1_fmeasure};
use super::trajectory::tool_trajectory_score;
use crate::evalset::{EvalCase, EvalSet, Invocation};
use std::collections::HashMap;

/// Why the actual runs cannot be scored against the expected set.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{problem}")]
pub struct ScoreError {
    /// Index of the actual run (in the order given) the problem is in.
    pub run: usize,
    pub problem: String,
}

/// Scores each run (an eval set of actual invocations with the expected set's eval ids and
/// turn counts) against `expected` with the config's metrics.
pub fn score_eval_set(
    expected: &EvalSet,
    runs: &[EvalSet],
    config: &EvalConfig,
) -> Result<ScoredEvalSet, ScoreError> {
    let mut case_results = Vec::with_capacity(expected.eval_cases.len() * runs.len());
    for (run, actual) in runs.iter().enumerate() {
        let problem = |problem: String| ScoreError { run, problem };
        let mut actual_cases: HashMap<&str, &EvalCase> = actual
            .eval_cases
            .iter()
            .map(|c| (c.eval_id.as_str(), c))
            .collect();
        for expected_case in &expected.eval_cases {
            let eval_id = &expected_case.eval_id;
            let actual_case = actual_cases
                .remove(eval_id.as_str())
                .ok_or_else(|| problem(format!("eval case `{eval_id}` is missing")))?;
            let Some(actual_invocations) = &actual_case.conversation else {
                return Err(problem(format!(
                    "eval case `{eval_id}` has no conversation to score (a conversation_scenario is not actual invocations)"
                )));
            };
            if let Some(expected_invocations) = &expected_case.conversation {
                if expected_invocations.len() != actual_invocations.len() {
                    return Err(problem(format!(
                        "eval case `{eval_id}` has {} invocations where the expected case has {}",
                        actual_invocations.len(),
                        expected_invocations.len()
                    )));
                }
            }
            case_results.push(score_case(
                &expected.eval_set_id,
                expected_case,
                actual_invocations,
                config,
            ));
        }
        // What is left over is not in the expected set; name the first in file order.
        if let Some(extra) = actual
            .eval_cases
            .iter()
            .find(|c| actual_cases.contains_key(c.eval_id.as_str()))
        {
            return Err(problem(format!(
                "eval case `{}` is not in the expected eval set",
                extra.eval_id
            )));
        }
    }
    // Results come run after run, each run in the expected set's order.
    let cases = expected.eval_cases.len();
    let summaries = expected
        .eval_cases
        .iter()
        .enumerate()
        .map(|(index, case)| {
            let runs: Vec<&EvalCaseResult> = case_results.iter().skip(index).step_by(cases).collect();
            summarize_case(&case.eval_id, &runs, config)
        })
        .collect();
    Ok(ScoredEvalSet {
        case_results,
        summaries,
    })
}

/// One metric on one case, as ADK's `EvaluationResult`.
struct Evaluation {
    overall_score: Option<f64>,
    overall_status: EvalStatus,
    /// Empty when the metric produced none (then every invocation gets a NOT_EVALUATED entry).
    per_invocation: Vec<f64>,
}

fn score_case(
    eval_set_id: &str,
    expected: &EvalCase,
    actual: &[Invocation],
    config: &EvalConfig,
) -> EvalCaseResult {
    let expected_invocations = expected.conversation.as_deref();
    let mut per_invocation: Vec<EvalMetricResultPerInvocation> = actual
        .iter()
        .enumerate()
        .map(|(index, invocation)| EvalMetricResultPerInvocation {
            actual_invocation: invocation.clone(),
            expected_invocation: expected_invocations.and_then(|e| e.get(index)).cloned(),
            eval_metric_results: Vec::new(),
        })
        .collect();
    let mut overall = Vec::with_capacity(config.metrics.len());
    for metric in &config.metrics {
        let evaluation = evaluate_metric(metric, actual, expected_invocations);
        overall.push(metric_result(
            metric,
            evaluation.overall_score,
            evaluation.overall_status,
        ));
        for (index, slot) in per_invocation.iter_mut().enumerate() {
            let result = match evaluation.per_invocation.get(index) {
                Some(&score) => metric_result(
                    metric,
                    Some(score),
                    EvalStatus::from_score(score, metric.threshold),
                ),
                None => metric_result(metric, None, EvalStatus::NotEvaluated),
            };
            slot.eval_metric_results.push(result);
        }
    }
    let user_id = expected
        .session_input
        .as_ref()
        .map(|input| input.user_id.as_str())
        .filter(|id| !id.is_empty())
        .unwrap_or("test_user_id");
    EvalCaseResult {
        eval_set_file: Some(eval_set_id.to_string()),
        eval_set_id: eval_set_id.to_string(),
        eval_id: expected.eval_id.clone(),
        final_eval_status: EvalStatus::of_case(overall.iter().map(|r| r.eval_status)),
        eval_metric_results: None,
        overall_eval_metric_results: overall,
        eval_metric_result_per_invocation: per_invocation,
        session_id: String::new(),
        session_details: None,
        user_id: Some(user_id.to_string()),
    }
}

/// ADK's evaluators: a score per invocation pair and their plain running-sum mean. A case
/// without expected invocations (a conversation scenario) makes these evaluators raise, which
/// ADK records as NOT_EVALUATED; so does a case with no invocations.
fn evaluate_metric(
    metric: &MetricConfig,
    actual: &[Invocation],
    expected: Option<&[Invocation]>,
) -> Evaluation {
    let scores: Vec<f64> = match expected {
        None => Vec::new(),
        Some(expected) => actual
            .iter()
            .zip(expected)
            .map(|(actual, expected)| match metric.kind {
                MetricKind::ToolTrajectory(criterion) => tool_trajectory_score(actual, expected, criterion),
                MetricKind::ResponseMatch => rouge1_fmeasure(
                    &response_text(actual.final_response.as_ref()),
                    &response_text(expected.final_response.as_ref()),
                ),
            })
            .collect(),
    };
    if scores.is_empty() {
        return Evaluation {
            overall_score: None,
            overall_status: EvalStatus::NotEvaluated,
            per_invocation: scores,
        };
    }
    let mut total = 0.0;
    for score in &scores {
        total += score;
    }
    let overall = total / scores.len() as f64;
    Evaluation {
        overall_score: Some(overall),
        overall_status: EvalStatus::from_score(overall, metric.threshold),
        per_invocation: scores,
    }
}

fn metric_result(metric: &MetricConfig, score: Option<f64>, eval_status: EvalStatus) -> EvalMetricResult {
    EvalMetricResult {
        metric_name: metric.name.clone(),
        threshold: Some(metric.threshold),
        criterion: Some(metric.criterion.clone()),
        custom_function_path: None,
        score,
        eval_status,
        details: EvalMetricResultDetails::default(),
    }
}

/// A case over all runs: per metric, the exact mean of every per-invocation score of every run
/// against the threshold (NOT_EVALUATED when there is none), then the case status from those.
fn summarize_case(eval_id: &str, runs: &[&EvalCaseResult], config: &EvalConfig) -> CaseSummary {
    let metrics: Vec<MetricSummary> = config
        .metrics
        .iter()
        .enumerate()
        .map(|(index, metric)| {
            let scores: Vec<f64> = runs
                .iter()
                .flat_map(|run| &run.eval_metric_result_per_invocation)
                .filter_map(|invocation| invocation.eval_metric_results[index].score)
                .collect();
            let score = exact_mean(&scores);
            MetricSummary {
                metric_name: metric.name.clone(),
                threshold: metric.threshold,
                score,
                eval_status: score.map_or(EvalStatus::NotEvaluated, |s| {
                    EvalStatus::from_score(s, metric.threshold)
                }),
            }
        })
        .collect();
    CaseSummary {
        eval_id: eval_id.to_string(),
        final_eval_status: EvalStatus::of_case(metrics.iter().map(|m| m.eval_status)),
        num_runs: runs.len(),
        metrics,
    }
}
