//! The google-genai types ADK's models carry: a message and its parts, a tool call and its
//! response.

use super::adk_model::{adk_model, IsDefault, Key, KeySeed};
use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Map, Value};
use std::fmt;

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

impl Content {
    pub(super) fn shrink_to_fit(&mut self) {
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
