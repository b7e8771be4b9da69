//! The metric table: one row per metric this build scores. A new metric is one row here and
//! its scoring: a computed one builds a [`MetricKind`] (whose scoring arm is in
//! eval/score/metric.rs); a judge builds a [`JudgeKind`] (scored in eval/judge/), or is a
//! [`PromptedJudge`](crate::eval::judge::prompted::PromptedJudge) or an
//! [`Approximation`], declared as data.

use super::{
    Build, MetricSpec, Need, ANSWER_CORRECTNESS, ANSWER_FAITHFULNESS, ANSWER_RELEVANCE, ANSWER_RELEVANCY,
    CONTEXT_PRECISION, CONTEXT_RECALL, FACT_CHECKING, FAITHFULNESS, FINAL_RESPONSE_MATCH_V2, G_EVAL,
    HALLUCINATIONS_V1, PER_TURN_USER_SIMULATOR_QUALITY_V1, RELEVANCY, RESPONSE_MATCH_SCORE,
    RUBRIC_BASED_FINAL_RESPONSE_QUALITY_V1, RUBRIC_BASED_MULTI_TURN_TRAJECTORY_QUALITY_V1,
    RUBRIC_BASED_TOOL_USE_QUALITY_V1, SEMANTIC_SIMILARITY, TOOL_SINGLE_USE, TOOL_TRAJECTORY_AVG_SCORE,
    TOOL_TRAJECTORY_F1, TOOL_TRAJECTORY_PRECISION, TOOL_TRAJECTORY_RECALL,
};
use crate::eval::approximations::{
    Approximation, COHERENCE, SAFETY, TASK_SUCCESS, TOOL_USE_QUALITY, TRAJECTORY_QUALITY,
};
use crate::eval::config::{ConfigError, MetricKind};
use crate::eval::criterion_fields;
use crate::eval::judge::{
    criterion_rubrics, g_eval_settings, hallucinations_judge, prompted, simulator_quality_judge, JudgeKind,
};
use pure_metrics::partial::TrajectoryShare;
use pure_metrics::score_range::ScoreRange;
use pure_metrics::trajectory::TrajectoryCriterion;
use serde_json::{Map, Value};

