//! Judge metrics in the eval config (`test_config.json`): ADK's `judge_model_options`
//! {judge_model, num_samples, parallelism_limit} and `rubrics`, and custom judge prompts:
//!
//! ```json
//! "criteria": {
//!   "polite_tone": {
//!     "threshold": 0.8,
//!     "judge_prompt": "Is this reply to {query} polite? Reply YES or NO.\n\n{response}",
//!     "reply": "yes_no"
//!   },
//!   "grounded": {
//!     "threshold": 0.6,
//!     "judge_prompt": "Rate 1 to 5 how well {response} uses {context}. Reply {\"score\": n, \"feedback\": \"…\"}",
//!     "reply": "score_json",
//!     "score_range": [1, 5]
//!   },
//!   "correct_and_complete": {
//!     "threshold": 0.6,
//!     "criteria": "The actual output answers the input and agrees with the expected output.",
//!     "evaluation_params": ["input", "actual_output", "expected_output"]
//!   }
//! }
//! ```
//!
//! The last is G-Eval: `criteria` (or `evaluation_steps`, a list, to skip writing them) and the
//! `evaluation_params` the judge sees (input, actual_output, expected_output, context,
//! tool_calls; default input and actual_output).
//!
//! Keys may be snake_case or camelCase, as in ADK.

use super::g_eval::{GEval, GEvalParam, StepsCache};
use super::settings;
use super::template::placeholders;
use super::{CustomJudge, JudgeKind, JudgeMetric, JudgeModelOptions, ReplyKind};
use crate::eval::config::{field, ConfigError};
use crate::eval::config_fields as fields;
use crate::eval::criterion_fields;
use crate::eval::metrics;
use crate::eval::simulator::STOP_SIGNAL;
use crate::evalset::Rubric;
use serde::Deserialize;
use serde_json::{Map, Value};

/// The placeholders a custom judge prompt may use.
const CUSTOM_PLACEHOLDERS: [&str; 4] = ["query", "response", "context", "reference"];

/// A metric's judge settings if it is a judge metric: one of the metric table's (its row builds
/// its kind), or any other name whose criterion has a `judge_prompt` or G-Eval's `criteria`.
/// `criterion` is the metric's criterion object (a bare threshold is `{"threshold": t}`);
/// `path` is where it is, e.g. `criteria.relevancy`, and starts every error. `Ok(None)`: not a
/// judge metric.
pub fn parse_judge_metric(
    name: &str,
    criterion: &Map<String, Value>,
    path: &str,
) -> Result<Option<JudgeMetric>, String> {
    let custom_prompt = field(criterion, "judge_prompt", "judgePrompt");
    let kind = match metrics::find(name) {
        Some(spec) => match spec.judge_kind(criterion, path) {
            Some(kind) => kind.map_err(|error| error.to_string())?,
            None => return Ok(None),
        },
        None => match custom_prompt {
            Some((key, _)) if is_g_eval(criterion) => {
                return Err(format!(
                    "{path}.{key}: a G-Eval metric writes its own prompt from `criteria`; give either judge_prompt or criteria"
                ))
            }
            Some((key, prompt)) => JudgeKind::Custom(custom(criterion, path, key, prompt)?),
            None if is_g_eval(criterion) => JudgeKind::GEval(g_eval_settings(criterion, path)?),
            None => return Ok(None),
        },
    };
    let adk_metric = metrics::find(name).is_some_and(|spec| spec.adk);
    // ADK's criteria allow extra keys; Evalstudio's own are checked, so a typo is not ignored.
    if !adk_metric {
        let mut known = vec![
            "threshold",
            "include_intermediate_responses_in_final",
            "includeIntermediateResponsesInFinal",
            "judge_model_options",
            "judgeModelOptions",
        ];
        if matches!(kind, JudgeKind::Custom(_)) {
            known.extend([
                "judge_prompt",
                "judgePrompt",
                "reply",
                "score_range",
                "scoreRange",
            ]);
        } else if matches!(kind, JudgeKind::GEval(_)) {
            known.extend(G_EVAL_KEYS);
        } else if let Some((key, _)) = custom_prompt {
            return Err(format!(
                "{path}.{key}: `{name}` has its own prompt; give a custom prompt a metric name of its own"
            ));
        }
        if let Some(key) = criterion.keys().find(|k| !known.contains(&k.as_str())) {
            return Err(format!(
                "{path}.{key}: not a setting of a judge metric (known: threshold, \
                 include_intermediate_responses_in_final, judge_model_options{})",
                match kind {
                    JudgeKind::Custom(_) => ", judge_prompt, reply, score_range",
                    JudgeKind::GEval(_) => ", criteria, evaluation_params, evaluation_steps",
                    _ => "",
                }
            ));
        }
    }
    // The base criterion, as the eval config reads it for every metric.
    let base: criterion_fields::Base = read(criterion, path)?;
    let include_intermediate_responses_in_final =
        base.include_intermediate_responses_in_final.unwrap_or(false);
    let options = judge_model_options(criterion, path, if adk_metric { 5 } else { 1 })?;
    if kind.asks_per_item() && options.num_samples != 1 {
        return Err(format!(
            "{path}.judge_model_options.num_samples: `{name}` asks the judge once per statement or \
             context item; only 1 is supported"
        ));
    }
    Ok(Some(JudgeMetric {
        name: name.to_string(),
        kind,
        options,
        include_intermediate_responses_in_final,
    }))
}

