#![recursion_limit = "256"]
//! Evalstudio: build ADK evalsets from agent sessions and run them. See ARCHITECTURE.md.

pub mod agent;
pub mod api;
pub mod app;
#[cfg(feature = "ssr")]
pub mod cli;
#[cfg(feature = "ssr")]
pub mod clock;
pub mod eval;
pub mod evalset;
pub mod records;
#[cfg(feature = "ssr")]
pub mod server;
#[cfg(feature = "ssr")]
pub mod service;
#[cfg(feature = "ssr")]
pub mod store;
pub mod ui;

#[cfg(feature = "hydrate")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    leptos::mount::hydrate_body(app::App);
}
