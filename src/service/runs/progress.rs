//! A run's progress as a stream: counts and an estimate of the time left whenever they change,
//! and the case runs as they are stored, a page at a time, each batch with its position so a
//! client that reconnects resumes after the last one it got. It reads the store, so it follows
//! runs of any process, resumed ones too.

use super::error::EvalRunError;
use crate::clock::now_seconds;
use crate::records::runs::{EvalRunCase, RunProgress, RunStatus};
use crate::store::Store;
use futures::Stream;
use std::time::Duration;

/// Most case runs in one `cases` event.
pub const CASES_PER_EVENT: i64 = 50;

/// One event of the stream.
#[derive(Debug, Clone, PartialEq)]
pub enum ProgressEvent {
    Progress(RunProgress),
    /// Case runs stored since the last batch; `position` is the last one's (resume after it).
    Cases {
        position: i64,
        cases: Vec<EvalRunCase>,
    },
    /// The run is no longer running; nothing follows.
    End(RunStatus),
}

/// The progress of run `result_id` from position `after` (0: from its first case run), read
/// from the store every `poll` until the run ends.
pub fn progress_stream(
    store: Store,
    app: String,
    result_id: String,
    after: i64,
    poll: Duration,
) -> impl Stream<Item = Result<ProgressEvent, EvalRunError>> {
    struct State {
        store: Store,
        app: String,
        result_id: String,
        position: i64,
        sent: Option<RunProgress>,
        ended: bool,
    }
    let state = State {
        store,
        app,
        result_id,
        position: after,
        sent: None,
        ended: false,
    };
    futures::stream::unfold(state, move |mut state| async move {
        if state.ended {
            return None;
        }
        loop {
            let record = match state.store.eval_run_head(&state.app, &state.result_id).await {
                Ok(record) => record,
                Err(err) => {
                    state.ended = true;
                    return Some((Err(err.into()), state));
                }
            };
            let batch = match state
                .store
                .eval_run_cases_after(record.row, state.position, CASES_PER_EVENT)
                .await
            {
                Ok(batch) => batch,
                Err(err) => {
                    state.ended = true;
                    return Some((Err(err.into()), state));
                }
            };
            if let Some((position, _)) = batch.last() {
                state.position = *position;
                let cases = batch.into_iter().map(|(_, case)| case).collect();
                return Some((
                    Ok(ProgressEvent::Cases {
                        position: state.position,
                        cases,
                    }),
                    state,
                ));
            }
            let summary = &record.summary;
            let progress = RunProgress {
                status: summary.status,
                done: summary.done,
                total: summary.total,
                passed: summary.passed,
                failed: summary.failed,
                errors: summary.errors,
                eta_seconds: eta(summary.created_at, summary.done, summary.total, summary.status),
            };
            let changed = state
                .sent
                .as_ref()
                .is_none_or(|sent| (sent.status, sent.done) != (progress.status, progress.done));
            if changed {
                state.sent = Some(progress.clone());
                return Some((Ok(ProgressEvent::Progress(progress)), state));
            }
            if summary.status != RunStatus::Running {
                state.ended = true;
                return Some((Ok(ProgressEvent::End(summary.status)), state));
            }
            tokio::time::sleep(poll).await;
        }
    })
}

/// The time left at the pace so far.
fn eta(created_at: f64, done: i64, total: i64, status: RunStatus) -> Option<f64> {
    if status != RunStatus::Running || done == 0 || done >= total {
        return None;
    }
    let elapsed = (now_seconds() - created_at).max(0.0);
    Some(elapsed / done as f64 * (total - done) as f64)
}
