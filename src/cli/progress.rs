//! The one-line progress bar `eval` keeps on standard error while cases run.

use crate::eval::FinishedCase;
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
