//! Who the request being served acts as. The adapters' auth layer sets it around each request
//! (`acting_as`); a use case that records who made a change reads it (`current_user`), so the
//! many adapters that reach a case write need not each carry the user down. Work spawned off
//! the request (an eval run) acts as nobody.

use std::future::Future;

tokio::task_local! {
    static ACTOR: Option<String>;
}

/// Runs `work` as `user` (`None`: auth is off, or the caller is anonymous).
pub async fn acting_as<F: Future>(user: Option<String>, work: F) -> F::Output {
    ACTOR.scope(user, work).await
}

/// The user the current request acts as, if any.
pub fn current_user() -> Option<String> {
    ACTOR.try_with(Clone::clone).ok().flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_user_is_known_inside_the_scope_only() {
        assert_eq!(current_user(), None);
        let inside = acting_as(Some("ada".into()), async { current_user() }).await;
        assert_eq!(inside.as_deref(), Some("ada"));
        assert_eq!(current_user(), None);
    }
}
