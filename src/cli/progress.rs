//! The one-line progress bar `eval` keeps on standard error while cases run.

use crate::eval::runner::FinishedCase;
use std::io::IsTerminal;

/// Redrawn after each finished case run; drawn only when standard error is a terminal.
pub struct Progress {
    total: usize,
    done: usize,
    errors: usize,
    visible: bool,
}

impl Progress {
    /// `done`: case runs already stored (when resuming).
    pub fn new(total: usize, done: usize) -> Progress {
        Progress {
            total,
            done,
            errors: 0,
            visible: std::io::stderr().is_terminal(),
        }
    }

    pub fn step(&mut self, case: &FinishedCase) {
        self.done += 1;
        self.errors += usize::from(case.result.error.is_some());
        if self.visible {
            eprint!("\r{}", self.bar());
        }
    }

    /// Ends the bar's line.
    pub fn finish(&self) {
        if self.visible {
            eprintln!();
        }
    }

    fn bar(&self) -> String {
        const WIDTH: usize = 30;
        let filled = WIDTH * self.done / self.total.max(1);
        format!(
            "[{}{}] {}/{} case runs{}",
            "#".repeat(filled),
            " ".repeat(WIDTH - filled),
            self.done,
            self.total,
            if self.errors > 0 {
                format!(", {} errors", self.errors)
            } else {
                String::new()
            }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn progress(total: usize, done: usize, errors: usize) -> Progress {
        Progress {
            total,
            done,
            errors,
            visible: false,
        }
    }

    #[test]
    fn the_bar_fills_with_the_runs_done() {
        assert_eq!(
            progress(4, 1, 0).bar(),
            "[#######                       ] 1/4 case runs"
        );
        assert_eq!(
            progress(4, 4, 2).bar(),
            "[##############################] 4/4 case runs, 2 errors"
        );
    }

    #[test]
    fn an_empty_run_draws_an_empty_bar() {
        assert_eq!(
            progress(0, 0, 0).bar(),
            "[                              ] 0/0 case runs"
        );
    }
}
