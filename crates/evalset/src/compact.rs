//! An evalset held as each case's compact JSON, parsed again whenever a case is needed. Parsed
//! cases take about ten times their JSON's size in memory; a large expected set read once and
//! used a case at a time (scoring) needs only its text.

use crate::model::case::EvalCase;
use crate::model::eval_set::EvalSet;
use crate::parts::CaseParts;
use std::borrow::Cow;

/// The cases of an evalset, each kept as compact JSON with what lining up needs at hand.
#[derive(Debug, Default)]
pub struct CompactEvalSet {
    /// The set's own fields (id, name, timestamps, extra keys); its `eval_cases` stay empty.
    pub header: EvalSet,
    cases: Vec<CompactCase>,
}

/// One case as the set holds it.
#[derive(Debug)]
pub struct CompactCase {
    pub(crate) eval_id: Box<str>,
    /// How many invocations its conversation has; none for a conversation scenario.
    pub(crate) turns: Option<usize>,
    pub(crate) json: Box<str>,
    /// `json` is the case's text as read, which parses to the case but may not be ADK's form.
    pub(crate) as_read: bool,
}

impl CompactCase {
    /// `case`, written as ADK's compact JSON.
    pub fn of(case: &EvalCase) -> Self {
        CompactCase {
            eval_id: case.eval_id.as_str().into(),
            turns: case.conversation.as_ref().map(Vec::len),
            json: serde_json::to_string(case)
                .expect("an eval case serialises")
                .into_boxed_str(),
            as_read: false,
        }
    }

    pub fn eval_id(&self) -> &str {
        &self.eval_id
    }
}

impl CompactEvalSet {
    /// A set with `header`'s fields and no cases yet.
    pub fn new(header: EvalSet) -> Self {
        CompactEvalSet {
            header: EvalSet {
                eval_cases: Vec::new(),
                ..header
            },
            cases: Vec::new(),
        }
    }

    /// Every case of a parsed set.
    pub fn of(set: &EvalSet) -> Self {
        let mut compact = CompactEvalSet::new(EvalSet {
            eval_set_id: set.eval_set_id.clone(),
            name: set.name.clone(),
            description: set.description.clone(),
            eval_cases: Vec::new(),
            creation_timestamp: set.creation_timestamp,
            extra: set.extra.clone(),
        });
        set.eval_cases.iter().for_each(|case| compact.push(case));
        compact
    }

    /// The set in ADK's form as compact JSON, from the cases' JSON as held.
    pub fn to_json(&self) -> String {
        const EMPTY_LIST: &str = "\"eval_cases\":[]";
        let header = self.header_json();
        // Only string fields come before the list, and a string holds no unescaped quote, so the
        // first match is the list itself.
        let at = header.find(EMPTY_LIST).expect("eval_cases is always written") + EMPTY_LIST.len() - 1;
        let cases: usize = self.cases.iter().map(|case| case.json.len() + 1).sum();
        let mut json = String::with_capacity(header.len() + cases);
        json.push_str(&header[..at]);
        for index in 0..self.cases.len() {
            if index > 0 {
                json.push(',');
            }
            json.push_str(&self.case_json(index));
        }
        json.push_str(&header[at..]);
        json
    }

    /// The set's own fields in ADK's form, its `eval_cases` an empty list.
    pub fn header_json(&self) -> String {
        serde_json::to_string(&self.header).expect("an eval set serialises")
    }

    /// Case `index` as compact JSON in ADK's form.
    pub fn case_json(&self, index: usize) -> Cow<'_, str> {
        let case = &self.cases[index];
        match case.as_read {
            false => Cow::Borrowed(&case.json),
            true => Cow::Owned(serde_json::to_string(&self.case(index)).expect("an eval case serialises")),
        }
    }

    pub fn eval_set_id(&self) -> &str {
        &self.header.eval_set_id
    }

    pub fn push(&mut self, case: &EvalCase) {
        self.push_case(CompactCase::of(case));
    }

    /// Adds a case made with [`CompactCase::of`] (or `CompactCase::read`, with `fast-read`).
    pub fn push_case(&mut self, case: CompactCase) {
        self.cases.push(case);
    }

    /// Keeps the cases whose eval id `keep` accepts.
    pub fn retain(&mut self, mut keep: impl FnMut(&str) -> bool) {
        self.cases.retain(|case| keep(&case.eval_id));
    }

    pub fn contains(&self, eval_id: &str) -> bool {
        self.cases.iter().any(|case| &*case.eval_id == eval_id)
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

    /// Case `index`, parsed from its JSON: written from a parsed case, or as read and skimmed
    /// (a skim accepts only what parses).
    pub fn case(&self, index: usize) -> EvalCase {
        self.case_parts(index, CaseParts::Whole)
    }

    /// The `parts` of case `index`, parsed from its JSON (see [`CaseParts::parse`]).
    pub fn case_parts(&self, index: usize, parts: CaseParts) -> EvalCase {
        parts
            .parse(&self.cases[index].json)
            .expect("a case kept here parses")
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
