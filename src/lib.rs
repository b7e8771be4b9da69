#![recursion_limit = "256"]
//! Evalstudio: build ADK evalsets from agent sessions and run them. See ARCHITECTURE.md.

pub mod access;
pub mod agent;
pub mod api;
pub mod app;
#[cfg(feature = "ssr")]
mod child;
#[cfg(feature = "ssr")]
pub mod cli;
#[cfg(feature = "ssr")]
pub mod clock;
#[cfg(feature = "ssr")]
pub mod config;
/// The case editor's draft, from its own crate (`crates/draft`).
pub use draft;
pub mod eval;
#[cfg(feature = "ssr")]
pub mod folder;
/// ADK's evalset format, from its own crate (`crates/evalset`).
pub use evalset;
#[cfg(feature = "ssr")]
mod llm_http;
#[cfg(feature = "ssr")]
mod outbound;
pub mod records;
/// What people are shown of a configured URL (browser too).
pub mod redact;
#[cfg(feature = "ssr")]
pub mod server;
#[cfg(feature = "ssr")]
pub mod service;
#[cfg(feature = "ssr")]
pub mod store;
#[cfg(feature = "ssr")]
pub mod traces;
// Lets the test helpers shared with the integration tests name the crate as they do.
#[cfg(all(test, feature = "ssr"))]
extern crate self as evalstudio;
#[cfg(all(test, feature = "ssr"))]
mod testing {
    pub mod database;
    // Shared with the integration tests and benches, which use other parts of it.
    #[allow(dead_code)]
    pub mod fake_openai;
    pub mod repo;
}
pub mod ui;

#[cfg(feature = "hydrate")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    // Lazy: the page may be in a chunk the browser loads first (see app.rs).
    leptos::mount::hydrate_lazy(app::App);
}
