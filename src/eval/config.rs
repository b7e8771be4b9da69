//! The eval config: ADK's `test_config.json`, `{"criteria": {metric: threshold | criterion}}`
//! (google-adk `eval_config.py`, `eval_metrics.py`).

use super::criterion_fields::{self, kind_of};
use super::evaluators::{EvaluatorTarget, HttpTarget, DEFAULT_EVALUATOR_RETRIES, DEFAULT_EVALUATOR_TIMEOUT};
use super::judge::{parse_judge_metric, JudgeMetric};
use super::metrics::{self, Build, Need, INFORMATIONAL_ALIASES};
use super::simulator::SimulatorConfig;
use pure_metrics::efficiency::Efficiency;
use pure_metrics::partial::TrajectoryShare;
use pure_metrics::score_range::ScoreRange;
use pure_metrics::trajectory::TrajectoryCriterion;
use serde_json::{Map, Value};
use std::sync::Arc;

/// The metrics to score, in the config's order.
#[derive(Debug, Clone, PartialEq)]
pub struct EvalConfig {
    pub metrics: Vec<MetricConfig>,
    /// How the simulated user plays `conversation_scenario` cases (ADK's
    /// `user_simulator_config`).
    pub simulator: SimulatorConfig,
}

/// One metric of the config.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricConfig {
    pub name: String,
    /// Unused by informational metrics, which never pass or fail.
    pub threshold: f64,
    /// The scores it gives: the metric table's for a built-in metric, an evaluator's
    /// `score_range` (0-1 when it declares none), 0-1 for a custom judge.
    pub scores: ScoreRange,
    pub kind: MetricKind,
    /// The criterion as ADK's `EvalMetric.criterion` dumps it: `threshold`,
    /// `include_intermediate_responses_in_final`, then any other keys as written.
    pub criterion: Arc<Map<String, Value>>,
    /// What scoring it needs: its row's in the metric table (see
    /// [`MetricSpec::needs`](super::metrics::MetricSpec::needs)); a custom judge needs the judge
    /// model, an evaluator or an informational metric nothing.
    pub needs: &'static [Need],
    /// It scores a case read lean as the whole case: its row says so, as do the informational
    /// metrics, computed from each turn's outcome alone.
    pub reads_lean_case: bool,
}

/// What a custom judge (a criterion with `judge_prompt` or G-Eval's `criteria`) needs.
const CUSTOM_JUDGE_NEEDS: &[Need] = &[Need::JudgeModel];

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
    /// Scored by an evaluator the user wrote (HTTP, a configured command, or Rust).
    Evaluator(EvaluatorTarget),
}

impl MetricConfig {
    /// An informational metric as ADK appends it: no threshold, no criterion.
    fn efficiency(metric: Efficiency) -> MetricConfig {
        MetricConfig {
            name: metric.name().to_string(),
            threshold: 0.0,
            scores: ScoreRange::UNIT,
            kind: MetricKind::Efficiency(metric),
            criterion: Arc::default(),
            needs: &[],
            reads_lean_case: true,
        }
    }

    /// Why its threshold cannot be met or missed sensibly: outside the scores it gives.
    pub fn threshold_problem(&self) -> Option<String> {
        if self.is_informational() {
            return None;
        }
        self.scores.threshold_problem(&self.name, self.threshold)
    }

    /// Reports a value that never passes or fails the case.
    pub fn is_informational(&self) -> bool {
        matches!(self.kind, MetricKind::Efficiency(_))
    }

    /// The threshold results show: none for an informational metric, as ADK writes it.
    pub fn shown_threshold(&self) -> Option<f64> {
        (!self.is_informational()).then_some(self.threshold)
    }
}

/// Why a config cannot be used; names the offending field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ConfigError(String);

/// The message of a key's reader (`config_fields`, a judge's settings), which names the key.
impl From<String> for ConfigError {
    fn from(message: String) -> Self {
        ConfigError(message)
    }
}

impl Default for EvalConfig {
    /// ADK's default when no config is given: `tool_trajectory_avg_score` 1.0 and
    /// `response_match_score` 0.8, then the informational metrics.
    fn default() -> Self {
        let metric = |name: &str, threshold: f64| {
            parse_metric(name, &threshold.into()).expect("ADK's default metrics are rows of the metric table")
        };
        EvalConfig::with_informational(vec![
            metric(metrics::TOOL_TRAJECTORY_AVG_SCORE, 1.0),
            metric(metrics::RESPONSE_MATCH_SCORE, 0.8),
        ])
    }
}

