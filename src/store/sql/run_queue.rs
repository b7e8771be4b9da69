//! The queue of case runs: a running run's cases wait in batches (`run_batches`) that workers
//! claim under a lease (their boot id and an expiry they renew), run, and delete in the write
//! that stores their last case run; the write that deletes a run's last batch finishes the run.
//! A worker that dies only stops renewing: once its leases have ended another worker claims its
//! batches. Nothing depends on process ids, which repeat (the server is PID 1 in every
//! container).
//!
//! A claim takes the first free batch in one statement (on PostgreSQL with `SKIP LOCKED`, so
//! claiming workers never wait on each other; SQLite has one writer at a time). A write of case
//! runs is stored only while its worker still holds their batches, checked in the write's own
//! transaction, so a worker whose batch was taken over stores nothing of it: every case run is
//! stored exactly once. Times are the database's clock (`dialect::EPOCH_NOW`), so every
//! process sharing it agrees.

use super::runs::parse_status;
use super::{dialect, numbered_places, SqlStore, Transaction};
use crate::records::runs::RunStatus;
use crate::store::rows::cases_per_batch;
use crate::store::{BatchClaim, BatchWrite, ClaimedBatch, StoreResult, LEASE_SECONDS};

/// Whether batch `b` may be claimed by `$1`: nobody holds it, or another worker's lease ended.
fn free_for(owner_param: &str) -> String {
    format!(
        "(b.lease_owner IS NULL OR (b.lease_expires_at < {now} AND b.lease_owner <> {owner_param}))",
        now = dialect::EPOCH_NOW
    )
}

impl SqlStore {
    /// The id this store handle holds leases under: drawn when the store is opened, so each
    /// process (and each handle a test opens) is its own worker.
    pub fn boot_id(&self) -> &str {
        &self.boot_id
    }

    /// Claims the next free batch of a running run for this process; else says whether the
    /// other batches are held (`Busy`) or the run is over.
    pub async fn claim_run_batch(&self, run_row: i64) -> StoreResult<BatchClaim> {
        let sql = format!(
            "UPDATE run_batches SET lease_owner = $1, lease_expires_at = {now} + $2 \
             WHERE id = (SELECT b.id FROM run_batches b WHERE b.run_row = $3 AND {free} \
                         ORDER BY b.id LIMIT 1 {skip_locked}) \
             AND EXISTS (SELECT 1 FROM eval_runs r WHERE r.id = $3 AND r.status = $4) \
             RETURNING id, first_case, end_case",
            now = dialect::EPOCH_NOW,
            free = free_for("$1"),
            skip_locked = dialect::SKIP_LOCKED,
        );
        let claimed: Option<(i64, i64, i64)> = sqlx::query_as(&sql)
            .bind(self.boot_id())
            .bind(LEASE_SECONDS)
            .bind(run_row)
            .bind(RunStatus::Running.as_str())
            .fetch_optional(&self.pool)
            .await?;
        let Some((id, first, end)) = claimed else {
            return self.why_nothing_to_claim(run_row).await;
        };
        let stored: Vec<(i64, i64)> = sqlx::query_as(
            "SELECT run_index, case_index FROM eval_run_cases \
             WHERE run_row = $1 AND case_index >= $2 AND case_index < $3",
        )
        .bind(run_row)
        .bind(first)
        .bind(end)
        .fetch_all(&self.pool)
        .await?;
        Ok(BatchClaim::Claimed(ClaimedBatch {
            id,
            cases: first as usize..end as usize,
            stored: stored
                .into_iter()
                .map(|(r, c)| (r as usize, c as usize))
                .collect(),
        }))
    }

    async fn why_nothing_to_claim(&self, run_row: i64) -> StoreResult<BatchClaim> {
        let row: Option<(String, bool)> = sqlx::query_as(
            "SELECT r.status, EXISTS (SELECT 1 FROM run_batches b WHERE b.run_row = r.id) \
             FROM eval_runs r WHERE r.id = $1",
        )
        .bind(run_row)
        .fetch_optional(&self.pool)
        .await?;
        // A run deleted while it ran is over as far as its workers go.
        let Some((status, queued)) = row else {
            return Ok(BatchClaim::Over(RunStatus::Cancelled));
        };
        Ok(match parse_status(&status)? {
            RunStatus::Running if queued => BatchClaim::Busy,
            status => BatchClaim::Over(status),
        })
    }

