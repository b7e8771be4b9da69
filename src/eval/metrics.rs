//! Every metric a config may name. [`METRICS`] (metrics/table.rs) is the one table of the
//! metrics this build scores, a [`MetricSpec`] row each: its name, description, default
//! threshold, the criterion keys the browser prefills, how its criterion builds it ([`Build`]),
//! what scoring it needs ([`Need`]) and whether it reads a lean case. The config's reader, the
//! scoring's guards, the browser's picker and `GET /apps/{app}/eval_metrics` ([`metric_infos`],
//! metrics/infos.rs), and the "unknown metric" message all read the rows. Beside it, the names a
//! config is refused with a reason of their own: ADK's metrics not supported yet and the design's
//! names for the informational metrics (which ADK appends to every eval; they are
//! [`Efficiency`](pure_metrics::efficiency::Efficiency)'s).

use super::approximations::Approximation;
use super::config::{ConfigError, MetricKind};
use super::judge::prompted::PromptedJudge;
use super::judge::JudgeKind;
use pure_metrics::efficiency::{INVOCATION_DURATION_V1, TOKEN_USAGE_V1, TOOL_CALL_COUNT_V1};
use pure_metrics::score_range::ScoreRange;
use serde_json::{Map, Value};

mod infos;
mod table;
#[cfg(test)]
mod tests;

pub use infos::{metric_infos, MetricFamily, MetricInfo, ServerModels};
pub use table::METRICS;

pub const TOOL_TRAJECTORY_AVG_SCORE: &str = "tool_trajectory_avg_score";
pub const RESPONSE_MATCH_SCORE: &str = "response_match_score";
pub const TOOL_TRAJECTORY_PRECISION: &str = "tool_trajectory_precision";
pub const TOOL_TRAJECTORY_RECALL: &str = "tool_trajectory_recall";
pub const TOOL_TRAJECTORY_F1: &str = "tool_trajectory_f1";
pub const TOOL_SINGLE_USE: &str = "tool_single_use";
pub const SEMANTIC_SIMILARITY: &str = "semantic_similarity";
pub const ANSWER_RELEVANCE: &str = "answer_relevance";
pub const FINAL_RESPONSE_MATCH_V2: &str = "final_response_match_v2";
pub const RUBRIC_BASED_FINAL_RESPONSE_QUALITY_V1: &str = "rubric_based_final_response_quality_v1";
pub const RELEVANCY: &str = "relevancy";
pub const FACT_CHECKING: &str = "fact_checking";
pub const ANSWER_CORRECTNESS: &str = "answer_correctness";
pub const ANSWER_FAITHFULNESS: &str = "answer_faithfulness";
pub const ANSWER_RELEVANCY: &str = "answer_relevancy";
pub const CONTEXT_PRECISION: &str = "context_precision";
pub const CONTEXT_RECALL: &str = "context_recall";
pub const FAITHFULNESS: &str = "faithfulness";
pub const G_EVAL: &str = "g_eval";
pub const HALLUCINATIONS_V1: &str = "hallucinations_v1";
pub const RUBRIC_BASED_TOOL_USE_QUALITY_V1: &str = "rubric_based_tool_use_quality_v1";
pub const RUBRIC_BASED_MULTI_TURN_TRAJECTORY_QUALITY_V1: &str =
    "rubric_based_multi_turn_trajectory_quality_v1";
pub const PER_TURN_USER_SIMULATOR_QUALITY_V1: &str = "per_turn_user_simulator_quality_v1";

/// One metric this build scores: all that is declared of it.
#[derive(Debug, Clone, Copy)]
pub struct MetricSpec {
    /// The name in a config's `criteria`.
    pub name: &'static str,
    pub description: &'static str,
    /// The threshold the browser proposes.
    pub default_threshold: f64,
    /// The scores it gives; a threshold outside them is refused.
    pub scores: ScoreRange,
    /// The criterion's keys beyond the threshold, as the JSON object the browser prefills;
    /// `None` when a threshold is all it takes.
    pub criterion_options: Option<&'static str>,
    /// How its criterion makes it, and so what scores it.
    pub build: Build,
    /// What scoring it takes beyond the agent's invocations. Scoring reads them: a metric that
    /// needs expected invocations and no judge is NOT_EVALUATED on a case without them.
    pub needs: &'static [Need],
    /// It reads each turn's outcome alone (its steps, final response and timings), so it scores
    /// a case read lean ([`crate::evalset::CaseParts::Lean`]) as it scores the whole case.
    pub reads_lean_case: bool,
    /// ADK's own metric: as ADK scores it (a judge samples 5 times by default), and its
    /// criterion may carry keys Evalstudio does not read, as ADK's may.
    pub adk: bool,
}

/// What a row's metric is made of from its criterion (`path` is where the criterion is, e.g.
/// `criteria.tool_single_use`, and starts every error).
pub type BuildFrom<T> = fn(&Map<String, Value>, &str) -> Result<T, ConfigError>;

