//! Writing evalset files exactly as ADK's `LocalEvalSetsManager` writes them:
//! `model_dump_json(indent=2, exclude_unset=True, exclude_defaults=True, exclude_none=True)`.

use super::model::EvalSet;

/// The ADK file for `eval_set`: snake_case keys in ADK's field order, 2-space indent, UTF-8 text
/// unescaped, no nulls or default values, and (like ADK) no trailing newline. The same data
/// always gives the same bytes.
pub fn to_adk_json(eval_set: &EvalSet) -> String {
    serde_json::to_string_pretty(eval_set).expect("serializing an EvalSet cannot fail")
}
