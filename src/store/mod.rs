//! Persistence. `records` (plain data, shared with the browser) is what the store hands out;
//! `db` (server only) is the SQLite implementation.

#[cfg(feature = "ssr")]
mod db;
pub mod records;
#[cfg(feature = "ssr")]
mod runs;
#[cfg(feature = "ssr")]
mod sessions;
#[cfg(all(test, feature = "ssr"))]
mod tests;

#[cfg(feature = "ssr")]
pub use db::{CaseRow, Store, StoreError, StoreResult};
pub use records::{
    CasePage, CaseSummary, EvalRunCase, EvalRunSummary, EvalSetSummary, ImportSummary, RunStatus,
    SessionRecord, SessionSummary, SessionTurn, StoredCase,
};
#[cfg(feature = "ssr")]
pub use runs::{EvalRunRecord, NewEvalRun};
