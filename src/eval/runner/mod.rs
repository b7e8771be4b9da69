//! Runs an eval set's cases through an agent and scores what it does. Each case × run gets a
//! fresh session that replays the case's user turns or plays its scenario with the simulated
//! user (`case_run`); cases run concurrently up to a limit, are scored as each finishes (so the
//! caller can store results one by one), and one case failing never stops the others.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Duration;

use futures::stream::{self, BoxStream, Stream, StreamExt};
use tokio::sync::Semaphore;

use super::config::EvalConfig;
use super::lineup::ExpectedCases;
use super::result::EvalCaseResult;
use super::score::score_case;
use super::services::ScoringServices;
use crate::agent::{Agent, ToolExecution};
use crate::evalset::{CaseParts, EvalCase};
use case_run::run_case;

mod case_run;

#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Times each case runs; scores are pooled over runs (ADK's `num_runs`).
    pub num_runs: usize,
    /// Cases (× runs) under way at once.
    pub concurrency: usize,
    /// Limit on one agent turn; a turn over it makes its case an error.
    pub turn_timeout: Duration,
    /// Further tries of a case run the agent could not finish (an error or a timeout), each
    /// in a fresh session, after `retry_backoff`, doubling.
    pub retries: usize,
    pub retry_backoff: Duration,
    /// Whether tools run or answer from the case's recording (scripted cases only).
    pub tools: ToolExecution,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            num_runs: 1,
            concurrency: 8,
            turn_timeout: Duration::from_secs(300),
            retries: 2,
            retry_backoff: Duration::from_secs(1),
            tools: ToolExecution::default(),
        }
    }
}

/// What the runner reads of the expected set: its id, and a case when its run starts. A worker
/// answers with the cases of the batches it holds, so no set needs to be held whole.
pub trait RunCases: Sync {
    fn eval_set_id(&self) -> &str;
    fn case_count(&self) -> usize;
    fn case(&self, index: usize) -> Cow<'_, EvalCase>;
}

impl<T: ExpectedCases + ?Sized> RunCases for T {
    fn eval_set_id(&self) -> &str {
        ExpectedCases::eval_set_id(self)
    }
    fn case_count(&self) -> usize {
        ExpectedCases::case_count(self)
    }
    fn case(&self, index: usize) -> Cow<'_, EvalCase> {
        ExpectedCases::case(self, index, CaseParts::Whole)
    }
}

/// A case run, scored.
#[derive(Debug, Clone)]
pub struct FinishedCase {
    /// Which repetition, from 0.
    pub run_index: usize,
    /// The case's position in the expected set.
    pub case_index: usize,
    /// Scored as ADK scores it; `error` is set when the agent could not finish the case.
    pub result: EvalCaseResult,
    /// Tries it took (1 unless retried).
    pub attempts: usize,
}

/// Which case runs start, and when.
#[derive(Default)]
pub struct CaseSchedule<'a> {
    /// The (run_index, case_index) pairs to run, in order, drawn only as there is room for
    /// another (so a worker claims its next batch of cases when it can start them); `None`:
    /// every case, `num_runs` times.
    pub jobs: Option<BoxStream<'a, (usize, usize)>>,
    /// When set, each case run takes a permit (for good) before it starts, and the caller adds
    /// permits back as it disposes of finished case runs (say, once they are stored). That
    /// bounds the finished case runs waiting on the caller without pausing the ones running.
    pub admission: Option<&'a Semaphore>,
}

/// Runs every case `options.num_runs` times and scores each case run as soon as it finishes.
/// The stream yields case runs in the order they finish. Dropping the stream cancels the case
/// runs under way.
pub fn run_and_score<'a>(
    agent: Arc<dyn Agent>,
    app_name: &'a str,
    expected: &'a (impl RunCases + ?Sized),
    config: &'a EvalConfig,
    services: &'a ScoringServices,
    options: &'a RunOptions,
    schedule: CaseSchedule<'a>,
) -> impl Stream<Item = FinishedCase> + 'a {
    let CaseSchedule { jobs, admission } = schedule;
    let count = expected.case_count();
    let jobs = jobs.unwrap_or_else(|| {
        stream::iter(
            (0..options.num_runs.max(1)).flat_map(move |run| (0..count).map(move |index| (run, index))),
        )
        .boxed()
    });
    jobs.map(move |(run_index, case_index)| {
        let agent = agent.clone();
        async move {
            if let Some(admission) = admission {
                admission
                    .acquire()
                    .await
                    .expect("the admission semaphore is never closed")
                    .forget();
            }
            // Each case is read (parsed again, for a compact set) only once its turn comes.
            let case = expected.case(case_index);
            let mut attempts = 1;
            let run = || {
                run_case(
                    agent.as_ref(),
                    app_name,
                    &case,
                    &config.simulator,
                    services,
                    options,
                )
            };
            let mut case_run = run().await;
            while case_run.error.is_some() && case_run.retryable && attempts <= options.retries {
                tokio::time::sleep(options.retry_backoff * (1 << (attempts - 1).min(16))).await;
                attempts += 1;
                case_run = run().await;
            }
            let mut result =
                score_case(expected.eval_set_id(), case, case_run.actual, config, services).await;
            result.session_id = case_run.session_id;
            result.error = case_run.error;
            result.tool_sources = case_run.tool_sources;
            FinishedCase {
                run_index,
                case_index,
                result,
                attempts,
            }
        }
    })
    .buffer_unordered(options.concurrency.max(1))
}
