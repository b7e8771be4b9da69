//! Plain data the store hands out, the services pass on and the pages show, a file per topic.
//! Compiled for the browser too, so server functions and pages share the types without the
//! browser ever reaching the store.

pub mod cases;
pub mod evalsets;
pub mod mcp;
pub mod runs;
pub mod sessions;
pub mod spans;
pub mod traces;
