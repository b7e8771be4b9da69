//! Spans from the OTLP receiver: stored as they arrive (a span sent twice is kept once), with a
//! row per session kept beside them, read back by session, and pruned to the retention setting.

use super::{dialect, numbered_places, shared_value_rows, Row, SqlStore, Transaction};
use crate::records::spans::{SpanKind, SpanRecord, SpanStatus};
use crate::records::traces::{TraceSessionFilter, TraceSessionSummary};
use crate::store::{corrupt, corrupt_text, StoreResult};
use sqlx::Row as _;

/// Most spans written by one statement (21 parameters each, well under SQLite's limit).
const SPANS_PER_INSERT: usize = 64;

const COLUMNS: &str = "trace_id, span_id, parent_span_id, name, kind, start_unix_nano, end_unix_nano, \
     status, status_message, service_name, session_id, scope, attributes_json, events_json, resource_json, agent_name";
/// What the receiver reads from a span's attributes for the list's columns and filters.
const DERIVED: &str = "tool_name, input_tokens, output_tokens, search_text";
const COLUMN_COUNT: usize = 20;

impl SqlStore {
    /// Stores `spans` in one transaction, received at `at`; answers how many were new.
    pub async fn insert_spans(&self, spans: &[SpanRecord], at: f64) -> StoreResult<u64> {
        let mut transaction = self.begin_write().await?;
        let mut inserted = 0;
        for chunk in spans.chunks(SPANS_PER_INSERT) {
            let sql = format!(
                "INSERT INTO trace_spans (received_at, {COLUMNS}, {DERIVED}) VALUES {} \
                 ON CONFLICT (trace_id, span_id) DO NOTHING",
                shared_value_rows(chunk.len(), COLUMN_COUNT)
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
                    .bind(span.agent_name());
                let (input_tokens, output_tokens) = span.tokens();
                insert = insert
                    .bind(span.tool_name())
                    .bind(input_tokens)
                    .bind(output_tokens)
                    .bind(span.search_text());
            }
            inserted += insert.execute(&mut *transaction).await?.rows_affected();
        }
        let mut traces: Vec<&str> = spans.iter().map(|span| span.trace_id.as_str()).collect();
        traces.sort_unstable();
        traces.dedup();
        for chunk in traces.chunks(IDS_PER_STATEMENT) {
            refresh_sessions(&mut transaction, chunk).await?;
        }
        transaction.commit().await?;
        Ok(inserted)
    }

    /// Records the users log records name, by trace (the first word on a trace stands), and
    /// the sessions of those traces take them up.
    pub async fn insert_trace_users(&self, users: &[(String, String)], at: f64) -> StoreResult<()> {
        let mut transaction = self.begin_write().await?;
        for (trace_id, user_id) in users {
            sqlx::query(
                "INSERT INTO trace_users (trace_id, user_id, received_at) VALUES ($1, $2, $3) \
                 ON CONFLICT (trace_id) DO NOTHING",
            )
            .bind(trace_id)
            .bind(user_id)
            .bind(at)
            .execute(&mut *transaction)
            .await?;
        }
        let traces: Vec<&str> = users.iter().map(|(trace, _)| trace.as_str()).collect();
        for chunk in traces.chunks(IDS_PER_STATEMENT) {
            refresh_sessions(&mut transaction, chunk).await?;
        }
        transaction.commit().await?;
        Ok(())
    }

