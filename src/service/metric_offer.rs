//! The metrics a run on this server can use: the metric table's, each marked with what the
//! server lacks to score it (a judge, the embedding model), then the evaluators declared in
//! evalstudio.toml.

use crate::eval::metrics::{metric_infos, MetricFamily, MetricInfo, ServerModels};
use crate::eval::services::ScoringServices;
use pure_metrics::score_range::ScoreRange;

/// The browser's metric picker and `GET eval_metrics` list these.
pub fn offered_metrics(scoring: &ScoringServices) -> Vec<MetricInfo> {
    let models = ServerModels {
        judge: scoring.judge.is_some(),
        embedding: scoring.embedder.is_some() && crate::eval::embedding::embedding_model_present(),
    };
    let mut metrics = metric_infos(models);
    metrics.extend(scoring.evaluators.names().into_iter().map(|name| MetricInfo {
        metric_name: name.to_string(),
        description: format!(
            "Your evaluator `{name}` from evalstudio.toml (a command or a URL): it is given the whole conversation and answers its score."
        ),
        default_threshold: 1.0,
        // Its criterion may declare others with `score_range`.
        score_range: ScoreRange::UNIT,
        family: MetricFamily::Yours,
        criterion_options: Some(serde_json::json!({ "evaluator": name }).to_string()),
        needs: Vec::new(),
        unavailable: None,
        note: None,
        prompt: None,
    }));
    metrics
}
