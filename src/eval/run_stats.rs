//! What a run's page and the comparison of two runs show, from the runs' case summaries:
//! per-metric means and score distributions, and each case's change from one run to the other.
//! Pure.

use super::result::{CaseSummary, EvalStatus};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};

/// Tenths of [0, 1]: a score distribution's bins, before the threshold splits one.
pub const BUCKETS: usize = 10;

/// One bar of a score distribution: the scores from `low` (included) to `high` (excluded, but
/// the last bin includes 1). A bin never holds both passing and failing scores: the threshold
/// is one of the edges, and a threshold of 1 has a bin of its own for exactly 1.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScoreBin {
    pub low: f64,
    pub high: f64,
    pub count: u32,
    /// Whether its scores pass; None without a threshold.
    pub passing: Option<bool>,
}

/// The bins of a distribution of 0-1 scores against `threshold`, all empty.
pub fn score_bins(threshold: Option<f64>) -> Vec<ScoreBin> {
    let mut edges: Vec<f64> = (0..=BUCKETS).map(|i| i as f64 / BUCKETS as f64).collect();
    if let Some(t) = threshold.filter(|t| *t > 0.0 && *t < 1.0) {
        if !edges.iter().any(|edge| (edge - t).abs() < 1e-12) {
            edges.push(t);
            edges.sort_by(f64::total_cmp);
        }
    }
    let mut bins: Vec<ScoreBin> = edges
        .windows(2)
        .map(|pair| ScoreBin {
            low: pair[0],
            high: pair[1],
            count: 0,
            passing: threshold.map(|t| pair[0] >= t),
        })
        .collect();
    if threshold == Some(1.0) {
        bins.push(ScoreBin {
            low: 1.0,
            high: 1.0,
            count: 0,
            passing: Some(true),
        });
    }
    bins
}

/// Counts `score` (clamped to [0, 1]) in its bin.
fn count_score(bins: &mut [ScoreBin], score: f64) {
    let score = score.clamp(0.0, 1.0);
    if let Some(bin) = bins.iter_mut().rev().find(|bin| bin.low <= score) {
        bin.count += 1;
    }
}

/// One metric over a run's cases.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricStats {
    pub metric_name: String,
    pub threshold: Option<f64>,
    /// The mean of the cases' scores (each case's pooled over its runs and turns).
    pub mean: Option<f64>,
    /// How many cases scored in each bin of [0, 1] (scores outside are clamped into the first
    /// or last).
    pub bins: Vec<ScoreBin>,
    pub passed: usize,
    pub failed: usize,
    pub not_evaluated: usize,
}

/// Per metric (those that pass or fail; informational ones are left out), over the cases.
pub fn metric_stats(summaries: &[CaseSummary]) -> Vec<MetricStats> {
    let Some(first) = summaries.first() else {
        return Vec::new();
    };
    first
        .metrics
        .iter()
        .enumerate()
        .filter(|(_, m)| m.threshold.is_some())
        .map(|(index, metric)| {
            let mut stats = MetricStats {
                metric_name: metric.metric_name.clone(),
                threshold: metric.threshold,
                mean: None,
                bins: score_bins(metric.threshold),
                passed: 0,
                failed: 0,
                not_evaluated: 0,
            };
            let mut scores = Vec::new();
            for case in summaries {
                let Some(m) = case.metrics.get(index) else {
                    continue;
                };
                match m.eval_status {
                    EvalStatus::Passed => stats.passed += 1,
                    EvalStatus::Failed => stats.failed += 1,
                    _ => stats.not_evaluated += 1,
                }
                if let Some(score) = m.score {
                    count_score(&mut stats.bins, score);
                    scores.push(score);
                }
            }
            stats.mean = (!scores.is_empty()).then(|| scores.iter().sum::<f64>() / scores.len() as f64);
            stats
        })
        .collect()
}

/// Whether a case passed: every run finished and its pooled status is PASSED.
pub fn passed(case: &CaseSummary) -> bool {
    case.errors == 0 && case.final_eval_status == EvalStatus::Passed
}

/// How a case moved from the earlier run to the later one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Change {
    Regressed,
    Improved,
    StillFailing,
    StillPassing,
    /// Only in the later run.
    Added,
    /// Only in the earlier run.
    Removed,
}

impl Change {
    pub const ALL: [Change; 6] = [
        Change::Regressed,
        Change::Improved,
        Change::StillFailing,
        Change::StillPassing,
        Change::Added,
        Change::Removed,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Change::Regressed => "regressed",
            Change::Improved => "improved",
            Change::StillFailing => "still failing",
            Change::StillPassing => "still passing",
            Change::Added => "added",
            Change::Removed => "removed",
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Change::Regressed => "regressed",
            Change::Improved => "improved",
            Change::StillFailing => "still_failing",
            Change::StillPassing => "still_passing",
            Change::Added => "added",
            Change::Removed => "removed",
        }
    }

    pub fn parse(text: &str) -> Option<Change> {
        Change::ALL.into_iter().find(|c| c.as_str() == text)
    }
}

/// One case in a comparison: its change and both summaries (absent where it did not run).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ComparedCase {
    pub eval_id: String,
    pub change: Change,
    pub before: Option<CaseSummary>,
    pub after: Option<CaseSummary>,
}

/// A case of a run as a comparison classifies it: its eval id and whether it passed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaseOutcome {
    pub eval_id: String,
    pub passed: bool,
}

