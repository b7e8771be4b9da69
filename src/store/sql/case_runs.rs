//! A run's case runs written within a write's transaction: each replacing an earlier try of the
//! same case run, with the new summaries of their cases, the run's counts following.

use super::run_summaries::write_summaries;
use super::Transaction;
use crate::eval::result::EvalStatus;
use crate::records::runs::EvalRunCase;
use crate::store::{CaseSummaryRow, StoreError, StoreResult};

/// Writes case runs (each replacing an earlier try of the same case run) and the new summaries
/// of their cases within a write's transaction; the run's counts follow and its cached
/// statistics go stale.
pub(super) async fn write_case_runs(
    transaction: &mut Transaction,
    run_row: i64,
    cases: &[EvalRunCase],
    summaries: &[CaseSummaryRow],
) -> StoreResult<()> {
    let mut counts = CaseCounts::default();
    for case in cases {
        let earlier: Option<(i64, Option<String>)> = sqlx::query_as(
            "SELECT status, error FROM eval_run_cases WHERE run_row = $1 AND run_index = $2 AND case_index = $3",
        )
        .bind(run_row)
        .bind(case.run_index)
        .bind(case.case_index)
        .fetch_optional(&mut **transaction)
        .await?;
        if let Some((status, error)) = earlier {
            counts.add(EvalStatus::from_number(status), error.is_some(), -1);
            // Deleted and inserted again (not updated), so it is stored after what a
            // progress stream has read.
            sqlx::query(
                "DELETE FROM eval_run_cases WHERE run_row = $1 AND run_index = $2 AND case_index = $3",
            )
            .bind(run_row)
            .bind(case.run_index)
            .bind(case.case_index)
            .execute(&mut **transaction)
            .await?;
        }
        counts.add(case.status, case.error.is_some(), 1);
        sqlx::query(
            "INSERT INTO eval_run_cases \
             (run_row, run_index, case_index, eval_id, status, error, scores_json, result_json, session_id) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        )
        .bind(run_row)
        .bind(case.run_index)
        .bind(case.case_index)
        .bind(&case.eval_id)
        .bind(case.status as i64)
        .bind(&case.error)
        .bind(serde_json::to_string(&case.metric_scores).expect("scores serialise"))
        .bind(case.result.to_string())
        .bind(case.result["session_id"].as_str().unwrap_or_default())
        .execute(&mut **transaction)
        .await?;
    }
    write_summaries(transaction, run_row, summaries).await?;
    let updated = sqlx::query(
        "UPDATE eval_runs SET cases_version = cases_version + 1, cases_done = cases_done + $1, \
         cases_passed = cases_passed + $2, cases_failed = cases_failed + $3, cases_errored = cases_errored + $4 \
         WHERE id = $5",
    )
    .bind(counts.done)
    .bind(counts.passed)
    .bind(counts.failed)
    .bind(counts.errored)
    .bind(run_row)
    .execute(&mut **transaction)
    .await?;
    if updated.rows_affected() != 1 {
        return Err(StoreError::NotFound(format!("eval run #{run_row} not found")));
    }
    Ok(())
}

/// Changes to a run's counts of stored case runs.
#[derive(Default)]
struct CaseCounts {
    done: i64,
    passed: i64,
    failed: i64,
    errored: i64,
}

impl CaseCounts {
    /// Counts a case run in (`sign` 1) or out (-1), as the summary columns define the counts.
    fn add(&mut self, status: EvalStatus, error: bool, sign: i64) {
        self.done += sign;
        match (error, status) {
            (true, _) => self.errored += sign,
            (false, EvalStatus::Passed) => self.passed += sign,
            (false, _) => self.failed += sign,
        }
    }
}
