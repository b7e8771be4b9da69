//! Server functions behind the evalset page's Evaluate panel: start, watch, cancel and resume
//! runs, and read their results case by case. The work itself is `service::eval_runs`, shared
//! with the REST API and the CLI.

use crate::eval::MetricInfo;
use crate::records::{EvalRunSummary, ResultsPage};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

#[cfg(feature = "ssr")]
use super::services;
#[cfg(feature = "ssr")]
use crate::service::{eval_runs, last_run, run_views};

/// What the panel offers: the metrics to pick from and the agent profiles to run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvalOffer {
    pub metrics: Vec<MetricInfo>,
    pub agents: Vec<String>,
}

/// One picked metric.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricChoice {
    pub metric_name: String,
    pub threshold: f64,
    /// The criterion's other keys as JSON object text, for metrics that take them.
    pub options: Option<String>,
}

/// Which of the eval set's cases a run takes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum RunScope {
    All,
    /// These eval ids (the cases selected in the list).
    Selected(Vec<String>),
    /// The cases that failed or errored in the eval set's latest run.
    FailedLastRun,
}

#[server]
pub async fn eval_panel_options() -> Result<EvalOffer, ServerFnError> {
    Ok(EvalOffer {
        metrics: crate::service::metric_offer::offered_metrics(&services().scoring),
        agents: services().profiles.iter().map(|p| p.name.clone()).collect(),
    })
}

#[server(input = leptos::server_fn::codec::Json)]
pub async fn start_eval(
    app: String,
    eval_set_id: String,
    metrics: Vec<MetricChoice>,
    agent: String,
    num_runs: usize,
    scope: RunScope,
    /// ADK's `user_simulator_config`, for the scenario cases; None keeps ADK's defaults.
    simulator: Option<serde_json::Value>,
) -> Result<String, ServerFnError> {
    let mut config = crate::eval::EvalConfig::from_picked(
        metrics
            .iter()
            .map(|m| (m.metric_name.as_str(), m.threshold, m.options.as_deref())),
    )
    .map_err(ServerFnError::new)?;
    if let Some(simulator) = simulator.as_ref() {
        config.simulator = crate::eval::simulator::SimulatorConfig::parse(simulator, "user_simulator_config")
            .map_err(ServerFnError::new)?;
    }
    let eval_ids = match scope {
        RunScope::All => Vec::new(),
        RunScope::Selected(ids) if ids.is_empty() => {
            return Err(ServerFnError::new("select the cases to run in the list first"))
        }
        RunScope::Selected(ids) => ids,
        RunScope::FailedLastRun => {
            let failed = last_run::failed_in_latest_run(&services().store, &app, &eval_set_id).await?;
            if failed.is_empty() {
                return Err(ServerFnError::new("no case failed in the latest run"));
            }
            failed
        }
    };
    let (record, _) = eval_runs::start_eval_run(
        &services(),
        eval_runs::StartEvalRun {
            app_name: &app,
            eval_set_id: &eval_set_id,
            eval_ids: &eval_ids,
            config,
            agent: Some(&agent),
            num_runs,
        },
    )
    .await
    .map_err(ServerFnError::new)?;
    Ok(record.summary.result_id)
}

/// The eval set's runs, newest first (runs whose process died show as interrupted).
#[server]
pub async fn list_eval_runs(app: String, eval_set_id: String) -> Result<Vec<EvalRunSummary>, ServerFnError> {
    Ok(eval_runs::list_eval_runs(&services().store, &app, Some(&eval_set_id)).await?)
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
        None => match eval_runs::list_eval_runs(store, &app, Some(&eval_set_id))
            .await?
            .into_iter()
            .next()
        {
            Some(newest) => newest.result_id,
            None => return Ok(None),
        },
    };
    run_views::results_page(store, &app, &result_id, page)
        .await
        .map(Some)
        .map_err(ServerFnError::new)
}

#[server]
pub async fn cancel_eval(app: String, result_id: String) -> Result<(), ServerFnError> {
    eval_runs::cancel_eval_run(&services(), &app, &result_id)
        .await
        .map_err(ServerFnError::new)
}

#[server]
pub async fn resume_eval(app: String, result_id: String) -> Result<(), ServerFnError> {
    eval_runs::resume_eval_run(&services(), &app, &result_id)
        .await
        .map(|_| ())
        .map_err(ServerFnError::new)
}
