//! Chat sessions and their turns.

use super::eval_sets::ensure_app;
use super::{dialect, Row, SqlStore};
use crate::records::sessions::{SessionRecord, SessionSummary, SessionTurn};
use crate::store::{corrupt, StoreError, StoreResult};
use serde_json::{Map, Value};
use sqlx::Row as _;

const SUMMARY_COLUMNS: &str = "s.id, s.app_name, s.user_id, s.title, s.created_at, s.updated_at, \
     (SELECT COUNT(*) FROM session_turns t WHERE t.session_id = s.id) AS turn_count";

impl SqlStore {
    /// Creates a session with the given id (a new uuid when `None`) and starting state.
    pub async fn create_session(
        &self,
        app: &str,
        user: &str,
        id: Option<&str>,
        state: &Map<String, Value>,
    ) -> StoreResult<SessionRecord> {
        let id = id.map_or_else(|| uuid::Uuid::new_v4().to_string(), str::to_string);
        let mut tx = self.begin_write().await?;
        ensure_app(&mut tx, app).await?;
        let inserted = sqlx::query(
            "INSERT INTO sessions (id, app_name, user_id, state_json) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (id) DO NOTHING",
        )
        .bind(&id)
        .bind(app)
        .bind(user)
        .bind(Value::Object(state.clone()).to_string())
        .execute(&mut *tx)
        .await?;
        if inserted.rows_affected() == 0 {
            return Err(StoreError::Conflict(format!("session `{id}` already exists")));
        }
        tx.commit().await?;
        self.get_session(app, user, &id).await
    }

    /// The user's sessions in an app, most recently active first.
    pub async fn list_sessions(&self, app: &str, user: &str) -> StoreResult<Vec<SessionSummary>> {
        let rows = sqlx::query(&format!(
            "SELECT {SUMMARY_COLUMNS} FROM sessions s WHERE s.app_name = $1 AND s.user_id = $2 \
             ORDER BY s.updated_at DESC, s.id"
        ))
        .bind(app)
        .bind(user)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.iter().map(session_summary).collect())
    }

    pub async fn get_session(&self, app: &str, user: &str, id: &str) -> StoreResult<SessionRecord> {
        let row = sqlx::query(&format!(
            "SELECT {SUMMARY_COLUMNS}, s.state_json FROM sessions s \
             WHERE s.id = $1 AND s.app_name = $2 AND s.user_id = $3"
        ))
        .bind(id)
        .bind(app)
        .bind(user)
        .fetch_optional(&self.pool)
        .await?
        .ok_or_else(|| session_not_found(app, user, id))?;
        let state: Map<String, Value> = serde_json::from_str(row.get("state_json")).map_err(corrupt)?;
        let turn_rows = sqlx::query(
            "SELECT invocation_id, author, user_message, events_json, event_offsets_json, started_at, latency_ms \
             FROM session_turns WHERE session_id = $1 ORDER BY position",
        )
        .bind(id)
        .fetch_all(&self.pool)
        .await?;
        let turns = turn_rows
            .iter()
            .map(|turn| {
                Ok(SessionTurn {
                    invocation_id: turn.get("invocation_id"),
                    author: turn.get("author"),
                    user_message: turn.get("user_message"),
                    events: serde_json::from_str(turn.get("events_json")).map_err(corrupt)?,
                    event_offsets_ms: serde_json::from_str(turn.get("event_offsets_json"))
                        .map_err(corrupt)?,
                    started_at: turn.get("started_at"),
                    latency_ms: turn.get("latency_ms"),
                })
            })
            .collect::<StoreResult<_>>()?;
        Ok(SessionRecord {
            summary: session_summary(&row),
            state,
            turns,
        })
    }

    /// Appends a finished turn; the first one also titles the session.
    pub async fn append_turn(&self, app: &str, user: &str, id: &str, turn: &SessionTurn) -> StoreResult<()> {
        let mut tx = self.begin_write().await?;
        let exists: Option<String> =
            sqlx::query_scalar("SELECT id FROM sessions WHERE id = $1 AND app_name = $2 AND user_id = $3")
                .bind(id)
                .bind(app)
                .bind(user)
                .fetch_optional(&mut *tx)
                .await?;
        if exists.is_none() {
            return Err(session_not_found(app, user, id));
        }
        let (prompt_tokens, completion_tokens) = turn.token_usage();
        let events = serde_json::to_string(&turn.events).expect("agent events serialize");
        let offsets = serde_json::to_string(&turn.event_offsets_ms).expect("numbers serialize");
        sqlx::query(
            "INSERT INTO session_turns (session_id, position, invocation_id, author, user_message, events_json, \
             event_offsets_json, started_at, latency_ms, prompt_tokens, completion_tokens) \
             VALUES ($1, (SELECT COUNT(*) FROM session_turns WHERE session_id = $2), $3, $4, $5, $6, $7, $8, $9, $10, $11)",
        )
        .bind(id)
        .bind(id)
        .bind(&turn.invocation_id)
        .bind(&turn.author)
        .bind(&turn.user_message)
        .bind(events)
        .bind(offsets)
        .bind(turn.started_at)
        .bind(turn.latency_ms)
        .bind(prompt_tokens as i64)
        .bind(completion_tokens as i64)
        .execute(&mut *tx)
        .await?;
        sqlx::query(&format!(
            "UPDATE sessions SET updated_at = {now}, title = CASE WHEN title = '' THEN $1 ELSE title END \
             WHERE id = $2",
            now = dialect::NOW
        ))
        .bind(title_from(&turn.user_message))
        .bind(id)
        .execute(&mut *tx)
        .await?;
        // Recorded, it is no longer under way.
        sqlx::query("DELETE FROM live_turns WHERE session_id = $1 AND invocation_id = $2")
            .bind(id)
            .bind(&turn.invocation_id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    pub async fn rename_session(&self, app: &str, user: &str, id: &str, title: &str) -> StoreResult<()> {
        let updated =
            sqlx::query("UPDATE sessions SET title = $1 WHERE id = $2 AND app_name = $3 AND user_id = $4")
                .bind(title.trim())
                .bind(id)
                .bind(app)
                .bind(user)
                .execute(&self.pool)
                .await?;
        if updated.rows_affected() == 0 {
            return Err(session_not_found(app, user, id));
        }
        Ok(())
    }

    pub async fn delete_session(&self, app: &str, user: &str, id: &str) -> StoreResult<()> {
        let deleted = sqlx::query("DELETE FROM sessions WHERE id = $1 AND app_name = $2 AND user_id = $3")
            .bind(id)
            .bind(app)
            .bind(user)
            .execute(&self.pool)
            .await?;
        if deleted.rows_affected() == 0 {
            return Err(session_not_found(app, user, id));
        }
        Ok(())
    }
}

/// A session's default title: its first message on one line, at most 60 characters.
fn title_from(message: &str) -> String {
    let line = message.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.char_indices().nth(60) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line,
    }
}

fn session_summary(row: &Row) -> SessionSummary {
    SessionSummary {
        id: row.get("id"),
        app_name: row.get("app_name"),
        user_id: row.get("user_id"),
        title: row.get("title"),
        turn_count: row.get("turn_count"),
        created_at: row.get("created_at"),
        updated_at: row.get("updated_at"),
    }
}

fn session_not_found(app: &str, user: &str, id: &str) -> StoreError {
    StoreError::NotFound(format!(
        "session `{id}` not found for user `{user}` of app `{app}`"
    ))
}
