//! Deleting cases so that it can be undone: a delete moves each case, with its history, to
//! `deleted_eval_cases` in one transaction; an undo moves it back; old deletes are purged.

use super::eval_sets::{case_not_found, eval_set_row_in, touch_eval_set};
use super::{dialect, Conn, SqlStore};
use crate::evalset::EvalCase;
use crate::records::cases::DeletedCase;
use crate::store::{corrupt, CaseRow, StoreError, StoreResult};
use sqlx::Row;

impl SqlStore {
    /// Deletes the cases (all or none: an unknown id changes nothing).
    pub async fn delete_cases(&self, app: &str, eval_set_id: &str, eval_ids: &[String]) -> StoreResult<()> {
        let mut tx = self.begin_write().await?;
        let set_row = eval_set_row_in(&mut tx, app, eval_set_id).await?;
        for eval_id in eval_ids {
            if !move_to_trash(&mut tx, set_row, eval_id).await? {
                return Err(case_not_found(eval_set_id, eval_id));
            }
        }
        touch_eval_set(&mut tx, set_row).await?;
        self.commit_eval_set(tx, app, eval_set_id).await?;
        Ok(())
    }

    /// Brings back the most recently deleted case of each id (all or none), history included.
    pub async fn undo_delete(&self, app: &str, eval_set_id: &str, eval_ids: &[String]) -> StoreResult<()> {
        let mut tx = self.begin_write().await?;
        let set_row = eval_set_row_in(&mut tx, app, eval_set_id).await?;
        for eval_id in eval_ids {
            let deleted = sqlx::query(
                "SELECT id, position, case_json, version, created_at, saved_by, versions_json FROM deleted_eval_cases \
                 WHERE eval_set_row = $1 AND eval_id = $2 ORDER BY id DESC LIMIT 1",
            )
            .bind(set_row)
            .bind(eval_id)
            .fetch_optional(&mut *tx)
            .await?
            .ok_or_else(|| {
                StoreError::NotFound(format!("no deleted case `{eval_id}` in eval set `{eval_set_id}`"))
            })?;
            let case: EvalCase = serde_json::from_str(deleted.get("case_json")).map_err(corrupt)?;
            let row = CaseRow::new(&case);
            let inserted = sqlx::query(
                "INSERT INTO eval_cases (eval_set_row, position, eval_id, case_json, turn_count, tool_call_count, \
                 first_user_message, tool_names, version, created_at, saved_by) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) \
                 RETURNING id",
            )
            .bind(set_row)
            .bind(deleted.get::<i64, _>("position"))
            .bind(eval_id)
            .bind(&row.case_json)
            .bind(row.turn_count)
            .bind(row.tool_call_count)
            .bind(&row.first_user_message)
            .bind(&row.tool_names)
            .bind(deleted.get::<i64, _>("version"))
            .bind(deleted.get::<String, _>("created_at"))
            .bind(deleted.get::<Option<String>, _>("saved_by"))
            .fetch_one(&mut *tx)
            .await;
            let case_row: i64 = match inserted {
                Ok(row) => row.get("id"),
                Err(sqlx::Error::Database(e)) if e.is_unique_violation() => {
                    return Err(StoreError::Conflict(format!(
                        "eval set `{eval_set_id}` has a case `{eval_id}` again; rename or delete it first"
                    )))
                }
                Err(other) => return Err(other.into()),
            };
            sqlx::query(dialect::RESTORE_VERSIONS)
                .bind(case_row)
                .bind(deleted.get::<String, _>("versions_json"))
                .execute(&mut *tx)
                .await?;
            sqlx::query("DELETE FROM deleted_eval_cases WHERE id = $1")
                .bind(deleted.get::<i64, _>("id"))
                .execute(&mut *tx)
                .await?;
        }
        touch_eval_set(&mut tx, set_row).await?;
        self.commit_eval_set(tx, app, eval_set_id).await?;
        Ok(())
    }

    /// The evalset's deleted cases that can still be brought back, newest first.
    pub async fn deleted_cases(&self, app: &str, eval_set_id: &str) -> StoreResult<Vec<DeletedCase>> {
        let set_row = self.eval_set_row(app, eval_set_id).await?;
        let rows = sqlx::query(
            "SELECT eval_id, deleted_at FROM deleted_eval_cases WHERE eval_set_row = $1 ORDER BY id DESC",
        )
        .bind(set_row)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .iter()
            .map(|row| DeletedCase {
                eval_id: row.get("eval_id"),
                deleted_at: row.get("deleted_at"),
            })
            .collect())
    }

    /// Forgets the cases deleted more than `days` ago; returns how many.
    pub async fn purge_deleted_cases(&self, days: u32) -> StoreResult<u64> {
        let purged = sqlx::query(&format!(
            "DELETE FROM deleted_eval_cases WHERE deleted_at < {}",
            dialect::DAYS_AGO
        ))
        .bind(i64::from(days))
        .execute(&self.pool)
        .await?;
        Ok(purged.rows_affected())
    }
}

/// Moves a case, with its history, to the trash; false when the evalset has no such case.
pub(super) async fn move_to_trash(conn: &mut Conn, set_row: i64, eval_id: &str) -> StoreResult<bool> {
    let moved = sqlx::query(&format!(
        "INSERT INTO deleted_eval_cases \
         (eval_set_row, position, eval_id, case_json, version, created_at, saved_by, versions_json) \
         SELECT c.eval_set_row, c.position, c.eval_id, c.case_json, c.version, c.created_at, c.saved_by, \
           (SELECT {versions} FROM eval_case_versions v WHERE v.case_row = c.id) \
         FROM eval_cases c WHERE c.eval_set_row = $1 AND c.eval_id = $2",
        versions = dialect::VERSIONS_AS_JSON
    ))
    .bind(set_row)
    .bind(eval_id)
    .execute(&mut *conn)
    .await?;
    sqlx::query("DELETE FROM eval_cases WHERE eval_set_row = $1 AND eval_id = $2")
        .bind(set_row)
        .bind(eval_id)
        .execute(&mut *conn)
        .await?;
    Ok(moved.rows_affected() > 0)
}

#[cfg(test)]
impl SqlStore {
    /// Makes the deletes of `eval_id` look `days` old.
    pub async fn age_deleted_cases(&self, eval_id: &str, days: i64) -> StoreResult<()> {
        sqlx::query(&format!(
            "UPDATE deleted_eval_cases SET deleted_at = {} WHERE eval_id = $2",
            dialect::DAYS_AGO
        ))
        .bind(days)
        .bind(eval_id)
        .execute(&self.pool)
        .await?;
        Ok(())
    }
}
