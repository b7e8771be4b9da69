//! Actual cases matched to the expected set's as they arrive, in any order, run after run: each
//! must be an expected case, appear once per run, and have as many invocations; a run that ends
//! short names the first case it lacks. Holds only the expected ids (memory grows with the
//! expected set, never with the actual ones). Pure.

use super::score::ScoreError;
use crate::evalset::{CaseParts, CompactEvalSet, EvalCase, EvalSet, Invocation};
use std::borrow::Cow;
use std::collections::HashMap;

/// The expected cases scoring reads: a parsed set, or a compact one (each case's JSON, parsed
/// when its actual case arrives) read from a large file.
pub trait ExpectedCases: Sync {
    fn eval_set_id(&self) -> &str;
    fn case_count(&self) -> usize;
    fn eval_id(&self, index: usize) -> &str;
    /// How many invocations case `index` has; none for a conversation scenario.
    fn turns(&self, index: usize) -> Option<usize>;
    /// Case `index`: at least the `parts` of it asked for.
    fn case(&self, index: usize, parts: CaseParts) -> Cow<'_, EvalCase>;
}

impl ExpectedCases for EvalSet {
    fn eval_set_id(&self) -> &str {
        &self.eval_set_id
    }
    fn case_count(&self) -> usize {
        self.eval_cases.len()
    }
    fn eval_id(&self, index: usize) -> &str {
        &self.eval_cases[index].eval_id
    }
    fn turns(&self, index: usize) -> Option<usize> {
        self.eval_cases[index].conversation.as_ref().map(Vec::len)
    }
    fn case(&self, index: usize, _: CaseParts) -> Cow<'_, EvalCase> {
        Cow::Borrowed(&self.eval_cases[index])
    }
}

impl ExpectedCases for CompactEvalSet {
    fn eval_set_id(&self) -> &str {
        CompactEvalSet::eval_set_id(self)
    }
    fn case_count(&self) -> usize {
        self.len()
    }
    fn eval_id(&self, index: usize) -> &str {
        CompactEvalSet::eval_id(self, index)
    }
    fn turns(&self, index: usize) -> Option<usize> {
        CompactEvalSet::turns(self, index)
    }
    fn case(&self, index: usize, parts: CaseParts) -> Cow<'_, EvalCase> {
        Cow::Owned(self.case_parts(index, parts))
    }
}

/// Each expected case's place by its eval_id (the last one's, should an id repeat): where an
/// actual case's expected case is.
pub fn places_by_id<E: ExpectedCases + ?Sized>(expected: &E) -> HashMap<&str, usize> {
    (0..expected.case_count())
        .map(|index| (expected.eval_id(index), index))
        .collect()
}

/// What arrives from the actual runs.
#[derive(Debug)]
pub enum ActualItem {
    /// A case of run `run` (the order the runs were given in, from 0). `expected`, when set,
    /// is the expected case of the same eval_id, read (the parts scoring reads) by the thread
    /// that read this one, to share scoring's work.
    Case {
        run: usize,
        case: Box<EvalCase>,
        expected: Option<Box<EvalCase>>,
    },
    /// Run `run` has no more cases.
    RunEnd { run: usize },
    /// Run `run` could not be read.
    Unreadable { run: usize, problem: String },
}

impl ActualItem {
    /// The cases of a single run (run 0), then its end.
    pub fn one_run(cases: impl IntoIterator<Item = EvalCase>) -> impl Iterator<Item = ActualItem> {
        cases
            .into_iter()
            .map(|case| ActualItem::Case {
                run: 0,
                case: Box::new(case),
                expected: None,
            })
            .chain(std::iter::once(ActualItem::RunEnd { run: 0 }))
    }
}

/// An actual case ready to score: its run, the expected case's place (and the expected case,
/// when it came read), its invocations.
#[derive(Debug)]
pub struct LinedUp {
    pub run: usize,
    pub case_index: usize,
    pub expected: Option<Box<EvalCase>>,
    pub actual: Vec<Invocation>,
}

pub struct LineUp<'a, E: ExpectedCases + ?Sized> {
    expected: &'a E,
    by_id: HashMap<&'a str, usize>,
    /// Which expected cases the current run has had.
    seen: Vec<bool>,
    run: usize,
}

impl<'a, E: ExpectedCases + ?Sized> LineUp<'a, E> {
    pub fn new(expected: &'a E) -> Self {
        LineUp {
            expected,
            by_id: places_by_id(expected),
            seen: vec![false; expected.case_count()],
            run: 0,
        }
    }

