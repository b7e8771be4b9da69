//! When to try again: a server's `Retry-After`, else exponential backoff with jitter so that
//! concurrent clients do not retry in lockstep.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// The longest `Retry-After` we honour; a server asking for more gets this.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(30);
/// The longest exponential backoff step (before jitter).
const MAX_BACKOFF: Duration = Duration::from_secs(8);

/// `Retry-After` in seconds, capped; HTTP dates are ignored (the backoff applies instead).
pub(super) fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let value = headers.get(reqwest::header::RETRY_AFTER)?.to_str().ok()?.trim();
    let seconds: f64 = value.parse().ok()?;
    if !seconds.is_finite() || seconds < 0.0 {
        return None;
    }
    Some(Duration::from_secs_f64(
        seconds.min(MAX_RETRY_AFTER.as_secs_f64()),
    ))
}

/// Exponential backoff: `base * 2^attempt`, capped at 8 s, then ±20% jitter from `salt`.
pub(super) fn backoff(base: Duration, attempt: u32, salt: u64) -> Duration {
    let exp = base.saturating_mul(1u32.checked_shl(attempt.min(31)).unwrap_or(u32::MAX));
    let capped = exp.min(MAX_BACKOFF);
    let unit = (splitmix64(salt ^ u64::from(attempt).wrapping_mul(0x9E37_79B9_7F4A_7C15)) >> 11) as f64
        / (1u64 << 53) as f64;
    capped.mul_f64(0.8 + 0.4 * unit)
}

/// A different salt per retry, so concurrent clients do not retry in lockstep.
pub(super) fn next_salt() -> u64 {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos() as u64);
    splitmix64(n ^ (nanos << 20))
}

fn splitmix64(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}
