//! Evalsets and their cases. Every write that touches more than one row runs in one write
//! transaction (`begin_write`), so a failure leaves the database as it was.

use super::runs::FAILED_CASE_RUN;
use super::{dialect, Conn, Row, SqlStore};
use crate::evalset::{AdkFileWriter, EvalCase, EvalSet};
use crate::records::cases::{CaseListItem, CaseListPage, CaseListQuery, CaseSort, StoredCase};
use crate::records::evalsets::{EvalSetSummary, ImportSummary};
use crate::records::runs::RunOrigin;
use crate::store::{corrupt, CaseRow, ImportMode, StoreError, StoreResult};
use futures::TryStreamExt;
use serde_json::{Map, Value};
use sqlx::Row as _;

const SUMMARY_COLUMNS: &str = "s.app_name, s.eval_set_id, s.name, s.description, s.updated_at, s.case_count";

impl SqlStore {
    pub async fn list_apps(&self) -> StoreResult<Vec<String>> {
        Ok(sqlx::query_scalar("SELECT name FROM apps ORDER BY name")
            .fetch_all(&self.pool)
            .await?)
    }

    /// The app's evalsets, sorted by id.
    pub async fn list_eval_sets(&self, app: &str) -> StoreResult<Vec<EvalSetSummary>> {
        let rows = sqlx::query(&format!(
            "SELECT {SUMMARY_COLUMNS} FROM eval_sets s WHERE s.app_name = $1 ORDER BY s.eval_set_id"
        ))
        .bind(app)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.iter().map(summary_from_row).collect())
    }

    pub async fn eval_set_summary(&self, app: &str, eval_set_id: &str) -> StoreResult<EvalSetSummary> {
        sqlx::query(&format!(
            "SELECT {SUMMARY_COLUMNS} FROM eval_sets s WHERE s.app_name = $1 AND s.eval_set_id = $2"
        ))
        .bind(app)
        .bind(eval_set_id)
        .fetch_optional(&self.pool)
        .await?
        .map(|row| summary_from_row(&row))
        .ok_or_else(|| eval_set_not_found(app, eval_set_id))
    }

    /// Creates an empty evalset, as ADK's `create_eval_set` does (name = id, timestamp = now).
    pub async fn create_eval_set(&self, app: &str, eval_set_id: &str, now: f64) -> StoreResult<()> {
        self.create_eval_set_with(app, eval_set_id, now, &Map::new())
            .await
    }

    /// Creates an empty evalset whose file carries `extra`, keys ADK does not define.
    pub async fn create_eval_set_with(
        &self,
        app: &str,
        eval_set_id: &str,
        now: f64,
        extra: &Map<String, Value>,
    ) -> StoreResult<()> {
        let mut tx = self.begin_write().await?;
        ensure_app(&mut tx, app).await?;
        let inserted: Option<i64> = sqlx::query_scalar(
            "INSERT INTO eval_sets (app_name, eval_set_id, name, creation_timestamp, extra_json) VALUES ($1, $2, $3, $4, $5) \
             ON CONFLICT (app_name, eval_set_id) DO NOTHING RETURNING id",
        )
        .bind(app)
        .bind(eval_set_id)
        .bind(eval_set_id)
        .bind(now)
        .bind(Value::Object(extra.clone()).to_string())
        .fetch_optional(&mut *tx)
        .await?;
        let Some(set_row) = inserted else {
            return Err(StoreError::Conflict(format!(
                "eval set `{eval_set_id}` already exists for app `{app}`"
            )));
        };
        touch_eval_set(&mut tx, set_row).await?;
        self.commit_eval_set(tx, app, eval_set_id).await
    }

    /// The keys ADK does not define that an evalset's file carries.
    pub async fn eval_set_extra(&self, app: &str, eval_set_id: &str) -> StoreResult<Map<String, Value>> {
        let extra: Option<String> =
            sqlx::query_scalar("SELECT extra_json FROM eval_sets WHERE app_name = $1 AND eval_set_id = $2")
                .bind(app)
                .bind(eval_set_id)
                .fetch_optional(&self.pool)
                .await?;
        let extra = extra.ok_or_else(|| eval_set_not_found(app, eval_set_id))?;
        serde_json::from_str(&extra).map_err(corrupt)
    }

    /// Deletes an evalset and all its cases.
    pub async fn delete_eval_set(&self, app: &str, eval_set_id: &str) -> StoreResult<()> {
        let mut tx = self.begin_write().await?;
        let deleted = sqlx::query("DELETE FROM eval_sets WHERE app_name = $1 AND eval_set_id = $2")
            .bind(app)
            .bind(eval_set_id)
            .execute(&mut *tx)
            .await?;
        if deleted.rows_affected() == 0 {
            return Err(eval_set_not_found(app, eval_set_id));
        }
        self.commit_eval_set(tx, app, eval_set_id).await
    }

    /// Stores an evalset (`eval_set`'s own `eval_cases` are ignored; `cases` are stored, in
    /// order) in one transaction. An existing evalset of the same id is a conflict unless
    /// `replace`, in which case it is replaced whole.
    pub async fn import_eval_set(
        &self,
        app: &str,
        eval_set: &EvalSet,
        cases: &[CaseRow],
        format: &str,
        mode: &ImportMode,
    ) -> StoreResult<ImportSummary> {
        let mut tx = self.begin_write().await?;
        ensure_app(&mut tx, app).await?;
        let existing = tag_in(&mut tx, app, &eval_set.eval_set_id).await?;
        check_import(mode, app, &eval_set.eval_set_id, existing.as_ref())?;
        let existing = existing.map(|(row, _)| row);
        if let Some(row) = existing {
            sqlx::query("DELETE FROM eval_sets WHERE id = $1")
                .bind(row)
                .execute(&mut *tx)
                .await?;
        }
        let set_row: i64 = sqlx::query_scalar(
            "INSERT INTO eval_sets (app_name, eval_set_id, name, description, creation_timestamp, extra_json) \
             VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
        )
        .bind(app)
        .bind(&eval_set.eval_set_id)
        .bind(&eval_set.name)
        .bind(&eval_set.description)
        .bind(eval_set.creation_timestamp)
        .bind(Value::Object(eval_set.extra.clone()).to_string())
        .fetch_one(&mut *tx)
        .await?;
        for (position, case) in cases.iter().enumerate() {
            insert_case(&mut tx, set_row, position as i64, case).await?;
        }
        let tag = touch_eval_set(&mut tx, set_row).await?;
        self.commit_eval_set(tx, app, &eval_set.eval_set_id).await?;
        Ok(ImportSummary {
            eval_set_id: eval_set.eval_set_id.clone(),
            cases: cases.len(),
            format: format.to_string(),
            replaced: existing.is_some(),
            tag,
        })
    }

    /// The evalset as ADK's file writer writes it, cases in file order.
    pub async fn export_adk_json(&self, app: &str, eval_set_id: &str) -> StoreResult<String> {
        let mut conn = self.pool.acquire().await?;
        export_in(&mut conn, app, eval_set_id)
            .await?
            .ok_or_else(|| eval_set_not_found(app, eval_set_id))
    }

    /// The evalset as ADK's file writer writes it, with its tag (ETag): the tag of exactly this
    /// text, read again after it and read once more if a write came between.
    pub async fn export_tagged(&self, app: &str, eval_set_id: &str) -> StoreResult<(String, String)> {
        loop {
            let before = self.eval_set_tag(app, eval_set_id).await?;
            let text = self.export_adk_json(app, eval_set_id).await?;
            if self.eval_set_tag(app, eval_set_id).await? == before {
                return Ok((text, before));
            }
        }
    }

    async fn eval_set_tag(&self, app: &str, eval_set_id: &str) -> StoreResult<String> {
        let mut conn = self.pool.acquire().await?;
        Ok(tag_in(&mut conn, app, eval_set_id)
            .await?
            .ok_or_else(|| eval_set_not_found(app, eval_set_id))?
            .1)
    }

    /// The distinct tool names the evalset's cases call, sorted.
    pub async fn case_tool_names(&self, app: &str, eval_set_id: &str) -> StoreResult<Vec<String>> {
        let set_row = self.eval_set_row(app, eval_set_id).await?;
        let lists: Vec<String> =
            sqlx::query_scalar("SELECT DISTINCT tool_names FROM eval_cases WHERE eval_set_row = $1")
                .bind(set_row)
                .fetch_all(&self.pool)
                .await?;
        let mut names: Vec<String> = lists
            .iter()
            .flat_map(|list| list.split_whitespace())
            .map(str::to_string)
            .collect();
        names.sort();
        names.dedup();
        Ok(names)
    }

    /// The eval ids of an evalset, sorted.
    pub async fn case_ids(&self, app: &str, eval_set_id: &str) -> StoreResult<Vec<String>> {
        let set_row = self.eval_set_row(app, eval_set_id).await?;
        Ok(
            sqlx::query_scalar("SELECT eval_id FROM eval_cases WHERE eval_set_row = $1 ORDER BY eval_id")
                .bind(set_row)
                .fetch_all(&self.pool)
                .await?,
        )
    }

    /// One page (1-based) of an evalset's cases that match `query`, in its order; a page past
    /// the end gives the last page. The filter and the order run in the database, so a page of a
    /// large evalset costs about what a page of a small one does.
    pub async fn list_cases(
        &self,
        app: &str,
        eval_set_id: &str,
        query: &CaseListQuery,
        page: i64,
        per_page: i64,
    ) -> StoreResult<CaseListPage> {
        let eval_set = self.eval_set_summary(app, eval_set_id).await?;
        let set_row = self.eval_set_row(app, eval_set_id).await?;
        let per_page = per_page.clamp(1, 500);
        let text = query.text.trim().to_lowercase();
        // FIND rather than LIKE: the user's text may hold % or _. The failed filter reads
        // the evalset's latest run (of its agent, not of recorded sessions). Numbered parameters: each value is bound once.
        let matches = format!(
            "eval_set_row = $1 AND ($2 = '' OR {find}(lower(eval_id), $2) > 0 \
             OR {find}(lower(first_user_message), $2) > 0 OR {find}(lower(tool_names), $2) > 0) \
             AND (NOT $3 OR eval_id IN (SELECT eval_id FROM eval_run_cases WHERE run_row = \
             (SELECT id FROM eval_runs WHERE app_name = $4 AND eval_set_id = $5 AND origin <> '{recorded}' \
             ORDER BY created_at DESC, id DESC LIMIT 1) AND {failed}))",
            failed = FAILED_CASE_RUN.as_str(),
            recorded = RunOrigin::Recorded.as_str(),
            find = dialect::FIND,
        );
        let filter = (set_row, text.as_str(), query.failed_last_run, app, eval_set_id);
        let total_cases: i64 = if text.is_empty() && !query.failed_last_run {
            eval_set.case_count
        } else {
            matching(
                &format!("SELECT COUNT(*) FROM eval_cases WHERE {matches}"),
                filter,
            )
            .fetch_one(&self.pool)
            .await?
            .try_get(0)?
        };
        let last_page = ((total_cases + per_page - 1) / per_page).max(1);
        let page = page.clamp(1, last_page);
        let column = match query.sort {
            CaseSort::File => "position",
            CaseSort::EvalId => "eval_id",
            CaseSort::Turns => "turn_count",
            CaseSort::ToolCalls => "tool_call_count",
            CaseSort::Updated => "updated_at",
        };
        let direction = if query.descending { "DESC" } else { "ASC" };
        // The page's rows are picked by id first, so the rows skipped by OFFSET are read from
        // the order's index alone, not fetched whole.
        let page_sql = format!(
            "SELECT eval_id, turn_count, tool_call_count, first_user_message, version, updated_at \
             FROM eval_cases WHERE id IN (SELECT id FROM eval_cases WHERE {matches} \
             ORDER BY {column} {direction}, position {direction} LIMIT $6 OFFSET $7) \
             ORDER BY {column} {direction}, position {direction}"
        );
        let rows = matching(&page_sql, filter)
            .bind(per_page)
            .bind((page - 1) * per_page)
            .fetch_all(&self.pool)
            .await?;
        let cases = rows
            .iter()
            .map(|row| CaseListItem {
                eval_id: row.get("eval_id"),
                turn_count: row.get("turn_count"),
                tool_call_count: row.get("tool_call_count"),
                first_user_message: row.get("first_user_message"),
                version: row.get("version"),
                updated_at: row.get("updated_at"),
                last_result: None,
            })
            .collect();
        Ok(CaseListPage {
            eval_set,
            cases,
            page,
            per_page,
            total_cases,
            query: query.clone(),
            last_run: None,
        })
    }

    pub async fn get_case(&self, app: &str, eval_set_id: &str, eval_id: &str) -> StoreResult<StoredCase> {
        let set_row = self.eval_set_row(app, eval_set_id).await?;
        let row = sqlx::query(
            "SELECT case_json, version, created_at, updated_at FROM eval_cases \
             WHERE eval_set_row = $1 AND eval_id = $2",
        )
        .bind(set_row)
        .bind(eval_id)
        .fetch_optional(&self.pool)
        .await?
        .ok_or_else(|| case_not_found(eval_set_id, eval_id))?;
        Ok(StoredCase {
            app_name: app.to_string(),
            eval_set_id: eval_set_id.to_string(),
            case: decode_case(row.get("case_json"))?,
            version: row.get("version"),
            created_at: row.get("created_at"),
            updated_at: row.get("updated_at"),
        })
    }

    /// Replaces a case if `expected_version` is still its version. The case may be renamed
    /// (its `eval_id` differs from `eval_id`) unless the new id is taken.
    pub async fn update_case(
        &self,
        app: &str,
        eval_set_id: &str,
        eval_id: &str,
        case: &EvalCase,
        expected_version: i64,
        saved_by: Option<&str>,
    ) -> StoreResult<StoredCase> {
        let mut tx = self.begin_write().await?;
        let set_row = eval_set_row_in(&mut tx, app, eval_set_id).await?;
        let (case_row, current): (i64, i64) =
            sqlx::query_as("SELECT id, version FROM eval_cases WHERE eval_set_row = $1 AND eval_id = $2")
                .bind(set_row)
                .bind(eval_id)
                .fetch_optional(&mut *tx)
                .await?
                .ok_or_else(|| case_not_found(eval_set_id, eval_id))?;
        if current != expected_version {
            return Err(StoreError::Stale {
                message: format!(
                    "eval case `{eval_id}` changed since you opened it: you edited version {expected_version}, \
                     the stored version is {current}. Reload it and apply your change again."
                ),
                current,
            });
        }
        let updated = write_new_version(&mut tx, case_row, &CaseRow::new(case).saved_by(saved_by)).await;
        match updated {
            Err(sqlx::Error::Database(e)) if e.is_unique_violation() => {
                return Err(StoreError::Conflict(format!(
                    "eval set `{eval_set_id}` already has a case `{}`",
                    case.eval_id
                )))
            }
            other => other?,
        };
        touch_eval_set(&mut tx, set_row).await?;
        self.commit_eval_set(tx, app, eval_set_id).await?;
        self.get_case(app, eval_set_id, &case.eval_id).await
    }

    /// Appends a new case to an evalset.
    pub async fn add_case(
        &self,
        app: &str,
        eval_set_id: &str,
        case: &EvalCase,
        saved_by: Option<&str>,
    ) -> StoreResult<StoredCase> {
        let mut tx = self.begin_write().await?;
        let set_row = eval_set_row_in(&mut tx, app, eval_set_id).await?;
        let position: i64 = sqlx::query_scalar(
            "SELECT COALESCE(MAX(position) + 1, 0) FROM eval_cases WHERE eval_set_row = $1",
        )
        .bind(set_row)
        .fetch_one(&mut *tx)
        .await?;
        match insert_case(&mut tx, set_row, position, &CaseRow::new(case).saved_by(saved_by)).await {
            Err(StoreError::Database(sqlx::Error::Database(e))) if e.is_unique_violation() => {
                return Err(StoreError::Conflict(format!(
                    "eval set `{eval_set_id}` already has a case `{}`",
                    case.eval_id
                )))
            }
            other => other?,
        }
        touch_eval_set(&mut tx, set_row).await?;
        self.commit_eval_set(tx, app, eval_set_id).await?;
        self.get_case(app, eval_set_id, &case.eval_id).await
    }

    pub(super) async fn eval_set_row(&self, app: &str, eval_set_id: &str) -> StoreResult<i64> {
        let mut conn = self.pool.acquire().await?;
        eval_set_row_in(&mut conn, app, eval_set_id).await
    }
}

