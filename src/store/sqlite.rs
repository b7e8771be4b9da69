//! The store on SQLite: one file, one process (or several on one machine). The queries in
//! `sql/` are compiled here for SQLite; this file holds what differs: how the pool opens,
//! how a write transaction begins, and the few expressions SQLite spells its own way.

use super::{Location, StoreError, StoreResult};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use std::path::Path;
use std::time::Duration;

pub(super) type Db = sqlx::Sqlite;

// sql/ is compiled once per backend on purpose (see sql/mod.rs), hence the allow.
#[allow(clippy::duplicate_mod)]
#[path = "sql/mod.rs"]
mod sql;
pub(super) use sql::SqlStore;

/// Opens (creating if needed) the file at `path` and applies pending migrations.
pub(super) async fn open(path: &Path) -> StoreResult<SqlStore> {
    if let Some(dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| StoreError::Database(sqlx::Error::Io(e)))?;
    }
    let options = SqliteConnectOptions::new()
        .filename(path)
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        .synchronous(SqliteSynchronous::Normal)
        .foreign_keys(true)
        .busy_timeout(Duration::from_secs(10));
    let pool = SqlitePoolOptions::new()
        .max_connections(8)
        .connect_with(options)
        .await?;
    super::migrations::SQLITE.migrator().await?.run(&pool).await?;
    Ok(SqlStore::new(pool, Location::Sqlite(path.to_path_buf())))
}

/// Begins a transaction that writes: SQLite takes the write lock at once, so two writers
/// never both read a version and then both write on it.
async fn begin_write(pool: &sqlx::Pool<Db>) -> Result<sqlx::Transaction<'static, Db>, sqlx::Error> {
    pool.begin_with("BEGIN IMMEDIATE").await
}

/// The expressions SQLite spells its own way.
mod dialect {
    /// Now, as the ISO-8601 text the tables keep.
    pub const NOW: &str = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')";
    /// `$1` days before now, as the same text.
    pub const DAYS_AGO: &str = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-' || $1 || ' days')";
    /// `$2` seconds before now, as the same text.
    pub const SECONDS_AGO: &str = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-' || $2 || ' seconds')";
    /// Now, in seconds since the epoch with a fraction: the clock leases are kept by, the
    /// database's, so every process sharing it agrees.
    pub const EPOCH_NOW: &str = "unixepoch('subsec')";
    /// Claims the row a subquery picks without waiting on rows another claim holds: SQLite
    /// has one writer at a time, so it needs nothing.
    pub const SKIP_LOCKED: &str = "";
    /// Locks the rows a read in a write transaction picks until it ends: BEGIN IMMEDIATE has
    /// locked the whole database already.
    pub const LOCK_ROWS: &str = "";
    /// The 1-based position of a text in another (0 when absent): `FIND(haystack, needle)`.
    pub const FIND: &str = "instr";
    /// The column that orders `eval_run_cases` by when each row was stored.
    pub const CASE_RUN_STORED: &str = "rowid";
    /// A case's earlier versions as a JSON list (`v` is `eval_case_versions`), `[]` for none.
    pub const VERSIONS_AS_JSON: &str = "json_group_array(json_object('version', v.version, \
         'case_json', v.case_json, 'saved_at', v.saved_at, 'saved_by', v.saved_by))";
    /// Restores the versions of [`VERSIONS_AS_JSON`] (`$2`) to the case row `$1`.
    pub const RESTORE_VERSIONS: &str =
        "INSERT INTO eval_case_versions (case_row, version, case_json, saved_at, saved_by) \
         SELECT $1, json_extract(value, '$.version'), json_extract(value, '$.case_json'), \
         json_extract(value, '$.saved_at'), json_extract(value, '$.saved_by') FROM json_each($2)";
}
