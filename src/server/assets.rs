//! The built site's scripts, wasm and styles as the browser fetches them. `scripts/build-site`
//! puts them in `pkg/<version>/` (a hash of their contents) with a `.br` and a `.gz` of each,
//! and names the version in `pkg/current`. They are served from there with the encoding the
//! browser accepts and `Cache-Control: immutable`: a new build has a new address, so a cached
//! copy is never stale. Pages and everything else are `no-cache` (revalidated each time).

use axum::http::{header, HeaderValue};
use axum::Router;
use std::path::Path;
use tower_http::services::ServeDir;
use tower_http::set_header::SetResponseHeaderLayer;

/// Where the pages load the assets from, under the site root: `pkg/<version>` for a site built
/// with versions, else `pkg` (a site built by other means, such as `cargo leptos watch`).
pub fn pkg_dir(site_root: &str) -> String {
    match std::fs::read_to_string(Path::new(site_root).join("pkg").join("current")) {
        Ok(version) if is_version(version.trim()) => format!("pkg/{}", version.trim()),
        _ => "pkg".to_string(),
    }
}

/// A version is what build-site writes: a hex hash.
fn is_version(text: &str) -> bool {
    !text.is_empty() && text.len() <= 64 && text.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Adds the versioned assets (when the site has them) and the caching rule for the rest.
pub fn serve_assets<S>(router: Router<S>, site_root: &str, pkg_dir: &str) -> Router<S>
where
    S: Clone + Send + Sync + 'static,
{
    let router = if pkg_dir == "pkg" {
        router
    } else {
        let files = ServeDir::new(Path::new(site_root).join(pkg_dir))
            .precompressed_br()
            .precompressed_gzip();
        let immutable = SetResponseHeaderLayer::overriding(
            header::CACHE_CONTROL,
            HeaderValue::from_static("public, max-age=31536000, immutable"),
        );
        router.nest_service(
            &format!("/{pkg_dir}"),
            Router::new().fallback_service(files).layer(immutable),
        )
    };
    router.layer(SetResponseHeaderLayer::if_not_present(
        header::CACHE_CONTROL,
        HeaderValue::from_static("no-cache"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_hex_version_names_a_directory() {
        assert!(is_version("0123456789abcdef"));
        assert!(!is_version("../etc"));
        assert!(!is_version(""));
    }
}
