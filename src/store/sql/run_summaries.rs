//! A run's cases pooled over their repetitions (one summary per case, written with its case
//! runs) and the run's per-metric statistics cached beside them: what a run's pages read a
//! page at a time, whatever the run's size.

use super::{numbered_places, Row, SqlStore, Transaction};
use crate::eval::result::CaseSummary;
use crate::eval::run_stats::CaseOutcome;
use crate::records::runs::CaseInRun;
use crate::store::{corrupt, CaseSummaryRow, StoreResult, SUMMARY_FORMAT};
use futures::TryStreamExt;
use sqlx::Row as _;

/// Writes (or rewrites) case summaries within a write of case runs, counting the cases that
/// get their first in the run's head row (so a run page's page count reads one row, not
/// every summary).
pub(super) async fn write_summaries(
    transaction: &mut Transaction,
    run_row: i64,
    summaries: &[CaseSummaryRow],
) -> StoreResult<()> {
    if summaries.is_empty() {
        return Ok(());
    }
    let sql = format!(
        "SELECT COUNT(*) FROM eval_run_case_summaries WHERE run_row = $1 AND case_index IN ({})",
        numbered_places(2, summaries.len())
    );
    let mut existing = sqlx::query_scalar::<_, i64>(&sql).persistent(false).bind(run_row);
    for row in summaries {
        existing = existing.bind(row.case_index);
    }
    let existing = existing.fetch_one(&mut **transaction).await?;
    sqlx::query("UPDATE eval_runs SET cases_summarised = cases_summarised + $1 WHERE id = $2")
        .bind(summaries.len() as i64 - existing)
        .bind(run_row)
        .execute(&mut **transaction)
        .await?;
    for row in summaries {
        // The outcome a comparison reads back through `case_outcomes`.
        let outcome = CaseOutcome::of(&row.summary);
        sqlx::query(
            "INSERT INTO eval_run_case_summaries (run_row, case_index, eval_id, passed, summary_json) \
             VALUES ($1, $2, $3, $4, $5) ON CONFLICT (run_row, case_index) DO UPDATE SET \
             eval_id = excluded.eval_id, passed = excluded.passed, summary_json = excluded.summary_json",
        )
        .bind(run_row)
        .bind(row.case_index)
        .bind(outcome.eval_id)
        .bind(outcome.passed)
        .bind(serde_json::to_string(&row.summary).expect("summaries serialise"))
        .execute(&mut **transaction)
        .await?;
    }
    Ok(())
}

fn summary(row: &Row) -> StoreResult<CaseSummary> {
    serde_json::from_str(row.try_get("summary_json")?).map_err(corrupt)
}

impl SqlStore {
    /// How many cases of the run have a summary (have at least one stored case run).
    pub async fn case_summary_count(&self, run_row: i64) -> StoreResult<i64> {
        let count: Option<i64> = sqlx::query_scalar("SELECT cases_summarised FROM eval_runs WHERE id = $1")
            .bind(run_row)
            .fetch_optional(&self.pool)
            .await?;
        Ok(count.unwrap_or(0))
    }

    /// The run's case summaries in the eval set's order, from position `offset`, at most
    /// `limit` (all when None).
    pub async fn case_summaries(
        &self,
        run_row: i64,
        offset: i64,
        limit: Option<i64>,
    ) -> StoreResult<Vec<CaseSummary>> {
        let mut rows = sqlx::query(
            "SELECT summary_json FROM eval_run_case_summaries WHERE run_row = $1 \
             ORDER BY case_index LIMIT $2 OFFSET $3",
        )
        .bind(run_row)
        .bind(limit.unwrap_or(i64::MAX))
        .bind(offset)
        .fetch(&self.pool);
        // Each row read as it arrives: a whole run's rows are several times its summaries.
        let mut summaries = Vec::new();
        while let Some(row) = rows.try_next().await? {
            summaries.push(summary(&row)?);
        }
        Ok(summaries)
    }

    /// The summaries of the cases `eval_ids` that the run reached, in the eval set's order.
    pub async fn case_summaries_of(
        &self,
        run_row: i64,
        eval_ids: &[String],
    ) -> StoreResult<Vec<CaseSummary>> {
        if eval_ids.is_empty() {
            return Ok(Vec::new());
        }
        let places = numbered_places(2, eval_ids.len());
        let sql = format!(
            "SELECT summary_json FROM eval_run_case_summaries WHERE run_row = $1 AND eval_id IN ({places}) \
             ORDER BY case_index"
        );
        let mut query = sqlx::query(&sql).persistent(false).bind(run_row);
        for id in eval_ids {
            query = query.bind(id);
        }
        query.fetch_all(&self.pool).await?.iter().map(summary).collect()
    }

