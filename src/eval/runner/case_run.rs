//! One case run: a fresh session (seeded with the case's `session_input.state`) that either
//! replays the case's user turns or, for a `conversation_scenario`, lets the simulated user
//! talk to the agent until it stops.

use futures::StreamExt;

use super::RunOptions;
use crate::agent::replay::ReplayTable;
use crate::agent::to_eval_case::{generated_invocation, RecordedTurn};
use crate::agent::{Agent, AgentEvent, ReplayMiss, SessionContext, ToolExecutionMode, ToolSource, Turn};
use crate::eval::services::ScoringServices;
use crate::eval::simulator::{NextUserMessage, SimulatorConfig, UserSimulator};
use crate::evalset::{ConversationScenario, EvalCase, Invocation};
use pure_metrics::efficiency::python_round3;

/// One case's run: the actual invocations (for a scripted case one per expected user turn;
/// after an error the remaining turns are left unanswered), and the error that stopped it.
#[derive(Debug, Clone)]
pub(super) struct CaseRun {
    pub actual: Vec<Invocation>,
    pub session_id: String,
    pub error: Option<String>,
    /// Whether another try might get through (an agent or model failure, not a setting).
    pub retryable: bool,
    /// Under tool replay, per turn, where each tool response came from.
    pub tool_sources: Vec<Vec<ToolSource>>,
}

/// Why a case run stopped early.
enum Stop {
    /// The agent or the simulator's model failed: another try may get through.
    Failed(String),
    /// The case cannot run as configured (no simulator model, an unknown persona): trying again
    /// changes nothing.
    Unrunnable(String),
}

impl From<String> for Stop {
    fn from(message: String) -> Stop {
        Stop::Failed(message)
    }
}

/// Runs one case in a new session.
pub(super) async fn run_case(
    agent: &dyn Agent,
    app_name: &str,
    case: &EvalCase,
    simulator: &SimulatorConfig,
    services: &ScoringServices,
    options: &RunOptions,
) -> CaseRun {
    let input = case.session_input.as_ref();
    let mut session = Session {
        agent,
        app_name,
        user_id: input
            .map(|i| i.user_id.as_str())
            .filter(|u| !u.is_empty())
            .unwrap_or("eval_user"),
        state: input.map(|i| i.state.clone()).unwrap_or_default(),
        session_id: format!("eval-{}", uuid::Uuid::new_v4()),
        recorded: Vec::new(),
        actual: Vec::new(),
        options,
    };
    let outcome = match (&case.conversation, &case.conversation_scenario) {
        (Some(conversation), _) => replay(&mut session, conversation).await,
        (None, Some(scenario)) => simulate(&mut session, scenario, simulator, services).await,
        (None, None) => Err(Stop::Unrunnable(
            "the case has neither a conversation nor a conversation_scenario".into(),
        )),
    };
    let mut actual = session.actual;
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
    let (error, retryable) = match outcome {
        Ok(()) => (None, false),
        Err(Stop::Failed(message)) => (Some(message), true),
        Err(Stop::Unrunnable(message)) => (Some(message), false),
    };
    let tool_sources = if options.tools.is_replay() {
        session.recorded.iter().map(|t| sources(&t.turn.events)).collect()
    } else {
        Vec::new()
    };
    CaseRun {
        actual,
        session_id: session.session_id,
        error,
        retryable,
        tool_sources,
    }
}

/// Sends the case's user turns in order; under tool replay each turn's calls are answered
/// from that turn's recording.
async fn replay(session: &mut Session<'_>, conversation: &[Invocation]) -> Result<(), Stop> {
    for (number, expected) in conversation.iter().enumerate() {
        let tools = session.options.tools;
        let table = match tools.mode {
            ToolExecutionMode::Live => None,
            ToolExecutionMode::Replay => Some(replay_table(expected, tools.replay_miss, number + 1)?),
        };
        session
            .turn(expected.user_content.joined_text(), table.as_ref())
            .await?;
    }
    Ok(())
}

