//! Spans from the OTLP receiver: stored as they arrive (a span sent twice is kept once), read
//! back by trace, and pruned to the retention setting.

use super::{Row, SqlStore};
use crate::records::{SpanKind, SpanRecord, SpanStatus, TraceSessionSummary};
use crate::store::{corrupt, corrupt_text, StoreResult};
use sqlx::Row as _;

/// Most spans written by one statement (17 parameters each, well under SQLite's limit).
const SPANS_PER_INSERT: usize = 64;

const COLUMNS: &str = "trace_id, span_id, parent_span_id, name, kind, start_unix_nano, end_unix_nano, \
     status, status_message, service_name, session_id, scope, attributes_json, events_json, resource_json, agent_name";
const COLUMN_COUNT: usize = 16;

impl SqlStore {
    /// Stores `spans` in one transaction, received at `at`; answers how many were new.
    pub async fn insert_spans(&self, spans: &[SpanRecord], at: f64) -> StoreResult<u64> {
        let mut transaction = self.begin_write().await?;
        let mut inserted = 0;
        for chunk in spans.chunks(SPANS_PER_INSERT) {
            let rows: Vec<String> = (0..chunk.len())
                .map(|n| {
                    let first = 2 + COLUMN_COUNT * n;
                    let places: Vec<String> =
                        (first..first + COLUMN_COUNT).map(|p| format!("${p}")).collect();
                    format!("({}, $1)", places.join(", "))
                })
                .collect();
            let sql = format!(
                "INSERT INTO trace_spans ({COLUMNS}, received_at) VALUES {} \
                 ON CONFLICT (trace_id, span_id) DO NOTHING",
                rows.join(", ")
            );
            let mut insert = sqlx::query(&sql)
                .persistent(chunk.len() == SPANS_PER_INSERT)
                .bind(at);
            for span in chunk {
                insert = insert
                    .bind(&span.trace_id)
                    .bind(&span.span_id)
                    .bind(&span.parent_span_id)
                    .bind(&span.name)
                    .bind(span.kind.as_str())
                    .bind(span.start_unix_nano)
                    .bind(span.end_unix_nano)
                    .bind(span.status.as_str())
                    .bind(&span.status_message)
                    .bind(&span.service_name)
                    .bind(&span.session_id)
                    .bind(&span.scope)
                    .bind(serde_json::to_string(&span.attributes).expect("attributes serialise"))
                    .bind(serde_json::to_string(&span.events).expect("events serialise"))
                    .bind(serde_json::to_string(&span.resource).expect("a resource serialises"))
                    .bind(
                        span.attributes
                            .get("gen_ai.agent.name")
                            .and_then(|name| name.as_str()),
                    );
            }
            inserted += insert.execute(&mut *transaction).await?.rows_affected();
        }
        transaction.commit().await?;
        Ok(inserted)
    }

    /// The spans of a trace, earliest first.
    pub async fn trace_spans(&self, trace_id: &str) -> StoreResult<Vec<SpanRecord>> {
        let rows = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM trace_spans WHERE trace_id = $1 ORDER BY start_unix_nano, id"
        ))
        .bind(trace_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(span).collect()
    }

    /// The spans of every trace with a span of session `session_id`, earliest first.
    pub async fn session_spans(&self, session_id: &str) -> StoreResult<Vec<SpanRecord>> {
        let rows = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM trace_spans WHERE trace_id IN \
             (SELECT DISTINCT trace_id FROM trace_spans WHERE session_id = $1) \
             ORDER BY start_unix_nano, id"
        ))
        .bind(session_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(span).collect()
    }

    /// The sessions of `app` (its root agent's name, else its service name; every app's when
    /// `None`), newest first.
    pub async fn trace_sessions(
        &self,
        app: Option<&str>,
        offset: i64,
        limit: i64,
    ) -> StoreResult<Vec<TraceSessionSummary>> {
        let rows = sqlx::query(
            "SELECT * FROM (SELECT s.session_id, MIN(s.start_unix_nano) AS started, \
                 MAX(s.end_unix_nano) AS ended, COUNT(DISTINCT s.trace_id) AS turns, \
                 COALESCE((SELECT a.agent_name FROM trace_spans a WHERE a.session_id = s.session_id \
                     AND a.agent_name IS NOT NULL ORDER BY a.start_unix_nano LIMIT 1), \
                     MAX(s.service_name)) AS app \
             FROM trace_spans s WHERE s.session_id IS NOT NULL GROUP BY s.session_id) sessions \
             WHERE $1 IS NULL OR app = $2 ORDER BY started DESC, session_id LIMIT $3 OFFSET $4",
        )
        .bind(app)
        .bind(app)
        .bind(limit)
        .bind(offset)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| {
                Ok(TraceSessionSummary {
                    session_id: row.try_get("session_id")?,
                    app: row.try_get("app")?,
                    started_unix_nano: row.try_get("started")?,
                    ended_unix_nano: row.try_get("ended")?,
                    turns: row.try_get("turns")?,
                })
            })
            .collect()
    }

    pub async fn span_count(&self) -> StoreResult<i64> {
        Ok(sqlx::query_scalar("SELECT COUNT(*) FROM trace_spans")
            .fetch_one(&self.pool)
            .await?)
    }

    /// Deletes the spans received before `before`, and beyond the newest `keep` (by arrival);
    /// answers how many went.
    pub async fn prune_spans(&self, before: f64, keep: i64) -> StoreResult<u64> {
        let old = sqlx::query("DELETE FROM trace_spans WHERE received_at < $1")
            .bind(before)
            .execute(&self.pool)
            .await?
            .rows_affected();
        let over = sqlx::query(
            "DELETE FROM trace_spans WHERE id <= \
             (SELECT id FROM trace_spans ORDER BY id DESC LIMIT 1 OFFSET $1)",
        )
        .bind(keep)
        .execute(&self.pool)
        .await?
        .rows_affected();
        Ok(old + over)
    }
}

fn span(row: &Row) -> StoreResult<SpanRecord> {
    let kind: String = row.try_get("kind")?;
    let status: String = row.try_get("status")?;
    let json = |column: &str| -> StoreResult<String> { Ok(row.try_get(column)?) };
    Ok(SpanRecord {
        trace_id: row.try_get("trace_id")?,
        span_id: row.try_get("span_id")?,
        parent_span_id: row.try_get("parent_span_id")?,
        name: row.try_get("name")?,
        kind: SpanKind::parse(&kind).ok_or_else(|| corrupt_text(format!("unknown span kind `{kind}`")))?,
        start_unix_nano: row.try_get("start_unix_nano")?,
        end_unix_nano: row.try_get("end_unix_nano")?,
        status: SpanStatus::parse(&status)
            .ok_or_else(|| corrupt_text(format!("unknown span status `{status}`")))?,
        status_message: row.try_get("status_message")?,
        service_name: row.try_get("service_name")?,
        session_id: row.try_get("session_id")?,
        scope: row.try_get("scope")?,
        attributes: serde_json::from_str(&json("attributes_json")?).map_err(corrupt)?,
        events: serde_json::from_str(&json("events_json")?).map_err(corrupt)?,
        resource: serde_json::from_str(&json("resource_json")?).map_err(corrupt)?,
    })
}
