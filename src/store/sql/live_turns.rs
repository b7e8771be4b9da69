//! Chat turns under way: one per session across every process sharing the store, held by the
//! process running it under a lease it renews (a process that dies leaves its turn to expire),
//! with the agent's events stored as they arrive for browsers on other servers to follow.
//! `append_turn` removes the live turn in the write that records it.

use super::{dialect, SqlStore};
use crate::agent::AgentEvent;
use crate::store::{corrupt, LiveTurnRead, StoreResult, LEASE_SECONDS};

impl SqlStore {
    /// Takes the session's turn for this process; false when another live turn holds it. A
    /// turn whose lease ended (its process died) is replaced.
    pub async fn begin_live_turn(
        &self,
        session_id: &str,
        invocation_id: &str,
        user_message: &str,
    ) -> StoreResult<bool> {
        let mut transaction = self.begin_write().await?;
        sqlx::query(&format!(
            "DELETE FROM live_turns WHERE session_id = $1 AND lease_expires_at < {now}",
            now = dialect::EPOCH_NOW
        ))
        .bind(session_id)
        .execute(&mut *transaction)
        .await?;
        let taken = sqlx::query(&format!(
            "INSERT INTO live_turns (session_id, invocation_id, user_message, lease_owner, lease_expires_at) \
             VALUES ($1, $2, $3, $4, {now} + $5) ON CONFLICT (session_id) DO NOTHING",
            now = dialect::EPOCH_NOW
        ))
        .bind(session_id)
        .bind(invocation_id)
        .bind(user_message)
        .bind(self.boot_id())
        .bind(LEASE_SECONDS)
        .execute(&mut *transaction)
        .await?
        .rows_affected()
            == 1;
        transaction.commit().await?;
        Ok(taken)
    }

    /// Stores the turn's event at `position` (from 0), while the turn is still this one.
    pub async fn push_live_event(
        &self,
        session_id: &str,
        invocation_id: &str,
        position: i64,
        event: &AgentEvent,
    ) -> StoreResult<()> {
        sqlx::query(
            "INSERT INTO live_turn_events (session_id, position, event_json) \
             SELECT $1, CAST($2 AS BIGINT), CAST($3 AS TEXT) WHERE EXISTS \
             (SELECT 1 FROM live_turns WHERE session_id = $1 AND invocation_id = $4)",
        )
        .bind(session_id)
        .bind(position)
        .bind(serde_json::to_string(event).expect("agent events serialize"))
        .bind(invocation_id)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Extends the turn's lease; answers whether it should stop: someone asked (from any
    /// process), or it is no longer this process's.
    pub async fn renew_live_turn(&self, session_id: &str, invocation_id: &str) -> StoreResult<bool> {
        let stop: Option<bool> = sqlx::query_scalar(&format!(
            "UPDATE live_turns SET lease_expires_at = {now} + $1 \
             WHERE session_id = $2 AND invocation_id = $3 AND lease_owner = $4 RETURNING stop_requested",
            now = dialect::EPOCH_NOW
        ))
        .bind(LEASE_SECONDS)
        .bind(session_id)
        .bind(invocation_id)
        .bind(self.boot_id())
        .fetch_optional(&self.pool)
        .await?;
        Ok(stop.unwrap_or(true))
    }

    /// Asks the session's live turn to stop, wherever it runs; false when none is live.
    pub async fn request_turn_stop(&self, session_id: &str) -> StoreResult<bool> {
        let asked = sqlx::query("UPDATE live_turns SET stop_requested = TRUE WHERE session_id = $1")
            .bind(session_id)
            .execute(&self.pool)
            .await?;
        Ok(asked.rows_affected() == 1)
    }

    /// The session's live turn with its events after position `after` (-1 for all); `None`
    /// when no turn is under way.
    pub async fn live_turn(&self, session_id: &str, after: i64) -> StoreResult<Option<LiveTurnRead>> {
        let head: Option<(String, String, bool)> = sqlx::query_as(&format!(
            "SELECT invocation_id, user_message, lease_expires_at < {now} FROM live_turns WHERE session_id = $1",
            now = dialect::EPOCH_NOW
        ))
        .bind(session_id)
        .fetch_optional(&self.pool)
        .await?;
        let Some((invocation_id, user_message, abandoned)) = head else {
            return Ok(None);
        };
        let rows: Vec<(i64, String)> = sqlx::query_as(
            "SELECT position, event_json FROM live_turn_events WHERE session_id = $1 AND position > $2 \
             ORDER BY position",
        )
        .bind(session_id)
        .bind(after)
        .fetch_all(&self.pool)
        .await?;
        let events = rows
            .into_iter()
            .map(|(position, json)| Ok((position, serde_json::from_str(&json).map_err(corrupt)?)))
            .collect::<StoreResult<_>>()?;
        Ok(Some(LiveTurnRead {
            invocation_id,
            user_message,
            events,
            abandoned,
        }))
    }
}
