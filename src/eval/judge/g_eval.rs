//! G-Eval, as DeepEval defines it: a criterion in plain words and the parts of the exchange it
//! reads; the judge first writes evaluation steps for the criterion (once per metric, kept and
//! reused for every case; or the config gives them), then scores each invocation 1 to 10 with a
//! reason, following the steps. The score is normalised to 0..1 as (score - 1) / 9.

use super::input::JudgeInput;
use super::prompts::NO_CONTEXT;
use futures::lock::Mutex;
use serde_json::Value;
use std::fmt;
use std::sync::Arc;

/// The judge's scale; a reply outside it is not read.
pub(super) const SCORE_RANGE: (f64, f64) = (1.0, 10.0);

/// One G-Eval metric.
#[derive(Debug, Clone, PartialEq)]
pub struct GEval {
    pub criteria: String,
    pub params: Vec<GEvalParam>,
    /// The config's own steps; the judge writes them when there are none.
    pub steps: Option<Vec<String>>,
    /// The steps the judge wrote, once, for every case of the run.
    pub written_steps: StepsCache,
}

/// What part of an exchange G-Eval shows the judge (DeepEval's `LLMTestCaseParams`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GEvalParam {
    Input,
    ActualOutput,
    ExpectedOutput,
    Context,
    ToolCalls,
}

impl GEvalParam {
    pub const ALL: [GEvalParam; 5] = [
        GEvalParam::Input,
        GEvalParam::ActualOutput,
        GEvalParam::ExpectedOutput,
        GEvalParam::Context,
        GEvalParam::ToolCalls,
    ];

    /// Its name in a config, e.g. `actual_output`.
    pub fn key(self) -> &'static str {
        match self {
            GEvalParam::Input => "input",
            GEvalParam::ActualOutput => "actual_output",
            GEvalParam::ExpectedOutput => "expected_output",
            GEvalParam::Context => "context",
            GEvalParam::ToolCalls => "tool_calls",
        }
    }

    /// Reads a config's name for it (any case; DeepEval's `tools_called` too).
    pub fn from_key(key: &str) -> Option<GEvalParam> {
        let key = key.to_ascii_lowercase();
        let key = if key == "tools_called" {
            "tool_calls"
        } else {
            key.as_str()
        };
        GEvalParam::ALL.into_iter().find(|param| param.key() == key)
    }

    fn label(self) -> &'static str {
        match self {
            GEvalParam::Input => "Input",
            GEvalParam::ActualOutput => "Actual Output",
            GEvalParam::ExpectedOutput => "Expected Output",
            GEvalParam::Context => "Context",
            GEvalParam::ToolCalls => "Tool Calls",
        }
    }
}

/// The steps a judge wrote, shared by every clone of the metric (every case of a run).
#[derive(Clone, Default)]
pub struct StepsCache(Arc<Mutex<Option<Vec<String>>>>);

impl StepsCache {
    /// The steps written so far, or, first, `write()`'s (kept only when it succeeds, so a failed
    /// attempt is tried again by the next case). Callers wait for one another.
    pub(super) async fn get_or_write<F, Fut>(&self, write: F) -> Result<Vec<String>, String>
    where
        F: FnOnce() -> Fut,
        Fut: std::future::Future<Output = Result<Vec<String>, String>>,
    {
        let mut steps = self.0.lock().await;
        if let Some(steps) = steps.as_ref() {
            return Ok(steps.clone());
        }
        let written = write().await?;
        *steps = Some(written.clone());
        Ok(written)
    }
}

/// Two metrics are the same whatever their judge has written so far.
impl PartialEq for StepsCache {
    fn eq(&self, _: &StepsCache) -> bool {
        true
    }
}

impl fmt::Debug for StepsCache {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("StepsCache")
    }
}

fn param_list(params: &[GEvalParam]) -> String {
    let labels: Vec<&str> = params.iter().map(|p| p.label()).collect();
    match labels.as_slice() {
        [] => String::new(),
        [one] => one.to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// Asks the judge to turn the criterion into steps.
pub(super) fn steps_prompt(g_eval: &GEval) -> String {
    format!(
        "You will judge an AI agent's work against this criterion:\n\n{criteria}\n\n\
         For each exchange you will see its {params}. Write 3 or 4 short evaluation steps that say \
         how to check the criterion using them, and how they bear on one another.\n\n\
         Reply with JSON only, in this form: {{\"steps\": [\"first step\", \"second step\"]}}\n",
        criteria = g_eval.criteria.trim(),
        params = param_list(&g_eval.params),
    )
}

/// Reads the steps from the judge's reply: a `{"steps": [...]}` object, in a code fence or not.
pub(super) fn parse_steps(reply: &str) -> Result<Vec<String>, String> {
    let start = reply.find('{');
    let end = reply.rfind('}');
    let object = match (start, end) {
        (Some(start), Some(end)) if start < end => serde_json::from_str::<Value>(&reply[start..=end]).ok(),
        _ => None,
    };
    let steps: Vec<String> = object
        .as_ref()
        .and_then(|o| o.get("steps"))
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(Value::as_str)
                .map(str::trim)
                .filter(|step| !step.is_empty())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    if steps.is_empty() {
        let excerpt: String = reply.trim().chars().take(200).collect();
        return Err(format!(
            "the judge was asked for G-Eval's evaluation steps as {{\"steps\": [...]}} and replied `{excerpt}`"
        ));
    }
    Ok(steps)
}

/// Asks the judge to score one invocation by the steps; `Err` names a part the invocation lacks.
pub(super) fn score_prompt(g_eval: &GEval, steps: &[String], input: &JudgeInput) -> Result<String, String> {
    let mut parts = Vec::with_capacity(g_eval.params.len());
    for param in &g_eval.params {
        let text = match param {
            GEvalParam::Input => input.query.clone(),
            GEvalParam::ActualOutput => input.response.clone(),
            GEvalParam::ExpectedOutput => match input.reference.as_deref().filter(|r| !r.trim().is_empty()) {
                Some(reference) => reference.to_string(),
                None => return Err(
                    "G-Eval reads the expected output, and this invocation has no expected final response"
                        .into(),
                ),
            },
            GEvalParam::Context if input.context.is_empty() => NO_CONTEXT.to_string(),
            GEvalParam::Context => input.context.join("\n\n"),
            GEvalParam::ToolCalls if input.agent_work.response_steps.trim().is_empty() => {
                "(none)".to_string()
            }
            GEvalParam::ToolCalls => input.agent_work.response_steps.clone(),
        };
        parts.push(format!("{}:\n{text}", param.label()));
    }
    let steps: Vec<String> = steps
        .iter()
        .enumerate()
        .map(|(index, step)| format!("{}. {step}", index + 1))
        .collect();
    Ok(format!(
        "Evaluate the exchange below by following these evaluation steps:\n\n{steps}\n\n{parts}\n\n\
         Give a score from 1 to 10: 10 when the exchange fully meets the steps, 1 when it does not \
         meet them at all. Give a short reason that names specific details of the {params}, without \
         repeating the score.\n\n\
         Reply with JSON only, in this form: {{\"score\": 7, \"reason\": \"...\"}}\n",
        steps = steps.join("\n"),
        parts = parts.join("\n\n"),
        params = param_list(&g_eval.params),
    ))
}
