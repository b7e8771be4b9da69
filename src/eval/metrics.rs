//! Every metric a config may name. [`METRICS`] is the one table of the metrics this build
//! scores: each one's name, description, default threshold, the criterion keys the browser
//! prefills, and what scores it. The browser's picker and `GET /apps/{app}/eval_metrics`
//! ([`metric_infos`]), the config's dispatch and its "unknown metric" message all read it.
//! Beside it, the names a config is refused with a reason of their own: ADK's metrics not
//! supported yet and the design's names for the informational metrics (which ADK appends to
//! every eval; they are [`Efficiency`](super::efficiency::Efficiency)'s).

use super::approximations::{
    Approximation, COHERENCE, SAFETY, TASK_SUCCESS, TOOL_USE_QUALITY, TRAJECTORY_QUALITY,
};
use super::efficiency::{INVOCATION_DURATION_V1, TOKEN_USAGE_V1, TOOL_CALL_COUNT_V1};
use super::judge::prompted::{self, PromptedJudge};
use super::partial::TrajectoryShare;
use super::ScoreRange;

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

/// One metric this build scores.
#[derive(Debug, Clone, Copy, PartialEq)]
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
    pub scorer: Scorer,
    /// What scoring it takes beyond the agent's invocations.
    pub needs: &'static [Need],
    /// ADK's own metric: as ADK scores it (a judge samples 5 times by default), and its
    /// criterion may carry keys Evalstudio does not read, as ADK's may.
    pub adk: bool,
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
}

/// What scores a metric, and so what scoring it needs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scorer {
    /// Computed from the invocations alone.
    Computed(Computed),
    /// The cosine of two texts' sentence embeddings: needs the embedding model.
    Embedding(EmbeddingCosine),
    /// Asked of the judge model: needs a `[judge]` in evalstudio.toml.
    Judge(BuiltInJudge),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Computed {
    /// ADK's: the tool calls match the expected ones (EXACT, IN_ORDER or ANY_ORDER).
    ToolTrajectory,
    /// ADK's: ROUGE-1 of the final response against the expected one.
    ResponseMatch,
    /// Partial credit for the tool calls: precision, recall or F1.
    TrajectoryShare(TrajectoryShare),
    /// The conversation called the criterion's tool.
    ToolUsed,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EmbeddingCosine {
    /// The expected and actual final responses.
    SemanticSimilarity,
    /// The user's message and the response.
    AnswerRelevance,
}

/// A judge metric of the table (a custom judge brings its prompt in the config instead).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum BuiltInJudge {
    /// Reads nothing of its criterion but the keys every judge metric has (threshold,
    /// include_intermediate_responses_in_final, judge_model_options): its table entry and its
    /// scoring arm are all there is to it.
    Plain(PlainJudge),
    /// Reads settings of its own from its criterion (rubrics, G-Eval's criteria…), which the
    /// judge's config reader turns into its `JudgeKind`.
    Configured(ConfiguredJudge),
}

/// A judge whose table entry and scoring arm are all of it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PlainJudge {
    /// ADK's: valid or invalid against the reference, majority over samples (ties are invalid).
    FinalResponseMatchV2,
    /// One prompt and one kind of reply, declared by its table entry.
    Prompted(&'static PromptedJudge),
    /// Per context item, useful or not; mean precision at the useful items.
    ContextPrecision,
    /// The fraction of the reference's statements the context supports.
    ContextRecall,
    /// The fraction of the response's claims the context supports.
    Faithfulness,
    /// A stand-in for a metric only Vertex AI scores, with its own prompt.
    Approximation(&'static Approximation),
}

/// A judge whose criterion `judge/config.rs` reads into its `JudgeKind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfiguredJudge {
    /// ADK's, by the criterion's `rubrics`.
    RubricBasedFinalResponseQualityV1,
    /// ADK's, by the criterion's `rubrics`.
    RubricBasedToolUseQualityV1,
    /// ADK's, by the criterion's `rubrics`.
    RubricBasedMultiTurnTrajectoryQualityV1,
    /// ADK's, with `evaluate_intermediate_nl_responses`.
    HallucinationsV1,
    /// ADK's, with the simulated user's `stop_signal`.
    PerTurnUserSimulatorQualityV1,
    /// DeepEval's, by the criterion's `criteria` or `evaluation_steps`.
    GEval,
}

impl PlainJudge {
    /// It asks the judge once per statement or context item, so one sample each.
    pub fn asks_per_item(self) -> bool {
        matches!(
            self,
            PlainJudge::ContextPrecision | PlainJudge::ContextRecall | PlainJudge::Faithfulness
        )
    }
}

