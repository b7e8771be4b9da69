//! Evalsets as Rust tests: the analogue of ADK's pytest `AgentEvaluator.evaluate`. Load an
//! evalset, run it against an agent, and assert it passed; a failure panics with a report that
//! says which case, which metric, and what the agent did instead.
//!
//! ```
//! use evalstudio::agent::DemoAgent;
//! use evalstudio::eval::config::EvalConfig;
//! use evalstudio::eval::harness::AgentEvaluator;
//!
//! let evalset = r#"{"eval_set_id": "weather", "eval_cases": [{"eval_id": "paris", "conversation": [{
//!     "invocation_id": "turn-1",
//!     "user_content": {"role": "user", "parts": [{"text": "What's the weather in Paris?"}]},
//!     "intermediate_data": {"tool_uses": [{"name": "get_weather", "args": {"city": "Paris"}}]}
//! }]}]}"#;
//! let config = EvalConfig::parse(r#"{"criteria": {"tool_trajectory_avg_score": 1.0}}"#).unwrap();
//!
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! let report = AgentEvaluator::new(DemoAgent::new())
//!     .with_config(config)
//!     .with_num_runs(2)
//!     .evaluate_json(evalset)
//!     .await
//!     .unwrap();
//! report.assert_passed();
//! assert_eq!(report.summaries[0].passed_runs, 2);
//! # });
//! ```

use super::config::EvalConfig;
use super::result::{CaseSummary, EvalCaseResult, EvalStatus};
use super::runner::{run_and_score, CaseSchedule, RunOptions};
use super::score::{summarize_cases, CaseRunScores};
use super::services::ScoringServices;
use crate::agent::Agent;
use crate::evalset::{eval_set_id_from_file_name, parse_evalset_file, EvalSet, LegacyDefaults};
use futures::StreamExt;
use std::fmt;
use std::path::Path;
use std::sync::Arc;

/// Runs evalsets against one agent with one config.
pub struct AgentEvaluator {
    agent: Arc<dyn Agent>,
    config: Option<EvalConfig>,
    services: ScoringServices,
    options: RunOptions,
}

/// What an evaluation found: per case, the verdict pooled over runs, and every case run.
#[derive(Debug, Clone)]
pub struct EvalReport {
    pub eval_set_id: String,
    pub summaries: Vec<CaseSummary>,
    /// Every case run, run after run, each in the evalset's order.
    pub results: Vec<EvalCaseResult>,
}

impl AgentEvaluator {
    pub fn new(agent: impl Agent + 'static) -> AgentEvaluator {
        AgentEvaluator {
            agent: Arc::new(agent),
            config: None,
            services: ScoringServices::default(),
            options: RunOptions::default(),
        }
    }

    /// The metrics to score. Without one, `evaluate_file` reads a test_config.json beside the
    /// file (as ADK does), else ADK's defaults.
    pub fn with_config(mut self, config: EvalConfig) -> Self {
        self.config = Some(config);
        self
    }

    pub fn with_num_runs(mut self, num_runs: usize) -> Self {
        self.options.num_runs = num_runs.max(1);
        self
    }

    /// Scores metrics whose criterion says `"evaluator": name` with your own Rust code; see
    /// [`Evaluator`](super::evaluators::Evaluator).
    pub fn with_evaluator(
        mut self,
        name: impl Into<String>,
        evaluator: impl super::evaluators::Evaluator + 'static,
    ) -> Self {
        self.services.evaluators.insert(name, Arc::new(evaluator));
        self
    }

    /// The judge and embedding model for metrics that need them.
    pub fn with_services(mut self, services: ScoringServices) -> Self {
        self.services = services;
        self
    }

