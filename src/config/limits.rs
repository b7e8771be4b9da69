//! `[limits]`: how many live views (event streams: run progress, chat turns, file changes) a
//! server holds open at once, per user and in all; past them a new one is answered 429.
//!
//! ```toml
//! [limits]
//! event_streams_per_user = 16
//! event_streams_total = 256
//! ```

use serde::Deserialize;

#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitsConfig {
    #[serde(default = "default_per_user")]
    pub event_streams_per_user: usize,
    #[serde(default = "default_total")]
    pub event_streams_total: usize,
}

impl Default for LimitsConfig {
    fn default() -> LimitsConfig {
        LimitsConfig {
            event_streams_per_user: default_per_user(),
            event_streams_total: default_total(),
        }
    }
}

fn default_per_user() -> usize {
    16
}

fn default_total() -> usize {
    256
}

/// Checks what the table may get wrong; the message names the field.
pub fn check_limits(limits: &LimitsConfig) -> Result<(), String> {
    if limits.event_streams_per_user == 0 {
        return Err("limits.event_streams_per_user: at least 1".into());
    }
    if limits.event_streams_total < limits.event_streams_per_user {
        return Err(format!(
            "limits.event_streams_total: {} is fewer than event_streams_per_user ({})",
            limits.event_streams_total, limits.event_streams_per_user
        ));
    }
    Ok(())
}
