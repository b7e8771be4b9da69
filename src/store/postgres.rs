//! The store on PostgreSQL: one database that any number of server and worker processes
//! share. The queries in `sql/` are compiled here for PostgreSQL; this file holds what
//! differs: how the pool opens, how a write transaction begins, and the few expressions
//! PostgreSQL spells its own way.

use super::{Location, StoreResult};
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::{ConnectOptions, Connection};
use std::time::Duration;

pub(super) type Db = sqlx::Postgres;

// sql/ is compiled once per backend on purpose (see sql/mod.rs), hence the allow.
#[allow(clippy::duplicate_mod)]
#[path = "sql/mod.rs"]
mod sql;
pub(super) use sql::SqlStore;

/// Connects to the database at `url` and applies pending migrations (under PostgreSQL's
/// advisory lock, so processes starting together apply them once).
pub(super) async fn open(url: &str) -> StoreResult<SqlStore> {
    let options: PgConnectOptions = url.parse()?;
    // One connection first: a database that cannot be reached says so at once, where the
    // pool would retry until its timeout.
    options.connect().await?.close().await?;
    let pool = PgPoolOptions::new()
        .max_connections(16)
        .acquire_timeout(Duration::from_secs(30))
        .connect_with(options)
        .await?;
    super::migrations::POSTGRES.migrator().await?.run(&pool).await?;
    Ok(SqlStore::new(pool, Location::Postgres(url.to_string())))
}

/// The advisory lock every write transaction holds until it ends: writes take turns, as on
/// SQLite, so a version read in a transaction is still the stored one when it writes, in
/// whichever process. Reads never wait for it.
const WRITE_LOCK: i64 = 0x6576_616c_7374;

/// Begins a transaction that writes, once the other writers' have ended.
async fn begin_write(pool: &sqlx::Pool<Db>) -> Result<sqlx::Transaction<'static, Db>, sqlx::Error> {
    let mut transaction = pool.begin().await?;
    sqlx::query("SELECT pg_advisory_xact_lock($1)")
        .bind(WRITE_LOCK)
        .execute(&mut *transaction)
        .await?;
    Ok(transaction)
}

/// The expressions PostgreSQL spells its own way (see the SQLite ones for what each is).
mod dialect {
    pub const NOW: &str = "evalstudio_now()";
    pub const DAYS_AGO: &str =
        "to_char((clock_timestamp() AT TIME ZONE 'UTC') - make_interval(days => $1::int), \
         'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')";
    pub const SECONDS_AGO: &str =
        "to_char((clock_timestamp() AT TIME ZONE 'UTC') - make_interval(secs => $2::float8), \
         'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')";
    pub const EPOCH_NOW: &str = "extract(epoch from clock_timestamp())::float8";
    /// Workers claiming at once each take another batch rather than queue on one.
    pub const SKIP_LOCKED: &str = "FOR UPDATE SKIP LOCKED";
    /// A claim waits for the write holding the rows (its advisory lock does not stop claims).
    pub const LOCK_ROWS: &str = "FOR UPDATE";
    pub const FIND: &str = "strpos";
    pub const CASE_RUN_STORED: &str = "id";
    pub const VERSIONS_AS_JSON: &str = "COALESCE(json_agg(json_build_object('version', v.version, \
         'case_json', v.case_json, 'saved_at', v.saved_at, 'saved_by', v.saved_by))::text, '[]')";
    pub const RESTORE_VERSIONS: &str =
        "INSERT INTO eval_case_versions (case_row, version, case_json, saved_at, saved_by) \
         SELECT $1, (e->>'version')::bigint, e->>'case_json', e->>'saved_at', e->>'saved_by' \
         FROM json_array_elements($2::json) AS e";
}
