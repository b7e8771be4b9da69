//! One planner for every eval run, whoever asks: the CLI, REST, the browser's Evaluate panel
//! and a case's re-run all describe the run as a [`RunRequest`]; here it is checked with the
//! same limits, its config built, its cases chosen and its agent found. A new run option is
//! added here, once. Recording a plan takes this process's lease on the run, and resuming
//! claims it the same way, so whoever runs it holds it.

use super::error::{EvalRunError, MAX_RUNS_PER_CASE};
use super::label::clean_label;
use super::new_run::NewRun;
use super::stored::{eval_run, failed_in_latest_run, stored_config, stored_eval_set};
use crate::agent::{Agent, AgentKind, AgentProfiles, ReplayMiss, ToolExecution, ToolExecutionMode};
use crate::clock::now_seconds;
use crate::eval::config::EvalConfig;
use crate::eval::evaluators::Evaluators;
use crate::eval::simulator::SimulatorConfig;
use crate::evalset::CompactEvalSet;
use crate::records::runs::{MetricChoice, RunCommit, RunOrigin, RunScope, RunStatus};
use crate::service::eval_sets::eval_set_tool_mode;
use crate::store::{EvalRunRecord, Store};
use serde_json::Value;
use std::sync::Arc;

/// How a run is scored, as each adapter receives it.
pub enum RunMetrics {
    /// ADK's defaults: `tool_trajectory_avg_score` 1.0, `response_match_score` 0.8.
    Default,
    /// ADK's `EvalMetric` list (a REST run request).
    EvalMetrics(Vec<Value>),
    /// Picked in the browser.
    Picked(Vec<MetricChoice>),
    /// A config already read: a test_config.json, or the stored config of the run re-run.
    Config(EvalConfig),
}

/// The eval set a run takes its cases from.
pub enum RunEvalSet {
    /// An eval set of the app in the store, by id.
    Stored(String),
    /// One read from a file, not stored.
    Given(CompactEvalSet),
}

/// Everything a run is started with.
pub struct RunRequest {
    pub app_name: String,
    pub eval_set: RunEvalSet,
    pub scope: RunScope,
    pub metrics: RunMetrics,
    /// ADK's `user_simulator_config` for the scenario cases; None keeps the config's own.
    pub simulator: Option<Value>,
    /// The agent profile; by default the one named like the app.
    pub agent: Option<String>,
    pub num_runs: usize,
    /// What the user calls the run, if anything.
    pub label: Option<String>,
    /// Whether the tools run or answer from each case's recording.
    pub tools: RequestedTools,
}

/// The tool execution a request asks for; without a mode, the evalset's own default (its
/// `tool_execution_mode`, which adk-web sets when it creates one), else live.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RequestedTools {
    pub mode: Option<ToolExecutionMode>,
    pub replay_miss: ReplayMiss,
}

impl From<ToolExecution> for RequestedTools {
    fn from(tools: ToolExecution) -> Self {
        RequestedTools {
            mode: Some(tools.mode),
            replay_miss: tools.replay_miss,
        }
    }
}

/// A checked request: what will run, how it is scored, by which agent.
pub struct RunPlan {
    pub app_name: String,
    /// Only the chosen cases, each held as its JSON.
    pub expected: CompactEvalSet,
    pub config: EvalConfig,
    pub agent_name: String,
    pub agent: Arc<dyn Agent>,
    pub num_runs: usize,
    pub label: Option<String>,
    /// Whether every case of the evalset runs (not a re-run of some).
    pub whole_set: bool,
    pub tools: ToolExecution,
    /// Folder mode: the folder's git commit, which the run records.
    pub commit: Option<RunCommit>,
}

