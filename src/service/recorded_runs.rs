//! Recorded sessions (spans the OTLP receiver stored) scored without running the agent again,
//! kept as an ordinary run of origin `recorded`: it shows on the Runs page, in charts and in
//! comparisons, filed under the eval set whose cases are the reference (a session is scored
//! against the case it matches, see `traces::recorded_cases`, or by the metrics that need none).
//! It is scored first and stored whole after, so no run is left half-made; a recorded run never
//! decides the case list's statuses, which say how the agent does when run.

use super::add_session::{recorded_session, AddSessionError, Recorded};
use super::eval_runs::{clean_label, EvalRunError};
use super::run_plan::{run_config, stored_eval_set, RunMetrics};
use super::run_summaries::save_case_runs;
use super::run_worker::stored_case;
use super::Services;
use crate::clock::now_seconds;
use crate::eval::{score_cases, ActualItem, EvalConfig, FinishedCase};
use crate::evalset::{CompactEvalSet, EvalCase, EvalSet};
use crate::records::{EvalRunSummary, RunOrigin, RunStatus};
use crate::store::{BatchWrite, NewEvalRun};
use crate::traces::recorded_cases::{recorded_case, RecordedCase, Unscorable};
use futures::StreamExt;

/// Most sessions one request scores.
pub const MAX_RECORDED_SESSIONS: usize = 200;

/// Which recorded sessions of an app to score, against which eval set, how.
pub struct RecordedRunRequest {
    pub app_name: String,
    pub eval_set_id: String,
    pub session_ids: Vec<String>,
    pub metrics: RunMetrics,
    pub label: Option<String>,
}

/// Scores the sessions and stores the run, finished; its summary.
pub async fn score_recorded_sessions(
    services: &Services,
    request: RecordedRunRequest,
) -> Result<EvalRunSummary, EvalRunError> {
    let started = now_seconds();
    let config = run_config(request.metrics, None)?;
    if config.metrics.is_empty() {
        return Err(EvalRunError::NoMetrics);
    }
    let label = clean_label(request.label.as_deref())?;
    let mut session_ids = request.session_ids;
    let mut seen = std::collections::HashSet::new();
    session_ids.retain(|id| seen.insert(id.clone()));
    match session_ids.len() {
        0 => return Err(EvalRunError::NoSessions),
        n if n > MAX_RECORDED_SESSIONS => return Err(EvalRunError::TooManySessions(n)),
        _ => {}
    }
    let store = &services.store;
    let reference = stored_eval_set(store, &request.app_name, &request.eval_set_id).await?;
    let reference: Vec<EvalCase> = (0..reference.len()).map(|index| reference.case(index)).collect();
    let mut cases = Vec::with_capacity(session_ids.len());
    for id in &session_ids {
        cases.push(recorded(services, &request.app_name, id, &reference).await?);
    }
    let expected = CompactEvalSet::of(&EvalSet {
        eval_set_id: request.eval_set_id.clone(),
        name: Some(request.eval_set_id.clone()),
        eval_cases: cases.iter().map(|case| case.expected.clone()).collect(),
        ..EvalSet::default()
    });
    let finished = score(&expected, cases, &config, services).await?;
    let record = store
        .create_eval_run(&NewEvalRun {
            app_name: &request.app_name,
            eval_set_id: &request.eval_set_id,
            agent: &request.app_name,
            expected: &expected,
            config_json: &config.to_json().to_string(),
            num_runs: 1,
            total: finished.len(),
            created_at: started,
            label: label.as_deref(),
            whole_set: false,
            tools: Default::default(),
            commit: None,
            result_id: None,
            origin: RunOrigin::Recorded,
            queued: false,
        })
        .await?;
    let rows: Vec<_> = finished.iter().map(|case| stored_case(case, &config)).collect();
    save_case_runs(store, record.row, &rows, &config, &BatchWrite::default()).await?;
    store
        .end_eval_run(record.row, RunStatus::Finished, now_seconds())
        .await?;
    Ok(store
        .eval_run(&request.app_name, &record.summary.result_id)
        .await?
        .summary)
}

/// Session `id` of `app` as a case to score; NotFound when no span of it arrived.
async fn recorded(
    services: &Services,
    app: &str,
    id: &str,
    reference: &[EvalCase],
) -> Result<RecordedCase, EvalRunError> {
    let Recorded { session, arriving } =
        recorded_session(services, app, id)
            .await
            .map_err(|err| match err {
                AddSessionError::Fault(fault) => EvalRunError::Fault(fault),
                other => EvalRunError::NotFound(other.to_string()),
            })?;
    if arriving {
        return Err(Unscorable::Arriving(id.to_string()).into());
    }
    Ok(recorded_case(&session, reference)?)
}

/// Each session's recorded turns scored against its case, in the order chosen.
async fn score(
    expected: &CompactEvalSet,
    cases: Vec<RecordedCase>,
    config: &EvalConfig,
    services: &Services,
) -> Result<Vec<FinishedCase>, EvalRunError> {
    let arrivals = ActualItem::one_run(cases.into_iter().map(RecordedCase::actual_case));
    let scored = score_cases(
        expected,
        futures::stream::iter(arrivals),
        config,
        &services.scoring,
    );
    futures::pin_mut!(scored);
    let mut finished = Vec::new();
    while let Some(scored) = scored.next().await {
        // The cases were made to fit the set, so lining them up cannot fail.
        let scored = scored.map_err(|err| EvalRunError::BadConfig(err.to_string()))?;
        finished.push(FinishedCase {
            run_index: 0,
            case_index: scored.case_index,
            result: scored.result,
            attempts: 1,
        });
    }
    finished.sort_by_key(|case| case.case_index);
    Ok(finished)
}