const fn plain(judge: PlainJudge) -> Scorer {
    Scorer::Judge(BuiltInJudge::Plain(judge))
}

const fn configured(judge: ConfiguredJudge) -> Scorer {
    Scorer::Judge(BuiltInJudge::Configured(judge))
}

impl MetricSpec {
    /// What this metric stands in for and how, if it stands in for a Vertex-only metric.
    pub fn approximates(&self) -> Option<&'static Approximation> {
        match self.scorer {
            Scorer::Judge(BuiltInJudge::Plain(PlainJudge::Approximation(of))) => Some(of),
            _ => None,
        }
    }
}

/// Every metric this build scores, in the order the browser and `GET eval_metrics` list them.
pub const METRICS: &[MetricSpec] = &[
    MetricSpec {
        name: TOOL_TRAJECTORY_AVG_SCORE,
        description: "ADK: 1 per invocation whose tool calls match the expected ones (EXACT, IN_ORDER or ANY_ORDER; ignore_args), averaged.",
        default_threshold: 1.0,
        scores: ScoreRange::UNIT,
        criterion_options: Some(r#"{"match_type": "EXACT", "ignore_args": false}"#),
        scorer: Scorer::Computed(Computed::ToolTrajectory),
        needs: &[Need::ExpectedToolCalls],
        adk: true,
    },
    MetricSpec {
        name: RESPONSE_MATCH_SCORE,
        description: "ADK: ROUGE-1 F-measure of the final response against the expected one.",
        default_threshold: 0.8,
        scores: ScoreRange::UNIT,
        criterion_options: None,
        scorer: Scorer::Computed(Computed::ResponseMatch),
        needs: &[Need::ExpectedResponse],
        adk: true,
    },
    MetricSpec {
        name: TOOL_TRAJECTORY_PRECISION,
        description: "Share of the calls made that were expected (multiset match of name and args).",
        default_threshold: 0.8,
        scores: ScoreRange::UNIT,
        criterion_options: None,
        scorer: Scorer::Computed(Computed::TrajectoryShare(TrajectoryShare::Precision)),
        needs: &[Need::ExpectedToolCalls],
        adk: false,
    },
    MetricSpec {
        name: TOOL_TRAJECTORY_RECALL,
        description: "Share of the expected calls that were made (multiset match of name and args).",
        default_threshold: 0.8,
        scores: ScoreRange::UNIT,
        criterion_options: None,
        scorer: Scorer::Computed(Computed::TrajectoryShare(TrajectoryShare::Recall)),
        needs: &[Need::ExpectedToolCalls],
        adk: false,
    },
    MetricSpec {
        name: TOOL_TRAJECTORY_F1,
        description: "Harmonic mean of trajectory precision and recall.",
        default_threshold: 0.8,
        scores: ScoreRange::UNIT,
        criterion_options: None,
        scorer: Scorer::Computed(Computed::TrajectoryShare(TrajectoryShare::F1)),
        needs: &[Need::ExpectedToolCalls],
        adk: false,
    },
    MetricSpec {
        name: SEMANTIC_SIMILARITY,
        description: "Cosine of the sentence embeddings (all-MiniLM-L6-v2, in-process) of the expected and actual final responses.",
        default_threshold: 0.7,
        scores: ScoreRange::UNIT,
        criterion_options: None,
        scorer: Scorer::Embedding(EmbeddingCosine::SemanticSimilarity),
        needs: &[Need::EmbeddingModel, Need::ExpectedResponse],
        adk: false,
    },
    MetricSpec {
        name: ANSWER_RELEVANCE,
        description: "Cosine of the sentence embeddings of the user's message and the agent's response.",
        default_threshold: 0.3,
        scores: ScoreRange::UNIT,
        criterion_options: None,
        scorer: Scorer::Embedding(EmbeddingCosine::AnswerRelevance),
        needs: &[Need::EmbeddingModel],
        adk: false,
    },
    MetricSpec {
        name: FINAL_RESPONSE_MATCH_V2,
        description: "ADK, judged: the final response is valid given the expected one (majority over num_samples).",
        default_threshold: 0.5,
        scores: ScoreRange::UNIT,
        criterion_options: None,
        scorer: plain(PlainJudge::FinalResponseMatchV2),
        needs: &[Need::JudgeModel, Need::ExpectedResponse],
        adk: true,
    },
    MetricSpec {
        name: RELEVANCY,
        description: "Judged: the response is in line with the query and the context (the tool responses).",
        default_threshold: 1.0,
        scores: ScoreRange::UNIT,
        criterion_options: None,
        scorer: plain(PlainJudge::Prompted(&prompted::RELEVANCY)),
        needs: &[Need::JudgeModel, Need::Context],
        adk: false,
    },
    MetricSpec {
        name: FACT_CHECKING,
        description: "Judged: the context (the tool responses) supports the response.",
        default_threshold: 1.0,
        scores: ScoreRange::UNIT,
        criterion_options: None,
        scorer: plain(PlainJudge::Prompted(&prompted::FACT_CHECKING)),
        needs: &[Need::JudgeModel, Need::Context],
        adk: false,
    },
    MetricSpec {
        name: ANSWER_CORRECTNESS,
        description: "Judged: the response agrees with the expected final response.",
        default_threshold: 1.0,
        scores: ScoreRange::UNIT,
        criterion_options: None,
        scorer: plain(PlainJudge::Prompted(&prompted::ANSWER_CORRECTNESS)),
        needs: &[Need::JudgeModel, Need::ExpectedResponse],
        adk: false,
    },
    MetricSpec {
        name: ANSWER_FAITHFULNESS,
        description: "Judged 0-1: the response sticks to the context.",
        default_threshold: 0.5,
        scores: ScoreRange::UNIT,
        criterion_options: None,
        scorer: plain(PlainJudge::Prompted(&prompted::ANSWER_FAITHFULNESS)),
        needs: &[Need::JudgeModel, Need::Context],
        adk: false,
    },
    MetricSpec {
        name: ANSWER_RELEVANCY,
        description: "Judged 0-1: the response answers the query.",
        default_threshold: 0.5,
        scores: ScoreRange::UNIT,
        criterion_options: None,
        scorer: plain(PlainJudge::Prompted(&prompted::ANSWER_RELEVANCY)),
        needs: &[Need::JudgeModel],
        adk: false,
    },
    MetricSpec {
        name: CONTEXT_PRECISION,
        description: "Judged RAG: the useful context items come first (mean precision@k over relevant items).",
        default_threshold: 0.5,
        scores: ScoreRange::UNIT,
        criterion_options: None,
        scorer: plain(PlainJudge::ContextPrecision),
        needs: &[Need::JudgeModel, Need::Context],
        adk: false,
    },
    MetricSpec {
        name: CONTEXT_RECALL,
        description: "Judged RAG: share of the expected answer's statements found in the context.",
        default_threshold: 0.5,
        scores: ScoreRange::UNIT,
        criterion_options: None,
        scorer: plain(PlainJudge::ContextRecall),
        needs: &[Need::JudgeModel, Need::ExpectedResponse, Need::Context],
        adk: false,
    },
    MetricSpec {
        name: FAITHFULNESS,
        description: "Judged RAG: share of the response's claims that the context supports.",
        default_threshold: 0.5,
        scores: ScoreRange::UNIT,
        criterion_options: None,
        scorer: plain(PlainJudge::Faithfulness),
        needs: &[Need::JudgeModel, Need::Context],
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
        scorer: configured(ConfiguredJudge::GEval),
        needs: &[Need::JudgeModel],
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
        scorer: configured(ConfiguredJudge::RubricBasedFinalResponseQualityV1),
        needs: &[Need::JudgeModel, Need::Rubrics],
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
        scorer: configured(ConfiguredJudge::RubricBasedToolUseQualityV1),
        needs: &[Need::JudgeModel, Need::Rubrics],
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
        scorer: configured(ConfiguredJudge::RubricBasedMultiTurnTrajectoryQualityV1),
        needs: &[Need::JudgeModel, Need::Rubrics],
        adk: true,
    },
    MetricSpec {
        name: HALLUCINATIONS_V1,
        description: "ADK, judged: share of the response's sentences that its context (instructions, user prompt, tools, tool outputs) supports or that need no support.",
        default_threshold: 0.8,
        scores: ScoreRange::UNIT,
        criterion_options: Some(r#"{"evaluate_intermediate_nl_responses": false}"#),
        scorer: configured(ConfiguredJudge::HallucinationsV1),
        needs: &[Need::JudgeModel],
        adk: true,
    },
    MetricSpec {
        name: PER_TURN_USER_SIMULATOR_QUALITY_V1,
        description: "ADK, judged: share of a simulated user's turns that keep to its scenario (starting prompt, plan, persona, stopping on time).",
        default_threshold: 0.8,
        scores: ScoreRange::UNIT,
        criterion_options: None,
        scorer: configured(ConfiguredJudge::PerTurnUserSimulatorQualityV1),
        needs: &[Need::JudgeModel, Need::Scenario],
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
        scorer: Scorer::Computed(Computed::ToolUsed),
        needs: &[],
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
        scorer: plain(PlainJudge::Approximation(of)),
        needs: &[Need::JudgeModel],
        adk: false,
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

/// The built-in judge of that name, if it is one.
pub fn built_in_judge(name: &str) -> Option<BuiltInJudge> {
    match find(name)?.scorer {
        Scorer::Judge(judge) => Some(judge),
        Scorer::Computed(_) | Scorer::Embedding(_) => None,
    }
}

/// The names of [`METRICS`] as "unknown metric" messages list them: the embedding metrics, the
/// computed ones, ADK's judges, then Evalstudio's judges, each group in table order.
pub fn supported_names() -> Vec<&'static str> {
    let group = |spec: &&MetricSpec| match spec.scorer {
        Scorer::Embedding(_) => 0,
        Scorer::Computed(_) => 1,
        Scorer::Judge(_) if spec.adk => 2,
        Scorer::Judge(_) => 3,
    };
    let mut specs: Vec<&MetricSpec> = METRICS.iter().collect();
    specs.sort_by_key(group);
    specs.into_iter().map(|spec| spec.name).collect()
}

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
    pub fn family(&self) -> MetricFamily {
        match self.scorer {
            Scorer::Computed(Computed::ResponseMatch) => MetricFamily::Response,
            Scorer::Computed(_) => MetricFamily::Trajectory,
            Scorer::Embedding(_) => MetricFamily::Embedding,
            Scorer::Judge(_) if self.needs.contains(&Need::Context) => MetricFamily::Rag,
            Scorer::Judge(_) => MetricFamily::Judge,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::{
        score_case, Efficiency, Embedder, EvalConfig, Judge, JudgeKind, JudgeRequest, MetricKind,
        ScoringServices,
    };
    use crate::evalset::{ConversationScenario, EvalCase, Invocation};
    use futures::executor::block_on;
    use futures::future::BoxFuture;
    use serde_json::json;
    use std::borrow::Cow;
    use std::collections::HashSet;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    /// Answers every prompt "yes", counting them.
    #[derive(Default)]
    struct YesJudge(AtomicUsize);

    impl Judge for YesJudge {
        fn complete<'a>(&'a self, _: JudgeRequest<'a>) -> BoxFuture<'a, Result<String, String>> {
            self.0.fetch_add(1, Ordering::SeqCst);
            Box::pin(async { Ok("yes".to_string()) })
        }
    }

    /// The same vector for every text, counting the calls.
    #[derive(Default)]
    struct SameEmbedder(AtomicUsize);

    impl Embedder for SameEmbedder {
        fn embed<'a>(&'a self, texts: &'a [String]) -> BoxFuture<'a, Result<Vec<Vec<f32>>, String>> {
            self.0.fetch_add(1, Ordering::SeqCst);
            Box::pin(async move { Ok(vec![vec![1.0, 0.0]; texts.len()]) })
        }
    }

    fn weather_turn() -> Invocation {
        serde_json::from_value(json!({
            "user_content": {"role": "user", "parts": [{"text": "Weather in Paris?"}]},
            "final_response": {"role": "model", "parts": [{"text": "Sunny in Paris."}]},
            "intermediate_data": {
                "tool_uses": [{"id": "1", "name": "get_weather", "args": {"city": "Paris"}}],
                "tool_responses": [{"id": "1", "name": "get_weather", "response": {"sky": "sunny"}}]
            }
        }))
        .unwrap()
    }

    #[test]
    fn every_metric_name_is_known_once() {
        let names = METRICS
            .iter()
            .map(|spec| spec.name)
            .chain(approximations().map(|a| a.adk_name))
            .chain(INFORMATIONAL_ALIASES.map(|(alias, _)| alias))
            .chain(Efficiency::ALL.map(Efficiency::name));
        let mut seen = HashSet::new();
        for name in names {
            assert!(seen.insert(name), "`{name}` is named twice");
        }
    }

    /// The table and the dispatch cannot drift apart: every metric of the table is read from a
    /// config into the scorer the table names, and `score_case` scores it (asking the judge or the
    /// embedder when the table says so) or says why it could not.
    #[test]
    fn every_metric_of_the_table_is_scored_by_what_the_table_names() {
        let case = EvalCase {
            eval_id: "weather".into(),
            conversation: Some(vec![weather_turn()]),
            ..EvalCase::default()
        };
        for spec in METRICS {
            let config =
                EvalConfig::from_picked([(spec.name, spec.default_threshold, spec.criterion_options)])
                    .unwrap_or_else(|error| panic!("{}: {error}", spec.name));
            let metric = &config.metrics[0];
            assert_eq!(metric.name, spec.name);
            let dispatched = match (spec.scorer, &metric.kind) {
                (
                    Scorer::Computed(_),
                    MetricKind::ToolTrajectory(_)
                    | MetricKind::ResponseMatch
                    | MetricKind::TrajectoryShare { .. }
                    | MetricKind::ToolUsed { .. },
                ) => true,
                (Scorer::Embedding(_), MetricKind::SemanticSimilarity | MetricKind::AnswerRelevance) => true,
                (Scorer::Judge(_), MetricKind::Judge(judge)) => !matches!(judge.kind, JudgeKind::Custom(_)),
                _ => false,
            };
            assert!(
                dispatched,
                "{}: {:?} read as {:?}",
                spec.name, spec.scorer, metric.kind
            );

            let (judge, embedder) = (Arc::new(YesJudge::default()), Arc::new(SameEmbedder::default()));
            let services = ScoringServices {
                judge: Some(judge.clone()),
                embedder: Some(embedder.clone()),
                ..ScoringServices::default()
            };
            // A metric that judges a simulated user needs a scenario case.
            let scenario_case = EvalCase {
                eval_id: "scenario".into(),
                conversation_scenario: Some(ConversationScenario {
                    starting_prompt: "What's the weather in Paris?".into(),
                    conversation_plan: "Ask about the weather.".into(),
                    ..ConversationScenario::default()
                }),
                ..EvalCase::default()
            };
            let case = if spec.needs.contains(&Need::Scenario) {
                &scenario_case
            } else {
                &case
            };
            let result = block_on(score_case(
                "set",
                Cow::Borrowed(case),
                vec![weather_turn()],
                &config,
                &services,
            ));
            let turn = &result.eval_metric_result_per_invocation[0].eval_metric_results[0];
            assert_eq!(turn.metric_name, spec.name);
            assert!(
                turn.score.is_some() || turn.details.reason.as_deref().is_some_and(|r| !r.is_empty()),
                "{}: neither a score nor a reason: {turn:?}",
                spec.name
            );
            let asked = (
                judge.0.load(Ordering::SeqCst) > 0,
                embedder.0.load(Ordering::SeqCst) > 0,
            );
            let expected = match spec.scorer {
                Scorer::Computed(_) => (false, false),
                Scorer::Embedding(_) => (false, true),
                Scorer::Judge(_) => (true, false),
            };
            assert_eq!(asked, expected, "{}: (judge asked, embedder asked)", spec.name);
        }
    }

    #[test]
    fn names_outside_the_table_are_refused_with_their_reason() {
        let error = |name: &str| {
            EvalConfig::parse(&json!({"criteria": {name: 0.5}}).to_string())
                .unwrap_err()
                .to_string()
        };
        for stand_in in approximations() {
            let message = error(stand_in.adk_name);
            assert!(
                message.contains(&format!("use `{}`", stand_in.name)) && message.contains("Vertex AI"),
                "{message}"
            );
            // The stand-in itself is a metric of the table, which says what it approximates.
            let info = metric_infos(ServerModels::default())
                .into_iter()
                .find(|info| info.metric_name == stand_in.name)
                .unwrap();
            assert!(info.note.unwrap().contains(stand_in.adk_name));
            assert_eq!(info.prompt.as_deref(), Some(stand_in.prompt));
        }
        for (alias, adk_name) in INFORMATIONAL_ALIASES {
            assert!(error(alias).contains(&format!("is reported on every eval as `{adk_name}`")));
        }
        for metric in Efficiency::ALL {
            assert!(error(metric.name()).contains("does not support a threshold"));
        }
        assert_eq!(
            error("bleu"),
            "criteria.bleu: unknown metric `bleu`; supported: semantic_similarity, answer_relevance, \
             tool_trajectory_avg_score, response_match_score, tool_trajectory_precision, tool_trajectory_recall, \
             tool_trajectory_f1, tool_single_use, final_response_match_v2, rubric_based_final_response_quality_v1, \
             rubric_based_tool_use_quality_v1, rubric_based_multi_turn_trajectory_quality_v1, hallucinations_v1, \
             per_turn_user_simulator_quality_v1, relevancy, fact_checking, answer_correctness, answer_faithfulness, answer_relevancy, context_precision, \
             context_recall, faithfulness, g_eval, coherence, safety, task_success, trajectory_quality, \
             tool_use_quality (or a custom judge: a criterion with judge_prompt or G-Eval's criteria; \
             or your own evaluator: a criterion with url or evaluator)"
        );
    }
}