    /// Extends this process's leases on the run's batches; answers the run's status, which
    /// tells a worker to go on (running) or stop (cancelled or interrupted elsewhere).
    pub async fn renew_run_batches(&self, run_row: i64) -> StoreResult<RunStatus> {
        sqlx::query(&format!(
            "UPDATE run_batches SET lease_expires_at = {now} + $1 WHERE run_row = $2 AND lease_owner = $3",
            now = dialect::EPOCH_NOW
        ))
        .bind(LEASE_SECONDS)
        .bind(run_row)
        .bind(self.boot_id())
        .execute(&self.pool)
        .await?;
        match self.why_nothing_to_claim(run_row).await? {
            BatchClaim::Over(status) => Ok(status),
            _ => Ok(RunStatus::Running),
        }
    }

    /// Lets go of this process's batches of the run, for other workers to claim at once.
    pub async fn release_run_batches(&self, run_row: i64) -> StoreResult<()> {
        sqlx::query(
            "UPDATE run_batches SET lease_owner = NULL, lease_expires_at = NULL \
             WHERE run_row = $1 AND lease_owner = $2",
        )
        .bind(run_row)
        .bind(self.boot_id())
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Lets go of every batch this process holds (it is shutting down), for other workers to
    /// claim at once rather than once the leases end. Answers how many.
    pub async fn release_all_run_batches(&self) -> StoreResult<u64> {
        let released = sqlx::query(
            "UPDATE run_batches SET lease_owner = NULL, lease_expires_at = NULL WHERE lease_owner = $1",
        )
        .bind(self.boot_id())
        .execute(&self.pool)
        .await?;
        Ok(released.rows_affected())
    }

    /// Stops a running run as `end` (cancelled, or interrupted), from any process: its batches
    /// stay queued for a resume with their leases dropped, so what its workers still finish is
    /// not stored. False when it was not running.
    pub async fn stop_eval_run(&self, run_row: i64, end: RunStatus, at: f64) -> StoreResult<bool> {
        self.stop(run_row, end, at, false).await
    }

    /// Stops the run as interrupted if this process still holds one of its batches (a worker
    /// that failed; one whose batches were taken over stops nothing).
    pub async fn interrupt_held_eval_run(&self, run_row: i64, at: f64) -> StoreResult<bool> {
        self.stop(run_row, RunStatus::Interrupted, at, true).await
    }

    async fn stop(&self, run_row: i64, end: RunStatus, at: f64, only_if_held: bool) -> StoreResult<bool> {
        let mut transaction = self.begin_write().await?;
        let stopped = sqlx::query(
            "UPDATE eval_runs SET status = $1, finished_at = $2 WHERE id = $3 AND status = $4 \
             AND (NOT $5 OR EXISTS (SELECT 1 FROM run_batches b WHERE b.run_row = $3 AND b.lease_owner = $6))",
        )
        .bind(end.as_str())
        .bind(at)
        .bind(run_row)
        .bind(RunStatus::Running.as_str())
        .bind(only_if_held)
        .bind(self.boot_id())
        .execute(&mut *transaction)
        .await?
        .rows_affected()
            == 1;
        if stopped {
            sqlx::query(
                "UPDATE run_batches SET lease_owner = NULL, lease_expires_at = NULL WHERE run_row = $1",
            )
            .bind(run_row)
            .execute(&mut *transaction)
            .await?;
        }
        transaction.commit().await?;
        Ok(stopped)
    }

    /// Sets a stopped (interrupted or cancelled) run running again, its remaining batches free
    /// for any worker; a run stopped before batches existed gets all its cases queued (the
    /// case runs already stored are skipped when claimed). False when it was not stopped.
    pub async fn resume_eval_run(&self, run_row: i64) -> StoreResult<bool> {
        let mut transaction = self.begin_write().await?;
        let resumed = sqlx::query(
            "UPDATE eval_runs SET status = $1, finished_at = NULL WHERE id = $2 AND status IN ($3, $4)",
        )
        .bind(RunStatus::Running.as_str())
        .bind(run_row)
        .bind(RunStatus::Interrupted.as_str())
        .bind(RunStatus::Cancelled.as_str())
        .execute(&mut *transaction)
        .await?
        .rows_affected()
            == 1;
        if resumed {
            let (queued, total, num_runs): (bool, i64, i64) = sqlx::query_as(
                "SELECT EXISTS (SELECT 1 FROM run_batches b WHERE b.run_row = r.id), r.total, r.num_runs \
                 FROM eval_runs r WHERE r.id = $1",
            )
            .bind(run_row)
            .fetch_one(&mut *transaction)
            .await?;
            if !queued {
                enqueue(&mut transaction, run_row, total as usize, num_runs as usize).await?;
            }
        }
        transaction.commit().await?;
        Ok(resumed)
    }

    /// Running runs with a batch free to claim, oldest first: what an idle worker looks for.
    /// (app, result id) pairs.
    pub async fn runs_with_free_batches(&self, limit: i64) -> StoreResult<Vec<(String, String)>> {
        Ok(sqlx::query_as(&format!(
            "SELECT r.app_name, r.result_id FROM eval_runs r \
             WHERE r.id IN (SELECT b.run_row FROM run_batches b WHERE {free}) AND r.status = $2 \
             ORDER BY r.id LIMIT $3",
            free = free_for("$1")
        ))
        .bind(self.boot_id())
        .bind(RunStatus::Running.as_str())
        .bind(limit)
        .fetch_all(&self.pool)
        .await?)
    }
}

/// Queues every case run of run `run_row` (`total` of them, `num_runs` per case) in batches of
/// [`cases_per_batch`] cases.
pub(super) async fn enqueue(
    transaction: &mut Transaction,
    run_row: i64,
    total: usize,
    num_runs: usize,
) -> StoreResult<()> {
    let case_count = total / num_runs.max(1);
    sqlx::query(
        "WITH RECURSIVE batch (n) AS ( \
             SELECT CAST(0 AS BIGINT) UNION ALL SELECT n + 1 FROM batch WHERE (n + 1) * $2 < $3) \
         INSERT INTO run_batches (run_row, first_case, end_case) \
         SELECT CAST($1 AS BIGINT), n * $2, CASE WHEN (n + 1) * $2 < $3 THEN (n + 1) * $2 ELSE $3 END FROM batch ORDER BY n",
    )
    .bind(run_row)
    .bind(cases_per_batch(num_runs) as i64)
    .bind(case_count as i64)
    .execute(&mut **transaction)
    .await?;
    Ok(())
}

/// Whether this process (`owner`) holds every batch of `write` (inside the write's
/// transaction, the rows locked until it ends).
pub(super) async fn holds(
    transaction: &mut Transaction,
    owner: &str,
    run_row: i64,
    write: &BatchWrite,
) -> StoreResult<bool> {
    let mut held = write.held.clone();
    held.sort_unstable();
    held.dedup();
    if held.is_empty() {
        return Ok(true);
    }
    let sql = format!(
        "SELECT id FROM run_batches WHERE run_row = $1 AND lease_owner = $2 AND id IN ({places}) {lock}",
        places = numbered_places(3, held.len()),
        lock = dialect::LOCK_ROWS,
    );
    let mut query = sqlx::query_scalar::<_, i64>(&sql)
        .persistent(false)
        .bind(run_row)
        .bind(owner);
    for id in &held {
        query = query.bind(id);
    }
    Ok(query.fetch_all(&mut **transaction).await?.len() == held.len())
}

/// Deletes the completed batches of `write`; when they were the run's last, finishes the run.
/// Returns whether it did.
pub(super) async fn complete(
    transaction: &mut Transaction,
    run_row: i64,
    write: &BatchWrite,
) -> StoreResult<bool> {
    if write.completed.is_empty() {
        return Ok(false);
    }
    let sql = format!(
        "DELETE FROM run_batches WHERE run_row = $1 AND id IN ({})",
        numbered_places(2, write.completed.len())
    );
    let mut query = sqlx::query(&sql).persistent(false).bind(run_row);
    for id in &write.completed {
        query = query.bind(id);
    }
    query.execute(&mut **transaction).await?;
    let finished = sqlx::query(
        "UPDATE eval_runs SET status = $1, finished_at = $2 WHERE id = $3 AND status = $4 \
         AND NOT EXISTS (SELECT 1 FROM run_batches WHERE run_row = $3)",
    )
    .bind(RunStatus::Finished.as_str())
    .bind(write.at)
    .bind(run_row)
    .bind(RunStatus::Running.as_str())
    .execute(&mut **transaction)
    .await?;
    Ok(finished.rows_affected() == 1)
}

#[cfg(test)]
impl SqlStore {
    /// Ends every lease on the run's batches now, as if their workers had died long ago.
    pub async fn expire_run_batch_leases(&self, run_row: i64) -> StoreResult<()> {
        sqlx::query(
            "UPDATE run_batches SET lease_expires_at = 0 WHERE run_row = $1 AND lease_owner IS NOT NULL",
        )
        .bind(run_row)
        .execute(&self.pool)
        .await?;
        Ok(())
    }
}