/// Checks `request` and resolves it: the config, the agent, the eval set and its chosen cases.
pub async fn plan_run(
    store: &Store,
    profiles: &AgentProfiles,
    evaluators: &Evaluators,
    request: RunRequest,
) -> Result<RunPlan, EvalRunError> {
    let config = run_config(request.metrics, request.simulator.as_ref(), evaluators)?;
    let label = clean_label(request.label.as_deref())?;
    if config.metrics.is_empty() {
        return Err(EvalRunError::NoMetrics);
    }
    if !(1..=MAX_RUNS_PER_CASE).contains(&request.num_runs) {
        return Err(EvalRunError::BadNumRuns);
    }
    let agent_name = request.agent.unwrap_or_else(|| request.app_name.clone());
    let agent = profile_agent(profiles, &agent_name)?;
    let mut expected = match request.eval_set {
        RunEvalSet::Given(set) => set,
        RunEvalSet::Stored(id) => stored_eval_set(store, &request.app_name, &id).await?,
    };
    let tools = ToolExecution {
        mode: request
            .tools
            .mode
            .or_else(|| eval_set_tool_mode(&expected.header))
            .unwrap_or_default(),
        replay_miss: request.tools.replay_miss,
    };
    check_replay(profiles, &agent_name, tools)?;
    let chosen = chosen_cases(store, &request.app_name, &expected, request.scope).await?;
    let whole_set = chosen.is_none();
    if let Some(chosen) = chosen {
        expected.retain(|eval_id| chosen.iter().any(|id| id == eval_id));
    }
    if expected.is_empty() {
        return Err(EvalRunError::NoCases(expected.header.eval_set_id));
    }
    Ok(RunPlan {
        app_name: request.app_name,
        expected,
        config,
        agent_name,
        agent,
        num_runs: request.num_runs,
        label,
        whole_set,
        tools,
        commit: None,
    })
}

/// The tool execution a request names in words (REST's `toolExecutionMode` and `replayMiss`,
/// the CLI's `--tools` and `--replay-miss`); an absent mode is the evalset's, an absent
/// replay_miss live.
pub fn tool_execution(mode: Option<&str>, replay_miss: Option<&str>) -> Result<RequestedTools, EvalRunError> {
    let mode = mode.map(parse_tool_mode).transpose()?;
    let replay_miss = match replay_miss {
        None => ReplayMiss::Live,
        Some(text) => ReplayMiss::parse(text).ok_or_else(|| {
            EvalRunError::BadConfig(format!(
                "replay_miss: expected \"live\" or \"error\", found \"{text}\""
            ))
        })?,
    };
    Ok(RequestedTools { mode, replay_miss })
}

/// `live` or `replay`, or an error naming the field.
pub fn parse_tool_mode(text: &str) -> Result<ToolExecutionMode, EvalRunError> {
    ToolExecutionMode::parse(text).ok_or_else(|| {
        EvalRunError::BadConfig(format!(
            "tool_execution_mode: expected \"live\" or \"replay\", found \"{text}\""
        ))
    })
}

/// Tool replay answers calls inside Evalstudio; an `adk` profile's tools run on its api_server.
fn check_replay(profiles: &AgentProfiles, agent: &str, tools: ToolExecution) -> Result<(), EvalRunError> {
    let remote = profiles.get(agent).is_some_and(|p| p.kind == AgentKind::Adk);
    if tools.is_replay() && remote {
        return Err(EvalRunError::ReplayUnsupported(agent.to_string()));
    }
    Ok(())
}

/// Records the planned run as `running`, under this process's lease, before any case starts.
pub async fn record_run(store: &Store, plan: &RunPlan) -> Result<EvalRunRecord, EvalRunError> {
    let run = NewRun {
        app: &plan.app_name,
        eval_set_id: plan.expected.eval_set_id(),
        agent: &plan.agent_name,
        expected: &plan.expected,
        config: &plan.config,
        num_runs: plan.num_runs,
        created_at: now_seconds(),
        label: plan.label.as_deref(),
        whole_set: plan.whole_set,
        tools: plan.tools,
        commit: plan.commit.as_ref(),
        result_id: None,
        origin: RunOrigin::Evalstudio,
    };
    Ok(run.queue(store).await?)
}

/// Queues an interrupted or cancelled run again, from any process: the run as stored, now
/// running, and the agent it started with (which must be a profile here).
pub async fn requeue_run(
    store: &Store,
    profiles: &AgentProfiles,
    evaluators: &Evaluators,
    app: &str,
    result_id: &str,
) -> Result<(EvalRunRecord, Arc<dyn Agent>), EvalRunError> {
    let mut record = resumable_run(store, app, result_id).await?;
    let config = stored_config(&record.summary.result_id, &record.config_json)?;
    check_criterion_urls(&config, evaluators)?;
    let agent = profile_agent(profiles, &record.summary.agent)?;
    // Between the read and here another process may have resumed it: the update decides.
    if !store.resume_eval_run(record.row).await? {
        return Err(EvalRunError::AlreadyRunning(record.summary.result_id.clone()));
    }
    record.summary.status = RunStatus::Running;
    record.summary.finished_at = None;
    Ok((record, agent))
}

