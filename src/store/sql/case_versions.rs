//! A case's history: the versions each save replaced, and the current one.

use super::eval_sets::{case_not_found, decode_case};
use super::SqlStore;
use crate::store::{CaseVersion, StoreResult};
use sqlx::Row;

impl SqlStore {
    /// Every version of a case, oldest first, ending with the current one.
    pub async fn case_versions(
        &self,
        app: &str,
        eval_set_id: &str,
        eval_id: &str,
    ) -> StoreResult<Vec<CaseVersion>> {
        self.read_versions(app, eval_set_id, eval_id, None).await
    }

    /// One version of a case (the current one included); `None` when it has no such version.
    pub async fn case_version(
        &self,
        app: &str,
        eval_set_id: &str,
        eval_id: &str,
        version: i64,
    ) -> StoreResult<Option<CaseVersion>> {
        let mut found = self
            .read_versions(app, eval_set_id, eval_id, Some(version))
            .await?;
        Ok(found.pop())
    }

    /// The case's versions, or only `only` when given, oldest first.
    async fn read_versions(
        &self,
        app: &str,
        eval_set_id: &str,
        eval_id: &str,
        only: Option<i64>,
    ) -> StoreResult<Vec<CaseVersion>> {
        let set_row = self.eval_set_row(app, eval_set_id).await?;
        let case_row: i64 =
            sqlx::query_scalar("SELECT id FROM eval_cases WHERE eval_set_row = $1 AND eval_id = $2")
                .bind(set_row)
                .bind(eval_id)
                .fetch_optional(&self.pool)
                .await?
                .ok_or_else(|| case_not_found(eval_set_id, eval_id))?;
        let rows = sqlx::query(
            "SELECT version, case_json, saved_at, saved_by FROM ( \
               SELECT version, case_json, saved_at, saved_by FROM eval_case_versions WHERE case_row = $1 \
               UNION ALL SELECT version, case_json, updated_at, saved_by FROM eval_cases WHERE id = $2) AS versions \
             WHERE $3 IS NULL OR version = $4 ORDER BY version",
        )
        .bind(case_row)
        .bind(case_row)
        .bind(only)
        .bind(only)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| {
                Ok(CaseVersion {
                    version: row.get("version"),
                    saved_at: row.get("saved_at"),
                    saved_by: row.get("saved_by"),
                    case: decode_case(row.get("case_json"))?,
                })
            })
            .collect()
    }
}