/// The evalset as ADK writes it, or `None` when there is none; cases are read and written one
/// at a time.
pub(super) async fn export_in(conn: &mut Conn, app: &str, eval_set_id: &str) -> StoreResult<Option<String>> {
    let Some(header) = sqlx::query(
        "SELECT id, name, description, creation_timestamp, extra_json FROM eval_sets \
         WHERE app_name = $1 AND eval_set_id = $2",
    )
    .bind(app)
    .bind(eval_set_id)
    .fetch_optional(&mut *conn)
    .await?
    else {
        return Ok(None);
    };
    let extra: Map<String, Value> = serde_json::from_str(header.get("extra_json")).map_err(corrupt)?;
    let eval_set = EvalSet {
        eval_set_id: eval_set_id.to_string(),
        name: header.get("name"),
        description: header.get("description"),
        eval_cases: Vec::new(),
        creation_timestamp: header.get("creation_timestamp"),
        extra,
    };
    let mut writer = AdkFileWriter::new(&eval_set);
    let mut rows = sqlx::query_scalar::<_, String>(
        "SELECT case_json FROM eval_cases WHERE eval_set_row = $1 ORDER BY position",
    )
    .bind(header.get::<i64, _>("id"))
    .fetch(&mut *conn);
    while let Some(json) = rows.try_next().await? {
        writer.push_case(&decode_case(&json)?);
    }
    Ok(Some(writer.finish()))
}

