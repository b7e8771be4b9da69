//! Evaluation runs: the run row, then one row per case run written as it finishes (or, for a
//! run already over, all of them with the row).

use super::case_runs::write_case_runs;
use super::run_queue::{complete, enqueue, holds};
use super::{dialect, numbered_places, shared_value_rows, Row, SqlStore, Transaction};
use crate::agent::{ReplayMiss, ToolExecution, ToolExecutionMode};
use crate::eval::result::EvalStatus;
use crate::evalset::CompactEvalSet;
use crate::records::runs::{EvalRunCase, EvalRunSummary, RunCommit, RunOrigin, RunStatus};
use crate::store::{
    corrupt, corrupt_text, BatchWrite, CaseSummaryRow, EvalRunHead, EvalRunRecord, NewEvalRun, StoreError,
    StoreResult, Written, SUMMARY_FORMAT,
};
use serde_json::Value;
use sqlx::Row as _;
use std::ops::Range;
use std::sync::LazyLock;

/// A run's summary columns.
const SUMMARY_COLUMNS: &str = "r.result_id, r.app_name, r.eval_set_id, r.agent, r.status, r.num_runs, \
     r.total, r.created_at, r.finished_at, r.cases_done AS done, r.cases_passed AS passed, \
     r.cases_failed AS failed, r.cases_errored AS errors, r.label, r.whole_set, \
     r.tool_execution, r.replay_miss, r.git_commit, r.git_dirty, r.origin";

/// Whether a row of `eval_run_cases` failed in the sense of "failed in the latest run" (as
/// [`EvalRunCase::failed`]): its status is FAILED or its agent errored.
pub(super) static FAILED_CASE_RUN: LazyLock<String> =
    LazyLock::new(|| format!("(status = {} OR error IS NOT NULL)", EvalStatus::Failed as i64));

/// Most cases of a run's eval set written by one statement.
const SET_CASES_PER_INSERT: usize = 256;

/// A head's columns besides the summary: the config and the state of the run's summaries.
const HEAD_COLUMNS: &str = "r.id, r.config_json, r.summarised AS summary_format, r.cases_version, \
     CASE WHEN r.stats_version = r.cases_version THEN r.stats_json END AS stats_json";

/// What a new run holds as it is recorded.
enum Contents<'a> {
    /// Nothing yet: its case runs wait in batches for workers (a run to execute).
    Queued,
    /// Every case run and its case's summary, the run finished at `finished_at` (a run scored
    /// elsewhere or earlier, stored as it is).
    Finished {
        cases: &'a [EvalRunCase],
        summaries: &'a [CaseSummaryRow],
        finished_at: f64,
    },
}

impl SqlStore {
    /// Records a new run as `running`, its cases queued in batches for workers.
    pub async fn create_eval_run(&self, run: &NewEvalRun<'_>) -> StoreResult<EvalRunRecord> {
        self.create(run, Contents::Queued).await
    }

    /// Records a run already over, finished at `finished_at`, with all its case runs and their
    /// cases' summaries, in one transaction: all of it or, on an error, nothing.
    pub async fn create_finished_eval_run(
        &self,
        run: &NewEvalRun<'_>,
        cases: &[EvalRunCase],
        summaries: &[CaseSummaryRow],
        finished_at: f64,
    ) -> StoreResult<EvalRunRecord> {
        let finished = Contents::Finished {
            cases,
            summaries,
            finished_at,
        };
        self.create(run, finished).await
    }