    /// Evaluates an evalset file (any form `evalstudio import` takes).
    pub async fn evaluate_file(&self, path: impl AsRef<Path>) -> Result<EvalReport, String> {
        let path = path.as_ref();
        let text =
            std::fs::read_to_string(path).map_err(|e| format!("{}: cannot read it: {e}", path.display()))?;
        let beside = path.parent().map(|dir| dir.join("test_config.json"));
        let config = match (&self.config, beside.filter(|p| p.is_file())) {
            (Some(config), _) => config.clone(),
            (None, Some(config_path)) => std::fs::read_to_string(&config_path)
                .map_err(|e| e.to_string())
                .and_then(|text| EvalConfig::parse(&text).map_err(|e| e.to_string()))
                .map_err(|e| format!("{}: {e}", config_path.display()))?,
            (None, None) => EvalConfig::default(),
        };
        let file_name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let set = parse(&text, &file_name).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(self.evaluate(&set, &config).await)
    }

    /// Evaluates an evalset given as JSON text, with the evaluator's config (ADK's defaults
    /// when none was set).
    pub async fn evaluate_json(&self, text: &str) -> Result<EvalReport, String> {
        let set = parse(text, "evalset.json")?;
        Ok(self
            .evaluate(&set, &self.config.clone().unwrap_or_default())
            .await)
    }

    pub async fn evaluate(&self, set: &EvalSet, config: &EvalConfig) -> EvalReport {
        let mut finished: Vec<_> = run_and_score(
            self.agent.clone(),
            "evalstudio_test",
            set,
            config,
            &self.services,
            &self.options,
            CaseSchedule::default(),
        )
        .collect()
        .await;
        finished.sort_by_key(|f| (f.run_index, f.case_index));
        let summaries = summarize_cases(
            set,
            finished
                .iter()
                .map(|f| (f.case_index, CaseRunScores::of(&f.result, config))),
            config,
        );
        EvalReport {
            eval_set_id: set.eval_set_id.clone(),
            summaries,
            results: finished.into_iter().map(|f| f.result).collect(),
        }
    }
}

fn parse(text: &str, file_name: &str) -> Result<EvalSet, String> {
    let mut counter = 0;
    let mut new_invocation_id = || {
        counter += 1;
        format!("invocation-{counter}")
    };
    let legacy = LegacyDefaults {
        name: &eval_set_id_from_file_name(file_name),
        file_name,
        now: 0.0,
        new_invocation_id: &mut new_invocation_id,
    };
    parse_evalset_file(text, legacy)
        .map(|(set, _)| set)
        .map_err(|e| e.to_string())
}

impl EvalReport {
    /// Every case passed (over all its runs) and the agent finished every case run.
    pub fn passed(&self) -> bool {
        self.summaries
            .iter()
            .all(|case| case.final_eval_status == EvalStatus::Passed)
    }

    /// Panics with the report unless every case passed.
    #[track_caller]
    pub fn assert_passed(&self) {
        if !self.passed() {
            panic!("{self}");
        }
    }
}