impl EvalConfig {
    /// The first metric whose criterion names its own evaluator `url` (not a declared one).
    pub fn criterion_url_metric(&self) -> Option<&str> {
        self.metrics
            .iter()
            .find(|m| matches!(m.kind, MetricKind::Evaluator(EvaluatorTarget::Http(_))))
            .map(|m| m.name.as_str())
    }

    /// The given metrics, then ADK's informational metrics (`append_default_efficiency_metrics`:
    /// every eval reports them, and they cannot be configured).
    pub fn with_informational(mut metrics: Vec<MetricConfig>) -> EvalConfig {
        metrics.extend(Efficiency::ALL.map(MetricConfig::efficiency));
        EvalConfig {
            metrics,
            simulator: SimulatorConfig::default(),
        }
    }

    /// The config as a test_config.json (`{"criteria": {name: criterion}}`), which `parse`
    /// reads back to the same config. Informational metrics are not written: they are implied.
    pub fn to_json(&self) -> Value {
        let criteria: Map<String, Value> = self
            .metrics
            .iter()
            .filter(|m| !m.is_informational())
            .map(|m| (m.name.clone(), Value::Object(Map::clone(&m.criterion))))
            .collect();
        let mut json = serde_json::json!({ "criteria": criteria });
        if !self.simulator.written.is_empty() {
            json["user_simulator_config"] = Value::Object(self.simulator.written.clone());
        }
        json
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
            let written: criterion_fields::EvalMetric =
                criterion_fields::read(metric, &path).map_err(ConfigError)?;
            let Some(name) = written.metric_name else {
                return Err(ConfigError(format!("{path}.metric_name: missing")));
            };
            let criterion = match (written.criterion, written.threshold) {
                (Some(mut criterion), threshold) => {
                    if let (None, Some(threshold)) = (criterion.get("threshold"), threshold) {
                        criterion.insert("threshold".into(), threshold);
                    }
                    Value::Object(criterion)
                }
                (None, Some(threshold)) => threshold,
                (None, None) => return Err(ConfigError(format!("{path}.threshold: missing"))),
            };
            criteria.insert(name, criterion);
        }
        EvalConfig::parse(&serde_json::json!({ "criteria": criteria }).to_string())
    }

    /// The metrics picked in the browser: each with its threshold and, for a metric that takes
    /// more, its other criterion keys as the JSON object text the user edited (see
    /// [`MetricSpec::criterion_options`](super::metrics::MetricSpec::criterion_options)). The threshold field wins over one in the options.
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
                let mut criterion = criterion_options(name, options)?;
                criterion.insert("threshold".into(), threshold.into());
                // Name the options field the user edits rather than a config file's path.
                parse_metric(name, &Value::Object(criterion)).map_err(|ConfigError(message)| {
                    ConfigError(message.replacen(&format!("criteria.{name}"), &format!("{name} options"), 1))
                })
            })
            .collect::<Result<_, _>>()?;
        EvalConfig::with_informational(metrics).with_thresholds_in_range()
    }

    /// The config, unless a threshold lies outside its metric's scores (then the first such).
    /// Runs asked for by the browser or over REST are refused so; a file given to the CLI only
    /// warns, as ADK accepts any threshold.
    pub fn with_thresholds_in_range(self) -> Result<EvalConfig, ConfigError> {
        match self.metrics.iter().find_map(MetricConfig::threshold_problem) {
            Some(problem) => Err(ConfigError(problem)),
            None => Ok(self),
        }
    }

    /// Parses a `test_config.json`. Keys may be snake_case or camelCase, as in ADK; top-level
    /// keys that only matter to live mode are ignored.
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
        let simulator = match field(&root, "user_simulator_config", "userSimulatorConfig") {
            Some((key, value)) => SimulatorConfig::parse(value, key).map_err(ConfigError)?,
            None => SimulatorConfig::default(),
        };
        let criteria = match field(&root, "criteria", "criteria") {
            None => {
                return Ok(EvalConfig {
                    simulator,
                    ..EvalConfig::with_informational(Vec::new())
                })
            }
            Some((_, Value::Object(criteria))) => criteria,
            Some(_) => return Err(ConfigError("criteria: expected an object of metric names".into())),
        };
        let metrics = criteria
            .iter()
            .map(|(name, value)| parse_metric(name, value))
            .collect::<Result<_, _>>()?;
        Ok(EvalConfig {
            simulator,
            ..EvalConfig::with_informational(metrics)
        })
    }
}