    /// The case to score, `None` at a run's end, or why the runs cannot be scored.
    pub fn accept(&mut self, item: ActualItem) -> Result<Option<LinedUp>, ScoreError> {
        match item {
            ActualItem::Case { run, case, expected } => self.case(run, case, expected).map(Some),
            ActualItem::RunEnd { run } => self.end_run(run).map(|()| None),
            ActualItem::Unreadable { run, problem } => Err(ScoreError { run, problem }),
        }
    }

    fn case(
        &mut self,
        run: usize,
        case: Box<EvalCase>,
        expected: Option<Box<EvalCase>>,
    ) -> Result<LinedUp, ScoreError> {
        self.start(run);
        let problem = |problem: String| ScoreError { run, problem };
        let eval_id = &case.eval_id;
        let Some(&case_index) = self.by_id.get(eval_id.as_str()) else {
            return Err(problem(format!(
                "eval case `{eval_id}` is not in the expected eval set"
            )));
        };
        if std::mem::replace(&mut self.seen[case_index], true) {
            return Err(problem(format!("eval case `{eval_id}` appears twice")));
        }
        let Some(actual) = case.conversation else {
            return Err(problem(format!(
                "eval case `{eval_id}` has no conversation to score (a conversation_scenario is not actual invocations)"
            )));
        };
        if let Some(expected) = self.expected.turns(case_index) {
            if expected != actual.len() {
                return Err(problem(format!(
                    "eval case `{eval_id}` has {} invocations where the expected case has {expected}",
                    actual.len(),
                )));
            }
        }
        Ok(LinedUp {
            run,
            case_index,
            expected,
            actual,
        })
    }

    fn end_run(&mut self, run: usize) -> Result<(), ScoreError> {
        self.start(run);
        let missing = self.seen.iter().position(|seen| !seen);
        self.run = run + 1;
        self.seen.fill(false);
        match missing {
            Some(index) => Err(ScoreError {
                run,
                problem: format!("eval case `{}` is missing", self.expected.eval_id(index)),
            }),
            None => Ok(()),
        }
    }

    /// Runs come one after another: a new run starts with nothing seen.
    fn start(&mut self, run: usize) {
        if run != self.run {
            self.run = run;
            self.seen.fill(false);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evalset::{Content, Invocation};

    fn case(eval_id: &str, turns: usize) -> EvalCase {
        let invocation = Invocation {
            user_content: Content::text("user", "hi"),
            ..Invocation::default()
        };
        EvalCase {
            eval_id: eval_id.into(),
            conversation: Some(vec![invocation; turns]),
            ..EvalCase::default()
        }
    }

    fn expected() -> EvalSet {
        EvalSet {
            eval_set_id: "s".into(),
            eval_cases: vec![case("a", 1), case("b", 2)],
            ..EvalSet::default()
        }
    }

    fn item(run: usize, c: EvalCase) -> ActualItem {
        ActualItem::Case {
            run,
            case: Box::new(c),
            expected: None,
        }
    }

    #[test]
    fn cases_in_any_order_line_up_with_their_expected_place() {
        let expected = expected();
        let mut lineup = LineUp::new(&expected);
        let b = lineup.accept(item(0, case("b", 2))).unwrap().unwrap();
        assert_eq!((b.run, b.case_index, b.actual.len()), (0, 1, 2));
        assert_eq!(
            lineup.accept(item(0, case("a", 1))).unwrap().unwrap().case_index,
            0
        );
        assert!(lineup.accept(ActualItem::RunEnd { run: 0 }).unwrap().is_none());
        assert_eq!(lineup.accept(item(1, case("a", 1))).unwrap().unwrap().run, 1);
    }

    #[test]
    fn each_mismatch_names_the_case_and_the_run() {
        let expected = expected();
        let problem = |items: Vec<ActualItem>| {
            let mut lineup = LineUp::new(&expected);
            items
                .into_iter()
                .map(|i| lineup.accept(i))
                .find_map(Result::err)
                .unwrap()
        };
        let missing = problem(vec![item(0, case("a", 1)), ActualItem::RunEnd { run: 0 }]);
        assert_eq!(
            (missing.run, missing.problem.as_str()),
            (0, "eval case `b` is missing")
        );
        let extra = problem(vec![item(1, case("z", 1))]);
        assert_eq!(extra.problem, "eval case `z` is not in the expected eval set");
        assert_eq!(extra.run, 1);
        let twice = problem(vec![item(0, case("a", 1)), item(0, case("a", 1))]);
        assert_eq!(twice.problem, "eval case `a` appears twice");
        let short = problem(vec![item(0, case("b", 1))]);
        assert_eq!(
            short.problem,
            "eval case `b` has 1 invocations where the expected case has 2"
        );
    }
}
