//! A stored run as files: ADK's EvalSetResult JSON, as `adk eval` writes it into
//! `.adk/eval_history/<name>.evalset_result.json`, and JUnit XML for CI systems.

use super::eval_runs::{case_summaries, stored_plan, EvalRunError};
use crate::eval::{adk_case_result, junit};
use crate::store::Store;
use serde::Serialize;
use serde_json::Value;

/// ADK's EvalSetResult: exactly its fields, in its order.
#[derive(Serialize)]
struct AdkEvalSetResult<'a> {
    eval_set_result_id: &'a str,
    eval_set_result_name: String,
    eval_set_id: &'a str,
    eval_case_results: Vec<Value>,
    creation_timestamp: f64,
}

/// A run exported: the file name to offer and its text.
pub struct RunFile {
    pub file_name: String,
    pub text: String,
}

/// The run as the file ADK's eval history holds (pretty, two-space indented, as pydantic's
/// `model_dump_json(indent=2)`), its case results run after run.
pub async fn adk_result_file(store: &Store, app: &str, result_id: &str) -> Result<RunFile, EvalRunError> {
    let record = store.eval_run(app, result_id).await?;
    let cases = store.eval_run_cases(record.row, true).await?;
    let summary = &record.summary;
    // ADK names the file after the id with `/` made `_`.
    let name = summary.result_id.replace('/', "_");
    let result = AdkEvalSetResult {
        eval_set_result_id: &summary.result_id,
        eval_set_result_name: name.clone(),
        eval_set_id: &summary.eval_set_id,
        eval_case_results: cases.into_iter().map(|c| adk_case_result(c.result)).collect(),
        creation_timestamp: summary.created_at,
    };
    Ok(RunFile {
        file_name: format!("{name}.evalset_result.json"),
        text: serde_json::to_string_pretty(&result).expect("results serialise"),
    })
}

/// The run as JUnit XML: one test case per eval case, pooled over its runs.
pub async fn junit_file(store: &Store, app: &str, result_id: &str) -> Result<RunFile, EvalRunError> {
    let record = store.eval_run(app, result_id).await?;
    let (expected, config) = stored_plan(&record)?;
    let cases = store.eval_run_cases(record.row, false).await?;
    let summaries = case_summaries(&expected, &config, &cases);
    let errors: Vec<junit::RunError> = cases
        .iter()
        .filter_map(|c| {
            Some(junit::RunError {
                eval_id: &c.eval_id,
                run_index: c.run_index,
                error: c.error.as_deref()?,
            })
        })
        .collect();
    let suite = junit::suite(&record.summary.eval_set_id, &summaries, &errors);
    Ok(RunFile {
        file_name: format!("{}.junit.xml", record.summary.result_id.replace('/', "_")),
        text: junit::report(&[suite]),
    })
}
