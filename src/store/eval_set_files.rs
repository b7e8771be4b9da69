//! Evalsets that are also files (folder mode). Every write of an evalset hands its new ADK text
//! to [`EvalSetFiles`] before the transaction commits, so the file and the database change
//! together: a file that cannot be written rolls the write back. Changes read from a file come
//! in through [`Store::sync_eval_set_from_file`], which never writes the file back.

use super::db::{
    ensure_app, export_in, insert_case, touch_eval_set, write_new_version, CaseRow, Conn, Store, StoreError,
    StoreResult,
};
use super::deleted_cases::move_to_trash;
use crate::evalset::EvalSet;
use serde_json::Value;
use sqlx::Row;
use std::collections::HashMap;
use std::sync::Arc;

/// Where evalsets are written as files.
pub trait EvalSetFiles: Send + Sync {
    /// Writes the evalset's ADK text (`None`: it was deleted), or refuses with the reason.
    fn write(&self, app: &str, eval_set_id: &str, text: Option<&str>) -> StoreResult<()>;
}

impl Store {
    /// From now on every evalset write also goes to `files`. Set once, at start-up.
    pub fn write_eval_sets_to(&self, files: Arc<dyn EvalSetFiles>) {
        if self.files.set(files).is_err() {
            tracing::warn!("the store already writes its evalsets to files");
        }
    }

    /// Commits a write of an evalset, its file written first where there is one.
    pub(super) async fn commit_eval_set(
        &self,
        mut tx: sqlx::Transaction<'_, sqlx::Sqlite>,
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
        let mut tx = self.pool.begin_with("BEGIN IMMEDIATE").await?;
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
        let deleted = sqlx::query("DELETE FROM eval_sets WHERE app_name = ? AND eval_set_id = ?")
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
        "SELECT id, name IS ? AND description IS ? AND creation_timestamp = ? AND extra_json = ? AS same \
         FROM eval_sets WHERE app_name = ? AND eval_set_id = ?",
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
         VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (app_name, eval_set_id) DO UPDATE SET \
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
    let rows = sqlx::query("SELECT id, position, eval_id, case_json FROM eval_cases WHERE eval_set_row = ?")
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
    sqlx::query("UPDATE eval_cases SET position = ? WHERE id = ?")
        .bind(position)
        .bind(case_row)
        .execute(&mut *conn)
        .await?;
    Ok(())
}

impl From<std::io::Error> for StoreError {
    fn from(err: std::io::Error) -> StoreError {
        StoreError::File(err.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evalset::to_adk_json;
    use crate::store::tests::{eval_set as parse_whole, temp_store};
    use std::sync::Mutex;

    /// A file's header and its cases as the store keeps them.
    fn file(text: &str) -> (EvalSet, Vec<CaseRow>) {
        let mut set = parse_whole(text);
        let rows = set.eval_cases.iter().map(CaseRow::new).collect();
        set.eval_cases.clear();
        (set, rows)
    }

    fn case(id: &str, text: &str) -> String {
        format!(
            r#"{{"eval_id": "{id}", "conversation": [{{"user_content": {{"parts": [{{"text": "{text}"}}]}}}}]}}"#
        )
    }

    fn set_of(cases: &[String]) -> String {
        format!(r#"{{"eval_set_id": "s", "eval_cases": [{}]}}"#, cases.join(","))
    }

    #[tokio::test]
    async fn a_file_read_again_changes_only_what_changed() {
        let (_dir, store) = temp_store().await;
        let first = set_of(&[case("b", "one"), case("a", "two")]);
        let (header, rows) = file(&first);
        assert!(store
            .sync_eval_set_from_file("app", &header, &rows)
            .await
            .unwrap());
        assert_eq!(
            store.export_adk_json("app", "s").await.unwrap(),
            to_adk_json(&parse_whole(&first))
        );
        assert!(
            !store
                .sync_eval_set_from_file("app", &header, &rows)
                .await
                .unwrap(),
            "same file, no change"
        );

        // `b` edited and moved after `a`: a new version of `b`, its old one in its history.
        let second = set_of(&[case("a", "two"), case("b", "one, edited")]);
        let (header, rows) = file(&second);
        assert!(store
            .sync_eval_set_from_file("app", &header, &rows)
            .await
            .unwrap());
        assert_eq!(
            store.export_adk_json("app", "s").await.unwrap(),
            to_adk_json(&parse_whole(&second))
        );
        assert_eq!(store.get_case("app", "s", "b").await.unwrap().version, 2);
        assert_eq!(store.get_case("app", "s", "a").await.unwrap().version, 1);
        // The current version and the one it replaced.
        assert_eq!(store.case_versions("app", "s", "b").await.unwrap().len(), 2);

        // `a` gone from the file: in the trash, where undo finds it.
        let (header, rows) = file(&set_of(&[case("b", "one, edited")]));
        assert!(store
            .sync_eval_set_from_file("app", &header, &rows)
            .await
            .unwrap());
        let trash = store.deleted_cases("app", "s").await.unwrap();
        assert_eq!(
            trash.iter().map(|d| d.eval_id.as_str()).collect::<Vec<_>>(),
            ["a"]
        );
    }

    /// Records what it is handed; refuses everything when `refuse`.
    #[derive(Default)]
    struct Recorder {
        written: Mutex<Vec<(String, Option<String>)>>,
        refuse: bool,
    }

    impl EvalSetFiles for Recorder {
        fn write(&self, _app: &str, eval_set_id: &str, text: Option<&str>) -> StoreResult<()> {
            if self.refuse {
                return Err(StoreError::Conflict("the file does not parse".into()));
            }
            self.written
                .lock()
                .unwrap()
                .push((eval_set_id.to_string(), text.map(str::to_string)));
            Ok(())
        }
    }

    #[tokio::test]
    async fn every_write_hands_over_the_evalsets_new_text_and_a_delete_none() {
        let (_dir, store) = temp_store().await;
        let files = Arc::new(Recorder::default());
        store.write_eval_sets_to(files.clone());
        store.create_eval_set("app", "s", 1.0).await.unwrap();
        store.delete_eval_set("app", "s").await.unwrap();
        let written = files.written.lock().unwrap().clone();
        assert_eq!(written.len(), 2);
        assert!(written[0]
            .1
            .as_deref()
            .unwrap()
            .contains("\"eval_set_id\": \"s\""));
        assert_eq!(written[1], ("s".to_string(), None));
    }

    #[tokio::test]
    async fn a_refused_file_leaves_the_database_as_it_was() {
        let (_dir, store) = temp_store().await;
        let (header, rows) = file(&set_of(&[case("a", "one")]));
        store
            .sync_eval_set_from_file("app", &header, &rows)
            .await
            .unwrap();
        store.write_eval_sets_to(Arc::new(Recorder {
            refuse: true,
            ..Default::default()
        }));
        let err = store
            .delete_cases("app", "s", &["a".to_string()])
            .await
            .unwrap_err();
        assert!(matches!(err, StoreError::Conflict(_)), "{err}");
        assert_eq!(store.case_ids("app", "s").await.unwrap(), ["a"]);
    }
}