/// A case's new content (and id) as its next version, the version it replaces joining its
/// history. A new id that is taken is the database's unique violation, for the caller to name.
pub(super) async fn write_new_version(
    conn: &mut Conn,
    case_row: i64,
    row: &CaseRow,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO eval_case_versions (case_row, version, case_json, saved_at, saved_by) \
         SELECT id, version, case_json, updated_at, saved_by FROM eval_cases WHERE id = $1",
    )
    .bind(case_row)
    .execute(&mut *conn)
    .await?;
    sqlx::query(&format!(
        "UPDATE eval_cases SET eval_id = $1, case_json = $2, turn_count = $3, tool_call_count = $4, \
         first_user_message = $5, tool_names = $6, saved_by = $8, version = version + 1, updated_at = {now} \
         WHERE id = $7",
        now = dialect::NOW
    ))
    .bind(&row.eval_id)
    .bind(&row.case_json)
    .bind(row.turn_count)
    .bind(row.tool_call_count)
    .bind(&row.first_user_message)
    .bind(&row.tool_names)
    .bind(case_row)
    .bind(&row.saved_by)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

pub(super) async fn ensure_app(conn: &mut Conn, app: &str) -> StoreResult<()> {
    sqlx::query("INSERT INTO apps (name) VALUES ($1) ON CONFLICT (name) DO NOTHING")
        .bind(app)
        .execute(conn)
        .await?;
    Ok(())
}

