//! Spans from the OTLP receiver: stored as they arrive (a span sent twice is kept once), read
//! back by trace, and pruned to the retention setting.

use super::{Row, SqlStore};
use crate::records::{SpanKind, SpanRecord, SpanStatus};
use crate::store::{corrupt, corrupt_text, StoreResult};
use sqlx::Row as _;

/// Most spans written by one statement (17 parameters each, under SQLite's limit).
const SPANS_PER_INSERT: usize = 64;

const COLUMNS: &str = "trace_id, span_id, parent_span_id, name, kind, start_unix_nano, end_unix_nano, \
     status, status_message, service_name, session_id, scope, attributes_json, events_json, resource_json";

impl SqlStore {
    /// Stores `spans` in one transaction, received at `at`; answers how many were new.
    pub async fn insert_spans(&self, spans: &[SpanRecord], at: f64) -> StoreResult<u64> {
        let mut transaction = self.begin_write().await?;
        let mut inserted = 0;
        for chunk in spans.chunks(SPANS_PER_INSERT) {
            let rows: Vec<String> = (0..chunk.len())
                .map(|n| {
                    let first = 2 + 15 * n;
                    let places: Vec<String> = (first..first + 15).map(|p| format!("${p}")).collect();
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
                    .bind(serde_json::to_string(&span.resource).expect("a resource serialises"));
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
