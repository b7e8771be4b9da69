//! ADK's evalset format: the data model, reading every accepted file form, and writing files
//! byte-for-byte as ADK does. Pure: no I/O, no clock; compiled for the server and the browser.
//! The CLI's fast readers (`fast/`) are behind the `fast-read` feature, which only the server's
//! build turns on.

mod camel;
mod changes;
mod compact;
mod diff;
mod export;
#[cfg(feature = "fast-read")]
mod fast;
mod ids;
mod import;
mod legacy_export;
mod model;
mod parts;
mod scan;
#[cfg(test)]
mod tests;

pub use camel::{Camel, CamelCase};
pub use changes::case_changes;
pub use compact::{CompactCase, CompactEvalSet};
pub use diff::{case_diff, line_diff, DiffKind, DiffLine};
pub use export::{to_adk_json, AdkFileWriter};
#[cfg(feature = "fast-read")]
pub use fast::{
    parse_case_lean, read_evalset_cases_fast, read_evalset_cases_parallel, skim_case, CaseHead, CaseRead,
    CheckCase,
};
pub use ids::{
    eval_set_id_from_file_name, validate_app_name, validate_eval_id, validate_eval_set_id,
    validate_new_eval_id, validate_session_key,
};
pub use import::{
    parse_eval_case, parse_evalset_file, parse_evalset_file_streaming, read_evalset_cases, validate_case,
    FormatError, LegacyDefaults, SourceFormat,
};
pub use legacy_export::to_file_form;
pub use model::adk_model::IsDefault;
pub use model::case::{
    ConversationScenario, EvalCase, IntermediateData, Invocation, InvocationEvent, Rubric, RubricContent,
    SessionInput,
};
pub use model::eval_set::EvalSet;
pub use model::genai::{Content, FunctionCall, FunctionResponse, Part};
pub use parts::CaseParts;
