//! Persistence. `records` (plain data, shared with the browser) is what the store hands out;
//! `db` (server only) is the SQLite implementation.

#[cfg(feature = "ssr")]
mod db;
pub mod records;
#[cfg(feature = "ssr")]
mod sessions;
#[cfg(all(test, feature = "ssr"))]
mod tests;

#[cfg(feature = "ssr")]
pub use db::{CaseRow, Store, StoreError, StoreResult};
pub use records::{
    CasePage, CaseSummary, EvalSetSummary, ImportSummary, SessionRecord, SessionSummary, SessionTurn,
    StoredCase,
};
