//! The scores a metric can give, which bound the thresholds that make sense for it.

use serde::{Deserialize, Serialize};

/// The lowest and highest score of a metric, both included.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ScoreRange {
    pub min: f64,
    pub max: f64,
}

impl ScoreRange {
    /// 0 to 1: every built-in metric, and a user's metric that declares nothing else.
    pub const UNIT: ScoreRange = ScoreRange { min: 0.0, max: 1.0 };

    /// A range from a declared `[min, max]`; `None` unless both are finite and min < max.
    pub fn new(min: f64, max: f64) -> Option<ScoreRange> {
        (min.is_finite() && max.is_finite() && min < max).then_some(ScoreRange { min, max })
    }

    pub fn contains(self, score: f64) -> bool {
        (self.min..=self.max).contains(&score)
    }

    /// Why `threshold` cannot be met or missed sensibly by metric `name`: outside its scores.
    /// The server's config check and the browser's run form say it in the same words.
    pub fn threshold_problem(self, name: &str, threshold: f64) -> Option<String> {
        (!self.contains(threshold)).then(|| {
            format!(
                "{name} threshold: {threshold} is outside the metric's scores ({}); pick a threshold from {} to {}",
                self.label(),
                self.min,
                self.max
            )
        })
    }

    /// "0–1", "1–5", "-1–1".
    pub fn label(self) -> String {
        format!("{}–{}", self.min, self.max)
    }
}

impl Default for ScoreRange {
    fn default() -> Self {
        ScoreRange::UNIT
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_threshold_outside_the_scores_is_named_with_the_range_to_pick_from() {
        assert_eq!(ScoreRange::UNIT.threshold_problem("rouge", 1.0), None);
        assert_eq!(
            ScoreRange::new(1.0, 5.0)
                .unwrap()
                .threshold_problem("tone", 0.5)
                .as_deref(),
            Some("tone threshold: 0.5 is outside the metric's scores (1–5); pick a threshold from 1 to 5")
        );
    }

    #[test]
    fn a_range_holds_its_ends_and_nothing_beyond() {
        assert!(ScoreRange::UNIT.contains(0.0));
        assert!(ScoreRange::UNIT.contains(1.0));
        assert!(!ScoreRange::UNIT.contains(1.000_001));
        assert!(!ScoreRange::UNIT.contains(-0.1));
        assert!(!ScoreRange::UNIT.contains(f64::NAN));
    }

    #[test]
    fn only_finite_increasing_ranges_are_made() {
        assert_eq!(
            ScoreRange::new(1.0, 5.0).map(ScoreRange::label).as_deref(),
            Some("1–5")
        );
        assert_eq!(ScoreRange::new(5.0, 1.0), None);
        assert_eq!(ScoreRange::new(0.0, f64::INFINITY), None);
        assert_eq!(ScoreRange::UNIT.label(), "0–1");
    }
}
