//! What every REST handler and server function can reach: the services, and the options the
//! Leptos pages render with.

use crate::api::access::AuthGate;
use crate::service::Services;
use axum::extract::FromRef;
use leptos::config::LeptosOptions;
use std::sync::Arc;

#[derive(Clone)]
pub struct AppState {
    pub services: Services,
    pub leptos_options: LeptosOptions,
    /// The sign-in gate; `None` when auth is off (a loopback bind without `[auth]`).
    pub auth: Option<Arc<AuthGate>>,
    /// Auth off on a loopback bind: requests must name a loopback host (see `access::identify`).
    pub loopback_only: bool,
}

impl FromRef<AppState> for LeptosOptions {
    fn from_ref(state: &AppState) -> Self {
        state.leptos_options.clone()
    }
}

/// The services, inside a server function (Leptos provides the state as context).
pub fn services() -> Services {
    leptos::prelude::expect_context::<AppState>().services
}
