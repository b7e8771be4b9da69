//! Results in ADK's shapes (google-adk `eval_result.py`, `eval_metrics.py`), serialised as ADK's
//! results manager writes them (`model_dump_json`: snake_case, every field, nulls included).

use super::evidence::Evidence;
use crate::agent::ToolSource;
use crate::evalset::{Camel, Invocation};
use pure_metrics::efficiency::Breakdown;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{json, Map, Value};
use std::fmt;
use std::sync::Arc;

/// ADK's `EvalStatus`, an int enum: it serialises as 1, 2, 3 or 4.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EvalStatus {
    Passed = 1,
    Failed = 2,
    NotEvaluated = 3,
    /// A value was reported by a metric that never passes or fails.
    Informational = 4,
}

impl EvalStatus {
    /// PASSED when the score reaches the threshold (every metric here is higher-is-better).
    pub fn from_score(score: f64, threshold: f64) -> EvalStatus {
        if score >= threshold {
            EvalStatus::Passed
        } else {
            EvalStatus::Failed
        }
    }

    /// The status of ADK's number for it; anything else reads as NOT_EVALUATED.
    pub fn from_number(number: i64) -> EvalStatus {
        match number {
            1 => EvalStatus::Passed,
            2 => EvalStatus::Failed,
            4 => EvalStatus::Informational,
            _ => EvalStatus::NotEvaluated,
        }
    }

    /// A case's status from its metrics' statuses, as ADK's
    /// `LocalEvalService._generate_final_eval_status`: any FAILED fails the case; otherwise it
    /// passes if any metric passed; metrics not evaluated (or informational) do not count.
    pub fn of_case(metric_statuses: impl IntoIterator<Item = EvalStatus>) -> EvalStatus {
        let mut status = EvalStatus::NotEvaluated;
        for metric_status in metric_statuses {
            match metric_status {
                EvalStatus::Passed => status = EvalStatus::Passed,
                EvalStatus::Failed => return EvalStatus::Failed,
                EvalStatus::NotEvaluated | EvalStatus::Informational => {}
            }
        }
        status
    }
}

impl EvalStatus {
    /// The status as ADK's enum names it.
    pub fn label(self) -> &'static str {
        match self {
            EvalStatus::Passed => "PASSED",
            EvalStatus::Failed => "FAILED",
            EvalStatus::NotEvaluated => "NOT_EVALUATED",
            EvalStatus::Informational => "INFORMATIONAL",
        }
    }
}

impl fmt::Display for EvalStatus {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.label())
    }
}

impl Serialize for EvalStatus {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u8(*self as u8)
    }
}

impl<'de> Deserialize<'de> for EvalStatus {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(EvalStatus::from_number(i64::from(u8::deserialize(deserializer)?)))
    }
}

/// One metric's verdict, for a whole case or for one invocation (ADK's `EvalMetricResult`:
/// the `EvalMetric` fields, then the outcome).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvalMetricResult {
    pub metric_name: String,
    pub threshold: Option<f64>,
    /// Shared with the config's metric: every invocation's result names the same criterion.
    pub criterion: Option<Arc<Map<String, Value>>>,
    pub custom_function_path: Option<String>,
    pub score: Option<f64>,
    pub eval_status: EvalStatus,
    pub details: EvalMetricResultDetails,
}

/// Details behind a score: ADK's fields, then Evalstudio's (written only when present, so
/// results of ADK-exact metrics keep ADK's shape; ADK's reader ignores the extra keys).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct EvalMetricResultDetails {
    pub rubric_scores: Option<Value>,
    pub token_usage_details: Option<BreakdownDetails>,
    pub duration_details: Option<BreakdownDetails>,
    /// Why a metric could not score (NOT_EVALUATED), e.g. an unparseable judge reply.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// What a score rests on: a judge's replies and how it read them, or the texts an embedding
    /// metric compared.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Evidence>,
}

/// An efficiency metric's breakdown: as scored, or as read back from a stored or imported
/// result (whatever object it holds). Either is written as the JSON object it is.
#[derive(Debug, Clone)]
pub enum BreakdownDetails {
    /// Boxed: a result is moved about whole, and most of its metric results have none.
    Scored(Box<Breakdown>),
    Read(Value),
}

impl BreakdownDetails {
    pub fn to_value(&self) -> Value {
        match self {
            BreakdownDetails::Scored(breakdown) => breakdown.to_value(),
            BreakdownDetails::Read(value) => value.clone(),
        }
    }
}

