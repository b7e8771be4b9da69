//! The store's queries, written once for both backends: `sqlite.rs` and `postgres.rs` each
//! compile this module tree with their own `Db`, `begin_write` and `dialect`, so every query
//! here is checked against both databases' types. SQL that the two spell differently comes
//! from `dialect`; parameters are numbered (`$1`), which both read. No SQL here is built from
//! a request's text: what varies is bound.

mod case_runs;
mod case_versions;
mod deleted_cases;
mod eval_set_files;
mod eval_sets;
mod live_turns;
mod pulls;
mod run_queue;
mod run_summaries;
mod runs;
mod sessions;
mod spans;
mod users;

use super::{begin_write, dialect, Db};
use crate::store::{EvalSetFiles, Location};
use std::sync::{Arc, OnceLock};

type Conn = <Db as sqlx::Database>::Connection;
type Row = <Db as sqlx::Database>::Row;
type Transaction = sqlx::Transaction<'static, Db>;

#[derive(Clone)]
pub struct SqlStore {
    pool: sqlx::Pool<Db>,
    /// Where it is, for logs and for tests that open it again.
    location: Location,
    /// Whose leases this handle holds (see `run_queue`).
    boot_id: Arc<str>,
    /// Where evalsets are also files (folder mode; see `eval_set_files`).
    files: Arc<OnceLock<Arc<dyn EvalSetFiles>>>,
}

impl SqlStore {
    pub(super) fn new(pool: sqlx::Pool<Db>, location: Location) -> SqlStore {
        SqlStore {
            pool,
            location,
            boot_id: uuid::Uuid::new_v4().to_string().into(),
            files: Arc::default(),
        }
    }

    pub fn location(&self) -> &Location {
        &self.location
    }

    async fn begin_write(&self) -> Result<Transaction, sqlx::Error> {
        begin_write(&self.pool).await
    }
}

/// `$first, $first+1, …`: `count` numbered parameters, for an `IN (…)` list. A query with
/// one is run with `.persistent(false)`: each length is another statement, and caching them
/// all on every connection costs memory that grows with how many lengths a run meets.
fn numbered_places(first: usize, count: usize) -> String {
    (first..first + count)
        .map(|n| format!("${n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The VALUES rows of a multi-row INSERT: `rows` rows, each `$1` (a value every row shares)
/// then `per_row` numbered parameters of its own, from `$2`. Only a full batch's text recurs,
/// so a last, shorter one is run with `.persistent(false)`.
fn shared_value_rows(rows: usize, per_row: usize) -> String {
    (0..rows)
        .map(|row| format!("($1, {})", numbered_places(2 + per_row * row, per_row)))
        .collect::<Vec<_>>()
        .join(", ")
}
