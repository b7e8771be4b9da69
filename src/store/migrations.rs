//! The migrations of each backend, embedded in the binary by build.rs and read as sqlx reads
//! a migrations folder: `<version>_<description>.sql`, the description's `_` as spaces, a file
//! starting `-- no-transaction` run outside a transaction. The checksum sqlx keeps per applied
//! migration is the SHA-384 of the text, so a database migrated by an earlier build (whose
//! migrations sqlx's `migrate!` embedded) sees the same migrations.

use futures::future::BoxFuture;
use sqlx::error::BoxDynError;
use sqlx::migrate::{Migration, MigrationSource, MigrationType, Migrator};
use std::borrow::Cow;

/// A backend's migration files: each one's name and text, in name order.
#[derive(Debug, Clone, Copy)]
pub(super) struct Embedded(&'static [(&'static str, &'static str)]);

pub(super) const SQLITE: Embedded = Embedded(include!(concat!(env!("OUT_DIR"), "/migrations_sqlite.rs")));
pub(super) const POSTGRES: Embedded = Embedded(include!(concat!(env!("OUT_DIR"), "/migrations_postgres.rs")));

impl Embedded {
    /// sqlx's migrator of these migrations (which takes PostgreSQL's advisory lock as it runs them).
    pub(super) async fn migrator(self) -> Result<Migrator, sqlx::migrate::MigrateError> {
        Migrator::new(self).await
    }

    fn migrations(self) -> Result<Vec<Migration>, BadFileName> {
        self.0.iter().map(|&(name, sql)| migration(name, sql)).collect()
    }
}

impl MigrationSource<'static> for Embedded {
    fn resolve(self) -> BoxFuture<'static, Result<Vec<Migration>, BoxDynError>> {
        Box::pin(async move { self.migrations().map_err(BoxDynError::from) })
    }
}

/// A migration file named otherwise than `<version>_<description>.sql`.
#[derive(Debug, thiserror::Error)]
#[error("migration `{0}`: expected <version>_<description>.sql, the version a number")]
pub(super) struct BadFileName(String);

/// The migration in file `name` with text `sql`, as sqlx's folder reader makes it.
fn migration(name: &str, sql: &'static str) -> Result<Migration, BadFileName> {
    let bad = || BadFileName(name.to_string());
    let (version, rest) = name.split_once('_').ok_or_else(bad)?;
    let version = version.parse().map_err(|_| bad())?;
    let description = rest.trim_end_matches(".sql").replace('_', " ");
    Ok(Migration::new(
        version,
        Cow::Owned(description),
        MigrationType::Simple,
        Cow::Borrowed(sql),
        sql.starts_with("-- no-transaction"),
    ))
}

#[cfg(test)]
mod tests {
    use super::{Embedded, POSTGRES, SQLITE};
    use sqlx::migrate::Migrator;

    /// What sqlx reads from the folder, compared field by field with what is embedded.
    async fn same_as_folder(embedded: Embedded, folder: &str) {
        let path = crate::testing::repo::repo_path(folder);
        let from_folder = Migrator::new(path.as_path()).await.unwrap();
        let embedded = embedded.migrator().await.unwrap();
        let key = |m: &sqlx::migrate::Migration| {
            (
                m.version,
                m.description.to_string(),
                m.checksum.to_vec(),
                m.no_tx,
                m.sql.to_string(),
            )
        };
        let folder: Vec<_> = from_folder.iter().map(key).collect();
        let embedded: Vec<_> = embedded.iter().map(key).collect();
        assert!(!folder.is_empty());
        assert_eq!(embedded, folder);
    }

    #[tokio::test]
    async fn the_embedded_sqlite_migrations_are_the_folders_as_sqlx_reads_it() {
        same_as_folder(SQLITE, "migrations/sqlite").await;
    }

    #[tokio::test]
    async fn the_embedded_postgres_migrations_are_the_folders_as_sqlx_reads_it() {
        same_as_folder(POSTGRES, "migrations/postgres").await;
    }

    #[test]
    fn a_file_name_without_a_version_is_refused_with_its_name() {
        let error = super::migration("schema.sql", "").unwrap_err().to_string();
        assert!(error.contains("`schema.sql`"), "{error}");
    }
}