/// Equal when they write the same JSON, however each was made.
impl PartialEq for BreakdownDetails {
    fn eq(&self, other: &Self) -> bool {
        self.to_value() == other.to_value()
    }
}

impl Serialize for BreakdownDetails {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            BreakdownDetails::Scored(breakdown) => breakdown.serialize(serializer),
            BreakdownDetails::Read(value) => value.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for BreakdownDetails {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Value::deserialize(deserializer).map(BreakdownDetails::Read)
    }
}

impl EvalMetricResultDetails {
    pub fn with_evidence(reason: Option<String>, evidence: Option<Evidence>) -> Self {
        EvalMetricResultDetails {
            reason,
            evidence,
            ..Self::default()
        }
    }
}

/// Every metric's verdict on one invocation, with the invocations compared.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvalMetricResultPerInvocation {
    pub actual_invocation: Invocation,
    pub expected_invocation: Option<Invocation>,
    pub eval_metric_results: Vec<EvalMetricResult>,
}

/// One eval case scored once (one run).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvalCaseResult {
    /// Deprecated in ADK; it writes the eval set id here too.
    pub eval_set_file: Option<String>,
    pub eval_set_id: String,
    pub eval_id: String,
    pub final_eval_status: EvalStatus,
    /// Deprecated in ADK and always null.
    pub eval_metric_results: Option<Value>,
    pub overall_eval_metric_results: Vec<EvalMetricResult>,
    pub eval_metric_result_per_invocation: Vec<EvalMetricResultPerInvocation>,
    /// The inference session; empty when the actual invocations were given rather than run.
    pub session_id: String,
    pub session_details: Option<Value>,
    pub user_id: Option<String>,
    /// Evalstudio: why the agent could not finish the case (it then counts as an error).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Evalstudio, under tool replay: per actual invocation, where each tool response came
    /// from, in order (empty when the tools ran live).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_sources: Vec<Vec<ToolSource>>,
}

/// One eval case over all runs: each metric's per-invocation scores of every run pooled
/// (ADK's `AgentEvaluator` with `num_runs`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaseSummary {
    pub eval_id: String,
    pub final_eval_status: EvalStatus,
    pub num_runs: usize,
    pub metrics: Vec<MetricSummary>,
    /// Runs that passed, and runs the agent could not finish.
    pub passed_runs: usize,
    pub errors: usize,
    /// With several runs, element k-1 is pass@k (some of k runs passes) and pass^k (all k
    /// pass), for k = 1..num_runs; empty for a single run.
    pub pass_at_k: Vec<f64>,
    pub pass_hat_k: Vec<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricSummary {
    pub metric_name: String,
    /// None for informational metrics, which never pass or fail.
    pub threshold: Option<f64>,
    /// Mean of the per-invocation scores of all runs; null when none was scored.
    pub score: Option<f64>,
    pub eval_status: EvalStatus,
}

impl MetricSummary {
    /// "threshold 0.8", or "informational" for a metric that never passes or fails.
    pub fn threshold_label(&self) -> String {
        self.threshold.map_or("informational".into(), |threshold| {
            format!("threshold {threshold}")
        })
    }
}

/// A scored eval set: ADK's `EvalSetResult`, plus `case_summaries` (which ADK's reader ignores).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EvalSetResult {
    pub eval_set_result_id: String,
    pub eval_set_result_name: Option<String>,
    pub eval_set_id: String,
    /// Every case of every run, run after run.
    pub eval_case_results: Vec<EvalCaseResult>,
    pub creation_timestamp: f64,
    pub case_summaries: Vec<CaseSummary>,
}

impl EvalCaseResult {
    /// Whether the result holds what [`adk_case_result`] leaves out of files made for ADK
    /// (Evalstudio's `reason`, `evidence` and `tool_sources`); without them it is written as is.
    pub fn has_evalstudio_fields(&self) -> bool {
        let evalstudio = |m: &EvalMetricResult| m.details.reason.is_some() || m.details.evidence.is_some();
        !self.tool_sources.is_empty()
            || self.overall_eval_metric_results.iter().any(evalstudio)
            || self
                .eval_metric_result_per_invocation
                .iter()
                .any(|invocation| invocation.eval_metric_results.iter().any(evalstudio))
    }
}