pub(super) async fn eval_set_row_in(conn: &mut Conn, app: &str, eval_set_id: &str) -> StoreResult<i64> {
    sqlx::query_scalar("SELECT id FROM eval_sets WHERE app_name = $1 AND eval_set_id = $2")
        .bind(app)
        .bind(eval_set_id)
        .fetch_optional(conn)
        .await?
        .ok_or_else(|| eval_set_not_found(app, eval_set_id))
}

pub(super) async fn insert_case(
    conn: &mut Conn,
    set_row: i64,
    position: i64,
    case: &CaseRow,
) -> StoreResult<()> {
    sqlx::query(
        "INSERT INTO eval_cases (eval_set_row, position, eval_id, case_json, turn_count, tool_call_count, \
         first_user_message, tool_names, saved_by) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
    )
    .bind(set_row)
    .bind(position)
    .bind(&case.eval_id)
    .bind(&case.case_json)
    .bind(case.turn_count)
    .bind(case.tool_call_count)
    .bind(&case.first_user_message)
    .bind(&case.tool_names)
    .bind(&case.saved_by)
    .execute(conn)
    .await?;
    Ok(())
}

/// Marks an evalset changed now (a new tag, which it answers) and recounts its cases: every
/// write of it ends here.
pub(super) async fn touch_eval_set(conn: &mut Conn, set_row: i64) -> StoreResult<String> {
    let tag = uuid::Uuid::new_v4().simple().to_string();
    sqlx::query(&format!(
        "UPDATE eval_sets SET updated_at = {}, tag = $2, \
         case_count = (SELECT COUNT(*) FROM eval_cases WHERE eval_set_row = $1) WHERE id = $1",
        dialect::NOW
    ))
    .bind(set_row)
    .bind(&tag)
    .execute(conn)
    .await?;
    Ok(tag)
}

