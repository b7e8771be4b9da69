//! Persistence (server only), on SQLite (the default: one file) or PostgreSQL (a team's
//! shared database), chosen by the [`Location`] it is opened at. What it hands out is plain
//! data from `crate::records` and `rows`.
//!
//! `Store` is the one interface: each call goes to the same query code (`sql/`), compiled
//! once per backend (`sqlite.rs`, `postgres.rs`, which say where the SQL differs).

#[cfg(feature = "ssr")]
mod error;
#[cfg(feature = "ssr")]
mod interface;
#[cfg(feature = "ssr")]
mod location;
#[cfg(feature = "ssr")]
mod migrations;
#[cfg(feature = "ssr")]
mod postgres;
#[cfg(feature = "ssr")]
mod rows;
#[cfg(feature = "ssr")]
mod sqlite;
#[cfg(all(test, feature = "ssr"))]
mod tests;

#[cfg(feature = "ssr")]
pub(crate) use error::{corrupt, corrupt_text};
#[cfg(feature = "ssr")]
pub use error::{StoreError, StoreResult};
#[cfg(feature = "ssr")]
pub use interface::Store;
#[cfg(feature = "ssr")]
pub use location::Location;
#[cfg(feature = "ssr")]
pub use rows::{
    BatchClaim, BatchWrite, CaseRow, CaseSummaryRow, CaseVersion, ClaimedBatch, EvalRunHead, EvalRunRecord,
    EvalSetFiles, ImportMode, LiveTurnRead, NewEvalRun, StoredUser, Written, LEASE_SECONDS, RENEW_EVERY,
    SUMMARY_FORMAT,
};
