//! Waiting for what a test is not told about directly (a run's stored status, a request reaching
//! a model, a case stored by another process): the test checks it until it holds, so its outcome
//! never depends on how fast the machine is.

use std::future::Future;
use std::time::{Duration, Instant};

/// Far longer than any awaited thing takes, even on a busy machine: reaching it means the
/// thing is not going to happen.
const DEADLINE: Duration = Duration::from_secs(30);

/// Between two checks; it only sets how soon after the event the test goes on.
const INTERVAL: Duration = Duration::from_millis(20);

/// Runs `check` until it returns `Some`, and returns that; panics saying that `what` never
/// happened if it does not within the deadline.
pub async fn wait_until<T, F>(what: &str, mut check: impl FnMut() -> F) -> T
where
    F: Future<Output = Option<T>>,
{
    let deadline = Instant::now() + DEADLINE;
    loop {
        if let Some(value) = check().await {
            return value;
        }
        assert!(
            Instant::now() < deadline,
            "waited {DEADLINE:?} for this, which never happened: {what}"
        );
        tokio::time::sleep(INTERVAL).await;
    }
}