/// `hallucinations_v1`'s judge, with the criterion's `evaluate_intermediate_nl_responses`.
pub(crate) fn hallucinations_judge(
    criterion: &Map<String, Value>,
    path: &str,
) -> Result<JudgeKind, ConfigError> {
    let written: settings::Hallucinations = read(criterion, path)?;
    Ok(JudgeKind::HallucinationsV1 {
        evaluate_intermediate_nl_responses: written.evaluate_intermediate_nl_responses.unwrap_or(false),
    })
}

/// `per_turn_user_simulator_quality_v1`'s judge, with the simulated user's `stop_signal`.
pub(crate) fn simulator_quality_judge(
    criterion: &Map<String, Value>,
    path: &str,
) -> Result<JudgeKind, ConfigError> {
    let written: settings::SimulatorQuality = read(criterion, path)?;
    Ok(JudgeKind::PerTurnUserSimulatorQualityV1 {
        stop_signal: written.stop_signal.unwrap_or_else(|| STOP_SIGNAL.to_string()),
    })
}

/// G-Eval's keys beyond a judge metric's.
const G_EVAL_KEYS: [&str; 6] = [
    "criteria",
    "evaluation_params",
    "evaluationParams",
    "evaluation_steps",
    "evaluationSteps",
    "strict_mode",
];

fn is_g_eval(criterion: &Map<String, Value>) -> bool {
    ["criteria", "evaluation_steps", "evaluationSteps"]
        .iter()
        .any(|key| criterion.get(*key).is_some_and(|v| !v.is_null()))
}

/// G-Eval's settings: `criteria` or `evaluation_steps` (at least one), and `evaluation_params`.
pub(crate) fn g_eval_settings(criterion: &Map<String, Value>, path: &str) -> Result<GEval, String> {
    let written: settings::GEvalWritten = read(criterion, path)?;
    if written.criteria.is_none() && written.evaluation_steps.is_none() {
        return Err(format!(
            "{path}.criteria: missing; G-Eval needs the criterion in plain words (or evaluation_steps)"
        ));
    }
    Ok(GEval {
        criteria: written.criteria.unwrap_or_default(),
        params: written
            .evaluation_params
            .unwrap_or_else(|| vec![GEvalParam::Input, GEvalParam::ActualOutput]),
        steps: written.evaluation_steps,
        written_steps: StepsCache::default(),
    })
}

/// The settings `T` reads of a judge metric's criterion (other keys are checked apart).
fn read<T: serde::de::DeserializeOwned>(criterion: &Map<String, Value>, path: &str) -> Result<T, String> {
    fields::read(criterion, path, |_, _| Ok(()))
}

fn judge_model_options(
    criterion: &Map<String, Value>,
    path: &str,
    default_samples: usize,
) -> Result<JudgeModelOptions, String> {
    let Some((key, value)) = field(criterion, "judge_model_options", "judgeModelOptions") else {
        return Ok(JudgeModelOptions {
            judge_model: None,
            num_samples: default_samples,
            parallelism_limit: None,
        });
    };
    let path = format!("{path}.{key}");
    let Value::Object(object) = value else {
        return Err(format!(
            "{path}: expected an object such as {{\"num_samples\": 5}}"
        ));
    };
    let written: WrittenOptions = fields::read(object, &path, |key, _| match key {
        "judge_model_config" | "judgeModelConfig" => Err(format!(
            "{key}: not supported; the judge's temperature and timeouts are set in the [judge] \
             table of evalstudio.toml"
        )),
        _ if WrittenOptions::KEYS.contains(&key) => Ok(()),
        _ => Err(format!(
            "{key}: unknown option (known: judge_model, num_samples, parallelism_limit)"
        )),
    })?;
    Ok(JudgeModelOptions {
        judge_model: written.judge_model,
        num_samples: written.num_samples.unwrap_or(default_samples),
        parallelism_limit: written.parallelism_limit,
    })
}

