//! Why a command could not do its job. Every such error exits with 2; exit 1 is kept for
//! cases that ran and did not pass, which is a result, not an error.

use crate::eval::score::ScoreError;
use crate::service::errors::{DomainError, ErrorKind};
use crate::service::eval_sets::EvalSetError;
use crate::service::runs::error::{EvalRunError, MAX_RUNS_PER_CASE};
use crate::store::StoreError;
use std::fmt;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// Flags that cannot be used as given (a count of 0, an unknown metric, a bad app name).
    #[error("{0}")]
    Usage(String),
    /// The agent profiles file cannot be read, or names no such profile.
    #[error("{0}")]
    Profiles(String),
    /// An evalset or eval config (a file, or an evalset id in the database) that cannot be
    /// read or parsed; `name` is the file or id as given.
    #[error("{name}: {message}")]
    Input { name: String, message: String },
    /// `--resume` named a run that cannot be resumed.
    #[error("{0}")]
    NotResumable(String),
    /// The actual invocations of `score` do not fit the expected evalset.
    #[error("{}: {source}", run.display())]
    Score { run: PathBuf, source: ScoreError },
    /// Running an eval, or reading its results back, failed.
    #[error("{0}")]
    Run(String),
    /// What the command names does not exist, or its id is taken.
    #[error("{0}")]
    Refused(String),
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A results or export file cannot be written.
    #[error("cannot write {}: {source}", path.display())]
    Write { path: PathBuf, source: std::io::Error },
    /// Files `import` refused (it imported the others). One line each: the binary prefixes the
    /// first with `error: `, so the others carry that prefix themselves.
    #[error("{}", ImportFailures(.0))]
    Import(Vec<ImportFailure>),
    /// The web server could not start or stopped with an error.
    #[error("{0}")]
    Serve(Box<dyn std::error::Error>),
}

impl CliError {
    /// The process exit code for this error: 2, for every error.
    pub fn exit_code(&self) -> ExitCode {
        ExitCode::from(2)
    }
}

impl CliError {
    /// A use case's refusal, mapped by its kind (every service error has one), in its own
    /// words: a new variant of a service's error needs nothing here.
    pub(super) fn refused_by<E: DomainError + fmt::Display>(err: E) -> CliError {
        let text = err.to_string();
        match err.kind() {
            ErrorKind::Invalid => CliError::Usage(text),
            ErrorKind::Fault => CliError::Run(text),
            ErrorKind::NotFound
            | ErrorKind::Conflict
            | ErrorKind::Unauthenticated
            | ErrorKind::Forbidden
            | ErrorKind::Throttled => CliError::Refused(text),
        }
    }
}

impl From<EvalRunError> for CliError {
    fn from(err: EvalRunError) -> Self {
        match err {
            // The limit in the words of the flag that set it.
            EvalRunError::BadNumRuns => {
                CliError::Usage(format!("--num-runs: expected 1 to {MAX_RUNS_PER_CASE}"))
            }
            other => CliError::refused_by(other),
        }
    }
}

impl From<EvalSetError> for CliError {
    fn from(err: EvalSetError) -> Self {
        CliError::refused_by(err)
    }
}

/// One file `import` could not import, and why.
#[derive(Debug)]
pub struct ImportFailure {
    pub file: PathBuf,
    pub message: String,
}

impl fmt::Display for ImportFailure {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}: {}", self.file.display(), self.message)
    }
}

struct ImportFailures<'a>(&'a [ImportFailure]);

impl fmt::Display for ImportFailures<'_> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        for (i, failure) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\nerror: ")?;
            }
            write!(f, "{failure}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_refused_import_is_an_error_line_of_its_own() {
        let err = CliError::Import(vec![
            ImportFailure {
                file: "a.json".into(),
                message: "cannot read it".into(),
            },
            ImportFailure {
                file: "b.json".into(),
                message: "expected ident".into(),
            },
        ]);
        assert_eq!(
            format!("error: {err}"),
            "error: a.json: cannot read it\nerror: b.json: expected ident"
        );
    }

    #[test]
    fn errors_name_what_they_are_about() {
        let input = CliError::Input {
            name: "missing_set".into(),
            message: "no such file".into(),
        };
        assert_eq!(input.to_string(), "missing_set: no such file");
        let write = CliError::Write {
            path: "/x/r.json".into(),
            source: std::io::Error::new(std::io::ErrorKind::NotFound, "gone"),
        };
        assert_eq!(write.to_string(), "cannot write /x/r.json: gone");
        let score = CliError::Score {
            run: "actual.json".into(),
            source: ScoreError {
                run: 0,
                problem: "eval case `x` is missing".into(),
            },
        };
        assert_eq!(score.to_string(), "actual.json: eval case `x` is missing");
    }

    #[test]
    fn a_service_error_is_mapped_by_its_kind_in_its_own_words() {
        let usage = CliError::from(EvalRunError::NoMetrics);
        assert!(matches!(&usage, CliError::Usage(text) if text == "choose at least one metric to score"));
        let taken = CliError::from(EvalRunError::AlreadyRunning("r".into()));
        assert!(matches!(&taken, CliError::Refused(text) if text == "eval result `r` is already running"));
        let num_runs = CliError::from(EvalRunError::BadNumRuns);
        assert_eq!(
            num_runs.to_string(),
            format!("--num-runs: expected 1 to {MAX_RUNS_PER_CASE}")
        );
    }

    #[test]
    fn every_error_exits_with_2() {
        assert_eq!(CliError::Usage("bad".into()).exit_code(), ExitCode::from(2));
    }
}
