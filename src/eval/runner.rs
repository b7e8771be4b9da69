//! Runs an eval set's cases through an agent to get the actual invocations that
//! [`score_eval_set`](super::score_eval_set) compares with the expected ones. Each case × run gets
//! a fresh session (seeded with the case's `session_input.state`) and replays the case's user
//! turns; cases run concurrently up to a limit, and one case failing never stops the others.

use std::sync::Arc;
use std::time::Duration;

use futures::stream::{self, StreamExt};

use crate::agent::to_eval_case::{session_to_eval_case, RecordedTurn, SessionOrigin};
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
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            num_runs: 1,
            concurrency: 8,
            turn_timeout: Duration::from_secs(300),
        }
    }
}

/// One case's run: the actual invocations (one per expected user turn; after an error the
/// remaining turns are left unanswered), and the error that stopped it, if any.
#[derive(Debug, Clone)]
pub struct CaseRun {
    /// Position of the run, from 0.
    pub run: usize,
    pub actual: EvalCase,
    pub error: Option<String>,
}

/// Runs every case `options.num_runs` times, calling `on_done` as each case run finishes (for
/// progress), and returns the actual eval sets, one per run, in the expected set's case order.
pub async fn run_eval_set(
    agent: Arc<dyn Agent>,
    app_name: &str,
    expected: &EvalSet,
    options: &RunOptions,
    mut on_done: impl FnMut(&CaseRun),
) -> Vec<(EvalSet, Vec<CaseRun>)> {
    let jobs = (0..options.num_runs.max(1)).flat_map(|run| {
        expected
            .eval_cases
            .iter()
            .enumerate()
            .map(move |(index, case)| (run, index, case))
    });
    let mut finished: Vec<(usize, usize, CaseRun)> = Vec::new();
    let mut running = stream::iter(jobs)
        .map(|(run, index, case)| {
            let agent = agent.clone();
            async move {
                (
                    run,
                    index,
                    run_case(agent.as_ref(), app_name, case, run, options).await,
                )
            }
        })
        .buffer_unordered(options.concurrency.max(1));
    while let Some((run, index, case_run)) = running.next().await {
        on_done(&case_run);
        finished.push((run, index, case_run));
    }
    finished.sort_by_key(|(run, index, _)| (*run, *index));
    let mut runs: Vec<(EvalSet, Vec<CaseRun>)> = Vec::new();
    for (run, _, case_run) in finished {
        if runs.len() <= run {
            runs.push((
                EvalSet {
                    eval_set_id: expected.eval_set_id.clone(),
                    name: expected.name.clone(),
                    ..EvalSet::default()
                },
                Vec::new(),
            ));
        }
        let (set, case_runs) = &mut runs[run];
        set.eval_cases.push(case_run.actual.clone());
        case_runs.push(case_run);
    }
    runs
}

/// Replays one case's user turns through the agent in a new session.
async fn run_case(
    agent: &dyn Agent,
    app_name: &str,
    case: &EvalCase,
    run: usize,
    options: &RunOptions,
) -> CaseRun {
    let input = case.session_input.as_ref();
    let user_id = input
        .map(|i| i.user_id.as_str())
        .filter(|u| !u.is_empty())
        .unwrap_or("eval_user");
    let state = input.map(|i| i.state.clone()).unwrap_or_default();
    let session_id = format!("eval-{}", uuid::Uuid::new_v4());
    let origin = SessionOrigin {
        app_name: app_name.to_string(),
        user_id: user_id.to_string(),
        state: state.clone(),
        agent_name: app_name.to_string(),
    };
    let finish = |turns: &[RecordedTurn], error: Option<String>| {
        let mut actual = session_to_eval_case(&case.eval_id, &origin, turns, crate::api::now_seconds());
        // Unanswered turns keep their user message, so the turn counts still line up.
        if let (Some(actual), Some(expected)) = (actual.conversation.as_mut(), case.conversation.as_ref()) {
            for missing in expected.iter().skip(actual.len()) {
                actual.push(Invocation {
                    invocation_id: missing.invocation_id.clone(),
                    user_content: missing.user_content.clone(),
                    ..Invocation::default()
                });
            }
        }
        CaseRun { run, actual, error }
    };
    let Some(conversation) = case.conversation.as_ref() else {
        return finish(
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
        let started = crate::api::now_seconds();
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
                return finish(&recorded, Some(error));
            }
        };
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
            return finish(&recorded, Some(format!("turn {}: {error}", recorded.len())));
        }
    }
    finish(&recorded, None)
}