/// The stored evalset's row and tag (random, new at every write: see `touch_eval_set`).
async fn tag_in(conn: &mut Conn, app: &str, eval_set_id: &str) -> StoreResult<Option<(i64, String)>> {
    Ok(
        sqlx::query_as("SELECT id, tag FROM eval_sets WHERE app_name = $1 AND eval_set_id = $2")
            .bind(app)
            .bind(eval_set_id)
            .fetch_optional(conn)
            .await?,
    )
}

/// Whether an import in `mode` may go ahead over what is stored (`existing`: its row and tag).
fn check_import(
    mode: &ImportMode,
    app: &str,
    eval_set_id: &str,
    existing: Option<&(i64, String)>,
) -> StoreResult<()> {
    let stale = |message: String| Err(StoreError::Stale { message, current: 0 });
    match (mode, existing) {
        (ImportMode::New, Some(_)) => Err(StoreError::Conflict(format!(
            "eval set `{eval_set_id}` already exists for app `{app}`; import with replace to overwrite it"
        ))),
        (ImportMode::ReplaceIfTag(expected), Some((_, tag))) if tag != expected => stale(format!(
            "eval set `{eval_set_id}` changed since your copy was taken (yours is {expected}, it is now {tag})"
        )),
        (ImportMode::ReplaceIfTag(expected), None) => stale(format!(
            "eval set `{eval_set_id}` was deleted since your copy ({expected}) was taken"
        )),
        _ => Ok(()),
    }
}