/// The recorded calls of expected turn `number`; a turn whose calls were recorded without
/// their results cannot be replayed, and says so rather than running them live unnoticed.
fn replay_table(expected: &Invocation, miss: ReplayMiss, number: usize) -> Result<ReplayTable, Stop> {
    let table = ReplayTable::from_invocation(expected, miss);
    match table.unanswered() {
        0 => Ok(table),
        missing => Err(Stop::Unrunnable(format!(
            "turn {number}: tool replay needs each recorded call's result, and {missing} of this \
             turn's calls have none (a file with tool_uses only?); run the case live or capture it again"
        ))),
    }
}

/// Lets the simulated user talk to the agent until it sends the stop signal or reaches the
/// turn limit.
async fn simulate(
    session: &mut Session<'_>,
    scenario: &ConversationScenario,
    config: &SimulatorConfig,
    services: &ScoringServices,
) -> Result<(), Stop> {
    let Some(model) = services.simulator.as_deref() else {
        return Err(Stop::Unrunnable(
            "a conversation_scenario needs a model to play the user: add a [simulator] (or [judge]) table to evalstudio.toml"
                .into(),
        ));
    };
    let mut user = UserSimulator::new(config, scenario).map_err(Stop::Unrunnable)?;
    loop {
        let next = user.next_message(&session.actual, session.app_name, model).await;
        match next.map_err(|error| format!("turn {}: {error}", session.actual.len() + 1))? {
            NextUserMessage::Message(message) => session.turn(message, None).await?,
            NextUserMessage::StopSignal | NextUserMessage::TurnLimit => return Ok(()),
        }
    }
}

/// The session a case runs in, and what it recorded so far.
struct Session<'a> {
    agent: &'a dyn Agent,
    app_name: &'a str,
    user_id: &'a str,
    state: serde_json::Map<String, serde_json::Value>,
    session_id: String,
    recorded: Vec<RecordedTurn>,
    /// Each recorded turn as an ADK invocation, timed.
    actual: Vec<Invocation>,
    options: &'a RunOptions,
}

impl Session<'_> {
    /// One user message through the agent; an error says which turn failed and why. A turn
    /// the agent answered with an error is still recorded.
    async fn turn(&mut self, message: String, replay: Option<&ReplayTable>) -> Result<(), String> {
        let number = self.recorded.len() + 1;
        let history: Vec<Turn> = self.recorded.iter().map(|t| t.turn.clone()).collect();
        let session = SessionContext {
            user_id: self.user_id,
            session_id: &self.session_id,
            state: &self.state,
            replay,
        };
        let started = crate::clock::now_seconds();
        let clock = std::time::Instant::now();
        let events = tokio::time::timeout(
            self.options.turn_timeout,
            self.agent
                .run_turn(session, &history, &message)
                .collect::<Vec<AgentEvent>>(),
        )
        .await
        .map_err(|_| format!("turn {number} took longer than {:?}", self.options.turn_timeout))?;
        // Wall-clock seconds, for invocation_duration_v1 (rounded to milliseconds, as ADK).
        let seconds = clock.elapsed().as_secs_f64();
        let error = events.iter().find_map(|e| match e {
            AgentEvent::Error { message } => Some(message.clone()),
            _ => None,
        });
        let recorded = RecordedTurn {
            invocation_id: format!("e-{}", uuid::Uuid::new_v4()),
            timestamp: started,
            turn: Turn {
                user: message,
                events,
            },
        };
        self.actual.push(Invocation {
            duration: Some(python_round3(seconds)),
            model_duration: model_seconds(&recorded.turn.events).map(python_round3),
            tool_duration: Some(python_round3(tool_seconds(&recorded.turn.events))),
            ..generated_invocation(&recorded, self.app_name)
        });
        self.recorded.push(recorded);
        match error {
            Some(error) => Err(format!("turn {number}: {error}")),
            None => Ok(()),
        }
    }
}

/// Where each of a turn's tool results came from, in order.
fn sources(events: &[AgentEvent]) -> Vec<ToolSource> {
    events
        .iter()
        .filter_map(|event| match event {
            AgentEvent::ToolResult { source, .. } => Some(*source),
            _ => None,
        })
        .collect()
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
            source: Default::default(),
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
