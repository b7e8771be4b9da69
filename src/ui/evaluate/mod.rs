//! The evalset page's Evaluate panel: pick metrics, an agent and a run count, start a run,
//! watch it fill in case by case, cancel or resume it, and read each case's scores with the
//! per-turn evidence behind them.

mod case_row;
mod case_runs;
mod custom_judge;
mod evidence;
pub(crate) mod labels;
mod metric_inputs;
mod metric_picker;
pub(crate) mod metric_result;
mod open_cases;
mod panel;
pub(crate) mod progress_stream;
mod recorded_form;
mod run_controls;
mod run_detail;
mod run_form;
mod run_list;
mod run_results;
mod simulator_settings;

pub use panel::{EvaluatePanel, RunsChanged, SelectedCases};
pub use recorded_form::ScoreRecordedForm;
