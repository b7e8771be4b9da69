//! Case summaries made as the case runs come rather than at the end: a case is summed up as
//! soon as its last run is in, so with a single run nothing is left to do once scoring ends.
//! Pure.

use super::config::EvalConfig;
use super::lineup::ExpectedCases;
use super::result::CaseSummary;
use super::score::{summarize_case, CaseRunScores};

/// The summaries of `runs` runs of an expected set's cases, filled in as each case run comes.
pub struct CaseSummaries {
    config: EvalConfig,
    runs: usize,
    /// By the case's place in the expected set.
    cases: Vec<Progress>,
}

enum Progress {
    /// The runs in so far.
    Pending(Vec<CaseRunScores>),
    Summed(CaseSummary),
}

impl CaseSummaries {
    /// For `case_count` expected cases, each to come `runs` times, scored with `config`.
    pub fn new(case_count: usize, runs: usize, config: EvalConfig) -> Self {
        let cases = (0..case_count).map(|_| Progress::Pending(Vec::new())).collect();
        CaseSummaries { config, runs, cases }
    }

    /// A run of the case at `case_index` (whose id is `eval_id`), in run order.
    pub fn add(&mut self, case_index: usize, eval_id: &str, scores: CaseRunScores) {
        let Some(Progress::Pending(runs)) = self.cases.get_mut(case_index) else {
            return;
        };
        runs.push(scores);
        if runs.len() == self.runs {
            let summary = summarize_case(eval_id, runs, &self.config);
            self.cases[case_index] = Progress::Summed(summary);
        }
    }

    /// The summaries in the expected set's order (as [`super::summarize_cases`] makes them):
    /// a case with fewer runs than expected over those it had, a case with none left out.
    pub fn finish(self, expected: &impl ExpectedCases) -> Vec<CaseSummary> {
        let config = &self.config;
        let mut summaries = Vec::with_capacity(self.cases.len());
        for (index, progress) in self.cases.into_iter().enumerate() {
            match progress {
                Progress::Summed(summary) => summaries.push(summary),
                Progress::Pending(runs) if runs.is_empty() => {}
                Progress::Pending(runs) => {
                    summaries.push(summarize_case(expected.eval_id(index), &runs, config))
                }
            }
        }
        summaries
    }
}