fn summary_from_row(row: &Row) -> EvalSetSummary {
    EvalSetSummary {
        app_name: row.get("app_name"),
        eval_set_id: row.get("eval_set_id"),
        name: row.get("name"),
        description: row.get("description"),
        case_count: row.get("case_count"),
        updated_at: row.get("updated_at"),
    }
}

pub(super) fn decode_case(json: &str) -> StoreResult<EvalCase> {
    serde_json::from_str(json).map_err(corrupt)
}

/// `sql` with the case list's filter bound: $1 to $5 of `list_cases`' MATCHES (the evalset's
/// row, the search text, the failed-in-the-last-run flag, the app and the evalset id).
fn matching<'q>(
    sql: &'q str,
    (set_row, text, failed, app, set): (i64, &'q str, bool, &'q str, &'q str),
) -> sqlx::query::Query<'q, super::Db, <super::Db as sqlx::Database>::Arguments<'q>> {
    sqlx::query(sql)
        .bind(set_row)
        .bind(text)
        .bind(failed)
        .bind(app)
        .bind(set)
}

fn eval_set_not_found(app: &str, eval_set_id: &str) -> StoreError {
    StoreError::NotFound(format!("eval set `{eval_set_id}` not found for app `{app}`"))
}

pub(super) fn case_not_found(eval_set_id: &str, eval_id: &str) -> StoreError {
    StoreError::NotFound(format!(
        "eval case `{eval_id}` not found in eval set `{eval_set_id}`"
    ))
}
