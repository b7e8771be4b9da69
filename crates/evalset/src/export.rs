//! Writing evalset files exactly as ADK's `LocalEvalSetsManager` writes them:
//! `model_dump_json(indent=2, exclude_unset=True, exclude_defaults=True, exclude_none=True)`.

use super::model::case::EvalCase;
use super::model::eval_set::EvalSet;

/// The ADK file for `eval_set`: snake_case keys in ADK's field order, 2-space indent, UTF-8 text
/// unescaped, no nulls or default values, and (like ADK) no trailing newline. The same data
/// always gives the same bytes.
pub fn to_adk_json(eval_set: &EvalSet) -> String {
    serde_json::to_string_pretty(eval_set).expect("serializing an EvalSet cannot fail")
}

/// Writes the same bytes as [`to_adk_json`], one case at a time, so exporting a large evalset
/// holds the output and one parsed case rather than every case at once.
pub struct AdkFileWriter {
    out: String,
    /// What follows the cases: `]` and the evalset's remaining keys.
    tail: String,
    cases: usize,
}

/// Where the cases go in the pretty-printed evalset without cases. A JSON string never holds a
/// raw newline, so this text can only be the top-level key.
const CASES_SLOT: &str = "\n  \"eval_cases\": []";

impl AdkFileWriter {
    /// Starts a file for `header`; its `eval_cases` are ignored (push them instead).
    pub fn new(header: &EvalSet) -> Self {
        let empty = EvalSet {
            eval_cases: Vec::new(),
            ..header.clone()
        };
        let json = to_adk_json(&empty);
        let at = json.find(CASES_SLOT).expect("eval_cases is always written") + CASES_SLOT.len() - 1;
        AdkFileWriter {
            out: json[..at].to_string(),
            tail: json[at..].to_string(),
            cases: 0,
        }
    }

    pub fn push_case(&mut self, case: &EvalCase) {
        self.out.push_str(if self.cases == 0 { "\n" } else { ",\n" });
        let json = serde_json::to_string_pretty(case).expect("serializing an EvalCase cannot fail");
        // Cases sit two levels deep: indent every line by four spaces.
        for (i, line) in json.lines().enumerate() {
            if i > 0 {
                self.out.push('\n');
            }
            self.out.push_str("    ");
            self.out.push_str(line);
        }
        self.cases += 1;
    }

    pub fn finish(mut self) -> String {
        if self.cases > 0 {
            self.out.push_str("\n  ");
        }
        self.out.push_str(&self.tail);
        self.out
    }
}