/// A run for the CLI to work on: an interrupted or cancelled one queued again, or a running one
/// joined as one more worker (its dead workers' cases are claimed once their leases end).
pub async fn take_up_run(
    store: &Store,
    profiles: &AgentProfiles,
    evaluators: &Evaluators,
    app: &str,
    result_id: &str,
) -> Result<(EvalRunRecord, Arc<dyn Agent>), EvalRunError> {
    let record = eval_run(store, app, result_id).await?;
    if record.summary.status != RunStatus::Running {
        return requeue_run(store, profiles, evaluators, app, result_id).await;
    }
    let agent = profile_agent(profiles, &record.summary.agent)?;
    Ok((record, agent))
}

/// The stored run, if it can be resumed (it is interrupted or cancelled); else why not.
pub async fn resumable_run(store: &Store, app: &str, result_id: &str) -> Result<EvalRunRecord, EvalRunError> {
    let record = eval_run(store, app, result_id).await?;
    record
        .summary
        .check_resumable()
        .map_err(EvalRunError::NotResumable)?;
    Ok(record)
}

/// The config a request asks for, checked; a criterion's own `url` only where `evaluators`
/// call such urls (the CLI, on its user's files).
pub(super) fn run_config(
    metrics: RunMetrics,
    simulator: Option<&Value>,
    evaluators: &Evaluators,
) -> Result<EvalConfig, EvalRunError> {
    let mut config = match metrics {
        RunMetrics::Default => EvalConfig::default(),
        RunMetrics::EvalMetrics(metrics) => {
            EvalConfig::from_eval_metrics(&metrics)?.with_thresholds_in_range()?
        }
        RunMetrics::Picked(picked) => EvalConfig::from_picked(
            picked
                .iter()
                .map(|m| (m.metric_name.as_str(), m.threshold, m.options.as_deref())),
        )?,
        RunMetrics::Config(config) => config,
    };
    if let Some(simulator) = simulator.filter(|value| !value.is_null()) {
        config.simulator =
            SimulatorConfig::parse(simulator, "user_simulator_config").map_err(EvalRunError::BadConfig)?;
    }
    check_criterion_urls(&config, evaluators)?;
    Ok(config)
}

/// A server sends requests only where its evalstudio.toml says: a criterion naming its own
/// `url` is refused, whether it arrives in a request or in a stored run resumed.
fn check_criterion_urls(config: &EvalConfig, evaluators: &Evaluators) -> Result<(), EvalRunError> {
    match config.criterion_url_metric() {
        Some(metric) if !evaluators.calls_criterion_urls() => {
            Err(EvalRunError::UndeclaredUrl(metric.to_string()))
        }
        _ => Ok(()),
    }
}

fn profile_agent(profiles: &AgentProfiles, name: &str) -> Result<Arc<dyn Agent>, EvalRunError> {
    profiles.agent_or_error(name).map_err(EvalRunError::UnknownAgent)
}

/// The eval ids `scope` keeps, or None for all of them.
async fn chosen_cases(
    store: &Store,
    app: &str,
    expected: &CompactEvalSet,
    scope: RunScope,
) -> Result<Option<Vec<String>>, EvalRunError> {
    let ids = match scope {
        RunScope::All => return Ok(None),
        RunScope::Selected(ids) if ids.is_empty() => return Err(EvalRunError::NothingSelected),
        RunScope::Selected(ids) => ids,
        RunScope::FailedLastRun => {
            let failed = failed_in_latest_run(store, app, expected.eval_set_id()).await?;
            if failed.is_empty() {
                return Err(EvalRunError::NoneFailed(expected.eval_set_id().to_string()));
            }
            failed
        }
    };
    if let Some(missing) = ids.iter().find(|id| !expected.contains(id)) {
        return Err(EvalRunError::UnknownCase {
            eval_set_id: expected.eval_set_id().to_string(),
            eval_id: missing.clone(),
        });
    }
    Ok(Some(ids))
}
