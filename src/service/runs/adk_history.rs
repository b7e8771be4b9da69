//! Runs that `adk eval` or `adk web` wrote into an agents folder's eval history
//! (`<app>/.adk/eval_history/*.evalset_result.json`), stored as finished runs of origin ADK so
//! they show on the Runs page, in the case list's statuses and in comparisons like any run.
//! They keep ADK's result id; a run already stored (Evalstudio's own, written there after it
//! finished, or one read before) is not read again.

use super::new_run::NewRun;
use crate::eval::config::EvalConfig;
use crate::eval::result::EvalCaseResult;
use crate::eval::runner::FinishedCase;
use crate::evalset::{CompactEvalSet, EvalCase, EvalSet};
use crate::records::runs::{EvalRunSummary, RunOrigin};
use crate::store::{Store, StoreError};
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::HashMap;

#[derive(Debug, thiserror::Error)]
pub enum AdkRunError {
    #[error("not an ADK EvalSetResult: {0}")]
    Unreadable(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// ADK's EvalSetResult, as its LocalEvalSetResultsManager writes it.
#[derive(Deserialize)]
struct AdkEvalSetResult {
    eval_set_result_id: String,
    eval_set_id: String,
    #[serde(default)]
    eval_case_results: Vec<EvalCaseResult>,
    #[serde(default)]
    creation_timestamp: f64,
}

/// Stores the run in `text` as a finished ADK run of `app`; its summary, or `None` when a run
/// of that id is already stored.
pub async fn import_adk_run(
    store: &Store,
    app: &str,
    text: &str,
) -> Result<Option<EvalRunSummary>, AdkRunError> {
    let result = parse(text)?;
    if store.eval_run(app, &result.eval_set_result_id).await.is_ok() {
        return Ok(None);
    }
    let places = places(result.eval_case_results.iter().map(|r| r.eval_id.as_str()));
    let expected = expected_set(&result, &places);
    let config = config_of(&result);
    let num_runs = places.iter().map(|&(_, run)| run + 1).max().unwrap_or(1);
    let finished: Vec<FinishedCase> = result
        .eval_case_results
        .into_iter()
        .zip(places)
        .map(|(case, (case_index, run_index))| FinishedCase {
            run_index,
            case_index,
            result: case,
            attempts: 1,
        })
        .collect();
    let record = NewRun {
        app,
        eval_set_id: &result.eval_set_id,
        // The folder's own agent, as `adk eval` ran it (its profile has the app's name).
        agent: app,
        expected: &CompactEvalSet::of(&expected),
        config: &config,
        num_runs,
        created_at: result.creation_timestamp,
        label: None,
        whole_set: true,
        tools: Default::default(),
        commit: None,
        result_id: Some(&result.eval_set_result_id),
        origin: RunOrigin::Adk,
    }
    .store_finished(store, &finished, result.creation_timestamp)
    .await?;
    Ok(Some(record.summary))
}

/// The file's run, in either form ADK reads: the object, or (older files) the object's JSON
/// written as one JSON string.
fn parse(text: &str) -> Result<AdkEvalSetResult, AdkRunError> {
    let unreadable = |e: serde_json::Error| {
        AdkRunError::Unreadable(format!("line {}, column {}: {e}", e.line(), e.column()))
    };
    let value: Value = serde_json::from_str(text).map_err(unreadable)?;
    let value = match value {
        Value::String(inner) => serde_json::from_str(&inner).map_err(unreadable)?,
        other => other,
    };
    serde_json::from_value(value).map_err(|e| AdkRunError::Unreadable(e.to_string()))
}

/// Each case result's place in the run, from its eval id: which case of the eval set (in order
/// of first appearance) and which of that case's runs.
fn places<'a>(eval_ids: impl Iterator<Item = &'a str>) -> Vec<(usize, usize)> {
    let mut seen: HashMap<&str, (usize, usize)> = HashMap::new();
    eval_ids
        .map(|eval_id| {
            let next_case = seen.len();
            let (case_index, runs) = seen.entry(eval_id).or_insert((next_case, 0));
            *runs += 1;
            (*case_index, *runs - 1)
        })
        .collect()
}

/// The eval set as run, rebuilt from each case's expected invocations (its actual ones where
/// ADK had none to compare with), from the first run of each case.
fn expected_set(result: &AdkEvalSetResult, places: &[(usize, usize)]) -> EvalSet {
    let cases = result
        .eval_case_results
        .iter()
        .zip(places)
        .filter(|(_, &(_, run))| run == 0)
        .map(|(case, _)| {
            let conversation = case
                .eval_metric_result_per_invocation
                .iter()
                .map(|per| {
                    per.expected_invocation
                        .clone()
                        .unwrap_or_else(|| per.actual_invocation.clone())
                })
                .collect();
            EvalCase {
                eval_id: case.eval_id.clone(),
                conversation: Some(conversation),
                ..Default::default()
            }
        })
        .collect();
    EvalSet {
        eval_set_id: result.eval_set_id.clone(),
        name: Some(result.eval_set_id.clone()),
        eval_cases: cases,
        ..Default::default()
    }
}

/// The metrics the run was scored on, with their thresholds; those this server does not know
/// (a custom metric of the user's Python) are left out.
fn config_of(result: &AdkEvalSetResult) -> EvalConfig {
    let metrics: Vec<Value> = result
        .eval_case_results
        .first()
        .map(|case| {
            case.overall_eval_metric_results
                .iter()
                .map(|m| json!({"metric_name": m.metric_name, "threshold": m.threshold.unwrap_or(0.0), "criterion": m.criterion}))
                .filter(|m| EvalConfig::from_eval_metrics(std::slice::from_ref(m)).is_ok())
                .collect()
        })
        .unwrap_or_default();
    EvalConfig::from_eval_metrics(&metrics)
        .unwrap_or_else(|_| EvalConfig::from_eval_metrics(&[]).expect("no metrics"))
}

#[cfg(test)]
mod tests {
    use super::{import_adk_run, places};
    use crate::records::runs::{RunOrigin, RunStatus};
    use crate::store::Store;
    use serde_json::json;

