//! Evaluation: metrics that equal google-adk 2.x's on the same data, the eval config, and
//! scoring actual invocations against an expected eval set into ADK's result shapes.
//! Pure: no I/O, no clock; compiled for the server and the browser. The exceptions, server only:
//! `runner/`, which drives an agent through the cases to get actual invocations (the simulated
//! user playing scenario cases), `embedding.rs`, the sentence-embedding model,
//! `judge/client.rs`, the judge model's HTTP client, and `evaluators/http.rs` and
//! `evaluators/command.rs`, which call the users' own evaluators.

pub mod approximations;
mod case_summaries;
// The model-free metrics, from their own crate (crates/pure_metrics).
pub use pure_metrics::score_range::ScoreRange;
use pure_metrics::{compare, efficiency, exact_mean, partial, porter, rouge, trajectory};
mod config;
mod config_fields;
mod criterion_fields;
#[cfg(test)]
mod efficiency_tests;
#[cfg(feature = "ssr")]
mod embedding;
mod embedding_metrics;
pub mod evaluators;
mod evidence;
#[cfg(feature = "ssr")]
mod harness;
mod judge;
pub mod junit;
mod lineup;
mod metrics;
mod result;
pub mod result_file;
mod run_stats;
#[cfg(feature = "ssr")]
mod runner;
mod score;
mod services;
pub mod simulator;
#[cfg(test)]
mod tests;

pub use case_summaries::CaseSummaries;
pub use compare::{align_calls, compare_args, word_diff, AlignedCall, ArgChange, ArgDiff, CallMatch};
pub use config::{criterion_options, ConfigError, EvalConfig, MetricConfig, MetricKind};
pub use efficiency::{
    evaluate_efficiency, turn_tokens, Breakdown, Efficiency, EfficiencyResult, TurnTokens,
    INFERENCE_CALL_COUNT_V1, INVOCATION_DURATION_V1, TOKEN_USAGE_V1, TOOL_CALL_COUNT_V1,
};
#[cfg(feature = "ssr")]
pub use embedding::{
    embedding_model_dir, embedding_model_present, EmbeddingError, LazyMiniLm, MiniLmEmbedder,
    EMBEDDING_MODEL_ENV,
};
pub use embedding_metrics::{
    answer_relevance, answer_relevance_all, semantic_similarity, semantic_similarity_all,
};
pub use evidence::{EmbeddingEvidence, Evidence};
pub use exact_mean::exact_mean;
#[cfg(feature = "ssr")]
pub use harness::{AgentEvaluator, EvalReport};
pub use judge::{
    evaluate_judge_metric, judge_case, parse_judge_metric, AgentWork, AnsweredWith, CaseJudgement, CaseView,
    CheckedResponse, ContextItem, CustomJudge, GEval, GEvalParam, JudgeEvidence, JudgeInput, JudgeKind,
    JudgeMetric, JudgeModelOptions, ReplyKind, RubricOutcome, RubricScores, Sample, SentenceLabel,
    StatementCheck, ValidityLabel, ValidityParser, Verdict, Votes, YesNo,
};
#[cfg(feature = "ssr")]
pub use judge::{JudgeConfig, OpenAiJudge};
pub use lineup::{places_by_id, ActualItem, ExpectedCases};
pub use metrics::{
    metric_infos, MetricFamily, MetricInfo, Need, ServerModels, CUSTOM_JUDGE_EXAMPLE, RESPONSE_MATCH_SCORE,
    TOOL_SINGLE_USE, TOOL_TRAJECTORY_AVG_SCORE, TOOL_TRAJECTORY_F1, TOOL_TRAJECTORY_PRECISION,
    TOOL_TRAJECTORY_RECALL,
};
pub use partial::{tool_used, trajectory_share, TrajectoryShare};
pub use porter::stem;
pub use result::{
    adk_case_result, camel_case_result, BreakdownDetails, CaseSummary, EvalCaseResult, EvalMetricResult,
    EvalMetricResultDetails, EvalMetricResultPerInvocation, EvalSetResult, EvalStatus, MetricSummary,
    ScoredEvalSet,
};
pub use rouge::{response_match_score, response_text, rouge1_fmeasure, tokenize};
pub use run_stats::{
    compare_runs, metric_stats, passed, CaseOutcome, Change, ComparedCase, MetricStats, ScoreBin, BUCKETS,
};
#[cfg(feature = "ssr")]
pub use runner::{run_and_score, CaseSchedule, FinishedCase, RunCases, RunOptions};
pub use score::{
    pass_at_and_hat_k, score_case, score_cases, score_eval_set, summarize_case, summarize_cases,
    CaseRunScores, CaseRunVerdict, Keep, MetricVerdict, ScoreError, ScoredCase,
};
pub use services::{Embedder, InvocationScore, Judge, JudgeRequest, ScoringServices};
pub use trajectory::{json_equal, tool_trajectory_score, MatchType, TrajectoryCriterion};
