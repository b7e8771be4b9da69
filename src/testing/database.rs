//! The database a test runs on: a SQLite file in the test's own directory, or, when
//! `EVALSTUDIO_TEST_POSTGRES` names a PostgreSQL server (as `make test` does for its second
//! pass, through `scripts/with-postgres`), a new empty database on it. Every test gets its
//! own, so tests run in parallel on either backend.

use evalstudio::store::Location;
use sqlx::Connection;
use std::path::Path;

/// The variable naming the PostgreSQL server tests run on (a `postgres://` URL).
pub const POSTGRES_VAR: &str = "EVALSTUDIO_TEST_POSTGRES";

/// A new, empty database for one test; `dir` holds it when it is a SQLite file.
pub async fn scratch_database(dir: &Path) -> Location {
    let Some(server) = std::env::var(POSTGRES_VAR).ok().filter(|url| !url.is_empty()) else {
        return Location::Sqlite(dir.join("evalstudio.db"));
    };
    let name = format!("t_{}", uuid::Uuid::new_v4().simple());
    let mut admin = sqlx::PgConnection::connect(&server)
        .await
        .unwrap_or_else(|e| panic!("{POSTGRES_VAR}: cannot connect: {e}"));
    // The name is ours (a uuid), never a test's input.
    sqlx::query(&format!("CREATE DATABASE {name}"))
        .execute(&mut admin)
        .await
        .unwrap();
    Location::Postgres(with_database(&server, &name))
}

/// `url` naming database `name` instead of its own.
fn with_database(url: &str, name: &str) -> String {
    let (base, query) = url.split_once('?').map_or((url, ""), |(b, q)| (b, q));
    let scheme_end = base.find("://").map_or(0, |i| i + 3);
    let host_end = base[scheme_end..]
        .find('/')
        .map_or(base.len(), |i| scheme_end + i);
    let query = if query.is_empty() {
        String::new()
    } else {
        format!("?{query}")
    };
    format!("{}/{name}{query}", &base[..host_end])
}
