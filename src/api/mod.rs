//! The server's faces, thin adapters over `crate::service`: Leptos server functions for the
//! browser (`evalsets`, `cases`, `chat`, `evaluate`; compiled on both sides, their bodies on the server
//! only) and the JSON REST API for scripts (`rest`). Each maps the service's domain errors to
//! what its caller understands: a `ServerFnError`, or a status with a JSON body.

pub mod case_results;
pub mod cases;
pub mod chat;
pub mod evalsets;
pub mod evaluate;
#[cfg(feature = "ssr")]
pub mod rest;
pub mod runs;
#[cfg(feature = "ssr")]
mod state;

pub use crate::agent::DEFAULT_APP;
pub use evalsets::{
    create_eval_set, delete_eval_set, get_case, import_eval_set, list_apps, list_cases, list_eval_sets,
    CreateEvalSet, DeleteEvalSet, ImportOutcome,
};
#[cfg(feature = "ssr")]
pub use state::{services, AppState};