    #[test]
    fn repeated_cases_are_runs_of_the_case_first_seen() {
        let ids = ["a", "b", "a", "b", "c"];
        assert_eq!(places(ids.into_iter()), [(0, 0), (1, 0), (0, 1), (1, 1), (2, 0)]);
    }

    #[tokio::test]
    async fn a_run_adk_wrote_is_stored_finished_with_its_cases_and_read_once() {
        let dir = tempfile::tempdir().unwrap();
        let location = crate::testing::database::scratch_database(dir.path()).await;
        let store = Store::open(&location).await.unwrap();
        let case = |eval_id: &str, status: i64| {
            json!({"eval_set_id": "smoke", "eval_id": eval_id, "final_eval_status": status,
                   "overall_eval_metric_results": [], "eval_metric_result_per_invocation": [],
                   "session_id": ""})
        };
        let text = json!({"eval_set_result_id": "weather_smoke_5", "eval_set_id": "smoke",
                          "creation_timestamp": 5.0,
                          "eval_case_results": [case("a", 1), case("b", 2), case("a", 1)]})
        .to_string();
        let run = import_adk_run(&store, "weather", &text).await.unwrap().unwrap();
        assert_eq!(
            (run.status, run.finished_at, run.origin),
            (RunStatus::Finished, Some(5.0), RunOrigin::Adk)
        );
        assert_eq!(
            (run.num_runs, run.total, run.done, run.passed, run.failed),
            (2, 3, 3, 2, 1)
        );
        let head = store.eval_run_head("weather", "weather_smoke_5").await.unwrap();
        assert_eq!(store.case_summary_count(head.row).await.unwrap(), 2);
        assert!(import_adk_run(&store, "weather", &text).await.unwrap().is_none());
    }
}
