//! Case summaries and errored case runs for the tests of what the CLI prints.

use crate::eval::result::{CaseSummary, EvalStatus, MetricSummary};
use crate::records::runs::EvalRunCase;

/// A metric row of a case summary.
pub fn metric(name: &str, score: Option<f64>, threshold: Option<f64>, status: EvalStatus) -> MetricSummary {
    MetricSummary {
        metric_name: name.into(),
        threshold,
        score,
        eval_status: status,
    }
}

/// A one-run case summary with these metric rows.
pub fn case(eval_id: &str, status: EvalStatus, metrics: Vec<MetricSummary>) -> CaseSummary {
    CaseSummary {
        eval_id: eval_id.into(),
        final_eval_status: status,
        num_runs: 1,
        metrics,
        passed_runs: usize::from(status == EvalStatus::Passed),
        errors: 0,
        pass_at_k: Vec::new(),
        pass_hat_k: Vec::new(),
    }
}

/// A stored case run the agent could not finish; `run_index` counts from 0.
pub fn errored_run(eval_id: &str, run_index: i64, error: &str) -> EvalRunCase {
    EvalRunCase {
        run_index,
        case_index: 0,
        eval_id: eval_id.into(),
        status: crate::eval::result::EvalStatus::NotEvaluated,
        error: Some(error.into()),
        metric_scores: Vec::new(),
        result: serde_json::Value::Null,
    }
}
