//! ADK's evalset data model (google-adk `evaluation/eval_case.py`, `eval_set.py` and the
//! google-genai types they use), as serde types.
//!
//! Every model follows the same three rules, enforced by [`adk_model!`]:
//! - it reads snake_case or camelCase keys (ADK's pydantic `alias_generator=to_camel`);
//! - keys it does not know are kept, in order, in `extra` and written back after the known ones;
//! - it writes what ADK's file writer writes (`model_dump_json(exclude_unset, exclude_defaults,
//!   exclude_none)`): snake_case keys in ADK's declaration order, with nulls and default values left out.
//!
//! JSON `null` reads as "not set" everywhere, so a file written by an older ADK (which wrote every
//! unset field as null) reads the same as one written by a newer one.

use serde::de::{self, Deserialize, Deserializer, MapAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Map, Value};
use std::fmt;

/// Whether a value equals its ADK default, so the file writer leaves it out.
pub trait IsDefault {
    fn is_default(&self) -> bool;
}

impl<T> IsDefault for Option<T> {
    fn is_default(&self) -> bool {
        self.is_none()
    }
}
impl<T> IsDefault for Vec<T> {
    fn is_default(&self) -> bool {
        self.is_empty()
    }
}
impl IsDefault for String {
    fn is_default(&self) -> bool {
        self.is_empty()
    }
}
impl IsDefault for f64 {
    fn is_default(&self) -> bool {
        *self == 0.0
    }
}
impl IsDefault for Map<String, Value> {
    fn is_default(&self) -> bool {
        self.is_empty()
    }
}

/// A map key: one of a model's own names, or (owned, to be kept in `extra`) another. Reading a
/// known key allocates nothing, which matters for files of millions of keys.
enum Key {
    Known(&'static str),
    Other(String),
}

/// Reads a key, matched against a model's names (snake_case and camelCase).
struct KeySeed(&'static [&'static str]);

impl<'de> de::DeserializeSeed<'de> for KeySeed {
    type Value = Key;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Key, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Key;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a key")
    }
    fn visit_str<E: de::Error>(self, key: &str) -> Result<Key, E> {
        Ok(match self.0.iter().find(|name| **name == key) {
            Some(name) => Key::Known(name),
            None => Key::Other(key.to_string()),
        })
    }
}