impl CaseOutcome {
    pub fn of(summary: &CaseSummary) -> CaseOutcome {
        CaseOutcome {
            eval_id: summary.eval_id.clone(),
            passed: passed(summary),
        }
    }
}

/// Every case of either run, in the later run's order then the removed ones in the earlier
/// run's, with its change.
pub fn compare_runs(before: &[CaseOutcome], after: &[CaseOutcome]) -> Vec<(String, Change)> {
    let earlier: HashMap<&str, bool> = before.iter().map(|c| (c.eval_id.as_str(), c.passed)).collect();
    let later: HashSet<&str> = after.iter().map(|c| c.eval_id.as_str()).collect();
    let mut cases: Vec<(String, Change)> = after
        .iter()
        .map(|now| {
            let change = match earlier.get(now.eval_id.as_str()) {
                None => Change::Added,
                Some(true) if now.passed => Change::StillPassing,
                Some(true) => Change::Regressed,
                Some(false) if now.passed => Change::Improved,
                Some(false) => Change::StillFailing,
            };
            (now.eval_id.clone(), change)
        })
        .collect();
    cases.extend(
        before
            .iter()
            .filter(|then| !later.contains(then.eval_id.as_str()))
            .map(|then| (then.eval_id.clone(), Change::Removed)),
    );
    cases
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::result::MetricSummary;

    fn case(id: &str, score: f64) -> CaseSummary {
        let status = EvalStatus::from_score(score, 0.5);
        CaseSummary {
            eval_id: id.into(),
            final_eval_status: status,
            num_runs: 1,
            metrics: vec![
                MetricSummary {
                    metric_name: "m".into(),
                    threshold: Some(0.5),
                    score: Some(score),
                    eval_status: status,
                },
                MetricSummary {
                    metric_name: "tokens".into(),
                    threshold: None,
                    score: Some(120.0),
                    eval_status: EvalStatus::Informational,
                },
            ],
            passed_runs: usize::from(status == EvalStatus::Passed),
            errors: 0,
            pass_at_k: Vec::new(),
            pass_hat_k: Vec::new(),
        }
    }

    #[test]
    fn stats_bucket_scores_by_tenths_and_skip_informational_metrics() {
        let stats = metric_stats(&[case("a", 0.0), case("b", 0.55), case("c", 1.0), case("d", 0.95)]);
        assert_eq!(stats.len(), 1);
        let m = &stats[0];
        let counts: Vec<u32> = m.bins.iter().map(|bin| bin.count).collect();
        assert_eq!(counts, [1, 0, 0, 0, 0, 1, 0, 0, 0, 2]);
        assert_eq!((m.passed, m.failed, m.not_evaluated), (3, 1, 0));
        assert!((m.mean.unwrap() - 0.625).abs() < 1e-12);
    }

    #[test]
    fn the_threshold_is_a_bin_edge_so_no_bin_mixes_passing_and_failing() {
        let bins = score_bins(Some(0.75));
        let edges: Vec<(f64, f64)> = bins.iter().map(|b| (b.low, b.high)).collect();
        assert!(edges.contains(&(0.7, 0.75)) && edges.contains(&(0.75, 0.8)));
        assert_eq!(bins.len(), 11);
        let mut bins = bins;
        count_score(&mut bins, 0.75);
        count_score(&mut bins, 0.74);
        let passing_of = |low: f64| bins.iter().find(|b| b.low == low).map(|b| (b.count, b.passing));
        assert_eq!(passing_of(0.75), Some((1, Some(true))));
        assert_eq!(passing_of(0.7), Some((1, Some(false))));
    }

    #[test]
    fn a_threshold_of_one_gives_a_perfect_score_a_passing_bin_of_its_own() {
        let mut bins = score_bins(Some(1.0));
        count_score(&mut bins, 1.0);
        count_score(&mut bins, 0.95);
        let last = bins.last().unwrap();
        assert_eq!(
            (last.low, last.high, last.count, last.passing),
            (1.0, 1.0, 1, Some(true))
        );
        let tenth = &bins[bins.len() - 2];
        assert_eq!((tenth.low, tenth.count, tenth.passing), (0.9, 1, Some(false)));
        assert_eq!(
            score_bins(Some(0.3)).len(),
            10,
            "a threshold on a tenth adds no edge"
        );
        assert_eq!(score_bins(None)[0].passing, None);
    }

    #[test]
    fn cases_are_compared_by_eval_id() {
        let before = [
            case("kept", 1.0),
            case("broke", 1.0),
            case("fixed", 0.0),
            case("gone", 1.0),
        ];
        let after = [
            case("fixed", 1.0),
            case("broke", 0.0),
            case("kept", 1.0),
            case("new", 0.0),
        ];
        let outcomes = |cases: &[CaseSummary]| cases.iter().map(CaseOutcome::of).collect::<Vec<_>>();
        assert_eq!(
            compare_runs(&outcomes(&before), &outcomes(&after)),
            [
                ("fixed".to_string(), Change::Improved),
                ("broke".to_string(), Change::Regressed),
                ("kept".to_string(), Change::StillPassing),
                ("new".to_string(), Change::Added),
                ("gone".to_string(), Change::Removed),
            ]
        );
        assert_eq!(Change::parse("still_failing"), Some(Change::StillFailing));
    }
}