/// Every metric this build scores, in the order the browser and `GET eval_metrics` list them.
pub const METRICS: &[MetricSpec] = &[
    MetricSpec {
        name: TOOL_TRAJECTORY_AVG_SCORE,
        description: "ADK: 1 per invocation whose tool calls match the expected ones (EXACT, IN_ORDER or ANY_ORDER; ignore_args), averaged.",
        default_threshold: 1.0,
        scores: ScoreRange::UNIT,
        criterion_options: Some(r#"{"match_type": "EXACT", "ignore_args": false}"#),
        build: Build::Metric(|c, path| Ok(MetricKind::ToolTrajectory(trajectory_criterion(c, path)?))),
        needs: &[Need::ExpectedToolCalls],
        reads_lean_case: true,
        adk: true,
    },
    MetricSpec {
        name: RESPONSE_MATCH_SCORE,
        description: "ADK: ROUGE-1 F-measure of the final response against the expected one.",
        default_threshold: 0.8,
        scores: ScoreRange::UNIT,
        criterion_options: None,
        build: Build::Metric(|_, _| Ok(MetricKind::ResponseMatch)),
        needs: &[Need::ExpectedResponse],
        reads_lean_case: true,
        adk: true,
    },
    MetricSpec {
        name: TOOL_TRAJECTORY_PRECISION,
        description: "Share of the calls made that were expected (multiset match of name and args).",
        default_threshold: 0.8,
        scores: ScoreRange::UNIT,
        criterion_options: None,
        build: Build::Metric(|c, path| trajectory_share(TrajectoryShare::Precision, c, path)),
        needs: &[Need::ExpectedToolCalls],
        reads_lean_case: true,
        adk: false,
    },
    MetricSpec {
        name: TOOL_TRAJECTORY_RECALL,
        description: "Share of the expected calls that were made (multiset match of name and args).",
        default_threshold: 0.8,
        scores: ScoreRange::UNIT,
        criterion_options: None,
        build: Build::Metric(|c, path| trajectory_share(TrajectoryShare::Recall, c, path)),
        needs: &[Need::ExpectedToolCalls],
        reads_lean_case: true,
        adk: false,
    },
    MetricSpec {
        name: TOOL_TRAJECTORY_F1,
        description: "Harmonic mean of trajectory precision and recall.",
        default_threshold: 0.8,
        scores: ScoreRange::UNIT,
        criterion_options: None,
        build: Build::Metric(|c, path| trajectory_share(TrajectoryShare::F1, c, path)),
        needs: &[Need::ExpectedToolCalls],
        reads_lean_case: true,
        adk: false,
    },
    MetricSpec {
        name: SEMANTIC_SIMILARITY,
        description: "Cosine of the sentence embeddings (all-MiniLM-L6-v2, in-process) of the expected and actual final responses.",
        default_threshold: 0.7,
        scores: ScoreRange::UNIT,
        criterion_options: None,
        build: Build::Metric(|_, _| Ok(MetricKind::SemanticSimilarity)),
        needs: &[Need::EmbeddingModel, Need::ExpectedResponse],
        reads_lean_case: false,
        adk: false,
    },
    MetricSpec {
        name: ANSWER_RELEVANCE,
        description: "Cosine of the sentence embeddings of the user's message and the agent's response.",
        default_threshold: 0.3,
        scores: ScoreRange::UNIT,
        criterion_options: None,
        build: Build::Metric(|_, _| Ok(MetricKind::AnswerRelevance)),
        needs: &[Need::EmbeddingModel],
        reads_lean_case: false,
        adk: false,
    },
    MetricSpec {
        name: FINAL_RESPONSE_MATCH_V2,
        description: "ADK, judged: the final response is valid given the expected one (majority over num_samples).",
        default_threshold: 0.5,
        scores: ScoreRange::UNIT,
        criterion_options: None,
        build: Build::Judge(|_, _| Ok(JudgeKind::FinalResponseMatchV2)),
        needs: &[Need::JudgeModel, Need::ExpectedResponse],
        reads_lean_case: false,
        adk: true,
    },
    MetricSpec {
        name: RELEVANCY,
        description: "Judged: the response is in line with the query and the context (the tool responses).",
        default_threshold: 1.0,
        scores: ScoreRange::UNIT,
        criterion_options: None,
        build: Build::Prompted(&prompted::RELEVANCY),
        needs: &[Need::JudgeModel, Need::Context],
        reads_lean_case: false,
        adk: false,
    },
    MetricSpec {
        name: FACT_CHECKING,
        description: "Judged: the context (the tool responses) supports the response.",
        default_threshold: 1.0,
        scores: ScoreRange::UNIT,
        criterion_options: None,
        build: Build::Prompted(&prompted::FACT_CHECKING),
        needs: &[Need::JudgeModel, Need::Context],
        reads_lean_case: false,
        adk: false,
    },
    MetricSpec {
        name: ANSWER_CORRECTNESS,
        description: "Judged: the response agrees with the expected final response.",
        default_threshold: 1.0,
        scores: ScoreRange::UNIT,
        criterion_options: None,
        build: Build::Prompted(&prompted::ANSWER_CORRECTNESS),
        needs: &[Need::JudgeModel, Need::ExpectedResponse],
        reads_lean_case: false,
        adk: false,
    },
    MetricSpec {
        name: ANSWER_FAITHFULNESS,
        description: "Judged 0-1: the response sticks to the context.",
        default_threshold: 0.5,
        scores: ScoreRange::UNIT,
        criterion_options: None,
        build: Build::Prompted(&prompted::ANSWER_FAITHFULNESS),
        needs: &[Need::JudgeModel, Need::Context],
        reads_lean_case: false,
        adk: false,
    },
    MetricSpec {
        name: ANSWER_RELEVANCY,
        description: "Judged 0-1: the response answers the query.",
        default_threshold: 0.5,
        scores: ScoreRange::UNIT,
        criterion_options: None,
        build: Build::Prompted(&prompted::ANSWER_RELEVANCY),
        needs: &[Need::JudgeModel],
        reads_lean_case: false,
        adk: false,
    },
    MetricSpec {
        name: CONTEXT_PRECISION,
        description: "Judged RAG: the useful context items come first (mean precision@k over relevant items).",
        default_threshold: 0.5,
        scores: ScoreRange::UNIT,
        criterion_options: None,
        build: Build::Judge(|_, _| Ok(JudgeKind::ContextPrecision)),
        needs: &[Need::JudgeModel, Need::Context],
        reads_lean_case: false,
        adk: false,
    },
    MetricSpec {
        name: CONTEXT_RECALL,
        description: "Judged RAG: share of the expected answer's statements found in the context.",
        default_threshold: 0.5,
        scores: ScoreRange::UNIT,
        criterion_options: None,
        build: Build::Judge(|_, _| Ok(JudgeKind::ContextRecall)),
        needs: &[Need::JudgeModel, Need::ExpectedResponse, Need::Context],
        reads_lean_case: false,
        adk: false,
    },
    MetricSpec {
        name: FAITHFULNESS,
        description: "Judged RAG: share of the response's claims that the context supports.",
        default_threshold: 0.5,
        scores: ScoreRange::UNIT,
        criterion_options: None,
        build: Build::Judge(|_, _| Ok(JudgeKind::Faithfulness)),
        needs: &[Need::JudgeModel, Need::Context],
        reads_lean_case: false,
        adk: false,
    },
    MetricSpec {
        name: G_EVAL,
        description: "G-Eval (DeepEval): your criterion in plain words; the judge writes evaluation steps once, then scores each turn 1-10 with a reason (normalised to 0-1). Any metric name with `criteria` is one too.",
        default_threshold: 0.5,
        scores: ScoreRange::UNIT,
        criterion_options: Some(
            r#"{"criteria": "The actual output answers the input correctly and agrees with the expected output.", "evaluation_params": ["input", "actual_output", "expected_output"]}"#,
        ),
        build: Build::Judge(|c, path| Ok(JudgeKind::GEval(g_eval_settings(c, path)?))),
        needs: &[Need::JudgeModel],
        reads_lean_case: false,
        adk: false,
    },
    MetricSpec {
        name: RUBRIC_BASED_FINAL_RESPONSE_QUALITY_V1,
        description: "ADK, judged: the final response meets each rubric (yes/no per rubric, averaged).",
        default_threshold: 0.5,
        scores: ScoreRange::UNIT,
        criterion_options: Some(
            r#"{"rubrics": [{"rubric_id": "r1", "rubric_content": {"text_property": "The answer is polite."}}]}"#,
        ),
        build: Build::Judge(|c, path| {
            Ok(JudgeKind::RubricBasedFinalResponseQualityV1 {
                rubrics: criterion_rubrics(c, path)?,
            })
        }),
        needs: &[Need::JudgeModel, Need::Rubrics],
        reads_lean_case: false,
        adk: true,
    },
    MetricSpec {
        name: RUBRIC_BASED_TOOL_USE_QUALITY_V1,
        description: "ADK, judged: the tool calls and their responses meet each rubric (yes/no per rubric, averaged).",
        default_threshold: 0.5,
        scores: ScoreRange::UNIT,
        criterion_options: Some(
            r#"{"rubrics": [{"rubric_id": "t1", "rubric_content": {"text_property": "The agent looks up the weather for the city the user named."}}]}"#,
        ),
        build: Build::Judge(|c, path| {
            Ok(JudgeKind::RubricBasedToolUseQualityV1 {
                rubrics: criterion_rubrics(c, path)?,
            })
        }),
        needs: &[Need::JudgeModel, Need::Rubrics],
        reads_lean_case: false,
        adk: true,
    },
    MetricSpec {
        name: RUBRIC_BASED_MULTI_TURN_TRAJECTORY_QUALITY_V1,
        description: "ADK, judged: the whole conversation (messages, tool calls, answers) meets each rubric; scored once, on the last turn.",
        default_threshold: 0.5,
        scores: ScoreRange::UNIT,
        criterion_options: Some(
            r#"{"rubrics": [{"rubric_id": "m1", "rubric_content": {"text_property": "The agent confirms the details before acting on them."}}]}"#,
        ),
        build: Build::Judge(|c, path| {
            Ok(JudgeKind::RubricBasedMultiTurnTrajectoryQualityV1 {
                rubrics: criterion_rubrics(c, path)?,
            })
        }),
        needs: &[Need::JudgeModel, Need::Rubrics],
        reads_lean_case: false,
        adk: true,
    },
    MetricSpec {
        name: HALLUCINATIONS_V1,
        description: "ADK, judged: share of the response's sentences that its context (instructions, user prompt, tools, tool outputs) supports or that need no support.",
        default_threshold: 0.8,
        scores: ScoreRange::UNIT,
        criterion_options: Some(r#"{"evaluate_intermediate_nl_responses": false}"#),
        build: Build::Judge(hallucinations_judge),
        needs: &[Need::JudgeModel],
        reads_lean_case: false,
        adk: true,
    },
    MetricSpec {
        name: PER_TURN_USER_SIMULATOR_QUALITY_V1,
        description: "ADK, judged: share of a simulated user's turns that keep to its scenario (starting prompt, plan, persona, stopping on time).",
        default_threshold: 0.8,
        scores: ScoreRange::UNIT,
        criterion_options: None,
        build: Build::Judge(simulator_quality_judge),
        needs: &[Need::JudgeModel, Need::Scenario],
        reads_lean_case: false,
        adk: true,
    },
    approximation(
        &COHERENCE,
        "Judged 1-5 (mapped to 0-1): the response is one logical whole that follows from the message.",
        0.5,
    ),
    approximation(
        &SAFETY,
        "Judged: the response is free of hate, harassment, dangerous or sexual content and leaked personal data.",
        1.0,
    ),
    approximation(
        &TASK_SUCCESS,
        "Judged once per conversation: the agent achieved the user's goals by its end.",
        1.0,
    ),
    approximation(
        &TRAJECTORY_QUALITY,
        "Judged 1-5 (mapped to 0-1) once per conversation: the path the agent took, not only where it ended.",
        0.5,
    ),
    approximation(
        &TOOL_USE_QUALITY,
        "Judged 1-5 (mapped to 0-1) once per conversation: the right tools, with the right arguments, used well.",
        0.5,
    ),
    MetricSpec {
        name: TOOL_SINGLE_USE,
        description: "Whether the conversation called the tool named by the criterion's tool_name.",
        default_threshold: 1.0,
        scores: ScoreRange::UNIT,
        criterion_options: Some(r#"{"tool_name": "get_weather"}"#),
        build: Build::Metric(tool_used),
        needs: &[],
        reads_lean_case: true,
        adk: false,
    },
];

/// The table's row for a stand-in of a Vertex AI metric.
const fn approximation(
    of: &'static Approximation,
    description: &'static str,
    default_threshold: f64,
) -> MetricSpec {
    MetricSpec {
        name: of.name,
        description,
        default_threshold,
        // The judge's 1-5 or yes/no reply is mapped onto 0..1.
        scores: ScoreRange::UNIT,
        criterion_options: None,
        build: Build::Approximation(of),
        needs: &[Need::JudgeModel],
        reads_lean_case: false,
        adk: false,
    }
}

/// `match_type` and `ignore_args` as ADK's `ToolTrajectoryCriterion` reads them.
fn trajectory_criterion(
    criterion: &Map<String, Value>,
    path: &str,
) -> Result<TrajectoryCriterion, ConfigError> {
    let written: criterion_fields::Trajectory = criterion_fields::read(criterion, path)?;
    Ok(TrajectoryCriterion {
        match_type: written.match_type.unwrap_or_default(),
        ignore_args: written.ignore_args.unwrap_or(false),
    })
}

/// Partial credit for the tool calls, with the criterion's `ignore_args`.
fn trajectory_share(
    share: TrajectoryShare,
    criterion: &Map<String, Value>,
    path: &str,
) -> Result<MetricKind, ConfigError> {
    Ok(MetricKind::TrajectoryShare {
        share,
        ignore_args: trajectory_criterion(criterion, path)?.ignore_args,
    })
}

/// `tool_single_use`'s `tool_name`: the tool to look for.
fn tool_used(criterion: &Map<String, Value>, path: &str) -> Result<MetricKind, ConfigError> {
    let written: criterion_fields::ToolUsed = criterion_fields::read(criterion, path)?;
    let tool_name = written.tool_name.ok_or_else(|| {
        format!(
            "{path}.tool_name: missing; {TOOL_SINGLE_USE} needs the tool to look for, e.g. {{\"threshold\": 1, \"tool_name\": \"get_weather\"}}"
        )
    })?;
    Ok(MetricKind::ToolUsed { tool_name })
}
