//! Eval runs, in layers: a file names only files of the layers below its own, never one above
//! and never one beside it, so there is one way down (`tests/run_layers.rs` holds them to it).
//! Callers name each item where it lives; nothing is re-exported here.
//!
//! ```text
//! 0  error             what goes wrong with a run; the limits a run is held to
//! 1  label, case_rows  what the user calls a run; a case run and a case's summary as stored
//! 2  stored, new_run   a stored run read back; the one builder of a new run, of any origin
//! 3  summaries, plan   case summaries and statistics kept; the one planner of an agent's run
//! 4  worker, recorded, adk_history, views, progress, export, last_run: runs worked on, stored whole, shown
//! 5  lifecycle         the front door: start, resume, cancel, stop; a run seen through here
//! 6  workers           the loop that takes up runs with batches free to claim
//! ```

pub mod adk_history;
pub mod case_rows;
pub mod error;
pub mod export;
pub mod label;
pub mod last_run;
pub mod lifecycle;
pub mod new_run;
pub mod plan;
pub mod progress;
pub mod recorded;
pub mod stored;
pub mod summaries;
pub mod views;
pub mod worker;
pub mod workers;
