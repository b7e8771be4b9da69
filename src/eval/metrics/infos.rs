//! What the browser's picker and `GET /apps/{app}/eval_metrics` show of the metric table: each
//! metric's info, its family, and what keeps it from scoring on this server.

use super::{MetricSpec, Need, METRICS};
use crate::eval::approximations::Approximation;
use pure_metrics::score_range::ScoreRange;

/// A metric this build scores, for `GET /apps/{app}/eval_metrics` (ADK's `MetricInfo`) and the
/// browser's metric picker.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MetricInfo {
    pub metric_name: String,
    pub description: String,
    /// The default threshold the browser proposes.
    pub default_threshold: f64,
    /// The scores it gives, which bound its threshold (Evalstudio's addition to ADK's shape).
    #[serde(default)]
    pub score_range: ScoreRange,
    /// How the picker groups it (Evalstudio's addition).
    #[serde(default)]
    pub family: MetricFamily,
    /// The criterion's keys beyond the threshold, as the JSON object the browser prefills for
    /// editing (`match_type`, `tool_name`, `rubrics`…); `None` when a threshold is all it takes.
    pub criterion_options: Option<String>,
    /// What it needs, as the picker lists it ("judge model", "expected response"…).
    #[serde(default)]
    pub needs: Vec<String>,
    /// Why it cannot be picked here (a model the server lacks); `None` when it can.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unavailable: Option<String>,
    /// For a stand-in of a Vertex AI metric: that it is an approximation, and of what.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// For a stand-in of a Vertex AI metric: the prompt the judge is asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
}

/// The kind of metric, as the browser's picker groups them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MetricFamily {
    /// The tool calls against the expected ones.
    Trajectory,
    /// The final response against the expected one, without a model.
    Response,
    /// Asked of the judge model.
    Judge,
    /// Judged against the context (the tool responses).
    Rag,
    /// Sentence-embedding similarity.
    Embedding,
    /// The user's own evaluators.
    #[default]
    Yours,
}

impl MetricFamily {
    pub const ALL: [MetricFamily; 6] = [
        MetricFamily::Trajectory,
        MetricFamily::Response,
        MetricFamily::Judge,
        MetricFamily::Rag,
        MetricFamily::Embedding,
        MetricFamily::Yours,
    ];

    pub fn label(self) -> &'static str {
        match self {
            MetricFamily::Trajectory => "Trajectory",
            MetricFamily::Response => "Response",
            MetricFamily::Judge => "LLM judges",
            MetricFamily::Rag => "RAG",
            MetricFamily::Embedding => "Embeddings",
            MetricFamily::Yours => "Yours",
        }
    }
}

impl MetricSpec {
    /// Its group in the picker, from what it needs: the model that scores it, then what it
    /// compares (the context for a judge, the expected response for a computed metric).
    pub fn family(&self) -> MetricFamily {
        match self.model() {
            Some(Need::EmbeddingModel) => MetricFamily::Embedding,
            Some(_) if self.needs.contains(&Need::Context) => MetricFamily::Rag,
            Some(_) => MetricFamily::Judge,
            None if self.needs.contains(&Need::ExpectedResponse) => MetricFamily::Response,
            None => MetricFamily::Trajectory,
        }
    }
}

/// The models this server has, which decide the metrics it can score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ServerModels {
    pub judge: bool,
    pub embedding: bool,
}

impl ServerModels {
    /// Why a metric with these needs cannot be scored here, if it cannot.
    pub fn missing(self, needs: &[Need]) -> Option<String> {
        if needs.contains(&Need::JudgeModel) && !self.judge {
            return Some(
                "needs a judge model: add a [judge] table (base_url, model) to evalstudio.toml".into(),
            );
        }
        if needs.contains(&Need::EmbeddingModel) && !self.embedding {
            return Some(
                "needs the sentence-embedding model: run `make model` (or set EVALSTUDIO_EMBEDDING_MODEL)"
                    .into(),
            );
        }
        None
    }
}

/// Every metric this build scores, in the order the browser lists them, each marked with what
/// keeps it from scoring on a server with `models`.
pub fn metric_infos(models: ServerModels) -> Vec<MetricInfo> {
    METRICS
        .iter()
        .map(|spec| MetricInfo {
            metric_name: spec.name.to_string(),
            description: spec.description.to_string(),
            default_threshold: spec.default_threshold,
            score_range: spec.scores,
            family: spec.family(),
            criterion_options: spec.criterion_options.map(str::to_string),
            needs: spec.needs.iter().map(|need| need.label().to_string()).collect(),
            unavailable: models.missing(spec.needs),
            note: spec.approximates().map(Approximation::note),
            prompt: spec.approximates().map(|a| a.prompt.to_string()),
        })
        .collect()
}
