//! The CLI's fast readers, behind the `fast-read` feature (the app's server build turns it on;
//! the browser's leaves it off, so its wasm never holds them): a set cut into its cases' bytes
//! (`split`), each case parsed from its own slice (`import`), skimmed (`skim`) or read lean
//! (`lean`), on two threads for `score`'s expected set (`parallel_read`). Each reads exactly
//! what the exact reader in `crate::import` reads, and errors as it does.

mod compact;
mod import;
mod lean;
mod parallel_read;
// Public to the crate for the skim `adk_model!` declares with each model.
pub(crate) mod skim;
mod split;
#[cfg(test)]
mod tests;

pub use import::read_evalset_cases_fast;
pub use lean::parse_case_lean;
pub use parallel_read::{read_evalset_cases_parallel, CaseRead, CheckCase};
pub use skim::{skim_case, CaseHead};
