//! The eval config: ADK's `test_config.json`, `{"criteria": {metric: threshold | criterion}}`
//! (google-adk `eval_config.py`, `eval_metrics.py`).

use super::efficiency::{Efficiency, INVOCATION_DURATION_V1, TOKEN_USAGE_V1, TOOL_CALL_COUNT_V1};
use super::judge::{parse_judge_metric, JudgeMetric, JUDGE_METRICS};
use super::partial::TrajectoryShare;
use super::trajectory::{MatchType, TrajectoryCriterion};
use serde_json::{Map, Value};

pub const TOOL_TRAJECTORY_AVG_SCORE: &str = "tool_trajectory_avg_score";
pub const RESPONSE_MATCH_SCORE: &str = "response_match_score";
pub const TOOL_TRAJECTORY_PRECISION: &str = "tool_trajectory_precision";
pub const TOOL_TRAJECTORY_RECALL: &str = "tool_trajectory_recall";
pub const TOOL_TRAJECTORY_F1: &str = "tool_trajectory_f1";
pub const TOOL_SINGLE_USE: &str = "tool_single_use";
pub const SEMANTIC_SIMILARITY: &str = "semantic_similarity";
pub const ANSWER_RELEVANCE: &str = "answer_relevance";

/// A metric this build scores, for `GET /apps/{app}/eval_metrics` (ADK's `MetricInfo`) and the
/// browser's metric picker.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MetricInfo {
    pub metric_name: String,
    pub description: String,
    /// The default threshold the browser proposes.
    pub default_threshold: f64,
    /// The criterion's keys beyond the threshold, as the JSON object the browser prefills for
    /// editing (`match_type`, `tool_name`, `rubrics`…); `None` when a threshold is all it takes.
    pub criterion_options: Option<String>,
}

