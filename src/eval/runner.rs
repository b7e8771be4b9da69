//! Runs an eval set's cases through an agent and scores what it does. Each case × run gets a
//! fresh session (seeded with the case's `session_input.state`) and replays the case's user
//! turns; cases run concurrently up to a limit, are scored as each finishes (so the caller can
//! store results one by one), and one case failing never stops the others.

use std::sync::Arc;
use std::time::Duration;

use std::collections::HashSet;

use futures::stream::{self, Stream, StreamExt};
use tokio::sync::Semaphore;

use super::config::EvalConfig;
use super::efficiency::python_round3;
use super::result::EvalCaseResult;
use super::score::score_case;
use super::services::ScoringServices;
use crate::agent::to_eval_case::{generated_invocation, RecordedTurn};
use crate::agent::{Agent, AgentEvent, SessionContext, Turn};
use crate::evalset::{EvalCase, EvalSet, Invocation};

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
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            num_runs: 1,
            concurrency: 8,
            turn_timeout: Duration::from_secs(300),
            retries: 2,
            retry_backoff: Duration::from_secs(1),
        }
    }
}

/// One case's run: the actual invocations (one per expected user turn; after an error the
/// remaining turns are left unanswered), and the error that stopped it, if any.
#[derive(Debug, Clone)]
struct CaseRun {
    pub actual: Vec<Invocation>,
    pub session_id: String,
    pub error: Option<String>,
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
#[derive(Debug, Default)]
pub struct CaseSchedule<'a> {
    /// (run_index, case_index) pairs already done (when resuming): left out.
    pub skip: HashSet<(usize, usize)>,
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
    expected: &'a EvalSet,
    config: &'a EvalConfig,
    services: &'a ScoringServices,
    options: &'a RunOptions,
    schedule: CaseSchedule<'a>,
) -> impl Stream<Item = FinishedCase> + 'a {
    let CaseSchedule { skip, admission } = schedule;
    let jobs = (0..options.num_runs.max(1)).flat_map(|run| {
        expected
            .eval_cases
            .iter()
            .enumerate()
            .map(move |(index, case)| (run, index, case))
    });
    let jobs: Vec<_> = jobs
        .filter(|(run, index, _)| !skip.contains(&(*run, *index)))
        .collect();
    stream::iter(jobs)
        .map(move |(run_index, case_index, case)| {
            let agent = agent.clone();
            async move {
                if let Some(admission) = admission {
                    admission
                        .acquire()
                        .await
                        .expect("the admission semaphore is never closed")
                        .forget();
                }
                let mut attempts = 1;
                let mut case_run = run_case(agent.as_ref(), app_name, case, options).await;
                while case_run.error.is_some() && attempts <= options.retries {
                    tokio::time::sleep(options.retry_backoff * (1 << (attempts - 1).min(16))).await;
                    attempts += 1;
                    case_run = run_case(agent.as_ref(), app_name, case, options).await;
                }
                let mut result =
                    score_case(&expected.eval_set_id, case, case_run.actual, config, services).await;
                result.session_id = case_run.session_id;
                result.error = case_run.error;
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

/// Replays one case's user turns through the agent in a new session.
async fn run_case(agent: &dyn Agent, app_name: &str, case: &EvalCase, options: &RunOptions) -> CaseRun {
    let input = case.session_input.as_ref();
    let user_id = input
        .map(|i| i.user_id.as_str())
        .filter(|u| !u.is_empty())
        .unwrap_or("eval_user");
    let state = input.map(|i| i.state.clone()).unwrap_or_default();
    let session_id = format!("eval-{}", uuid::Uuid::new_v4());
    // Wall-clock seconds of each turn, for invocation_duration_v1 (rounded to milliseconds, as ADK).
    let mut durations: Vec<f64> = Vec::new();
    let finish = |turns: &[RecordedTurn], durations: &[f64], error: Option<String>| {
        let mut actual: Vec<Invocation> = turns
            .iter()
            .zip(durations)
            .map(|(turn, seconds)| Invocation {
                duration: Some(python_round3(*seconds)),
                model_duration: model_seconds(&turn.turn.events).map(python_round3),
                tool_duration: Some(python_round3(tool_seconds(&turn.turn.events))),
                ..generated_invocation(turn, app_name)
            })
            .collect();
        // Unanswered turns keep their user message, so the turn counts still line up.
        if let Some(expected) = case.conversation.as_ref() {
            for missing in expected.iter().skip(actual.len()) {
                actual.push(Invocation {
                    invocation_id: missing.invocation_id.clone(),
                    user_content: missing.user_content.clone(),
                    ..Invocation::default()
                });
            }
        }
        CaseRun {
            actual,
            session_id: session_id.clone(),
            error,
        }
    };
    let Some(conversation) = case.conversation.as_ref() else {
        return finish(
            &[],
            &[],
            Some("a conversation_scenario needs a simulated user, which the runner does not have yet".into()),
        );
    };

    let mut recorded: Vec<RecordedTurn> = Vec::new();
    for expected in conversation {
        let message = expected.user_content.joined_text();
        let history: Vec<Turn> = recorded.iter().map(|t| t.turn.clone()).collect();
        let session = SessionContext {
            user_id,
            session_id: &session_id,
            state: &state,
        };
        let started = crate::clock::now_seconds();
        let clock = std::time::Instant::now();
        let events = tokio::time::timeout(
            options.turn_timeout,
            agent
                .run_turn(session, &history, &message)
                .collect::<Vec<AgentEvent>>(),
        )
        .await;
        let events = match events {
            Ok(events) => events,
            Err(_) => {
                let error = format!(
                    "turn {} took longer than {:?}",
                    recorded.len() + 1,
                    options.turn_timeout
                );
                return finish(&recorded, &durations, Some(error));
            }
        };
        durations.push(clock.elapsed().as_secs_f64());
        let error = events.iter().find_map(|e| match e {
            AgentEvent::Error { message } => Some(message.clone()),
            _ => None,
        });
        recorded.push(RecordedTurn {
            invocation_id: format!("e-{}", uuid::Uuid::new_v4()),
            timestamp: started,
            turn: Turn {
                user: message,
                events,
            },
        });
        if let Some(error) = error {
            return finish(
                &recorded,
                &durations,
                Some(format!("turn {}: {error}", recorded.len())),
            );
        }
    }
    finish(&recorded, &durations, None)
}

/// Seconds the turn waited for the model, when the agent timed its model calls (an ADK agent
/// over HTTP does not: `None`).
fn model_seconds(events: &[AgentEvent]) -> Option<f64> {
    let durations: Vec<u64> = events
        .iter()
        .filter_map(|event| match event {
            AgentEvent::ModelCall { duration_ms } => Some(*duration_ms),
            _ => None,
        })
        .collect();
    (!durations.is_empty()).then(|| durations.iter().sum::<u64>() as f64 / 1000.0)
}

/// Seconds the turn spent in its tools, as the agent timed each call. Results that come back
/// together are of calls that ran together (the OpenAI and ADK agents run a reply's calls
/// concurrently), so such a batch counts its longest call, as ADK counts overlapping tool
/// spans once; the demo agent's one-at-a-time calls add up.
fn tool_seconds(events: &[AgentEvent]) -> f64 {
    let mut total_ms = 0;
    let mut batch_ms = 0;
    for event in events {
        if let AgentEvent::ToolResult { duration_ms, .. } = event {
            batch_ms = batch_ms.max(*duration_ms);
        } else {
            total_ms += std::mem::take(&mut batch_ms);
        }
    }
    (total_ms + batch_ms) as f64 / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call() -> AgentEvent {
        AgentEvent::ToolCall {
            id: "c".into(),
            name: "f".into(),
            args: Default::default(),
        }
    }

    fn result(duration_ms: u64) -> AgentEvent {
        AgentEvent::ToolResult {
            id: "c".into(),
            name: "f".into(),
            response: Default::default(),
            duration_ms,
        }
    }

    #[test]
    fn tool_time_counts_a_batch_of_parallel_calls_once() {
        // One reply's three calls ran together, then one more call on its own.
        let parallel = [call(), call(), call(), result(300), result(1000), result(200)];
        let mut events = parallel.to_vec();
        events.extend([AgentEvent::ModelCall { duration_ms: 400 }, call(), result(250)]);
        assert_eq!(tool_seconds(&events), 1.25);
        // One call at a time: each adds up.
        let sequential = [call(), result(100), call(), result(200)];
        assert_eq!(tool_seconds(&sequential), 0.3);
        assert_eq!(tool_seconds(&[]), 0.0);
    }

    #[test]
    fn model_time_is_known_only_when_the_agent_timed_its_calls() {
        let timed = [
            AgentEvent::ModelCall { duration_ms: 400 },
            call(),
            result(5),
            AgentEvent::ModelCall { duration_ms: 350 },
        ];
        assert_eq!(model_seconds(&timed), Some(0.75));
        assert_eq!(model_seconds(&[call(), result(5)]), None);
    }
}
