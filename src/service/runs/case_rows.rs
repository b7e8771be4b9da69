//! What a run stores of its cases, whoever writes them: a finished case run as its row (its
//! scores per metric beside its result), and each case's summary pooled over its stored runs.
//! Pure.

use crate::eval::config::EvalConfig;
use crate::eval::runner::FinishedCase;
use crate::eval::score::{summarize_case, CaseRunScores};
use crate::records::runs::EvalRunCase;
use crate::store::CaseSummaryRow;
use std::collections::BTreeMap;

/// A finished case run as it is stored, scored on `config`'s metrics.
pub fn stored_case(finished: &FinishedCase, config: &EvalConfig) -> EvalRunCase {
    EvalRunCase {
        metric_scores: CaseRunScores::of(&finished.result, config).metric_scores,
        run_index: finished.run_index as i64,
        case_index: finished.case_index as i64,
        eval_id: finished.result.eval_id.clone(),
        status: finished.result.final_eval_status,
        error: finished.result.error.clone(),
        result: serde_json::to_value(&finished.result).expect("results serialise"),
    }
}

/// The summaries of the cases of `rows` (stored case runs of one run), in case order.
pub fn summarise(rows: &[EvalRunCase], config: &EvalConfig) -> Vec<CaseSummaryRow> {
    let mut by_case: BTreeMap<i64, (&str, Vec<CaseRunScores>)> = BTreeMap::new();
    for row in rows {
        by_case
            .entry(row.case_index)
            .or_insert_with(|| (&row.eval_id, Vec::new()))
            .1
            .push(CaseRunScores {
                final_eval_status: row.status,
                error: row.error.is_some(),
                metric_scores: row.metric_scores.clone(),
            });
    }
    by_case
        .into_iter()
        .map(|(case_index, (eval_id, runs))| CaseSummaryRow {
            case_index,
            summary: summarize_case(eval_id, &runs, config),
        })
        .collect()
}
