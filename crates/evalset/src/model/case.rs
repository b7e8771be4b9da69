//! ADK's eval case and its parts: the conversation's invocations and their steps, the session
//! it starts from, a simulator's scenario, rubrics.

use super::adk_model::{adk_model, IsDefault, Key, KeySeed};
use super::genai::{Content, FunctionCall, FunctionResponse, Part};
use serde::de::{self, Deserialize, Deserializer, MapAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Map, Value};
use std::fmt;

adk_model! {
    /// One eval case: a scripted conversation (or a scenario for a user simulator) and the
    /// session it starts from.
    pub struct EvalCase {
        pub eval_id: String = "evalId" [required],
        pub conversation: Option<Vec<Invocation>> = "conversation",
        pub conversation_scenario: Option<ConversationScenario> = "conversationScenario",
        pub session_input: Option<SessionInput> = "sessionInput",
        pub creation_timestamp: f64 = "creationTimestamp",
        pub rubrics: Option<Vec<Rubric>> = "rubrics",
        pub final_session_state: Map<String, Value> = "finalSessionState",
    }
}

adk_model! {
    /// One user turn and what the agent did in answer.
    pub struct Invocation {
        pub invocation_id: String = "invocationId",
        pub user_content: Content = "userContent" [required],
        pub final_response: Option<Content> = "finalResponse",
        pub intermediate_data: Option<IntermediateData> = "intermediateData",
        pub creation_timestamp: f64 = "creationTimestamp",
        pub duration: Option<f64> = "duration",
        pub model_duration: Option<f64> = "modelDuration",
        pub tool_duration: Option<f64> = "toolDuration",
        pub rubrics: Option<Vec<Rubric>> = "rubrics",
        pub app_details: Option<Value> = "appDetails",
    }
}

adk_model! { @custom_camel
    /// ADK's `IntermediateData | InvocationEvents` union in one type: a file uses either the
    /// tool_uses/tool_responses/intermediate_responses form or the invocation_events form.
    pub struct IntermediateData {
        pub tool_uses: Vec<FunctionCall> = "toolUses",
        pub tool_responses: Vec<FunctionResponse> = "toolResponses",
        pub intermediate_responses: Vec<(String, Vec<Part>)> = "intermediateResponses",
        /// Present (even empty) in the invocation_events form; see [`IntermediateData::events`].
        pub invocation_events: Option<Vec<InvocationEvent>> = "invocationEvents",
    }
}

adk_model! {
    /// One event of an invocation (the `invocation_events` form).
    pub struct InvocationEvent {
        pub author: String = "author" [required],
        pub content: Option<Content> = "content",
        pub grounding_metadata: Option<Value> = "groundingMetadata",
        pub usage_metadata: Option<Value> = "usageMetadata",
        pub model_version: Option<String> = "modelVersion",
    }
}

adk_model! {
    /// The values a session starts from.
    pub struct SessionInput {
        pub app_name: String = "appName" [required],
        pub user_id: String = "userId" [required],
        pub session_id: Option<String> = "sessionId",
        pub state: Map<String, Value> = "state",
    }
}

adk_model! {
    /// A conversation for ADK's user simulator to play instead of a scripted one.
    pub struct ConversationScenario {
        pub starting_prompt: String = "startingPrompt" [required],
        pub conversation_plan: String = "conversationPlan" [required],
        pub user_persona: Option<Value> = "userPersona",
    }
}

adk_model! {
    /// A yes/no property a judge checks the response against.
    pub struct Rubric {
        pub rubric_id: String = "rubricId" [required],
        pub rubric_content: RubricContent = "rubricContent" [required],
        pub description: Option<String> = "description",
        // `type`, ADK's last field, is a Rust keyword: it lives in `extra`, which is written last.
    }
}

adk_model! {
    pub struct RubricContent {
        pub text_property: Option<String> = "textProperty",
    }
}

impl Invocation {
    fn shrink_to_fit(&mut self) {
        self.user_content.shrink_to_fit();
        self.final_response.iter_mut().for_each(Content::shrink_to_fit);
        if let Some(data) = &mut self.intermediate_data {
            data.tool_uses.shrink_to_fit();
            data.tool_responses.shrink_to_fit();
            data.intermediate_responses.shrink_to_fit();
            for (_, parts) in &mut data.intermediate_responses {
                parts.shrink_to_fit();
            }
            if let Some(events) = &mut data.invocation_events {
                events.shrink_to_fit();
                for event in events {
                    event.content.iter_mut().for_each(Content::shrink_to_fit);
                }
            }
        }
    }
}

impl IntermediateData {
    /// The invocation events (none in the tool_uses form).
    pub fn events(&self) -> &[InvocationEvent] {
        self.invocation_events.as_deref().unwrap_or_default()
    }

