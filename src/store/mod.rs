//! Persistence in SQLite (server only). What it hands out is plain data from `crate::records`.

#[cfg(feature = "ssr")]
mod case_versions;
#[cfg(feature = "ssr")]
mod db;
#[cfg(feature = "ssr")]
mod deleted_cases;
#[cfg(feature = "ssr")]
mod eval_set_files;
#[cfg(feature = "ssr")]
mod leases;
#[cfg(feature = "ssr")]
mod run_summaries;
#[cfg(feature = "ssr")]
mod runs;
#[cfg(feature = "ssr")]
mod sessions;
#[cfg(all(test, feature = "ssr"))]
mod tests;

#[cfg(feature = "ssr")]
pub use case_versions::CaseVersion;
#[cfg(feature = "ssr")]
pub use db::{CaseRow, Store, StoreError, StoreResult};
#[cfg(feature = "ssr")]
pub use eval_set_files::EvalSetFiles;
#[cfg(feature = "ssr")]
pub use leases::{LEASE_SECONDS, RENEW_EVERY};
#[cfg(feature = "ssr")]
pub use run_summaries::CaseSummaryRow;
#[cfg(feature = "ssr")]
pub use runs::{EvalRunHead, EvalRunRecord, NewEvalRun};