impl fmt::Display for EvalReport {
    /// Each case that did not pass: its metrics against their thresholds, the agent's errors,
    /// and for each failing turn what was expected and what the agent did.
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let failing: Vec<&CaseSummary> = self
            .summaries
            .iter()
            .filter(|c| c.final_eval_status != EvalStatus::Passed)
            .collect();
        writeln!(
            f,
            "evalset `{}`: {} of {} cases passed",
            self.eval_set_id,
            self.summaries.len() - failing.len(),
            self.summaries.len()
        )?;
        for case in failing {
            writeln!(f, "\n  case `{}`: {}", case.eval_id, case.final_eval_status)?;
            for metric in &case.metrics {
                let score = metric
                    .score
                    .map_or("not evaluated".to_string(), |s| format!("{s:.4}"));
                writeln!(
                    f,
                    "    {}: {score} ({}) {}",
                    metric.metric_name,
                    metric.threshold_label(),
                    metric.eval_status
                )?;
            }
            for (run, result) in self
                .results
                .iter()
                .filter(|r| r.eval_id == case.eval_id)
                .enumerate()
            {
                if let Some(error) = &result.error {
                    writeln!(f, "    run {}: agent error: {error}", run + 1)?;
                }
                for (turn, invocation) in result.eval_metric_result_per_invocation.iter().enumerate() {
                    let failed: Vec<&str> = invocation
                        .eval_metric_results
                        .iter()
                        .filter(|m| m.eval_status == EvalStatus::Failed)
                        .map(|m| m.metric_name.as_str())
                        .collect();
                    if failed.is_empty() {
                        continue;
                    }
                    let calls = |i: &crate::evalset::Invocation| {
                        let names: Vec<String> = i
                            .tool_calls()
                            .iter()
                            .map(|c| {
                                let args = c.args.clone().map(serde_json::Value::Object).unwrap_or_default();
                                format!("{}({args})", c.name.as_deref().unwrap_or("?"))
                            })
                            .collect();
                        format!("[{}]", names.join(", "))
                    };
                    let text = |i: &crate::evalset::Invocation| {
                        pure_metrics::rouge::response_text(i.final_response.as_ref())
                    };
                    writeln!(
                        f,
                        "    run {} turn {}: failed {}",
                        run + 1,
                        turn + 1,
                        failed.join(", ")
                    )?;
                    if let Some(expected) = &invocation.expected_invocation {
                        writeln!(f, "      expected tools: {}", calls(expected))?;
                        writeln!(f, "      expected reply: {:?}", text(expected))?;
                    }
                    writeln!(
                        f,
                        "      actual tools:   {}",
                        calls(&invocation.actual_invocation)
                    )?;
                    writeln!(
                        f,
                        "      actual reply:   {:?}",
                        text(&invocation.actual_invocation)
                    )?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::DemoAgent;

    const ROME: &str = r#"{"eval_set_id": "weather", "eval_cases": [
        {"eval_id": "paris", "conversation": [{"invocation_id": "1",
            "user_content": {"role": "user", "parts": [{"text": "What's the weather in Paris?"}]},
            "intermediate_data": {"tool_uses": [{"name": "get_weather", "args": {"city": "Paris"}}]}}]},
        {"eval_id": "rome", "conversation": [{"invocation_id": "1",
            "user_content": {"role": "user", "parts": [{"text": "What's the weather in Paris?"}]},
            "intermediate_data": {"tool_uses": [{"name": "get_weather", "args": {"city": "Rome"}}]}}]}
    ]}"#;

    #[tokio::test]
    async fn a_failing_case_is_reported_with_what_the_agent_did() {
        let config = EvalConfig::parse(r#"{"criteria": {"tool_trajectory_avg_score": 1.0}}"#).unwrap();
        let report = AgentEvaluator::new(DemoAgent::new())
            .with_config(config)
            .evaluate_json(ROME)
            .await
            .unwrap();
        assert!(!report.passed());
        let text = report.to_string();
        assert!(
            text.starts_with("evalset `weather`: 1 of 2 cases passed"),
            "{text}"
        );
        assert!(text.contains("case `rome`: FAILED"), "{text}");
        assert!(
            text.contains("tool_trajectory_avg_score: 0.0000 (threshold 1) FAILED"),
            "{text}"
        );
        assert!(
            text.contains(r#"expected tools: [get_weather({"city":"Rome"})]"#),
            "{text}"
        );
        assert!(
            text.contains(r#"actual tools:   [get_weather({"city":"Paris"})]"#),
            "{text}"
        );
        assert!(!text.contains("case `paris`"), "{text}");
        let panic = std::panic::catch_unwind(|| report.assert_passed()).unwrap_err();
        assert!(panic.downcast_ref::<String>().unwrap().contains("case `rome`"));
    }

    #[tokio::test]
    async fn a_file_uses_the_test_config_beside_it() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("weather.test.json"), ROME).unwrap();
        std::fs::write(
            dir.path().join("test_config.json"),
            r#"{"criteria": {"tool_trajectory_avg_score": {"threshold": 1, "ignore_args": true}}}"#,
        )
        .unwrap();
        let report = AgentEvaluator::new(DemoAgent::new())
            .evaluate_file(dir.path().join("weather.test.json"))
            .await
            .unwrap();
        report.assert_passed();
        let error = AgentEvaluator::new(DemoAgent::new())
            .evaluate_file(dir.path().join("missing.test.json"))
            .await
            .unwrap_err();
        assert!(error.contains("missing.test.json: cannot read it"), "{error}");
    }
}
