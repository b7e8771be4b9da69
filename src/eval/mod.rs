//! Evaluation: metrics that equal google-adk 2.x's on the same data, the eval config, and
//! scoring actual invocations against an expected eval set into ADK's result shapes.
//! Pure: no I/O, no clock; compiled for the server and the browser. The exceptions, server only:
//! `runner/`, which drives an agent through the cases to get actual invocations (the simulated
//! user playing scenario cases), `embedding/`, the sentence-embedding model,
//! `judge/client.rs`, the judge model's HTTP client, and `evaluators/http.rs` and
//! `evaluators/command.rs`, which call the users' own evaluators. Callers name the module an
//! item is defined in; the model-free metrics are imported from `pure_metrics` itself.

pub mod approximations;
pub mod case_summaries;
pub mod config;
mod config_fields;
mod criterion_fields;
#[cfg(test)]
mod efficiency_tests;
#[cfg(feature = "ssr")]
pub mod embedding;
pub mod embedding_metrics;
pub mod evaluators;
pub mod evidence;
#[cfg(feature = "ssr")]
pub mod harness;
pub mod judge;
pub mod junit;
pub mod lineup;
pub mod metrics;
pub mod result;
pub mod result_file;
pub mod run_stats;
#[cfg(feature = "ssr")]
pub mod runner;
pub mod score;
pub mod services;
pub mod simulator;
#[cfg(test)]
mod tests;
