//! Server functions behind the evalset page's Evaluate panel: start, watch, cancel and resume
//! runs, and read their results case by case. The work itself is `service::runs`, shared
//! with the REST API and the CLI.

use crate::agent::{ToolExecution, ToolExecutionMode};
use crate::eval::metrics::MetricInfo;
use crate::records::runs::{EvalRunSummary, ResultsPage};
pub use crate::records::runs::{MetricChoice, RunScope};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

#[cfg(feature = "ssr")]
use super::server_error;
#[cfg(feature = "ssr")]
use super::services;
#[cfg(feature = "ssr")]
use crate::service::runs::plan::{RunEvalSet, RunMetrics, RunRequest};
#[cfg(feature = "ssr")]
use crate::service::runs::{lifecycle, stored, views};
#[cfg(feature = "ssr")]
use crate::{access::Role, api::access::require};

/// What the panel offers: the metrics to pick from and the agent profiles to run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvalOffer {
    pub metrics: Vec<MetricInfo>,
    pub agents: Vec<String>,
}

#[server]
pub async fn eval_panel_options() -> Result<EvalOffer, ServerFnError> {
    Ok(EvalOffer {
        metrics: crate::service::metric_offer::offered_metrics(&services().scoring),
        agents: services().profiles.iter().map(|p| p.name.clone()).collect(),
    })
}

/// A run as the run form asks for it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunAsked {
    pub app: String,
    pub eval_set_id: String,
    pub metrics: Vec<MetricChoice>,
    pub agent: String,
    pub num_runs: usize,
    pub scope: RunScope,
    /// ADK's `user_simulator_config`, for the scenario cases; None keeps ADK's defaults.
    pub simulator: Option<serde_json::Value>,
    pub label: Option<String>,
    /// Whether the tools run or answer from each case's recording.
    #[serde(default)]
    pub tools: ToolExecution,
}

/// Starts the run; answers its result id.
/// The tool execution mode the evalset names as its default (adk-web sets one), if any.
#[server]
pub async fn eval_set_tool_mode(
    app: String,
    eval_set_id: String,
) -> Result<Option<ToolExecutionMode>, ServerFnError> {
    crate::service::eval_sets::stored_tool_mode(&services().store, &app, &eval_set_id)
        .await
        .map_err(server_error)
}

#[server(input = leptos::server_fn::codec::Json)]
pub async fn start_eval(run: RunAsked) -> Result<String, ServerFnError> {
    require(Role::Editor)?;
    let request = RunRequest {
        app_name: run.app,
        eval_set: RunEvalSet::Stored(run.eval_set_id),
        scope: run.scope,
        metrics: RunMetrics::Picked(run.metrics),
        simulator: run.simulator,
        agent: Some(run.agent),
        num_runs: run.num_runs,
        label: run.label,
        tools: run.tools.into(),
    };
    let (record, _) = lifecycle::start_eval_run(&services(), request)
        .await
        .map_err(server_error)?;
    Ok(record.summary.result_id)
}

/// The eval set's runs, newest first (runs whose process died show as interrupted).
#[server]
pub async fn list_eval_runs(app: String, eval_set_id: String) -> Result<Vec<EvalRunSummary>, ServerFnError> {
    stored::list_eval_runs(&services().store, &app, Some(&eval_set_id))
        .await
        .map_err(server_error)
}

/// A page of one run's results; without a result id, the eval set's newest run (None if it has
/// none yet).
#[server]
pub async fn get_eval_run(
    app: String,
    eval_set_id: String,
    result_id: Option<String>,
    page: i64,
) -> Result<Option<ResultsPage>, ServerFnError> {
    let store = &services().store;
    let result_id = match result_id {
        Some(id) => id,
        None => match stored::list_eval_runs(store, &app, Some(&eval_set_id))
            .await
            .map_err(server_error)?
            .into_iter()
            .next()
        {
            Some(newest) => newest.result_id,
            None => return Ok(None),
        },
    };
    views::results_page(store, &app, &result_id, page)
        .await
        .map(Some)
        .map_err(server_error)
}

#[server]
pub async fn cancel_eval(app: String, result_id: String) -> Result<(), ServerFnError> {
    require(Role::Editor)?;
    lifecycle::cancel_eval_run(&services(), &app, &result_id)
        .await
        .map_err(server_error)
}

#[server]
pub async fn resume_eval(app: String, result_id: String) -> Result<(), ServerFnError> {
    require(Role::Editor)?;
    lifecycle::resume_eval_run(&services(), &app, &result_id)
        .await
        .map(|_| ())
        .map_err(server_error)
}
