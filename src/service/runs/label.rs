//! What the user calls a run: a label checked as typed, and set or taken away later.

use super::error::{EvalRunError, MAX_LABEL_CHARS};
use crate::store::Store;

/// A label as the user typed it: trimmed, `None` when empty.
pub fn clean_label(label: Option<&str>) -> Result<Option<String>, EvalRunError> {
    let label = label.map(str::trim).filter(|label| !label.is_empty());
    match label.map(|label| label.chars().count()) {
        Some(chars) if chars > MAX_LABEL_CHARS => Err(EvalRunError::LabelTooLong(chars)),
        _ => Ok(label.map(str::to_string)),
    }
}

/// Names a run, or takes its name away with an empty label.
pub async fn set_run_label(
    store: &Store,
    app: &str,
    result_id: &str,
    label: Option<&str>,
) -> Result<Option<String>, EvalRunError> {
    let label = clean_label(label)?;
    store.set_run_label(app, result_id, label.as_deref()).await?;
    Ok(label)
}