/// Declares one ADK model. Each field is `pub name: Type = "camelName"`, with `[required]` after
/// the fields ADK requires: a required field is always written and its absence is an error; any
/// other field is written only when it differs from its default.
macro_rules! adk_model {
    (@core
        $(#[$meta:meta])*
        pub struct $name:ident {
            $(
                $(#[$fmeta:meta])*
                pub $field:ident : $ty:ty = $camel:literal $([$req:ident])?
            ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Default)]
        pub struct $name {
            $( $(#[$fmeta])* pub $field: $ty, )*
            /// Keys this model does not know, kept verbatim so they survive a round trip.
            pub extra: Map<String, Value>,
        }

        impl IsDefault for $name {
            /// A model value is never a default: ADK writes a set model even when it is empty.
            fn is_default(&self) -> bool {
                false
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let mut map = serializer.serialize_map(None)?;
                $(
                    if adk_model!(@required $($req)?) || !IsDefault::is_default(&self.$field) {
                        map.serialize_entry(stringify!($field), &self.$field)?;
                    }
                )*
                for (key, value) in &self.extra {
                    map.serialize_entry(key, value)?;
                }
                map.end()
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                struct ModelVisitor;
                impl<'de> Visitor<'de> for ModelVisitor {
                    type Value = $name;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        f.write_str(concat!("an object (", stringify!($name), ")"))
                    }
                    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<$name, A::Error> {
                        const NAMES: &[&str] = &[$( stringify!($field), $camel, )*];
                        $( let mut $field: Option<$ty> = None; )*
                        let mut extra = Map::new();
                        while let Some(key) = map.next_key_seed(KeySeed(NAMES))? {
                            match key {
                                #[allow(unreachable_patterns)] // snake_case and camelCase agree for one-word names
                                Key::Known(name) => match name {
                                    $( stringify!($field) | $camel => $field = map.next_value::<Option<$ty>>()?, )*
                                    _ => unreachable!("every name in NAMES has its arm"),
                                },
                                Key::Other(key) => {
                                    let value: Value = map.next_value()?;
                                    if !value.is_null() {
                                        extra.insert(key, value);
                                    }
                                }
                            }
                        }
                        Ok($name {
                            $( $field: match $field {
                                Some(value) => value,
                                None => adk_model!(@absent $field $($req)?),
                            }, )*
                            extra,
                        })
                    }
                }
                deserializer.deserialize_map(ModelVisitor)
            }
        }

        // The skim (see `crate::fast::skim`), only in the build with the fast readers.
        #[cfg(feature = "fast-read")]
        crate::fast::skim::skim_model!($name { $( $field: $ty = $camel $([$req])? ),* });
    };
    (@camel
        $(#[$meta:meta])*
        pub struct $name:ident {
            $(
                $(#[$fmeta:meta])*
                pub $field:ident : $ty:ty = $camel:literal $([$req:ident])?
            ),* $(,)?
        }
    ) => {
        impl crate::camel::CamelCase for $name {
            fn serialize_camel<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                use crate::camel::{Camel, CamelCase};
                let mut map = serializer.serialize_map(None)?;
                $(
                    if !CamelCase::is_none(&self.$field) {
                        map.serialize_entry($camel, &Camel(&self.$field))?;
                    }
                )*
                for (key, value) in &self.extra {
                    map.serialize_entry(key, value)?;
                }
                map.end()
            }
        }

    };
    // A model whose camelCase answer is written by hand (see `IntermediateData`).
    (@custom_camel $($model:tt)*) => {
        adk_model!(@core $($model)*);
    };
    (@required required) => { true };
    (@required) => { false };
    (@absent $field:ident required) => { return Err(de::Error::missing_field(stringify!($field))) };
    (@absent $field:ident) => { Default::default() };
    ($($model:tt)*) => {
        adk_model!(@core $($model)*);
        adk_model!(@camel $($model)*);
    };
}

/// A set of eval cases: one `.evalset.json` file. Written by hand rather than by
/// `adk_model!` because its cases can be read one at a time (see [`EvalSetVisitor`]).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct EvalSet {
    pub eval_set_id: String,
    pub name: Option<String>,
    pub description: Option<String>,
    pub eval_cases: Vec<EvalCase>,
    pub creation_timestamp: f64,
    /// Keys ADK does not define, kept verbatim so they survive a round trip.
    pub extra: Map<String, Value>,
}

impl Serialize for EvalSet {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("eval_set_id", &self.eval_set_id)?;
        if let Some(name) = &self.name {
            map.serialize_entry("name", name)?;
        }
        if let Some(description) = &self.description {
            map.serialize_entry("description", description)?;
        }
        map.serialize_entry("eval_cases", &self.eval_cases)?;
        if !self.creation_timestamp.is_default() {
            map.serialize_entry("creation_timestamp", &self.creation_timestamp)?;
        }
        for (key, value) in &self.extra {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for EvalSet {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let mut cases = Vec::new();
        let mut collect = |_: usize, mut case: EvalCase| {
            case.shrink_to_fit();
            cases.push(case);
            Ok(())
        };
        let mut eval_set = deserializer.deserialize_map(EvalSetVisitor {
            on_case: &mut collect,
        })?;
        cases.shrink_to_fit();
        eval_set.eval_cases = cases;
        Ok(eval_set)
    }
}

/// Reads an EvalSet's top level (snake_case keys only, as ADK's `EvalSet` has no aliases) and
/// hands each case to `on_case` as soon as it is read, leaving `eval_cases` empty: importing a
/// large file then never holds every parsed case at once. An `Err` from `on_case` stops reading.
pub struct EvalSetVisitor<'a> {
    pub on_case: &'a mut dyn FnMut(usize, EvalCase) -> Result<(), String>,
}

impl<'de> de::DeserializeSeed<'de> for EvalSetVisitor<'_> {
    type Value = EvalSet;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<EvalSet, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for EvalSetVisitor<'_> {
    type Value = EvalSet;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object (EvalSet)")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<EvalSet, A::Error> {
        let mut eval_set = EvalSet::default();
        let (mut has_id, mut has_cases) = (false, false);
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "eval_set_id" => {
                    eval_set.eval_set_id = map.next_value()?;
                    has_id = true;
                }
                "name" => eval_set.name = map.next_value()?,
                "description" => eval_set.description = map.next_value()?,
                "creation_timestamp" => {
                    eval_set.creation_timestamp = map.next_value::<Option<f64>>()?.unwrap_or_default()
                }
                "eval_cases" => {
                    map.next_value_seed(CasesSeed {
                        on_case: &mut *self.on_case,
                    })?;
                    has_cases = true;
                }
                _ => {
                    let value: Value = map.next_value()?;
                    if !value.is_null() {
                        eval_set.extra.insert(key, value);
                    }
                }
            }
        }
        if !has_id {
            return Err(de::Error::missing_field("eval_set_id"));
        }
        if !has_cases {
            return Err(de::Error::missing_field("eval_cases"));
        }
        Ok(eval_set)
    }
}