/// A stored case result as ADK reads it: its `EvalMetricResultDetails` forbids keys it does
/// not define, so the files made for ADK (`--json`, the run export) leave out Evalstudio's
/// `reason`, `evidence` and `tool_sources`, which the browser and REST keep.
pub fn adk_case_result(mut case_result: Value) -> Value {
    let results = |value: &mut Value, key: &str| -> Vec<Value> {
        match value.get_mut(key).map(Value::take) {
            Some(Value::Array(items)) => items,
            _ => Vec::new(),
        }
    };
    let strip = |mut metric_results: Vec<Value>| -> Value {
        for result in &mut metric_results {
            if let Some(details) = result.get_mut("details").and_then(Value::as_object_mut) {
                details.remove("reason");
                details.remove("evidence");
            }
        }
        Value::Array(metric_results)
    };
    let overall = results(&mut case_result, "overall_eval_metric_results");
    let per_invocation: Vec<Value> = results(&mut case_result, "eval_metric_result_per_invocation")
        .into_iter()
        .map(|mut invocation| {
            let metric_results = results(&mut invocation, "eval_metric_results");
            invocation["eval_metric_results"] = strip(metric_results);
            invocation
        })
        .collect();
    if let Some(object) = case_result.as_object_mut() {
        object.remove("tool_sources");
        object.insert("overall_eval_metric_results".into(), strip(overall));
        object.insert(
            "eval_metric_result_per_invocation".into(),
            Value::Array(per_invocation),
        );
    }
    case_result
}

impl EvalSetResult {
    /// The result as the JSON ADK's `EvalSetResult` reads (see [`adk_case_result`]).
    pub fn to_adk_value(&self) -> Value {
        let mut value = serde_json::to_value(self).expect("results serialise");
        if let Some(Value::Array(cases)) = value.get_mut("eval_case_results") {
            for case in cases.iter_mut() {
                *case = adk_case_result(case.take());
            }
        }
        value
    }

    /// Names the result as ADK's `create_eval_set_result` does: `{app}_{eval_set_id}_{timestamp}`
    /// with `/` replaced in the name.
    pub fn new(app_name: &str, eval_set_id: &str, scored: ScoredEvalSet, timestamp: f64) -> EvalSetResult {
        let header = super::result_file::ResultHeader::named(app_name, eval_set_id, timestamp);
        EvalSetResult {
            eval_set_result_name: header.eval_set_result_name,
            eval_set_result_id: header.eval_set_result_id,
            eval_set_id: header.eval_set_id,
            eval_case_results: scored.case_results,
            creation_timestamp: timestamp,
            case_summaries: scored.summaries,
        }
    }
}

/// What scoring an eval set gives before it is named and stamped.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoredEvalSet {
    pub case_results: Vec<EvalCaseResult>,
    pub summaries: Vec<CaseSummary>,
}

/// A case result as ADK's web server answers with it (`by_alias`, `exclude_none`): camelCase
/// keys, invocations as [`Camel`] writes them, the deprecated `evalMetricResults` left out.
pub fn camel_case_result(result: &EvalCaseResult) -> Value {
    let metric = |m: &EvalMetricResult| {
        let mut details = Map::new();
        if let Some(rubric_scores) = &m.details.rubric_scores {
            details.insert("rubricScores".into(), rubric_scores.clone());
        }
        for (key, breakdown) in [
            ("tokenUsageDetails", &m.details.token_usage_details),
            ("durationDetails", &m.details.duration_details),
        ] {
            if let Some(breakdown) = breakdown {
                details.insert(key.into(), breakdown.to_value());
            }
        }
        without_nulls(json!({
            "metricName": m.metric_name, "threshold": m.threshold, "criterion": m.criterion,
            "customFunctionPath": m.custom_function_path, "score": m.score,
            "evalStatus": m.eval_status, "details": details,
        }))
    };
    let per_invocation: Vec<Value> = result
        .eval_metric_result_per_invocation
        .iter()
        .map(|per| {
            without_nulls(json!({
                "actualInvocation": Camel(&per.actual_invocation),
                "expectedInvocation": per.expected_invocation.as_ref().map(Camel),
                "evalMetricResults": per.eval_metric_results.iter().map(metric).collect::<Vec<_>>(),
            }))
        })
        .collect();
    without_nulls(json!({
        "evalSetFile": result.eval_set_file, "evalSetId": result.eval_set_id, "evalId": result.eval_id,
        "finalEvalStatus": result.final_eval_status,
        "overallEvalMetricResults": result.overall_eval_metric_results.iter().map(metric).collect::<Vec<_>>(),
        "evalMetricResultPerInvocation": per_invocation,
        "sessionId": result.session_id, "sessionDetails": result.session_details, "userId": result.user_id,
    }))
}

fn without_nulls(mut value: Value) -> Value {
    if let Value::Object(map) = &mut value {
        map.retain(|_, v| !v.is_null());
    }
    value
}