    /// Records a new run with its `contents`. The result id follows ADK
    /// (`{app}_{eval_set_id}_{timestamp}`); two runs in the same instant get a suffix.
    async fn create(&self, run: &NewEvalRun<'_>, contents: Contents<'_>) -> StoreResult<EvalRunRecord> {
        let base = match run.result_id {
            Some(id) => id.to_string(),
            None => format!(
                "{}_{}_{}",
                run.app_name,
                run.eval_set_id,
                serde_json::to_string(&run.created_at).unwrap_or_default()
            ),
        };
        let (status, finished_at) = match contents {
            Contents::Queued => (RunStatus::Running, None),
            Contents::Finished { finished_at, .. } => (RunStatus::Finished, Some(finished_at)),
        };
        // ADK's id is taken as it is, or not at all.
        let attempts = if run.result_id.is_some() { 1 } else { 100 };
        for attempt in 0..attempts {
            let result_id = if attempt == 0 {
                base.clone()
            } else {
                format!("{base}_{attempt}")
            };
            let mut transaction = self.begin_write().await?;
            let inserted: Option<i64> = sqlx::query_scalar(
                "INSERT INTO eval_runs (result_id, app_name, eval_set_id, agent, status, \
                 config_json, num_runs, total, created_at, summarised, \
                 label, whole_set, tool_execution, replay_miss, git_commit, git_dirty, origin, finished_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18) \
                 ON CONFLICT (result_id) DO NOTHING RETURNING id",
            )
            .bind(&result_id)
            .bind(run.app_name)
            .bind(run.eval_set_id)
            .bind(run.agent)
            .bind(status.as_str())
            .bind(run.config_json)
            .bind(run.num_runs as i64)
            .bind(run.total as i64)
            .bind(run.created_at)
            .bind(SUMMARY_FORMAT)
            .bind(run.label)
            .bind(run.whole_set)
            .bind(run.tools.mode.as_str())
            .bind(run.tools.replay_miss.as_str())
            .bind(run.commit.map(|c| c.commit.as_str()))
            .bind(run.commit.map(|c| c.dirty))
            .bind(run.origin.as_str())
            .bind(finished_at)
            .fetch_optional(&mut *transaction)
            .await?;
            if let Some(run_row) = inserted {
                sqlx::query("INSERT INTO eval_run_sets (run_row, header_json) VALUES ($1, $2)")
                    .bind(run_row)
                    .bind(run.expected.header_json())
                    .execute(&mut *transaction)
                    .await?;
                insert_set_cases(&mut transaction, run_row, run.expected).await?;
                match contents {
                    Contents::Queued => enqueue(&mut transaction, run_row, run.total, run.num_runs).await?,
                    Contents::Finished { cases, summaries, .. } => {
                        write_case_runs(&mut transaction, run_row, cases, summaries).await?
                    }
                }
                transaction.commit().await?;
                return self.eval_run(run.app_name, &result_id).await;
            }
        }
        Err(StoreError::Conflict(format!(
            "eval result `{base}` already exists"
        )))
    }

    /// Names the run (`None` takes its label away).
    pub async fn set_run_label(&self, app: &str, result_id: &str, label: Option<&str>) -> StoreResult<()> {
        let updated = sqlx::query("UPDATE eval_runs SET label = $1 WHERE app_name = $2 AND result_id = $3")
            .bind(label)
            .bind(app)
            .bind(result_id)
            .execute(&self.pool)
            .await?;
        if updated.rows_affected() == 0 {
            return Err(StoreError::NotFound(format!(
                "no eval result `{result_id}` in app `{app}`"
            )));
        }
        Ok(())
    }

    /// Stores finished case runs (each replacing an earlier try of the same case run) and the
    /// new summaries of their cases in one transaction: all of them or, on an error, none. The
    /// run's counts follow and its cached statistics go stale.
    pub async fn save_eval_run_cases(
        &self,
        run_row: i64,
        cases: &[EvalRunCase],
        summaries: &[CaseSummaryRow],
        batches: &BatchWrite,
    ) -> StoreResult<Written> {
        let mut transaction = self.begin_write().await?;
        if !holds(&mut transaction, self.boot_id(), run_row, batches).await? {
            return Ok(Written::NotHeld);
        }
        write_case_runs(&mut transaction, run_row, cases, summaries).await?;
        let finished = complete(&mut transaction, run_row, batches).await?;
        transaction.commit().await?;
        Ok(Written::Stored { finished })
    }

    /// The app's runs, newest first; only those of one eval set when given.
    pub async fn list_eval_runs(
        &self,
        app: &str,
        eval_set_id: Option<&str>,
    ) -> StoreResult<Vec<EvalRunSummary>> {
        Ok(self
            .list_eval_run_heads(app, eval_set_id)
            .await?
            .into_iter()
            .map(|head| head.summary)
            .collect())
    }