    /// Each summarised case's eval id and whether it passed, in the eval set's order: what a
    /// comparison of two runs classifies, without reading the summaries themselves.
    pub async fn case_outcomes(&self, run_row: i64) -> StoreResult<Vec<CaseOutcome>> {
        let rows: Vec<(String, bool)> = sqlx::query_as(
            "SELECT eval_id, passed FROM eval_run_case_summaries WHERE run_row = $1 ORDER BY case_index",
        )
        .bind(run_row)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .into_iter()
            .map(|(eval_id, passed)| CaseOutcome { eval_id, passed })
            .collect())
    }

    /// One case's summaries in the evalset's newest `limit` runs that reached it, newest first,
    /// each with its run's result id and start time.
    pub async fn case_across_runs(
        &self,
        app: &str,
        eval_set_id: &str,
        eval_id: &str,
        limit: i64,
    ) -> StoreResult<Vec<CaseInRun>> {
        let rows = sqlx::query(
            "SELECT r.result_id, r.created_at, s.summary_json \
             FROM eval_run_case_summaries s JOIN eval_runs r ON r.id = s.run_row \
             WHERE r.app_name = $1 AND r.eval_set_id = $2 AND s.eval_id = $3 \
             ORDER BY r.created_at DESC, r.id DESC LIMIT $4",
        )
        .bind(app)
        .bind(eval_set_id)
        .bind(eval_id)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| {
                Ok(CaseInRun {
                    result_id: row.try_get("result_id")?,
                    created_at: row.try_get("created_at")?,
                    summary: summary(row)?,
                })
            })
            .collect()
    }

    /// Replaces all of a run's summaries (for a run stored before summaries were, or in an
    /// older format), marks it summarised in [`SUMMARY_FORMAT`] and drops its cached statistics,
    /// unless case runs were written since `cases_version` was read: then nothing is written
    /// and it answers false, and the next read tries again.
    pub async fn replace_case_summaries(
        &self,
        run_row: i64,
        cases_version: i64,
        summaries: &[CaseSummaryRow],
    ) -> StoreResult<bool> {
        let mut transaction = self.begin_write().await?;
        let claimed = sqlx::query(
            "UPDATE eval_runs SET summarised = $1, stats_json = NULL, stats_version = NULL, cases_summarised = 0 \
             WHERE id = $2 AND cases_version = $3",
        )
        .bind(SUMMARY_FORMAT)
        .bind(run_row)
        .bind(cases_version)
        .execute(&mut *transaction)
        .await?;
        if claimed.rows_affected() != 1 {
            return Ok(false);
        }
        sqlx::query("DELETE FROM eval_run_case_summaries WHERE run_row = $1")
            .bind(run_row)
            .execute(&mut *transaction)
            .await?;
        write_summaries(&mut transaction, run_row, summaries).await?;
        transaction.commit().await?;
        Ok(true)
    }

    /// Caches the run's statistics (JSON) as computed at `cases_version`; a write of case runs
    /// since then leaves the cache stale and this does nothing.
    pub async fn cache_run_stats(
        &self,
        run_row: i64,
        cases_version: i64,
        stats_json: &str,
    ) -> StoreResult<()> {
        sqlx::query(
            "UPDATE eval_runs SET stats_json = $1, stats_version = cases_version WHERE id = $2 AND cases_version = $3",
        )
        .bind(stats_json)
        .bind(run_row)
        .bind(cases_version)
        .execute(&self.pool)
        .await?;
        Ok(())
    }
}

#[cfg(test)]
impl SqlStore {
    /// Makes a run look as if it was stored before case summaries were kept.
    pub async fn forget_case_summaries(&self, run_row: i64) -> StoreResult<()> {
        sqlx::query("DELETE FROM eval_run_case_summaries WHERE run_row = $1")
            .bind(run_row)
            .execute(&self.pool)
            .await?;
        sqlx::query(
            "UPDATE eval_runs SET summarised = 0, stats_json = NULL, cases_summarised = 0 WHERE id = $1",
        )
        .bind(run_row)
        .execute(&self.pool)
        .await?;
        Ok(())
    }
}
