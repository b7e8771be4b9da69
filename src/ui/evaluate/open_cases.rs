//! Which case rows of the run results are open. The panel owns this state, so a row the user
//! opened stays open while each poll of a running run redraws the results.

use leptos::prelude::*;
use std::collections::HashSet;

/// The open case rows, by run and eval id (so a new run's rows start closed).
#[derive(Debug, Clone, Copy)]
pub(super) struct OpenCases(RwSignal<HashSet<(String, String)>>);

impl OpenCases {
    pub(super) fn new() -> Self {
        OpenCases(RwSignal::new(HashSet::new()))
    }

    /// Whether the case's row in the run is open; read reactively.
    pub(super) fn is_open(self, result_id: &str, eval_id: &str) -> bool {
        self.0
            .with(|open| open.contains(&(result_id.to_string(), eval_id.to_string())))
    }

    /// Opens a closed row, closes an open one.
    pub(super) fn toggle(self, result_id: &str, eval_id: &str) {
        let row = (result_id.to_string(), eval_id.to_string());
        self.0.update(|open| {
            if !open.remove(&row) {
                open.insert(row);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_open_and_close_per_run_and_case() {
        // Signals live in an owner's arena.
        Owner::new().with(|| {
            let open = OpenCases::new();
            open.toggle("run1", "a");
            assert!(open.is_open("run1", "a"));
            assert!(!open.is_open("run1", "b"));
            assert!(
                !open.is_open("run2", "a"),
                "another run's row of the same case stays closed"
            );
            open.toggle("run1", "a");
            assert!(!open.is_open("run1", "a"));
        });
    }
}