    /// The app's runs as heads, newest first; only those of one eval set when given.
    pub async fn list_eval_run_heads(
        &self,
        app: &str,
        eval_set_id: Option<&str>,
    ) -> StoreResult<Vec<EvalRunHead>> {
        let rows = sqlx::query(&format!(
            "SELECT {HEAD_COLUMNS}, {summary} FROM eval_runs r \
             WHERE r.app_name = $1 AND ($2 IS NULL OR r.eval_set_id = $3) \
             ORDER BY r.created_at DESC, r.id DESC",
            summary = SUMMARY_COLUMNS
        ))
        .bind(app)
        .bind(eval_set_id)
        .bind(eval_set_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(run_head).collect()
    }

    pub async fn eval_run(&self, app: &str, result_id: &str) -> StoreResult<EvalRunRecord> {
        let row = self.run_row(app, result_id, "r.id, r.config_json").await?;
        Ok(EvalRunRecord {
            row: row.try_get("id")?,
            summary: run_summary(&row)?,
            config_json: row.try_get("config_json")?,
        })
    }

    /// Cases `cases` of the eval set a run was started with, as stored (each its ADK JSON):
    /// a worker reads those of the batch it claims, so nothing reads a run's whole set.
    pub async fn eval_run_set_cases(&self, run_row: i64, cases: Range<usize>) -> StoreResult<Vec<String>> {
        let rows: Vec<(i64, String)> = sqlx::query_as(
            "SELECT case_index, case_json FROM eval_run_set_cases \
             WHERE run_row = $1 AND case_index >= $2 AND case_index < $3 ORDER BY case_index",
        )
        .bind(run_row)
        .bind(cases.start as i64)
        .bind(cases.end as i64)
        .fetch_all(&self.pool)
        .await?;
        if rows.len() != cases.len() || rows.iter().zip(cases.clone()).any(|(row, at)| row.0 != at as i64) {
            return Err(corrupt_text(format!(
                "run {run_row} has not stored every case of {}..{} of its eval set",
                cases.start, cases.end
            )));
        }
        Ok(rows.into_iter().map(|(_, json)| json).collect())
    }

    /// A run's head: its summary and config, without reading its stored eval set.
    pub async fn eval_run_head(&self, app: &str, result_id: &str) -> StoreResult<EvalRunHead> {
        run_head(&self.run_row(app, result_id, HEAD_COLUMNS).await?)
    }

    /// One run's row: the summary columns and `columns`; NotFound naming it if absent.
    async fn run_row(&self, app: &str, result_id: &str, columns: &str) -> StoreResult<Row> {
        sqlx::query(&format!(
            "SELECT {columns}, {summary} FROM eval_runs r \
             WHERE r.app_name = $1 AND r.result_id = $2",
            summary = SUMMARY_COLUMNS
        ))
        .bind(app)
        .bind(result_id)
        .fetch_optional(&self.pool)
        .await?
        .ok_or_else(|| StoreError::NotFound(format!("eval result `{result_id}` not found for app `{app}`")))
    }

    /// The stored case runs, run after run, each in the eval set's order; with their whole
    /// results, or (`with_results` false) only what summaries need, `result` then null.
    pub async fn eval_run_cases(&self, run_row: i64, with_results: bool) -> StoreResult<Vec<EvalRunCase>> {
        let result_column = if with_results {
            "result_json"
        } else {
            "'null' AS result_json"
        };
        let rows = sqlx::query(&format!(
            "SELECT run_index, case_index, eval_id, status, error, scores_json, {result_column} \
             FROM eval_run_cases WHERE run_row = $1 ORDER BY run_index, case_index"
        ))
        .bind(run_row)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(run_case).collect()
    }

    /// The case runs the agent could not finish (those with an error), without their results,
    /// run after run in the eval set's order.
    pub async fn eval_run_errors(&self, run_row: i64) -> StoreResult<Vec<EvalRunCase>> {
        let rows = sqlx::query(
            "SELECT run_index, case_index, eval_id, status, error, scores_json, 'null' AS result_json \
             FROM eval_run_cases WHERE run_row = $1 AND error IS NOT NULL ORDER BY run_index, case_index",
        )
        .bind(run_row)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(run_case).collect()
    }

    /// The evalset's newest run of its agent, if it has any (recorded sessions scored do not
    /// say how the agent does when run).
    pub async fn latest_eval_run(&self, app: &str, eval_set_id: &str) -> StoreResult<Option<EvalRunHead>> {
        let result_id: Option<String> = sqlx::query_scalar(
            "SELECT result_id FROM eval_runs WHERE app_name = $1 AND eval_set_id = $2 AND origin <> $3 \
             ORDER BY created_at DESC, id DESC LIMIT 1",
        )
        .bind(app)
        .bind(eval_set_id)
        .bind(RunOrigin::Recorded.as_str())
        .fetch_optional(&self.pool)
        .await?;
        match result_id {
            Some(id) => Ok(Some(self.eval_run_head(app, &id).await?)),
            None => Ok(None),
        }
    }

    /// The stored runs of the cases `eval_ids` (a page of the case list), without their
    /// results unless `with_results`.
    pub async fn eval_run_cases_of(
        &self,
        run_row: i64,
        eval_ids: &[String],
        with_results: bool,
    ) -> StoreResult<Vec<EvalRunCase>> {
        if eval_ids.is_empty() {
            return Ok(Vec::new());
        }
        let result_column = if with_results {
            "result_json"
        } else {
            "'null' AS result_json"
        };
        let places = numbered_places(2, eval_ids.len());
        let sql = format!(
            "SELECT run_index, case_index, eval_id, status, error, scores_json, {result_column} \
             FROM eval_run_cases WHERE run_row = $1 AND eval_id IN ({places}) ORDER BY run_index, case_index"
        );
        let mut query = sqlx::query(&sql).persistent(false).bind(run_row);
        for id in eval_ids {
            query = query.bind(id);
        }
        let rows = query.fetch_all(&self.pool).await?;
        rows.iter().map(run_case).collect()
    }

    /// Case runs stored after position `after` (a row id; 0 for the start), in the order they
    /// were stored, at most `limit`, each with its position; without results.
    pub async fn eval_run_cases_after(
        &self,
        run_row: i64,
        after: i64,
        limit: i64,
    ) -> StoreResult<Vec<(i64, EvalRunCase)>> {
        let rows = sqlx::query(&format!(
            "SELECT {stored} AS stored, run_index, case_index, eval_id, status, error, scores_json, \
             'null' AS result_json FROM eval_run_cases WHERE run_row = $1 AND {stored} > $2 \
             ORDER BY {stored} LIMIT $3",
            stored = dialect::CASE_RUN_STORED
        ))
        .bind(run_row)
        .bind(after)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| Ok((row.try_get("stored")?, run_case(row)?)))
            .collect()
    }

