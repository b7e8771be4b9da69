//! Which parts of a case a read keeps: all of it, or what metrics computed from each turn's
//! outcome read (a lean read).

use crate::model::case::EvalCase;

/// Which parts of a case are read from its JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CaseParts {
    /// Every field.
    Whole,
    /// What metrics computed from each turn's outcome read (see `parse_case_lean`).
    Lean,
}

impl CaseParts {
    /// Parses one case's JSON (the whole text), reading at least these parts of it: what only
    /// a lean read refuses (a key serde_json reserves) is parsed whole, so this parses exactly
    /// what parsing does.
    pub fn parse(self, text: &str) -> Result<EvalCase, serde_json::Error> {
        match self {
            CaseParts::Whole => serde_json::from_str(text),
            #[cfg(feature = "fast-read")]
            CaseParts::Lean => crate::parse_case_lean(text).or_else(|_| serde_json::from_str(text)),
            // Without `fast-read` (the browser's build) there is no lean reader: a case read
            // whole holds at least its lean parts.
            #[cfg(not(feature = "fast-read"))]
            CaseParts::Lean => serde_json::from_str(text),
        }
    }
}
