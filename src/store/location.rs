//! Where the store is: a SQLite file (a path, or `sqlite://PATH`) or a PostgreSQL database
//! (`postgres://…` or `postgresql://…`), as `--db` and `DATABASE_URL` name it.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    Sqlite(PathBuf),
    /// The connection URL as given (it may hold a password: show it through `Display`).
    Postgres(String),
}

impl Location {
    pub fn is_postgres(&self) -> bool {
        matches!(self, Location::Postgres(_))
    }
}

impl FromStr for Location {
    type Err = String;

    fn from_str(text: &str) -> Result<Location, String> {
        let text = text.trim();
        if text.is_empty() {
            return Err("the database is empty: give a file path or a postgres:// URL".into());
        }
        if text.starts_with("postgres://") || text.starts_with("postgresql://") {
            return Ok(Location::Postgres(text.to_string()));
        }
        if let Some(path) = text
            .strip_prefix("sqlite://")
            .or_else(|| text.strip_prefix("sqlite:"))
        {
            let path = path.split('?').next().unwrap_or_default();
            if path.is_empty() {
                return Err(format!("`{text}` names no file"));
            }
            return Ok(Location::Sqlite(PathBuf::from(path)));
        }
        if let Some((scheme, _)) = text.split_once("://") {
            return Err(format!(
                "`{scheme}://` is not a database Evalstudio reads: give a file path, sqlite://PATH or postgres://…"
            ));
        }
        Ok(Location::Sqlite(PathBuf::from(text)))
    }
}

/// The location without its password, fit for logs and messages.
impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Sqlite(path) => write!(f, "{}", path.display()),
            Location::Postgres(url) => f.write_str(&without_password(url)),
        }
    }
}

fn without_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let (authority, tail) = rest.split_at(rest.find(['/', '?']).unwrap_or(rest.len()));
    match authority.rsplit_once('@') {
        Some((user, host)) => match user.split_once(':') {
            Some((name, _)) => format!("{scheme}://{name}:***@{host}{tail}"),
            None => url.to_string(),
        },
        None => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_and_urls_name_their_backend() {
        let cases = [
            (
                "data/evalstudio.db",
                Location::Sqlite("data/evalstudio.db".into()),
            ),
            ("sqlite:///tmp/a.db", Location::Sqlite("/tmp/a.db".into())),
            ("sqlite://a.db?mode=rwc", Location::Sqlite("a.db".into())),
            (
                "postgres://u@h/db",
                Location::Postgres("postgres://u@h/db".into()),
            ),
            (
                "postgresql:///db?host=/tmp",
                Location::Postgres("postgresql:///db?host=/tmp".into()),
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(text.parse::<Location>(), Ok(expected), "{text}");
        }
    }

    #[test]
    fn other_schemes_and_empty_text_are_refused_with_a_sentence() {
        for text in ["mysql://u@h/db", "", "sqlite://"] {
            let err = text.parse::<Location>().unwrap_err();
            assert!(!err.is_empty(), "{text}");
        }
    }

    #[test]
    fn its_text_hides_the_password() {
        let location: Location = "postgres://team:s3cret@db.local:5432/evals?sslmode=require"
            .parse()
            .unwrap();
        let shown = location.to_string();
        assert!(!shown.contains("s3cret"), "{shown}");
        assert_eq!(shown, "postgres://team:***@db.local:5432/evals?sslmode=require");
    }
}