/// ADK's `judge_model_options`, in either key spelling (its `judge_model_config` is refused,
/// as is any other key).
#[derive(Deserialize)]
struct WrittenOptions {
    #[serde(alias = "judgeModel", default, deserialize_with = "fields::model_name")]
    judge_model: Option<String>,
    #[serde(alias = "numSamples", default, deserialize_with = "fields::positive_integer")]
    num_samples: Option<usize>,
    #[serde(
        alias = "parallelismLimit",
        default,
        deserialize_with = "fields::positive_integer"
    )]
    parallelism_limit: Option<usize>,
}

impl WrittenOptions {
    /// Every key it reads.
    const KEYS: [&str; 6] = [
        "judge_model",
        "judgeModel",
        "num_samples",
        "numSamples",
        "parallelism_limit",
        "parallelismLimit",
    ];
}

/// ADK's `RubricsBasedCriterion.rubrics`: `[{rubric_id, rubric_content: {text_property},
/// description?, type?}]`.
pub(crate) fn criterion_rubrics(criterion: &Map<String, Value>, path: &str) -> Result<Vec<Rubric>, String> {
    let Some((key, value)) = field(criterion, "rubrics", "rubrics") else {
        return Ok(Vec::new());
    };
    let path = format!("{path}.{key}");
    let Value::Array(items) = value else {
        return Err(format!("{path}: expected a list of rubrics"));
    };
    let mut rubrics: Vec<Rubric> = Vec::with_capacity(items.len());
    for (index, item) in items.iter().enumerate() {
        let at = format!("{path}[{index}]");
        let rubric: Rubric = serde_json::from_value(item.clone()).map_err(|e| {
            format!(
                "{at}: {e}; a rubric is {{\"rubric_id\": \"…\", \"rubric_content\": {{\"text_property\": \"…\"}}}}"
            )
        })?;
        if let Some(extra) = rubric.extra.keys().find(|k| k.as_str() != "type") {
            return Err(format!(
                "{at}.{extra}: not a rubric field (known: rubric_id, rubric_content, description, type)"
            ));
        }
        if let Some(extra) = rubric.rubric_content.extra.keys().next() {
            return Err(format!(
                "{at}.rubric_content.{extra}: not a field (known: text_property)"
            ));
        }
        if rubric
            .rubric_content
            .text_property
            .as_deref()
            .is_none_or(|t| t.trim().is_empty())
        {
            return Err(format!(
                "{at}.rubric_content.text_property: missing; it is what the judge checks"
            ));
        }
        if rubrics.iter().any(|r| r.rubric_id == rubric.rubric_id) {
            return Err(format!("{at}.rubric_id: `{}` is used twice", rubric.rubric_id));
        }
        rubrics.push(rubric);
    }
    Ok(rubrics)
}

fn custom(
    criterion: &Map<String, Value>,
    path: &str,
    prompt_key: &str,
    prompt: &Value,
) -> Result<CustomJudge, String> {
    let prompt_field = format!("{path}.{prompt_key}");
    let Some(prompt) = prompt.as_str().filter(|p| !p.trim().is_empty()) else {
        return Err(format!("{prompt_field}: expected the prompt's text"));
    };
    let names = placeholders(prompt);
    if let Some(unknown) = names.iter().find(|n| !CUSTOM_PLACEHOLDERS.contains(n)) {
        return Err(format!(
            "{prompt_field}: unknown placeholder {{{unknown}}}; use {{query}}, {{response}}, {{context}} \
             or {{reference}} (write {{{{ and }}}} for literal braces)"
        ));
    }
    if !names.contains(&"response") {
        return Err(format!(
            "{prompt_field}: the prompt never shows the judge the response; put {{response}} in it"
        ));
    }
    let written: settings::Reply = read(criterion, path)?;
    let Some(reply) = written.reply else {
        return Err(format!(
            "{path}.reply: missing; say what the prompt asks for, \"yes_no\" or \"score_json\""
        ));
    };
    let range: settings::Range = fields::read(criterion, path, |key, _| match key {
        "score_range" | "scoreRange" if reply != ReplyKind::ScoreJson => {
            Err(format!("{key}: only a \"score_json\" reply has a score range"))
        }
        _ => Ok(()),
    })?;
    let score_range = range.score_range.unwrap_or((0.0, 1.0));
    Ok(CustomJudge {
        prompt: prompt.to_string(),
        reply,
        score_range,
        prompt_field,
    })
}
