//! A line diff of two cases as pretty JSON, for the history ("this version against the current
//! one") and the editor's conflict ("yours against the stored one"). Pure.

use super::model::case::EvalCase;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum DiffKind {
    Same,
    Added,
    Removed,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiffLine {
    pub kind: DiffKind,
    pub text: String,
}

/// Beyond this many line pairs in the changed middle, the diff shows it as removed then added
/// rather than spend quadratic time on it.
const MAX_CELLS: usize = 4_000_000;

/// `old` against `new`, line by line: a longest common subsequence, after the common start and
/// end are set aside.
pub fn line_diff(old: &str, new: &str) -> Vec<DiffLine> {
    let (old, new): (Vec<&str>, Vec<&str>) = (old.lines().collect(), new.lines().collect());
    let prefix = old.iter().zip(&new).take_while(|(a, b)| a == b).count();
    let suffix = old[prefix..]
        .iter()
        .rev()
        .zip(new[prefix..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let (a, b) = (&old[prefix..old.len() - suffix], &new[prefix..new.len() - suffix]);
    let line = |kind, text: &str| DiffLine {
        kind,
        text: text.to_string(),
    };
    let mut out: Vec<DiffLine> = old[..prefix].iter().map(|t| line(DiffKind::Same, t)).collect();
    if a.len() * b.len() > MAX_CELLS {
        out.extend(a.iter().map(|t| line(DiffKind::Removed, t)));
        out.extend(b.iter().map(|t| line(DiffKind::Added, t)));
    } else {
        // lcs[i][j]: the longest common subsequence of a[i..] and b[j..].
        let width = b.len() + 1;
        let mut lcs = vec![0u32; (a.len() + 1) * width];
        for i in (0..a.len()).rev() {
            for j in (0..b.len()).rev() {
                lcs[i * width + j] = if a[i] == b[j] {
                    lcs[(i + 1) * width + j + 1] + 1
                } else {
                    lcs[(i + 1) * width + j].max(lcs[i * width + j + 1])
                };
            }
        }
        let (mut i, mut j) = (0, 0);
        while i < a.len() || j < b.len() {
            if i < a.len() && j < b.len() && a[i] == b[j] {
                out.push(line(DiffKind::Same, a[i]));
                i += 1;
                j += 1;
            } else if i < a.len() && (j == b.len() || lcs[(i + 1) * width + j] >= lcs[i * width + j + 1]) {
                // Removals first, as diffs read.
                out.push(line(DiffKind::Removed, a[i]));
                i += 1;
            } else {
                out.push(line(DiffKind::Added, b[j]));
                j += 1;
            }
        }
    }
    out.extend(old[old.len() - suffix..].iter().map(|t| line(DiffKind::Same, t)));
    out
}

/// Two cases as the pretty JSON export writes, line by line.
pub fn case_diff(old: &EvalCase, new: &EvalCase) -> Vec<DiffLine> {
    let pretty = |case: &EvalCase| serde_json::to_string_pretty(case).expect("a case serialises");
    line_diff(&pretty(old), &pretty(new))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marks(diff: &[DiffLine]) -> String {
        diff.iter()
            .map(|l| {
                let mark = match l.kind {
                    DiffKind::Same => ' ',
                    DiffKind::Added => '+',
                    DiffKind::Removed => '-',
                };
                format!("{mark}{}", l.text)
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn equal_texts_are_all_same() {
        let diff = line_diff("a\nb", "a\nb");
        assert!(diff.iter().all(|l| l.kind == DiffKind::Same));
        assert_eq!(diff.len(), 2);
    }

    #[test]
    fn a_changed_line_is_removed_then_added_between_the_same_lines() {
        assert_eq!(marks(&line_diff("a\nb\nc", "a\nx\nc")), " a\n-b\n+x\n c");
    }

    #[test]
    fn insertions_and_deletions_keep_the_common_lines() {
        assert_eq!(
            marks(&line_diff("a\nb\nc\nd", "b\nc\ne\nd\nf")),
            "-a\n b\n c\n+e\n d\n+f"
        );
        assert_eq!(marks(&line_diff("", "a")), "+a");
        assert_eq!(marks(&line_diff("a", "")), "-a");
    }
}