struct CasesSeed<'a> {
    on_case: &'a mut dyn FnMut(usize, EvalCase) -> Result<(), String>,
}

impl<'de> de::DeserializeSeed<'de> for CasesSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for CasesSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of eval cases")
    }
    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut index = 0;
        while let Some(case) = seq.next_element::<EvalCase>()? {
            (self.on_case)(index, case).map_err(de::Error::custom)?;
            index += 1;
        }
        Ok(())
    }
}

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

adk_model! {
    /// google-genai `Content`: a message from one role.
    pub struct Content {
        pub parts: Option<Vec<Part>> = "parts",
        pub role: Option<String> = "role",
    }
}

adk_model! {
    /// google-genai `Part`. The kinds Evalstudio reads (text, thought, function call and
    /// response) are typed; the media kinds are kept as JSON. Fields are boxed because a part
    /// sets one or two of them: unboxed, every text part would carry ~1.5 KB of empty slots.
    pub struct Part {
        pub media_resolution: Option<Box<Value>> = "mediaResolution",
        pub code_execution_result: Option<Box<Value>> = "codeExecutionResult",
        pub executable_code: Option<Box<Value>> = "executableCode",
        pub file_data: Option<Box<Value>> = "fileData",
        pub function_call: Option<Box<FunctionCall>> = "functionCall",
        pub function_response: Option<Box<FunctionResponse>> = "functionResponse",
        pub inline_data: Option<Box<Value>> = "inlineData",
        pub text: Option<String> = "text",
        pub thought: Option<bool> = "thought",
        pub thought_signature: Option<String> = "thoughtSignature",
        pub video_metadata: Option<Box<Value>> = "videoMetadata",
        pub tool_call: Option<Box<Value>> = "toolCall",
        pub tool_response: Option<Box<Value>> = "toolResponse",
        pub part_metadata: Option<Box<Value>> = "partMetadata",
        pub audio_transcription: Option<Box<Value>> = "audioTranscription",
        pub media_processing: Option<Box<Value>> = "mediaProcessing",
        pub speech_metadata: Option<Box<Value>> = "speechMetadata",
        pub document_metadata: Option<Box<Value>> = "documentMetadata",
        pub spreadsheet_metadata: Option<Box<Value>> = "spreadsheetMetadata",
        pub audio_metadata: Option<Box<Value>> = "audioMetadata",
    }
}

adk_model! {
    /// google-genai `FunctionCall`: a tool call the model made.
    pub struct FunctionCall {
        pub id: Option<String> = "id",
        pub args: Option<Map<String, Value>> = "args",
        pub name: Option<String> = "name",
        pub partial_args: Option<Value> = "partialArgs",
        pub will_continue: Option<bool> = "willContinue",
    }
}

adk_model! {
    /// google-genai `FunctionResponse`: what a tool returned.
    pub struct FunctionResponse {
        pub will_continue: Option<bool> = "willContinue",
        pub scheduling: Option<Value> = "scheduling",
        pub parts: Option<Value> = "parts",
        pub id: Option<String> = "id",
        pub name: Option<String> = "name",
        pub response: Option<Map<String, Value>> = "response",
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

impl Content {
    fn shrink_to_fit(&mut self) {
        self.parts.iter_mut().for_each(Vec::shrink_to_fit);
    }

    /// A message of one text part, as `genai_types.Content(parts=[Part.from_text(text)], role)`.
    pub fn text(role: &str, text: &str) -> Self {
        Content {
            parts: Some(vec![Part {
                text: Some(text.to_string()),
                ..Part::default()
            }]),
            role: Some(role.to_string()),
            extra: Map::new(),
        }
    }

    /// The text parts joined by newlines, leaving out thoughts.
    pub fn joined_text(&self) -> String {
        self.parts
            .iter()
            .flatten()
            .filter(|part| part.thought != Some(true))
            .filter_map(|part| part.text.as_deref())
            .collect::<Vec<_>>()
            .join("\n")
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
