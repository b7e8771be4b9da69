//! Evalsets that are also files (folder mode). Every write of an evalset hands its new ADK text
//! to [`EvalSetFiles`] before the transaction commits, so the file and the database change
//! together: a file that cannot be written rolls the write back. Changes read from a file come
//! in through [`SqlStore::sync_eval_set_from_file`], which never writes the file back.

use super::deleted_cases::move_to_trash;
use super::eval_sets::{ensure_app, export_in, insert_case, touch_eval_set, write_new_version};
use super::{Conn, SqlStore, Transaction};
use crate::evalset::EvalSet;
use crate::store::{CaseRow, EvalSetFiles, StoreResult};
use serde_json::Value;
use sqlx::Row;
use std::collections::HashMap;
use std::sync::Arc;

impl SqlStore {
    /// From now on every evalset write also goes to `files`. Set once, at start-up.
    pub fn write_eval_sets_to(&self, files: Arc<dyn EvalSetFiles>) {
        if self.files.set(files).is_err() {
            tracing::warn!("the store already writes its evalsets to files");
        }
    }

    /// Commits a write of an evalset, its file written first where there is one.
    pub(super) async fn commit_eval_set(
        &self,
        mut tx: Transaction,
        app: &str,
        eval_set_id: &str,
    ) -> StoreResult<()> {
        if let Some(files) = self.files.get() {
            let text = export_in(&mut tx, app, eval_set_id).await?;
            files.write(app, eval_set_id, text.as_deref())?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Makes the stored evalset what its file now says: the header, each case in the file's
    /// order (a changed case is a new version, its old one kept in its history), a case the
    /// file no longer has moved to the trash. True when anything changed.
    pub async fn sync_eval_set_from_file(
        &self,
        app: &str,
        eval_set: &EvalSet,
        cases: &[CaseRow],
    ) -> StoreResult<bool> {
        let mut tx = self.begin_write().await?;
        ensure_app(&mut tx, app).await?;
        let (set_row, mut changed) = upsert_header(&mut tx, app, eval_set).await?;
        let mut stored = stored_cases(&mut tx, set_row).await?;
        for (position, case) in cases.iter().enumerate() {
            let position = position as i64;
            changed |= match stored.remove(&case.eval_id) {
                None => {
                    insert_case(&mut tx, set_row, position, case).await?;
                    true
                }
                Some(old) => {
                    if old.position != position {
                        move_case(&mut tx, old.row, position).await?;
                    }
                    let edited = old.case_json != case.case_json;
                    if edited {
                        write_new_version(&mut tx, old.row, case).await?;
                    }
                    edited
                }
            };
        }
        for gone in stored.keys() {
            changed |= move_to_trash(&mut tx, set_row, gone).await?;
        }
        if changed {
            touch_eval_set(&mut tx, set_row).await?;
        }
        tx.commit().await?;
        Ok(changed)
    }

    /// Forgets an evalset whose file is gone (its runs stay). True when there was one.
    pub async fn remove_eval_set_of_file(&self, app: &str, eval_set_id: &str) -> StoreResult<bool> {
        let deleted = sqlx::query("DELETE FROM eval_sets WHERE app_name = $1 AND eval_set_id = $2")
            .bind(app)
            .bind(eval_set_id)
            .execute(&self.pool)
            .await?;
        Ok(deleted.rows_affected() > 0)
    }
}

struct StoredCase {
    row: i64,
    position: i64,
    case_json: String,
}

async fn upsert_header(conn: &mut Conn, app: &str, eval_set: &EvalSet) -> StoreResult<(i64, bool)> {
    let extra = Value::Object(eval_set.extra.clone()).to_string();
    let existing = sqlx::query(
        "SELECT id, name IS NOT DISTINCT FROM $1 AND description IS NOT DISTINCT FROM $2 AND creation_timestamp = $3 AND extra_json = $4 AS same \
         FROM eval_sets WHERE app_name = $5 AND eval_set_id = $6",
    )
    .bind(&eval_set.name)
    .bind(&eval_set.description)
    .bind(eval_set.creation_timestamp)
    .bind(&extra)
    .bind(app)
    .bind(&eval_set.eval_set_id)
    .fetch_optional(&mut *conn)
    .await?;
    if let Some(row) = &existing {
        if row.get::<bool, _>("same") {
            return Ok((row.get("id"), false));
        }
    }
    let row: i64 = sqlx::query_scalar(
        "INSERT INTO eval_sets (app_name, eval_set_id, name, description, creation_timestamp, extra_json) \
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (app_name, eval_set_id) DO UPDATE SET \
         name = excluded.name, description = excluded.description, \
         creation_timestamp = excluded.creation_timestamp, extra_json = excluded.extra_json RETURNING id",
    )
    .bind(app)
    .bind(&eval_set.eval_set_id)
    .bind(&eval_set.name)
    .bind(&eval_set.description)
    .bind(eval_set.creation_timestamp)
    .bind(&extra)
    .fetch_one(&mut *conn)
    .await?;
    Ok((row, true))
}

async fn stored_cases(conn: &mut Conn, set_row: i64) -> StoreResult<HashMap<String, StoredCase>> {
    let rows = sqlx::query("SELECT id, position, eval_id, case_json FROM eval_cases WHERE eval_set_row = $1")
        .bind(set_row)
        .fetch_all(&mut *conn)
        .await?;
    Ok(rows
        .iter()
        .map(|r| {
            let case = StoredCase {
                row: r.get("id"),
                position: r.get("position"),
                case_json: r.get("case_json"),
            };
            (r.get("eval_id"), case)
        })
        .collect())
}

async fn move_case(conn: &mut Conn, case_row: i64, position: i64) -> StoreResult<()> {
    sqlx::query("UPDATE eval_cases SET position = $1 WHERE id = $2")
        .bind(position)
        .bind(case_row)
        .execute(&mut *conn)
        .await?;
    Ok(())
}