    /// The tool calls in order, from `tool_uses` or from the function_call parts of
    /// `invocation_events` (ADK's `get_all_tool_calls`).
    pub fn tool_calls(&self) -> Vec<&FunctionCall> {
        if self.events().is_empty() {
            return self.tool_uses.iter().collect();
        }
        self.event_parts()
            .filter_map(|part| part.function_call.as_deref())
            .collect()
    }

    /// Every part of every invocation event, in order.
    fn event_parts(&self) -> impl Iterator<Item = &Part> {
        self.events()
            .iter()
            .filter_map(|event| event.content.as_ref()?.parts.as_ref())
            .flatten()
    }

    /// What the agents wrote on the way to the final response, by author: the
    /// `intermediate_responses`, or the text parts of `invocation_events`.
    pub fn intermediate_texts(&self) -> Vec<(String, Vec<Part>)> {
        if self.events().is_empty() {
            return self.intermediate_responses.clone();
        }
        self.events()
            .iter()
            .filter_map(|event| {
                let texts: Vec<Part> = event
                    .content
                    .as_ref()?
                    .parts
                    .iter()
                    .flatten()
                    .filter(|part| part.thought != Some(true))
                    .filter(|part| part.text.as_deref().is_some_and(|t| !t.trim().is_empty()))
                    .cloned()
                    .collect();
                (!texts.is_empty()).then(|| (event.author.clone(), texts))
            })
            .collect()
    }

    /// The tool responses in order, from `tool_responses` or from the function_response parts
    /// of `invocation_events` (ADK's `get_all_tool_responses`).
    pub fn tool_responses(&self) -> Vec<&FunctionResponse> {
        if self.events().is_empty() {
            return self.tool_responses.iter().collect();
        }
        self.event_parts()
            .filter_map(|part| part.function_response.as_deref())
            .collect()
    }
}

impl Invocation {
    /// Makes what the agent did in `actual` this turn's expectation: its steps and final
    /// response. The user's message, the turn's id, rubrics and unknown fields stay, and so does
    /// the form of the steps: a turn in the tool_uses form gets the actual's calls, responses and
    /// texts in that form (an agent's run records invocation_events).
    pub fn accept_actual(&mut self, actual: &Invocation) {
        let steps = actual.intermediate_data.clone().unwrap_or_default();
        self.intermediate_data = match self.intermediate_data.take() {
            Some(expected) if expected.invocation_events.is_some() => actual.intermediate_data.clone(),
            expected => Some(IntermediateData {
                tool_uses: steps.tool_calls().into_iter().cloned().collect(),
                tool_responses: steps.tool_responses().into_iter().cloned().collect(),
                intermediate_responses: steps.intermediate_texts(),
                invocation_events: None,
                extra: expected.map(|e| e.extra).unwrap_or_default(),
            }),
        };
        self.final_response = actual.final_response.clone();
    }

    pub fn tool_calls(&self) -> Vec<&FunctionCall> {
        self.intermediate_data
            .as_ref()
            .map(IntermediateData::tool_calls)
            .unwrap_or_default()
    }

    pub fn tool_responses(&self) -> Vec<&FunctionResponse> {
        self.intermediate_data
            .as_ref()
            .map(IntermediateData::tool_responses)
            .unwrap_or_default()
    }
}

impl EvalCase {
    /// Gives back the spare room deserialising leaves in the case's lists: serde grows a list
    /// to at least four elements, so a one-turn conversation would hold 2.6 KB for one 656-byte
    /// invocation. Parsing an `EvalSet` does this for every case (a few reallocations), since
    /// whole sets are what stays in memory, e.g. a run's expected set.
    pub fn shrink_to_fit(&mut self) {
        if let Some(conversation) = &mut self.conversation {
            conversation.shrink_to_fit();
            conversation.iter_mut().for_each(Invocation::shrink_to_fit);
        }
    }

    pub fn invocations(&self) -> &[Invocation] {
        self.conversation.as_deref().unwrap_or_default()
    }

    /// Number of user turns; a scenario counts as none (its turns are simulated).
    pub fn turn_count(&self) -> usize {
        self.invocations().len()
    }

    pub fn tool_call_count(&self) -> usize {
        self.invocations().iter().map(|i| i.tool_calls().len()).sum()
    }

    /// The names of the tools the case calls, in order, space-separated (for search).
    pub fn tool_names(&self) -> String {
        self.invocations()
            .iter()
            .flat_map(|i| i.tool_calls())
            .filter_map(|call| call.name.as_deref())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// What the user says first: the first turn's text, or a scenario's starting prompt.
    pub fn first_user_message(&self) -> String {
        match (self.invocations().first(), &self.conversation_scenario) {
            (Some(first), _) => first.user_content.joined_text(),
            (None, Some(scenario)) => scenario.starting_prompt.clone(),
            (None, None) => String::new(),
        }
    }
}
