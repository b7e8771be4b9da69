//! The ways into a compact set that read with the fast readers: a set's ADK JSON, and a case
//! the parallel reader skimmed.

use super::import::read_evalset_cases_fast;
use super::parallel_read::CaseRead;
use crate::compact::{CompactCase, CompactEvalSet};
use crate::import::FormatError;
use crate::parts::CaseParts;

impl CompactCase {
    /// A case as the parallel reader read it: a skimmed one holds its text as read (writing it
    /// again would take longer than reading it).
    pub fn read(case: CaseRead) -> Self {
        match case {
            CaseRead::Skimmed { head, text } => CompactCase {
                eval_id: head.eval_id.into_boxed_str(),
                turns: head.turns,
                json: text.into_boxed_str(),
                as_read: true,
            },
            CaseRead::Parsed(case) => CompactCase::of(&case),
        }
    }
}

impl CompactEvalSet {
    /// A set in ADK's form (as [`CompactEvalSet::to_json`] writes it), read a case at a time.
    pub fn from_adk_json(text: &str) -> Result<Self, FormatError> {
        let mut compact = CompactEvalSet::default();
        let header = read_evalset_cases_fast(
            text.as_bytes(),
            || Ok(text.as_bytes()),
            CaseParts::Whole,
            &mut |_, case, _| {
                compact.push(&case);
                Ok(())
            },
        )?;
        compact.header = header;
        Ok(compact)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::case::EvalCase;
    use crate::model::eval_set::EvalSet;
    use serde_json::json;

    #[test]
    fn a_case_held_as_read_is_written_in_adks_form() {
        let text = r#"{ "evalId": "a", "conversation": [] }"#;
        let case: EvalCase = serde_json::from_str(text).unwrap();
        let mut compact = CompactEvalSet::default();
        let head = crate::skim_case(text).unwrap();
        compact.push_case(CompactCase::read(CaseRead::Skimmed {
            head,
            text: text.to_string(),
        }));
        assert_eq!(compact.case(0), case);
        assert_eq!(compact.case_json(0), serde_json::to_string(&case).unwrap());
    }

    #[test]
    fn its_json_round_trips_with_the_sets_own_fields_and_a_narrowed_set_keeps_its_order() {
        let set: EvalSet = serde_json::from_value(
            json!({"eval_set_id": "s", "name": "S", "tool_execution_mode": "replay",
            "eval_cases": [{"eval_id": "a"}, {"eval_id": "b"}, {"eval_id": "c"}]}),
        )
        .unwrap();
        let mut compact = CompactEvalSet::of(&set);
        assert_eq!(serde_json::from_str::<EvalSet>(&compact.to_json()).unwrap(), set);
        compact.retain(|id| id != "b");
        let back = CompactEvalSet::from_adk_json(&compact.to_json()).unwrap();
        assert_eq!(
            (back.eval_set_id(), back.header.name.as_deref()),
            ("s", Some("S"))
        );
        assert_eq!(back.header.extra["tool_execution_mode"], "replay");
        assert_eq!((back.len(), back.eval_id(0), back.eval_id(1)), (2, "a", "c"));
        assert!(back.contains("c") && !back.contains("b"));
    }
}
