//! Chat sessions: a list's rows, a finished turn, a whole session.

use crate::agent::AgentEvent;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One row of a sessions list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionSummary {
    pub id: String,
    pub app_name: String,
    pub user_id: String,
    /// The first message, shortened, until someone renames the session.
    pub title: String,
    pub turn_count: i64,
    pub created_at: String,
    pub updated_at: String,
}

/// A finished turn: the user's message and everything the agent did in answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionTurn {
    pub invocation_id: String,
    /// The agent that answered.
    pub author: String,
    pub user_message: String,
    pub events: Vec<AgentEvent>,
    /// When each event arrived, in milliseconds after `started_at` (empty for turns recorded
    /// before per-event times were kept).
    #[serde(default)]
    pub event_offsets_ms: Vec<u64>,
    /// Seconds since the epoch when the message arrived.
    pub started_at: f64,
    pub latency_ms: i64,
}

impl SessionTurn {
    /// When event `index` happened, in seconds since the epoch (the turn's start if unknown).
    pub fn event_time(&self, index: usize) -> f64 {
        let offset = self.event_offsets_ms.get(index).copied().unwrap_or(0);
        self.started_at + offset as f64 / 1000.0
    }

    /// Token usage the agent reported, summed: (prompt, completion).
    pub fn token_usage(&self) -> (u64, u64) {
        self.events.iter().fold((0, 0), |(p, c), event| match event {
            AgentEvent::Usage {
                prompt_tokens,
                completion_tokens,
            } => (p + prompt_tokens, c + completion_tokens),
            _ => (p, c),
        })
    }
}

/// A whole session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionRecord {
    pub summary: SessionSummary,
    pub state: Map<String, Value>,
    pub turns: Vec<SessionTurn>,
}