/// How a row's metric is built from its criterion, and so what scores it.
#[derive(Debug, Clone, Copy)]
pub enum Build {
    /// Computed from the invocations, or from their embeddings: the kind its criterion makes,
    /// which scoring matches on.
    Metric(BuildFrom<MetricKind>),
    /// Asked of the judge model: the judge its criterion configures, beyond the keys every
    /// judge metric has (threshold, include_intermediate_responses_in_final,
    /// judge_model_options).
    Judge(BuildFrom<JudgeKind>),
    /// Asked of the judge model: one prompt and one kind of reply, declared as data.
    Prompted(&'static PromptedJudge),
    /// Asked of the judge model: a stand-in for a metric only Vertex AI scores.
    Approximation(&'static Approximation),
}

/// Something a metric needs to score: a model the server must have, or data the cases (or the
/// criterion) must hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Need {
    /// `[judge]` in evalstudio.toml.
    JudgeModel,
    /// all-MiniLM-L6-v2's files (`make model`).
    EmbeddingModel,
    /// Expected tool calls: a scripted conversation, not a scenario.
    ExpectedToolCalls,
    /// An expected final response.
    ExpectedResponse,
    /// Tool responses to judge against.
    Context,
    /// Rubrics, in the criterion or the cases.
    Rubrics,
    /// Conversation scenarios, played by a simulated user.
    Scenario,
}

impl Need {
    pub fn label(self) -> &'static str {
        match self {
            Need::JudgeModel => "judge model",
            Need::EmbeddingModel => "embedding model",
            Need::ExpectedToolCalls => "expected tool calls",
            Need::ExpectedResponse => "expected response",
            Need::Context => "context (tool responses)",
            Need::Rubrics => "rubrics",
            Need::Scenario => "conversation scenario",
        }
    }

    /// Held by a case's expected invocations, which a conversation scenario has none of.
    pub fn is_expected_invocations(self) -> bool {
        matches!(self, Need::ExpectedToolCalls | Need::ExpectedResponse)
    }
}

impl MetricSpec {
    /// How its criterion configures the judge, when it is asked of the judge model; `None`
    /// for a metric computed without one.
    pub fn judge_kind(
        &self,
        criterion: &Map<String, Value>,
        path: &str,
    ) -> Option<Result<JudgeKind, ConfigError>> {
        match self.build {
            Build::Metric(_) => None,
            Build::Judge(build) => Some(build(criterion, path)),
            Build::Prompted(judge) => Some(Ok(JudgeKind::Prompted(judge))),
            Build::Approximation(of) => Some(Ok(JudgeKind::Approximation(of))),
        }
    }

    /// The model scoring it needs, if any: the judge or the embedding model.
    pub fn model(&self) -> Option<Need> {
        self.needs
            .iter()
            .copied()
            .find(|need| matches!(need, Need::JudgeModel | Need::EmbeddingModel))
    }

    /// What this metric stands in for and how, if it stands in for a Vertex-only metric.
    pub fn approximates(&self) -> Option<&'static Approximation> {
        match self.build {
            Build::Approximation(of) => Some(of),
            _ => None,
        }
    }
}

/// A custom judge criterion's keys beyond the threshold, as the browser prefills them.
pub const CUSTOM_JUDGE_EXAMPLE: &str = r#"{"judge_prompt": "Is this reply to {query} polite? Answer YES or NO.\n\n{response}", "reply": "yes_no"}"#;

/// The design's names for the informational metrics, and ADK's metric that reports each.
pub const INFORMATIONAL_ALIASES: [(&str, &str); 3] = [
    ("tool_call_count", TOOL_CALL_COUNT_V1),
    ("latency_ms", INVOCATION_DURATION_V1),
    ("token_usage", TOKEN_USAGE_V1),
];

/// The metric of that name, if this build scores it.
pub fn find(name: &str) -> Option<&'static MetricSpec> {
    METRICS.iter().find(|spec| spec.name == name)
}

/// The table's stand-ins for the metrics only Vertex AI scores.
pub fn approximations() -> impl Iterator<Item = &'static Approximation> {
    METRICS.iter().filter_map(MetricSpec::approximates)
}

/// The stand-in for an ADK metric that only Vertex AI scores.
pub fn stand_in_for(adk_name: &str) -> Option<&'static Approximation> {
    approximations().find(|a| a.adk_name == adk_name)
}

/// The names of [`METRICS`] as "unknown metric" messages list them: the embedding metrics, the
/// computed ones, ADK's judges, then Evalstudio's judges, each group in table order.
pub fn supported_names() -> Vec<&'static str> {
    let group = |spec: &&MetricSpec| match spec.model() {
        Some(Need::EmbeddingModel) => 0,
        None => 1,
        Some(_) if spec.adk => 2,
        Some(_) => 3,
    };
    let mut specs: Vec<&MetricSpec> = METRICS.iter().collect();
    specs.sort_by_key(group);
    specs.into_iter().map(|spec| spec.name).collect()
}
