//! How the use cases say no. Each service module has its own error enum naming the caller's
//! mistakes in its own words; what the store refuses becomes three variants every such enum
//! has, `NotFound(String)`, `Conflict(String)` (an id taken) and, where a write carries the
//! version it read, `Stale { message, current }`. Anything else the store reports is a
//! `Fault`: ours, not the caller's, so adapters answer it without its text (a 500 with an id).

/// What kind of no an error is, which every adapter maps the same way (a status, an exit code).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The caller's input cannot be used as given (a bad id, an empty field, a threshold out of range).
    Invalid,
    /// What the caller named does not exist.
    NotFound,
    /// The request clashes with the stored state (an id taken, a changed version, a run already running).
    Conflict,
    /// The caller is not signed in, or their credentials are wrong.
    Unauthenticated,
    /// The caller is signed in but their role may not do this.
    Forbidden,
    /// Too many attempts (failed logins): wait and try again.
    Throttled,
    /// A fault of the server (a damaged or unreachable database, a stored record that no longer
    /// parses, a task that died) rather than something the caller can fix.
    Fault,
}

/// A use case's error, by kind.
pub trait DomainError {
    fn kind(&self) -> ErrorKind;

    fn is_fault(&self) -> bool {
        self.kind() == ErrorKind::Fault
    }
}

/// `From<StoreError>` for a use case's error enum: the store's NotFound and Conflict (and,
/// when named, Stale) become the enum's variants of those names; the rest is its `Fault`.
macro_rules! store_refusals {
    ($error:ident $(, $stale:ident)?) => {
        impl From<$crate::store::StoreError> for $error {
            fn from(err: $crate::store::StoreError) -> Self {
                use $crate::store::StoreError;
                match err {
                    StoreError::NotFound(message) => $error::NotFound(message),
                    StoreError::Conflict(message) => $error::Conflict(message),
                    $(StoreError::Stale { message, current } => $error::$stale { message, current },)?
                    fault => $error::Fault(fault),
                }
            }
        }
    };
}
pub(crate) use store_refusals;