    /// The list's row of session `session_id`, if a span of it arrived.
    pub async fn trace_session_summary(&self, session_id: &str) -> StoreResult<Option<TraceSessionSummary>> {
        let row = sqlx::query(&format!(
            "SELECT {SUMMARY_COLUMNS} FROM trace_sessions WHERE session_id = $1"
        ))
        .bind(session_id)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(summary).transpose()
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

    /// The recorded sessions `filter` keeps, newest first.
    pub async fn trace_sessions(
        &self,
        filter: &TraceSessionFilter,
        offset: i64,
        limit: i64,
    ) -> StoreResult<Vec<TraceSessionSummary>> {
        let (conditions, binds) = session_conditions(filter);
        let sql = format!(
            "SELECT {SUMMARY_COLUMNS} FROM trace_sessions t WHERE {conditions} \
             ORDER BY started_unix_nano DESC, session_id LIMIT ${} OFFSET ${}",
            binds.len() + 1,
            binds.len() + 2
        );
        let mut query = sqlx::query(&sql).persistent(false);
        for bind in binds {
            query = match bind {
                Bound::Text(text) => query.bind(text),
                Bound::Number(number) => query.bind(number),
            };
        }
        let rows = query.bind(limit).bind(offset).fetch_all(&self.pool).await?;
        rows.iter().map(summary).collect()
    }

    /// The apps of the recorded sessions, by name.
    pub async fn trace_apps(&self) -> StoreResult<Vec<String>> {
        Ok(
            sqlx::query_scalar("SELECT DISTINCT app FROM trace_sessions ORDER BY app")
                .fetch_all(&self.pool)
                .await?,
        )
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
        sqlx::query("DELETE FROM trace_users WHERE received_at < $1")
            .bind(before)
            .execute(&self.pool)
            .await?;
        sqlx::query(
            "DELETE FROM trace_sessions WHERE NOT EXISTS \
             (SELECT 1 FROM trace_spans s WHERE s.session_id = trace_sessions.session_id)",
        )
        .execute(&self.pool)
        .await?;
        Ok(old + over)
    }
}

/// Most ids in one statement's IN list.
const IDS_PER_STATEMENT: usize = 200;

/// Recomputes the summary row of every session with a span in the traces `trace_ids` (a span
/// without a session id, a tool's say, counts for its trace's session). A model call's usage
/// reported again by the span under it (ADK's schema 1 `call_llm` and its `generate_content`;
/// an instrumented client's `chat` under ADK's call) is counted once.
async fn refresh_sessions(transaction: &mut Transaction, trace_ids: &[&str]) -> StoreResult<()> {
    let places = numbered_places(1, trace_ids.len());
    let sql = format!(
        "INSERT INTO trace_sessions \
             (session_id, app, started_unix_nano, ended_unix_nano, turns, tool_calls, errors, \
              input_tokens, output_tokens, user_id, last_received_at) \
         SELECT m.session_id, \
             COALESCE((SELECT a.agent_name FROM trace_spans a WHERE a.session_id = m.session_id \
                 AND a.agent_name IS NOT NULL ORDER BY a.start_unix_nano LIMIT 1), \
                 MAX(s.service_name), 'unknown'), \
             MIN(s.start_unix_nano), MAX(s.end_unix_nano), COUNT(DISTINCT s.trace_id), \
             SUM(CASE WHEN s.tool_name IS NOT NULL THEN 1 ELSE 0 END), \
             SUM(CASE WHEN s.status = 'error' THEN 1 ELSE 0 END), \
             SUM(CASE WHEN p.name = 'call_llm' OR p.input_tokens IS NOT NULL THEN NULL ELSE s.input_tokens END), \
             SUM(CASE WHEN p.name = 'call_llm' OR p.output_tokens IS NOT NULL THEN NULL ELSE s.output_tokens END), \
             (SELECT MAX(u.user_id) FROM trace_users u WHERE u.trace_id IN \
                 (SELECT x.trace_id FROM trace_spans x WHERE x.session_id = m.session_id)), \
             MAX(s.received_at) \
         FROM (SELECT DISTINCT session_id, trace_id FROM trace_spans WHERE session_id IN \
                 (SELECT DISTINCT session_id FROM trace_spans \
                  WHERE trace_id IN ({places}) AND session_id IS NOT NULL)) m \
         JOIN trace_spans s ON s.trace_id = m.trace_id \
         LEFT JOIN trace_spans p ON p.trace_id = s.trace_id AND p.span_id = s.parent_span_id \
         WHERE true GROUP BY m.session_id \
         ON CONFLICT (session_id) DO UPDATE SET app = excluded.app, \
             started_unix_nano = excluded.started_unix_nano, ended_unix_nano = excluded.ended_unix_nano, \
             turns = excluded.turns, tool_calls = excluded.tool_calls, errors = excluded.errors, \
             input_tokens = excluded.input_tokens, output_tokens = excluded.output_tokens, \
             user_id = excluded.user_id, last_received_at = excluded.last_received_at"
    );
    let mut refresh = sqlx::query(&sql).persistent(false);
    for trace_id in trace_ids {
        refresh = refresh.bind(*trace_id);
    }
    refresh.execute(&mut **transaction).await?;
    Ok(())
}

/// A value bound to a filter's placeholder.
enum Bound {
    Text(String),
    Number(i64),
}

/// The WHERE clause of `filter` over `trace_sessions t`, and its values in placeholder order.
/// A tool or text is looked for in every span of the session's traces (a tool's span may not
/// name the session).
fn session_conditions(filter: &TraceSessionFilter) -> (String, Vec<Bound>) {
    let mut conditions = vec!["true".to_string()];
    let mut binds = Vec::new();
    let place = |bound: Bound, binds: &mut Vec<Bound>| {
        binds.push(bound);
        format!("${}", binds.len())
    };
    let in_session = "EXISTS (SELECT 1 FROM trace_spans m JOIN trace_spans s ON s.trace_id = m.trace_id \
                      WHERE m.session_id = t.session_id AND";
    if let Some(app) = &filter.app {
        conditions.push(format!("app = {}", place(Bound::Text(app.clone()), &mut binds)));
    }
    if filter.errors_only {
        conditions.push("errors > 0".into());
    }
    if let Some(from) = filter.started_from {
        conditions.push(format!(
            "started_unix_nano >= {}",
            place(Bound::Number(from), &mut binds)
        ));
    }
    if let Some(before) = filter.started_before {
        conditions.push(format!(
            "started_unix_nano < {}",
            place(Bound::Number(before), &mut binds)
        ));
    }
    if let Some(tool) = &filter.tool {
        let tool = place(Bound::Text(tool.clone()), &mut binds);
        conditions.push(format!("{in_session} s.tool_name = {tool})"));
    }
    if let Some(text) = &filter.text {
        // FIND rather than LIKE: the text may hold % or _. Spans stored before the search text
        // was kept are looked for in their attributes.
        let text = place(Bound::Text(text.to_lowercase()), &mut binds);
        conditions.push(format!(
            "{in_session} {find}(COALESCE(s.search_text, LOWER(s.attributes_json)), {text}) > 0)",
            find = dialect::FIND
        ));
    }
    (conditions.join(" AND "), binds)
}

const SUMMARY_COLUMNS: &str = "session_id, app, started_unix_nano, ended_unix_nano, turns, tool_calls, \
     errors, user_id, input_tokens, output_tokens, last_received_at";

fn summary(row: &Row) -> StoreResult<TraceSessionSummary> {
    Ok(TraceSessionSummary {
        session_id: row.try_get("session_id")?,
        app: row.try_get("app")?,
        started_unix_nano: row.try_get("started_unix_nano")?,
        ended_unix_nano: row.try_get("ended_unix_nano")?,
        turns: row.try_get("turns")?,
        tool_calls: row.try_get("tool_calls")?,
        errors: row.try_get("errors")?,
        user_id: row.try_get("user_id")?,
        input_tokens: row.try_get("input_tokens")?,
        output_tokens: row.try_get("output_tokens")?,
        last_received_at: row.try_get("last_received_at")?,
    })
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
