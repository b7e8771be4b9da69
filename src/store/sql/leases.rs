//! Who runs a run: a lease held by one process (its boot id) until an expiry it renews while
//! the run goes on. A `running` run whose lease ran out reads as interrupted: its process died
//! or hung, and another may claim it. Leases are taken when a run is created or claimed and
//! renewed by its runner, never on a read; they do not depend on process ids, which repeat
//! (the server is PID 1 in every container).
//!
//! Times are the database's clock (`dialect::EPOCH_NOW`), so every process sharing it agrees.

use super::{dialect, SqlStore};
use crate::records::RunStatus;
use crate::store::{StoreResult, LEASE_SECONDS};
use std::sync::LazyLock;

/// The statuses as the `status` column spells them.
fn status(status: RunStatus) -> String {
    format!("'{}'", status.as_str())
}

/// A run's status as readers see it (`r` is `eval_runs`): `running` with an ended lease reads
/// as `interrupted`.
pub(super) static LIVE_STATUS: LazyLock<String> = LazyLock::new(|| {
    format!(
        "CASE WHEN r.status = {running} AND {expired} THEN {interrupted} ELSE r.status END",
        running = status(RunStatus::Running),
        expired = EXPIRED.as_str(),
        interrupted = status(RunStatus::Interrupted),
    )
});

/// Whether `r`'s lease has ended (or it never had one, as runs stored before leases).
static EXPIRED: LazyLock<String> =
    LazyLock::new(|| format!("COALESCE(r.lease_expires_at, 0) < {}", dialect::EPOCH_NOW));

impl SqlStore {
    /// The id this store handle holds leases under: drawn when the store is opened, so each
    /// process (and each handle a test opens) is its own owner.
    pub fn boot_id(&self) -> &str {
        &self.boot_id
    }

    /// Claims a run for this process: one that is not finished and whose lease, if it is
    /// running, has ended. False when it is finished or another live process holds it. Two
    /// processes claiming at once cannot both win: the check and the write are one statement.
    pub async fn claim_eval_run(&self, run_row: i64) -> StoreResult<bool> {
        let sql = format!(
            "UPDATE eval_runs AS r SET status = {running}, finished_at = NULL, lease_owner = $1, \
             lease_expires_at = {now} + $2 \
             WHERE r.id = $3 AND r.status != {finished} AND (r.status != {running} OR {expired})",
            running = status(RunStatus::Running),
            finished = status(RunStatus::Finished),
            now = dialect::EPOCH_NOW,
            expired = EXPIRED.as_str(),
        );
        let claimed = sqlx::query(&sql)
            .bind(self.boot_id())
            .bind(LEASE_SECONDS)
            .bind(run_row)
            .execute(&self.pool)
            .await?;
        Ok(claimed.rows_affected() == 1)
    }

    /// Extends this process's lease on a running run; false when it no longer holds it (it
    /// ran out and another process claimed the run, or the run ended).
    pub async fn renew_eval_run_lease(&self, run_row: i64) -> StoreResult<bool> {
        let sql = format!(
            "UPDATE eval_runs SET lease_expires_at = {now} + $1 \
             WHERE id = $2 AND lease_owner = $3 AND status = {running}",
            running = status(RunStatus::Running),
            now = dialect::EPOCH_NOW,
        );
        let renewed = sqlx::query(&sql)
            .bind(LEASE_SECONDS)
            .bind(run_row)
            .bind(self.boot_id())
            .execute(&self.pool)
            .await?;
        Ok(renewed.rows_affected() == 1)
    }

    /// Ends this process's hold on a run with its final status (finished, cancelled or
    /// interrupted), recording when. Nothing changes if another process holds it now.
    pub async fn end_eval_run(&self, run_row: i64, end: RunStatus, now: f64) -> StoreResult<()> {
        sqlx::query(
            "UPDATE eval_runs SET status = $1, finished_at = $2, lease_owner = NULL, lease_expires_at = NULL \
             WHERE id = $3 AND lease_owner = $4",
        )
        .bind(end.as_str())
        .bind(now)
        .bind(run_row)
        .bind(self.boot_id())
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Writes `interrupted` on the running runs whose lease has ended (readers already see them
    /// so; this keeps the column true). Done at start-up. Returns how many were marked.
    pub async fn mark_expired_eval_runs(&self) -> StoreResult<u64> {
        let sql = format!(
            "UPDATE eval_runs AS r SET status = {interrupted}, lease_owner = NULL, lease_expires_at = NULL \
             WHERE r.status = {running} AND {expired}",
            interrupted = status(RunStatus::Interrupted),
            running = status(RunStatus::Running),
            expired = EXPIRED.as_str(),
        );
        Ok(sqlx::query(&sql).execute(&self.pool).await?.rows_affected())
    }
}
