//! Recorded sessions (spans the OTLP receiver stored) scored without running the agent again,
//! kept as an ordinary run of origin `recorded`: it shows on the Runs page, in charts and in
//! comparisons, filed under the eval set whose cases are the reference (a session is scored
//! against the case it matches, see `traces::recorded_cases`, or by the metrics that need none).
//! It is scored first and stored whole after, so no run is left half-made; a recorded run never
//! decides the case list's statuses, which say how the agent does when run.

use super::error::{EvalRunError, MAX_RECORDED_SESSIONS};
use super::label::clean_label;
use super::new_run::NewRun;
use super::plan::{run_config, RunMetrics};
use super::stored::stored_eval_set;
use crate::clock::now_seconds;
use crate::eval::config::EvalConfig;
use crate::eval::lineup::ActualItem;
use crate::eval::runner::FinishedCase;
use crate::eval::score::{score_cases, Keep};
use crate::evalset::{CompactEvalSet, EvalCase, EvalSet};
use crate::records::runs::{EvalRunSummary, RunOrigin};
use crate::records::traces::TraceSessionFilter;
use crate::service::add_session::{recorded_session, AddSessionError};
use crate::service::Services;
use crate::traces::recorded_cases::{recorded_case, RecordedCase};
use futures::StreamExt;

/// Which recorded sessions of an app to score, against which eval set, how.
pub struct RecordedRunRequest {
    pub app_name: String,
    pub eval_set_id: String,
    pub sessions: RecordedSessions,
    pub metrics: RunMetrics,
    pub label: Option<String>,
}

/// The sessions a request scores.
pub enum RecordedSessions {
    /// These, each of which must be scorable.
    Chosen(Vec<String>),
    /// Every one of the app's the filter keeps (at most [`MAX_RECORDED_SESSIONS`]); those that
    /// cannot be scored (still arriving, spans missing, no messages) are left out and said.
    Filtered(TraceSessionFilter),
}

/// A scored run, and the sessions a filter kept that were left out, with why.
#[derive(Debug, serde::Serialize)]
pub struct RecordedRun {
    #[serde(flatten)]
    pub run: EvalRunSummary,
    pub left_out: Vec<(String, String)>,
}

/// Scores the sessions and stores the run, finished.
pub async fn score_recorded_sessions(
    services: &Services,
    request: RecordedRunRequest,
) -> Result<RecordedRun, EvalRunError> {
    let started = now_seconds();
    let config = run_config(request.metrics, None, &services.scoring.evaluators)?;
    if config.metrics.is_empty() {
        return Err(EvalRunError::NoMetrics);
    }
    let label = clean_label(request.label.as_deref())?;
    let store = &services.store;
    let reference = stored_eval_set(store, &request.app_name, &request.eval_set_id).await?;
    let reference: Vec<EvalCase> = (0..reference.len()).map(|index| reference.case(index)).collect();
    let app = &request.app_name;
    let (cases, left_out) = match request.sessions {
        RecordedSessions::Chosen(ids) => (chosen(services, app, ids, &reference).await?, Vec::new()),
        RecordedSessions::Filtered(filter) => filtered(services, app, filter, &reference).await?,
    };
    let expected = CompactEvalSet::of(&EvalSet {
        eval_set_id: request.eval_set_id.clone(),
        name: Some(request.eval_set_id.clone()),
        eval_cases: cases.iter().map(|case| case.expected.clone()).collect(),
        ..EvalSet::default()
    });
    let finished = score(&expected, cases, &config, services).await?;
    let stored = NewRun {
        app: &request.app_name,
        eval_set_id: &request.eval_set_id,
        agent: &request.app_name,
        expected: &expected,
        config: &config,
        num_runs: 1,
        created_at: started,
        label: label.as_deref(),
        whole_set: false,
        tools: Default::default(),
        commit: None,
        result_id: None,
        origin: RunOrigin::Recorded,
    }
    .store_finished(store, &finished, now_seconds())
    .await?;
    Ok(RecordedRun {
        run: stored.summary,
        left_out,
    })
}

/// The sessions `ids` as cases to score; any that cannot be is refused.
async fn chosen(
    services: &Services,
    app: &str,
    mut ids: Vec<String>,
    reference: &[EvalCase],
) -> Result<Vec<RecordedCase>, EvalRunError> {
    let mut seen = std::collections::HashSet::new();
    ids.retain(|id| seen.insert(id.clone()));
    match ids.len() {
        0 => return Err(EvalRunError::NoSessions),
        n if n > MAX_RECORDED_SESSIONS => return Err(EvalRunError::TooManySessions(n)),
        _ => {}
    }
    let mut cases = Vec::with_capacity(ids.len());
    for id in &ids {
        cases.push(recorded(services, app, id, reference).await?);
    }
    Ok(cases)
}

/// The sessions `filter` keeps as cases to score, and those left out with why.
async fn filtered(
    services: &Services,
    app: &str,
    filter: TraceSessionFilter,
    reference: &[EvalCase],
) -> Result<(Vec<RecordedCase>, Vec<(String, String)>), EvalRunError> {
    let filter = TraceSessionFilter {
        app: Some(app.to_string()),
        ..filter
    };
    let most = MAX_RECORDED_SESSIONS as i64;
    let kept = services.store.trace_sessions(&filter, 0, most + 1).await?;
    if kept.len() as i64 > most {
        return Err(EvalRunError::FilterTooWide);
    }
    let (mut cases, mut left_out) = (Vec::new(), Vec::new());
    for session in &kept {
        match recorded(services, app, &session.session_id, reference).await {
            Ok(case) => cases.push(case),
            Err(EvalRunError::Unscorable(why)) => {
                left_out.push((session.session_id.clone(), why.to_string()))
            }
            // Its spans name another app than the list does.
            Err(EvalRunError::NotFound(why)) => left_out.push((session.session_id.clone(), why)),
            Err(other) => return Err(other),
        }
    }
    if cases.is_empty() {
        return Err(EvalRunError::NothingScorable(left_out.len()));
    }
    Ok((cases, left_out))
}

/// Session `id` of `app` as a case to score; NotFound when no span of it arrived.
async fn recorded(
    services: &Services,
    app: &str,
    id: &str,
    reference: &[EvalCase],
) -> Result<RecordedCase, EvalRunError> {
    let session = recorded_session(services, app, id)
        .await
        .map_err(|err| match err {
            AddSessionError::Fault(fault) => EvalRunError::Fault(fault),
            other => EvalRunError::NotFound(other.to_string()),
        })?
        .settled()?;
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
        Keep::Results,
    );
    futures::pin_mut!(scored);
    let mut finished = Vec::new();
    while let Some(scored) = scored.next().await {
        // The cases were made to fit the set, so lining them up cannot fail.
        let scored = scored.map_err(|err| EvalRunError::BadConfig(err.to_string()))?;
        finished.push(FinishedCase {
            run_index: 0,
            case_index: scored.case_index,
            result: scored.result.expect("results are kept"),
            attempts: 1,
        });
    }
    finished.sort_by_key(|case| case.case_index);
    Ok(finished)
}
