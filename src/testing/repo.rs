//! The repository's own files (fixtures, examples, migrations) for the unit tests. The path is
//! read when a test runs, not baked in when it compiles: cargo may reuse a test binary built in
//! another checkout of the same sources (clones share the target directory), whose path may be
//! gone.

use std::path::PathBuf;

/// `relative` under the repository's root.
pub fn repo_path(relative: &str) -> PathBuf {
    PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo test sets CARGO_MANIFEST_DIR"))
        .join(relative)
}
