//! The test data in tests/fixtures, found the same way by every integration test crate.

use std::path::PathBuf;

/// The path of `relative` inside tests/fixtures.
pub fn fixture_path(relative: &str) -> PathBuf {
    PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo test sets CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(relative)
}

/// The text of the fixture at `relative` inside tests/fixtures.
pub fn read_fixture(relative: &str) -> String {
    let path = fixture_path(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}