/// A value by its snake_case or camelCase key (ADK models accept both), with the key as written;
/// null counts as absent. Only for what a key's presence decides (a section whose key prefixes
/// its contents' messages, a `judge_prompt` making a custom judge): the keys inside are read
/// by `config_fields::read`.
pub(super) fn field<'a>(
    object: &'a Map<String, Value>,
    snake: &str,
    camel: &str,
) -> Option<(&'a str, &'a Value)> {
    object
        .iter()
        .find(|(key, value)| (key.as_str() == snake || key.as_str() == camel) && !value.is_null())
        .map(|(key, value)| (key.as_str(), value))
}

fn parse_metric(name: &str, value: &Value) -> Result<MetricConfig, ConfigError> {
    let path = format!("criteria.{name}");
    refuse_informational(name, &path)?;
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
    let spec = metrics::find(name);
    if let Some(target) = evaluator_target(&criterion, &path)? {
        if spec.is_some() {
            return Err(ConfigError(format!(
                "{path}: `{name}` is a built-in metric; give your evaluator a metric name of its own"
            )));
        }
        return Ok(MetricConfig {
            name: name.to_string(),
            threshold,
            scores: declared_scores(&criterion, &path)?,
            kind: MetricKind::Evaluator(target),
            criterion: Arc::new(criterion),
            needs: &[],
            reads_lean_case: false,
        });
    }
    // ADK's criteria may carry extra keys, so a prompt on a built-in metric would be ignored.
    if let Some((key, _)) = field(&criterion, "judge_prompt", "judgePrompt") {
        if spec.is_some() {
            return Err(ConfigError(format!(
                "{path}.{key}: `{name}` is a built-in metric that scores its own way; give a custom judge a metric name of its own"
            )));
        }
    }
    let kind = match spec.map(|spec| spec.build) {
        Some(Build::Metric(build)) => build(&criterion, &path)?,
        // A judge of the table, or a custom one: any other name whose criterion has a judge_prompt.
        _ => match parse_judge_metric(name, &criterion, &path).map_err(ConfigError)? {
            Some(judge) => MetricKind::Judge(Box::new(judge)),
            None => return Err(unknown_metric(name, &path)),
        },
    };
    Ok(MetricConfig {
        name: name.to_string(),
        threshold,
        // A custom judge's reply is mapped onto 0..1 (its `score_range` is the reply's).
        scores: spec.map_or(ScoreRange::UNIT, |spec| spec.scores),
        kind,
        criterion: Arc::new(criterion),
        needs: spec.map_or(CUSTOM_JUDGE_NEEDS, |spec| spec.needs),
        reads_lean_case: spec.is_some_and(|spec| spec.reads_lean_case),
    })
}

/// The informational metrics never pass or fail, so a config cannot give them a threshold.
fn refuse_informational(name: &str, path: &str) -> Result<(), ConfigError> {
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
    Ok(())
}

/// Why a name that is no metric of the table, no custom judge and no evaluator is refused.
fn unknown_metric(name: &str, path: &str) -> ConfigError {
    ConfigError(match metrics::stand_in_for(name) {
        Some(stand_in) => format!(
            "{path}: ADK's `{name}` is scored by Vertex AI's {} on Google Cloud, which Evalstudio does not call; use `{}`, Evalstudio's LLM-judge approximation of it, with your judge model",
            stand_in.vertex_metric, stand_in.name
        ),
        None => format!(
            "{path}: unknown metric `{name}`; supported: {} (or a custom judge: a criterion with judge_prompt or G-Eval's criteria; or your own evaluator: a criterion with url or evaluator)",
            metrics::supported_names().join(", ")
        ),
    })
}

/// An evaluator's `score_range`, the scores it answers: `[min, max]`, 0-1 when absent.
fn declared_scores(criterion: &Map<String, Value>, path: &str) -> Result<ScoreRange, ConfigError> {
    let written: criterion_fields::Evaluator =
        criterion_fields::read(criterion, path).map_err(ConfigError)?;
    Ok(written.score_range.unwrap_or(ScoreRange::UNIT))
}