/// Every metric this build scores, in the order the browser lists them.
pub fn metric_infos() -> Vec<MetricInfo> {
    let info = |name: &str, default_threshold: f64, description: &str| MetricInfo {
        metric_name: name.to_string(),
        description: description.to_string(),
        default_threshold,
        criterion_options: None,
    };
    vec![
        MetricInfo {
            criterion_options: Some(r#"{"match_type": "EXACT", "ignore_args": false}"#.into()),
            ..info(
                TOOL_TRAJECTORY_AVG_SCORE,
                1.0,
                "ADK: 1 per invocation whose tool calls match the expected ones (EXACT, IN_ORDER or ANY_ORDER; ignore_args), averaged.",
            )
        },
        info(
            RESPONSE_MATCH_SCORE,
            0.8,
            "ADK: ROUGE-1 F-measure of the final response against the expected one.",
        ),
        info(
            TOOL_TRAJECTORY_PRECISION,
            0.8,
            "Share of the calls made that were expected (multiset match of name and args).",
        ),
        info(
            TOOL_TRAJECTORY_RECALL,
            0.8,
            "Share of the expected calls that were made (multiset match of name and args).",
        ),
        info(
            TOOL_TRAJECTORY_F1,
            0.8,
            "Harmonic mean of trajectory precision and recall.",
        ),
        info(
            SEMANTIC_SIMILARITY,
            0.7,
            "Cosine of the sentence embeddings (all-MiniLM-L6-v2, in-process) of the expected and actual final responses.",
        ),
        info(
            ANSWER_RELEVANCE,
            0.3,
            "Cosine of the sentence embeddings of the user's message and the agent's response.",
        ),
        info(
            "final_response_match_v2",
            0.5,
            "ADK, judged: the final response is valid given the expected one (majority over num_samples).",
        ),
        info(
            "relevancy",
            1.0,
            "Judged: the response is in line with the query and the context (the tool responses).",
        ),
        info(
            "fact_checking",
            1.0,
            "Judged: the context (the tool responses) supports the response.",
        ),
        info(
            "answer_correctness",
            1.0,
            "Judged: the response agrees with the expected final response.",
        ),
        info(
            "answer_faithfulness",
            0.5,
            "Judged 0-1: the response sticks to the context.",
        ),
        info(
            "answer_relevancy",
            0.5,
            "Judged 0-1: the response answers the query.",
        ),
        info(
            "context_precision",
            0.5,
            "Judged RAG: the useful context items come first (mean precision@k over relevant items).",
        ),
        info(
            "context_recall",
            0.5,
            "Judged RAG: share of the expected answer's statements found in the context.",
        ),
        info(
            "faithfulness",
            0.5,
            "Judged RAG: share of the response's claims that the context supports.",
        ),
        MetricInfo {
            criterion_options: Some(
                r#"{"rubrics": [{"rubric_id": "r1", "rubric_content": {"text_property": "The answer is polite."}}]}"#
                    .into(),
            ),
            ..info(
                "rubric_based_final_response_quality_v1",
                0.5,
                "ADK, judged: the final response meets each rubric (yes/no per rubric, averaged).",
            )
        },
        MetricInfo {
            criterion_options: Some(r#"{"tool_name": "get_weather"}"#.into()),
            ..info(
                TOOL_SINGLE_USE,
                1.0,
                "Whether the conversation called the tool named by the criterion's tool_name.",
            )
        },
    ]
}

/// Metrics this build scores, as named in a config.
const SUPPORTED: [&str; 8] = [
    SEMANTIC_SIMILARITY,
    ANSWER_RELEVANCE,
    TOOL_TRAJECTORY_AVG_SCORE,
    RESPONSE_MATCH_SCORE,
    TOOL_TRAJECTORY_PRECISION,
    TOOL_TRAJECTORY_RECALL,
    TOOL_TRAJECTORY_F1,
    TOOL_SINGLE_USE,
];

/// Metrics that ADK defines but this build cannot score yet.
const NOT_YET_SUPPORTED: [&str; 9] = [
    "response_evaluation_score",
    "safety_v1",
    "hallucinations_v1",
    "rubric_based_tool_use_quality_v1",
    "per_turn_user_simulator_quality_v1",
    "multi_turn_task_success_v1",
    "multi_turn_trajectory_quality_v1",
    "multi_turn_tool_use_quality_v1",
    "rubric_based_multi_turn_trajectory_quality_v1",
];

/// The design's names for the informational metrics, and ADK's metric that reports each.
const INFORMATIONAL_ALIASES: [(&str, &str); 3] = [
    ("tool_call_count", TOOL_CALL_COUNT_V1),
    ("latency_ms", INVOCATION_DURATION_V1),
    ("token_usage", TOKEN_USAGE_V1),
];

/// The metrics to score, in the config's order.
#[derive(Debug, Clone, PartialEq)]
pub struct EvalConfig {
    pub metrics: Vec<MetricConfig>,
}

/// One metric of the config.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricConfig {
    pub name: String,
    /// Unused by informational metrics, which never pass or fail.
    pub threshold: f64,
    pub kind: MetricKind,
    /// The criterion as ADK's `EvalMetric.criterion` dumps it: `threshold`,
    /// `include_intermediate_responses_in_final`, then any other keys as written.
    pub criterion: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum MetricKind {
    ToolTrajectory(TrajectoryCriterion),
    ResponseMatch,
    TrajectoryShare {
        share: TrajectoryShare,
        ignore_args: bool,
    },
    /// Passes when the conversation called this tool.
    ToolUsed {
        tool_name: String,
    },
    /// Scored by an LLM judge (built-in or a custom prompt).
    Judge(Box<JudgeMetric>),
    /// Embedding cosine of the expected and actual final responses.
    SemanticSimilarity,
    /// Embedding cosine of the user's message and the response.
    AnswerRelevance,
    /// ADK's informational efficiency metrics: a value, never a pass or fail.
    Efficiency(Efficiency),
}

impl MetricConfig {
    /// An informational metric as ADK appends it: no threshold, no criterion.
    fn efficiency(metric: Efficiency) -> MetricConfig {
        MetricConfig {
            name: metric.name().to_string(),
            threshold: 0.0,
            kind: MetricKind::Efficiency(metric),
            criterion: Map::new(),
        }
    }

    /// Reports a value that never passes or fails the case.
    pub fn is_informational(&self) -> bool {
        matches!(self.kind, MetricKind::Efficiency(_))
    }
}

/// Why a config cannot be used; names the offending field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ConfigError(String);

impl Default for EvalConfig {
    /// ADK's default when no config is given: `tool_trajectory_avg_score` 1.0 and
    /// `response_match_score` 0.8, then the informational metrics.
    fn default() -> Self {
        let metric = |name: &str, threshold: f64, kind| MetricConfig {
            name: name.to_string(),
            threshold,
            kind,
            criterion: base_criterion(threshold, false),
        };
        EvalConfig::with_informational(vec![
            metric(
                TOOL_TRAJECTORY_AVG_SCORE,
                1.0,
                MetricKind::ToolTrajectory(TrajectoryCriterion::default()),
            ),
            metric(RESPONSE_MATCH_SCORE, 0.8, MetricKind::ResponseMatch),
        ])
    }
}

impl EvalConfig {
    /// The given metrics, then ADK's informational metrics (`append_default_efficiency_metrics`:
    /// every eval reports them, and they cannot be configured).
    pub fn with_informational(mut metrics: Vec<MetricConfig>) -> EvalConfig {
        metrics.extend(Efficiency::ALL.map(MetricConfig::efficiency));
        EvalConfig { metrics }
    }

    /// The config as a test_config.json (`{"criteria": {name: criterion}}`), which `parse`
    /// reads back to the same config. Informational metrics are not written: they are implied.
    pub fn to_json(&self) -> Value {
        let criteria: Map<String, Value> = self
            .metrics
            .iter()
            .filter(|m| !m.is_informational())
            .map(|m| (m.name.clone(), Value::Object(m.criterion.clone())))
            .collect();
        serde_json::json!({ "criteria": criteria })
    }

    /// The metrics of a REST run request: ADK's `EvalMetric` list, `[{"metric_name": ...,
    /// "threshold": ..., "criterion": {...}}]` (either key case). A criterion wins over a bare
    /// threshold, as in ADK 2.x.
    pub fn from_eval_metrics(metrics: &[Value]) -> Result<EvalConfig, ConfigError> {
        let mut criteria = Map::new();
        for (index, metric) in metrics.iter().enumerate() {
            let path = format!("eval_metrics[{index}]");
            let Value::Object(metric) = metric else {
                return Err(ConfigError(format!(
                    "{path}: expected an object such as {{\"metric_name\": \"response_match_score\", \"threshold\": 0.8}}"
                )));
            };
            let name = match field(metric, "metric_name", "metricName") {
                Some((_, Value::String(name))) => name,
                Some((key, other)) => {
                    return Err(ConfigError(format!(
                        "{path}.{key}: expected a metric name, found {}",
                        kind_of(other)
                    )))
                }
                None => return Err(ConfigError(format!("{path}.metric_name: missing"))),
            };
            let criterion = match (
                field(metric, "criterion", "criterion"),
                field(metric, "threshold", "threshold"),
            ) {
                (Some((_, Value::Object(criterion))), threshold) => {
                    let mut criterion = criterion.clone();
                    if let (None, Some((_, threshold))) = (criterion.get("threshold"), threshold) {
                        criterion.insert("threshold".into(), threshold.clone());
                    }
                    Value::Object(criterion)
                }
                (Some((key, other)), _) => {
                    return Err(ConfigError(format!(
                        "{path}.{key}: expected an object, found {}",
                        kind_of(other)
                    )))
                }
                (None, Some((_, threshold))) => threshold.clone(),
                (None, None) => return Err(ConfigError(format!("{path}.threshold: missing"))),
            };
            criteria.insert(name.clone(), criterion);
        }
        EvalConfig::parse(&serde_json::json!({ "criteria": criteria }).to_string())
    }

    /// The metrics picked in the browser: each with its threshold and, for a metric that takes
    /// more, its other criterion keys as the JSON object text the user edited (see
    /// [`MetricInfo::criterion_options`]). The threshold field wins over one in the options.
    pub fn from_picked<'a>(
        picked: impl IntoIterator<Item = (&'a str, f64, Option<&'a str>)>,
    ) -> Result<EvalConfig, ConfigError> {
        let mut names = std::collections::HashSet::new();
        let metrics = picked
            .into_iter()
            .map(|(name, threshold, options)| {
                if !names.insert(name) {
                    return Err(ConfigError(format!(
                        "{name}: picked twice; give each metric a name of its own"
                    )));
                }
                let mut criterion = match options.map(str::trim).filter(|text| !text.is_empty()) {
                    None => Map::new(),
                    Some(text) => match serde_json::from_str::<Value>(text) {
                        Ok(Value::Object(options)) => options,
                        Ok(other) => {
                            return Err(ConfigError(format!(
                                "{name} options: expected a JSON object of criterion keys, found {}",
                                kind_of(&other)
                            )))
                        }
                        Err(error) => {
                            return Err(ConfigError(format!("{name} options: not valid JSON: {error}")))
                        }
                    },
                };
                criterion.insert("threshold".into(), threshold.into());
                // Name the options field the user edits rather than a config file's path.
                parse_metric(name, &Value::Object(criterion)).map_err(|ConfigError(message)| {
                    ConfigError(message.replacen(&format!("criteria.{name}"), &format!("{name} options"), 1))
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(EvalConfig::with_informational(metrics))
    }

    /// Parses a `test_config.json`. Keys may be snake_case or camelCase, as in ADK; top-level
    /// keys that only matter to a user simulator or live mode are ignored.
    pub fn parse(text: &str) -> Result<EvalConfig, ConfigError> {
        let root: Value =
            serde_json::from_str(text).map_err(|e| ConfigError(format!("not valid JSON: {e}")))?;
        let Value::Object(root) = root else {
            return Err(ConfigError(
                "expected an object such as {\"criteria\": {\"tool_trajectory_avg_score\": 1.0}}".into(),
            ));
        };
        match field(&root, "custom_metrics", "customMetrics") {
            Some((key, Value::Object(custom))) => {
                if let Some(name) = custom.keys().next() {
                    return Err(ConfigError(format!(
                        "{key}.{name}: custom metrics are not supported yet"
                    )));
                }
            }
            Some((key, _)) => return Err(ConfigError(format!("{key}: expected an object of metric names"))),
            None => {}
        }
        let criteria = match field(&root, "criteria", "criteria") {
            None => return Ok(EvalConfig::with_informational(Vec::new())),
            Some((_, Value::Object(criteria))) => criteria,
            Some(_) => return Err(ConfigError("criteria: expected an object of metric names".into())),
        };
        let metrics = criteria
            .iter()
            .map(|(name, value)| parse_metric(name, value))
            .collect::<Result<_, _>>()?;
        Ok(EvalConfig::with_informational(metrics))
    }
}

/// A value by its snake_case or camelCase key (ADK models accept both).
fn field<'a>(object: &'a Map<String, Value>, snake: &str, camel: &str) -> Option<(&'a str, &'a Value)> {
    object
        .iter()
        .find(|(key, value)| (key.as_str() == snake || key.as_str() == camel) && !value.is_null())
        .map(|(key, value)| (key.as_str(), value))
}

fn parse_metric(name: &str, value: &Value) -> Result<MetricConfig, ConfigError> {
    let path = format!("criteria.{name}");
    if Efficiency::from_name(name).is_some() {
        return Err(ConfigError(format!(
            "{path}: `{name}` does not support a threshold: it reports a value and never passes or fails; remove it from criteria, it is reported on every eval"
        )));
    }
    if let Some((_, adk_name)) = INFORMATIONAL_ALIASES.iter().find(|(alias, _)| *alias == name) {
        return Err(ConfigError(format!(
            "{path}: `{name}` is reported on every eval as `{adk_name}` and never passes or fails; remove it from criteria"
        )));
    }
    let (threshold, criterion) = match value {
        Value::Number(_) => {
            let threshold = number(value, &path)?;
            (threshold, base_criterion(threshold, false))
        }
        Value::Object(object) => parse_criterion(object, &path)?,
        other => {
            return Err(ConfigError(format!(
                "{path}: expected a threshold (a number) or a criterion object, found {}",
                kind_of(other)
            )))
        }
    };
    // ADK's criteria may carry extra keys, so a prompt on a built-in metric would be ignored.
    if let Some((key, _)) = field(&criterion, "judge_prompt", "judgePrompt") {
        if SUPPORTED.contains(&name) || JUDGE_METRICS.contains(&name) {
            return Err(ConfigError(format!(
                "{path}.{key}: `{name}` is a built-in metric that scores its own way; give a custom judge a metric name of its own"
            )));
        }
    }
    let kind = match name {
        TOOL_TRAJECTORY_AVG_SCORE => MetricKind::ToolTrajectory(trajectory_criterion(&criterion, &path)?),
        RESPONSE_MATCH_SCORE => MetricKind::ResponseMatch,
        TOOL_TRAJECTORY_PRECISION | TOOL_TRAJECTORY_RECALL | TOOL_TRAJECTORY_F1 => {
            let share = match name {
                TOOL_TRAJECTORY_PRECISION => TrajectoryShare::Precision,
                TOOL_TRAJECTORY_RECALL => TrajectoryShare::Recall,
                _ => TrajectoryShare::F1,
            };
            let ignore_args = trajectory_criterion(&criterion, &path)?.ignore_args;
            MetricKind::TrajectoryShare { share, ignore_args }
        }
        SEMANTIC_SIMILARITY => MetricKind::SemanticSimilarity,
        ANSWER_RELEVANCE => MetricKind::AnswerRelevance,
        TOOL_SINGLE_USE => MetricKind::ToolUsed {
            tool_name: match field(&criterion, "tool_name", "toolName") {
                Some((_, Value::String(tool))) if !tool.trim().is_empty() => tool.trim().to_string(),
                Some((key, other)) => {
                    return Err(ConfigError(format!(
                        "{path}.{key}: expected the tool's name, found {}",
                        kind_of(other)
                    )))
                }
                None => {
                    return Err(ConfigError(format!(
                        "{path}.tool_name: missing; {TOOL_SINGLE_USE} needs the tool to look for, e.g. {{\"threshold\": 1, \"tool_name\": \"get_weather\"}}"
                    )))
                }
            },
        },
        _ => match parse_judge_metric(name, &criterion, &path).map_err(ConfigError)? {
            Some(judge) => MetricKind::Judge(Box::new(judge)),
            None if NOT_YET_SUPPORTED.contains(&name) => {
                return Err(ConfigError(format!(
                    "{path}: metric `{name}` is not supported yet"
                )))
            }
            None => {
                return Err(ConfigError(format!(
                    "{path}: unknown metric `{name}`; supported: {}, {} (or a custom judge: a criterion with judge_prompt)",
                    SUPPORTED.join(", "),
                    JUDGE_METRICS.join(", ")
                )))
            }
        },
    };
    Ok(MetricConfig {
        name: name.to_string(),
        threshold,
        kind,
        criterion,
    })
}

/// A criterion object: its threshold, and the object as ADK's `BaseCriterion` dumps it.
fn parse_criterion(
    object: &Map<String, Value>,
    path: &str,
) -> Result<(f64, Map<String, Value>), ConfigError> {
    let Some((key, threshold)) = field(object, "threshold", "threshold") else {
        return Err(ConfigError(format!("{path}.threshold: missing")));
    };
    let threshold = number(threshold, &format!("{path}.{key}"))?;
    let include_intermediate = match field(
        object,
        "include_intermediate_responses_in_final",
        "includeIntermediateResponsesInFinal",
    ) {
        None => false,
        Some((key, value)) => boolean(value, &format!("{path}.{key}"))?,
    };
    let mut criterion = base_criterion(threshold, include_intermediate);
    for (key, value) in object {
        let known = [
            "threshold",
            "include_intermediate_responses_in_final",
            "includeIntermediateResponsesInFinal",
        ];
        if !known.contains(&key.as_str()) {
            criterion.insert(key.clone(), value.clone());
        }
    }
    Ok((threshold, criterion))
}

fn base_criterion(threshold: f64, include_intermediate: bool) -> Map<String, Value> {
    let mut criterion = Map::new();
    criterion.insert("threshold".into(), threshold.into());
    criterion.insert(
        "include_intermediate_responses_in_final".into(),
        include_intermediate.into(),
    );
    criterion
}

/// `match_type` and `ignore_args` as ADK's `ToolTrajectoryCriterion` reads them.
fn trajectory_criterion(
    criterion: &Map<String, Value>,
    path: &str,
) -> Result<TrajectoryCriterion, ConfigError> {
    let match_type = match field(criterion, "match_type", "matchType") {
        None => MatchType::default(),
        Some((key, value)) => match_type(value).ok_or_else(|| {
            ConfigError(format!(
                "{path}.{key}: {value} is not a match type; use \"EXACT\", \"IN_ORDER\" or \"ANY_ORDER\" (or 0, 1, 2)"
            ))
        })?,
    };
    let ignore_args = match field(criterion, "ignore_args", "ignoreArgs") {
        None => false,
        Some((key, value)) => boolean(value, &format!("{path}.{key}"))?,
    };
    Ok(TrajectoryCriterion {
        match_type,
        ignore_args,
    })
}

/// A member name (any case, `-` or space for `_`, as ADK's validator normalises it) or value.
fn match_type(value: &Value) -> Option<MatchType> {
    match value {
        Value::String(name) => {
            let normalized = name.trim().to_uppercase().replace(['-', ' '], "_");
            MatchType::ALL.into_iter().find(|m| m.name() == normalized)
        }
        Value::Number(n) => MatchType::ALL
            .into_iter()
            .find(|m| n.as_f64() == Some(f64::from(*m as u8))),
        _ => None,
    }
}

fn number(value: &Value, path: &str) -> Result<f64, ConfigError> {
    match value.as_f64() {
        Some(n) if n.is_finite() => Ok(n),
        _ => Err(ConfigError(format!(
            "{path}: the threshold must be a number, found {}",
            kind_of(value)
        ))),
    }
}

fn boolean(value: &Value, path: &str) -> Result<bool, ConfigError> {
    value.as_bool().ok_or_else(|| {
        ConfigError(format!(
            "{path}: expected true or false, found {}",
            kind_of(value)
        ))
    })
}

fn kind_of(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => format!("the string {s:?}"),
        Value::Array(_) => "a list".into(),
        Value::Object(_) => "an object".into(),
    }
}
