//! The simulated user of `conversation_scenario` cases, as google-adk's `LlmBackedUserSimulator`
//! plays it (`evaluation/simulation/`): the first message is the scenario's starting prompt,
//! verbatim; each later one is asked of a chat model with ADK's instructions (the plan, the
//! conversation so far, the persona), until the model answers with the stop signal or the
//! conversation reaches `max_allowed_invocations`. Pure: the model is behind [`Judge`] (any
//! prompt-in, text-out chat model; the server's is evalstudio.toml's `[simulator]`).

mod config;
mod history;
mod personas;
pub(crate) mod prompt;
pub(crate) mod python_repr;
#[cfg(test)]
mod tests;

pub use config::{SimulatorConfig, DEFAULT_MAX_ALLOWED_INVOCATIONS};
pub use history::conversation_history;
pub use personas::{built_in_personas, resolve_persona, Behavior, Persona};
pub use python_repr::python_repr;

use super::services::{Judge, JudgeRequest};
use crate::evalset::{ConversationScenario, Invocation};
use prompt::Values;

/// What the simulator answers when it decides the conversation is over (ADK's `_STOP_SIGNAL`).
pub const STOP_SIGNAL: &str = "</finished>";

/// The simulator's next move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NextUserMessage {
    /// Send this to the agent.
    Message(String),
    /// The simulator answered with the stop signal: the conversation is over.
    StopSignal,
    /// The conversation has `max_allowed_invocations` invocations.
    TurnLimit,
}

/// One scenario's simulated user; one per case run, as ADK makes one per eval case.
pub struct UserSimulator<'a> {
    config: &'a SimulatorConfig,
    scenario: &'a ConversationScenario,
    persona: Option<Persona>,
    /// Messages asked for so far (ADK's `_invocation_count`).
    asked: usize,
}

impl<'a> UserSimulator<'a> {
    /// The simulator for a scenario; an error names a persona or instructions it cannot use.
    pub fn new(config: &'a SimulatorConfig, scenario: &'a ConversationScenario) -> Result<Self, String> {
        let persona = scenario.user_persona.as_ref().map(resolve_persona).transpose()?;
        let simulator = UserSimulator {
            config,
            scenario,
            persona,
            asked: 0,
        };
        // Refuses custom instructions that cannot serve this scenario before the agent runs.
        simulator.instructions("")?;
        Ok(simulator)
    }

    /// The instructions the model gets for a conversation history.
    pub fn instructions(&self, history: &str) -> Result<String, String> {
        prompt::instructions(
            self.config.custom_instructions.as_deref(),
            &Values {
                stop_signal: STOP_SIGNAL,
                conversation_plan: &self.scenario.conversation_plan,
                conversation_history: history,
                persona: self.persona.as_ref(),
            },
        )
    }

    /// The next user message for the conversation so far (`agent_name` authors the agent's
    /// final responses). An error (the model failed or answered nothing) ends the case run.
    pub async fn next_message(
        &mut self,
        conversation: &[Invocation],
        agent_name: &str,
        model: &dyn Judge,
    ) -> Result<NextUserMessage, String> {
        if !self.config.allows_another(self.asked) {
            return Ok(NextUserMessage::TurnLimit);
        }
        let reply = if self.asked == 0 {
            self.scenario.starting_prompt.clone()
        } else {
            let history = conversation_history(conversation, agent_name, self.config.include_function_calls);
            let prompt = self.instructions(&history)?;
            model
                .complete(JudgeRequest {
                    prompt: &prompt,
                    model: None,
                })
                .await
                .map_err(|error| format!("the user simulator's model failed: {error}"))?
        };
        self.asked += 1;
        if reply.to_lowercase().contains(STOP_SIGNAL) {
            return Ok(NextUserMessage::StopSignal);
        }
        if reply.is_empty() {
            return Err(format!(
                "the user simulator's model answered with an empty message (turn {}); it should answer as the user or with {STOP_SIGNAL}",
                self.asked
            ));
        }
        Ok(NextUserMessage::Message(reply))
    }
}