    /// Up to `limit` case results (ADK JSON as stored) of a run, in run and case order, after
    /// the case run `after` (run index, case index): a run read a page at a time.
    pub async fn eval_run_results_page(
        &self,
        run_row: i64,
        after: Option<(i64, i64)>,
        limit: i64,
    ) -> StoreResult<Vec<((i64, i64), Value)>> {
        let (run_index, case_index) = after.unwrap_or((-1, -1));
        let rows: Vec<(i64, i64, String)> = sqlx::query_as(
            "SELECT run_index, case_index, result_json FROM eval_run_cases \
             WHERE run_row = $1 AND (run_index, case_index) > ($2, $3) ORDER BY run_index, case_index LIMIT $4",
        )
        .bind(run_row)
        .bind(run_index)
        .bind(case_index)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter()
            .map(|(run_index, case_index, json)| {
                let result = serde_json::from_str(&json).map_err(corrupt)?;
                Ok(((run_index, case_index), result))
            })
            .collect()
    }

    /// One case's stored runs, in run order, with their whole results.
    pub async fn eval_run_case_runs(&self, run_row: i64, eval_id: &str) -> StoreResult<Vec<EvalRunCase>> {
        let rows = sqlx::query(
            "SELECT run_index, case_index, eval_id, status, error, scores_json, result_json \
             FROM eval_run_cases WHERE run_row = $1 AND eval_id = $2 ORDER BY run_index",
        )
        .bind(run_row)
        .bind(eval_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(run_case).collect()
    }

    /// The case run of an app whose inference ran in session `session_id`, if one did.
    pub async fn eval_run_case_of_session(
        &self,
        app: &str,
        session_id: &str,
    ) -> StoreResult<Option<EvalRunCase>> {
        let row = sqlx::query(
            "SELECT c.run_index, c.case_index, c.eval_id, c.status, c.error, c.scores_json, c.result_json \
             FROM eval_run_cases c JOIN eval_runs r ON r.id = c.run_row \
             WHERE c.session_id = $1 AND r.app_name = $2 LIMIT 1",
        )
        .bind(session_id)
        .bind(app)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(run_case).transpose()
    }
}

fn run_case(row: &Row) -> StoreResult<EvalRunCase> {
    let scores: String = row.try_get("scores_json")?;
    let result: String = row.try_get("result_json")?;
    Ok(EvalRunCase {
        run_index: row.try_get("run_index")?,
        case_index: row.try_get("case_index")?,
        eval_id: row.try_get("eval_id")?,
        status: EvalStatus::from_number(row.try_get("status")?),
        error: row.try_get("error")?,
        metric_scores: serde_json::from_str(&scores).map_err(corrupt)?,
        result: serde_json::from_str::<Value>(&result).map_err(corrupt)?,
    })
}

fn run_head(row: &Row) -> StoreResult<EvalRunHead> {
    Ok(EvalRunHead {
        row: row.try_get("id")?,
        summary: run_summary(row)?,
        config_json: row.try_get("config_json")?,
        summarised: row.try_get::<i64, _>("summary_format")? == SUMMARY_FORMAT,
        cases_version: row.try_get("cases_version")?,
        stats_json: row.try_get("stats_json")?,
    })
}

fn stored_tools(row: &Row) -> StoreResult<ToolExecution> {
    let mode: String = row.try_get("tool_execution")?;
    let miss: String = row.try_get("replay_miss")?;
    match (ToolExecutionMode::parse(&mode), ReplayMiss::parse(&miss)) {
        (Some(mode), Some(replay_miss)) => Ok(ToolExecution { mode, replay_miss }),
        _ => Err(StoreError::Database(sqlx::Error::Protocol(format!(
            "unknown tool execution `{mode}`/`{miss}`"
        )))),
    }
}

/// A run's status as the `status` column spells it.
pub(super) fn parse_status(status: &str) -> StoreResult<RunStatus> {
    RunStatus::parse(status)
        .ok_or_else(|| StoreError::Database(sqlx::Error::Protocol(format!("unknown run status `{status}`"))))
}

fn run_summary(row: &Row) -> StoreResult<EvalRunSummary> {
    let status: String = row.try_get("status")?;
    Ok(EvalRunSummary {
        result_id: row.try_get("result_id")?,
        app_name: row.try_get("app_name")?,
        eval_set_id: row.try_get("eval_set_id")?,
        agent: row.try_get("agent")?,
        status: parse_status(&status)?,
        num_runs: row.try_get("num_runs")?,
        total: row.try_get("total")?,
        done: row.try_get("done")?,
        passed: row.try_get("passed")?,
        failed: row.try_get("failed")?,
        errors: row.try_get("errors")?,
        created_at: row.try_get("created_at")?,
        finished_at: row.try_get("finished_at")?,
        label: row.try_get("label")?,
        whole_set: row.try_get("whole_set")?,
        tools: stored_tools(row)?,
        commit: match row.try_get::<Option<String>, _>("git_commit")? {
            Some(commit) => Some(RunCommit {
                commit,
                dirty: row.try_get::<Option<bool>, _>("git_dirty")?.unwrap_or(false),
            }),
            None => None,
        },
        origin: {
            let origin: String = row.try_get("origin")?;
            RunOrigin::parse(&origin).ok_or_else(|| {
                StoreError::Database(sqlx::Error::Protocol(format!("unknown run origin `{origin}`")))
            })?
        },
    })
}

/// Writes each case of a new run's eval set as its own row (see `eval_run_set_cases`), many
/// to a statement.
async fn insert_set_cases(
    transaction: &mut Transaction,
    run_row: i64,
    expected: &CompactEvalSet,
) -> StoreResult<()> {
    let mut start = 0;
    while start < expected.len() {
        let end = expected.len().min(start + SET_CASES_PER_INSERT);
        let sql = format!(
            "INSERT INTO eval_run_set_cases (run_row, case_index, case_json) VALUES {}",
            shared_value_rows(end - start, 2)
        );
        let mut insert = sqlx::query(&sql)
            .persistent(end - start == SET_CASES_PER_INSERT)
            .bind(run_row);
        for index in start..end {
            insert = insert.bind(index as i64).bind(expected.case_json(index));
        }
        insert.execute(&mut **transaction).await?;
        start = end;
    }
    Ok(())
}
