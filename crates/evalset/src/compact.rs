//! An evalset held as each case's compact JSON, parsed again whenever a case is needed. Parsed
//! cases take about ten times their JSON's size in memory; a large expected set read once and
//! used a case at a time (scoring) needs only its text.

use crate::model::{EvalCase, EvalSet};

/// The cases of an evalset, each kept as compact JSON with what lining up needs at hand.
#[derive(Debug, Default)]
pub struct CompactEvalSet {
    pub eval_set_id: String,
    cases: Vec<CompactCase>,
}

#[derive(Debug)]
struct CompactCase {
    eval_id: Box<str>,
    /// How many invocations its conversation has; none for a conversation scenario.
    turns: Option<usize>,
    json: Box<str>,
}

impl CompactEvalSet {
    pub fn new(eval_set_id: &str) -> Self {
        CompactEvalSet {
            eval_set_id: eval_set_id.to_string(),
            cases: Vec::new(),
        }
    }

    /// Every case of a parsed set.
    pub fn of(set: &EvalSet) -> Self {
        let mut compact = CompactEvalSet::new(&set.eval_set_id);
        set.eval_cases.iter().for_each(|case| compact.push(case));
        compact
    }

    pub fn push(&mut self, case: &EvalCase) {
        self.cases.push(CompactCase {
            eval_id: case.eval_id.as_str().into(),
            turns: case.conversation.as_ref().map(Vec::len),
            json: serde_json::to_string(case)
                .expect("an eval case serialises")
                .into(),
        });
    }

    pub fn len(&self) -> usize {
        self.cases.len()
    }

    pub fn is_empty(&self) -> bool {
        self.cases.is_empty()
    }

    pub fn eval_id(&self, index: usize) -> &str {
        &self.cases[index].eval_id
    }

    pub fn turns(&self, index: usize) -> Option<usize> {
        self.cases[index].turns
    }

    /// Case `index`, parsed again from the JSON it was written to.
    pub fn case(&self, index: usize) -> EvalCase {
        serde_json::from_str(&self.cases[index].json).expect("a case written here parses again")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_case_comes_back_as_it_went_in() {
        let set: EvalSet = serde_json::from_value(json!({"eval_set_id": "s", "eval_cases": [
            {"eval_id": "a", "conversation": [{"invocation_id": "i", "user_content": {"parts": [{"text": "hi"}]},
             "intermediate_data": {"tool_uses": [{"name": "t", "args": {"z": 1, "a": [1.5, null]}}]}}]},
            {"eval_id": "b", "conversation_scenario": {"starting_prompt": "go", "conversation_plan": "p"}},
        ]}))
        .unwrap();
        let compact = CompactEvalSet::of(&set);
        assert_eq!((compact.len(), compact.eval_id(1)), (2, "b"));
        assert_eq!((compact.turns(0), compact.turns(1)), (Some(1), None));
        assert_eq!(compact.case(0), set.eval_cases[0]);
        assert_eq!(compact.case(1), set.eval_cases[1]);
    }
}
