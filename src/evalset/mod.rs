//! ADK's evalset format: the data model, reading every accepted file form, and writing files
//! byte-for-byte as ADK does. Pure: no I/O, no clock; compiled for the server and the browser.

mod export;
mod import;
mod model;
#[cfg(test)]
mod tests;

pub use export::{to_adk_json, AdkFileWriter};
pub use import::{
    eval_set_id_from_file_name, parse_eval_case, parse_evalset_file, parse_evalset_file_streaming,
    validate_eval_set_id, FormatError, LegacyDefaults, SourceFormat,
};
pub use model::{
    Content, ConversationScenario, EvalCase, EvalSet, FunctionCall, FunctionResponse, IntermediateData,
    Invocation, InvocationEvent, IsDefault, Part, Rubric, RubricContent, SessionInput,
};