/// The evaluator a criterion names: `url` (an HTTP evaluator, with optional `timeout_secs` and
/// `retries`) or `evaluator` (one of evalstudio.toml's). A `command` is refused: commands run
/// only from the server's own config file.
fn evaluator_target(
    criterion: &Map<String, Value>,
    path: &str,
) -> Result<Option<EvaluatorTarget>, ConfigError> {
    if criterion.contains_key("command") {
        return Err(ConfigError(format!(
            "{path}.command: commands run only from evalstudio.toml: declare [[evaluators]] with a name and a command there, then use {{\"evaluator\": \"<name>\"}} here"
        )));
    }
    match (criterion.get("url"), criterion.get("evaluator")) {
        (Some(_), Some(_)) => Err(ConfigError(format!(
            "{path}: give either `url` or `evaluator`, not both"
        ))),
        (None, Some(Value::String(name))) if !name.trim().is_empty() => {
            Ok(Some(EvaluatorTarget::Named(name.trim().to_string())))
        }
        (None, Some(other)) => Err(ConfigError(format!(
            "{path}.evaluator: expected the name of one of evalstudio.toml's [[evaluators]], found {}",
            kind_of(other)
        ))),
        (Some(Value::String(url)), None) if url.starts_with("http://") || url.starts_with("https://") => {
            let timeout = match criterion.get("timeout_secs") {
                None => DEFAULT_EVALUATOR_TIMEOUT,
                Some(value) => match value.as_f64().filter(|s| *s > 0.0 && *s <= 3600.0) {
                    Some(seconds) => std::time::Duration::from_secs_f64(seconds),
                    None => {
                        return Err(ConfigError(format!(
                            "{path}.timeout_secs: expected seconds between 0 and 3600, found {value}"
                        )))
                    }
                },
            };
            let retries = match criterion.get("retries") {
                None => DEFAULT_EVALUATOR_RETRIES,
                Some(value) => match value.as_u64().filter(|n| *n <= 10) {
                    Some(n) => n as u32,
                    None => {
                        return Err(ConfigError(format!(
                            "{path}.retries: expected a whole number from 0 to 10, found {value}"
                        )))
                    }
                },
            };
            Ok(Some(EvaluatorTarget::Http(HttpTarget {
                url: url.clone(),
                timeout,
                retries,
                headers: Default::default(),
            })))
        }
        (Some(other), None) => Err(ConfigError(format!(
            "{path}.url: expected an http:// or https:// URL, found {other}"
        ))),
        (None, None) => Ok(None),
    }
}

/// A criterion object: its threshold, and the object as ADK's `BaseCriterion` dumps it.
fn parse_criterion(
    object: &Map<String, Value>,
    path: &str,
) -> Result<(f64, Map<String, Value>), ConfigError> {
    let written: criterion_fields::Base = criterion_fields::read(object, path).map_err(ConfigError)?;
    let Some(threshold) = written.threshold else {
        return Err(ConfigError(format!("{path}.threshold: missing")));
    };
    let include_intermediate = written.include_intermediate_responses_in_final.unwrap_or(false);
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

fn number(value: &Value, path: &str) -> Result<f64, ConfigError> {
    match value.as_f64() {
        Some(n) if n.is_finite() => Ok(n),
        _ => Err(ConfigError(format!(
            "{path}: the threshold must be a number, found {}",
            kind_of(value)
        ))),
    }
}

/// A picked metric's options as the browser's run form sends them: empty, or a JSON object of
/// criterion keys. The run form checks them with this before asking for the run, so a typo is
/// named at once and in the server's words.
pub fn criterion_options(name: &str, options: Option<&str>) -> Result<Map<String, Value>, ConfigError> {
    match options.map(str::trim).filter(|text| !text.is_empty()) {
        None => Ok(Map::new()),
        Some(text) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(options)) => Ok(options),
            Ok(other) => Err(ConfigError(format!(
                "{name} options: expected a JSON object of criterion keys, found {}",
                kind_of(&other)
            ))),
            Err(error) => Err(ConfigError(format!("{name} options: not valid JSON: {error}"))),
        },
    }
}
