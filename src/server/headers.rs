//! The headers every answer carries: no other site may frame a page (where a click could be
//! turned into Delete or Run), no browser guesses a type ADK passed through, and pages load
//! only what the app itself serves.

use axum::extract::Request;
use axum::http::{header, HeaderValue};
use axum::middleware::Next;
use axum::response::Response;

/// The app's pages: its own scripts, styles and wasm. Leptos hydrates through inline module
/// scripts and inline resource data, and components set inline styles.
const APP_POLICY: &str = "default-src 'self'; script-src 'self' 'unsafe-inline' 'wasm-unsafe-eval'; \
     style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; connect-src 'self'; \
     object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'";

/// adk-web at `/dev-ui/` (Angular): Google's fonts, from their CDN, besides its own files.
const ADK_WEB_POLICY: &str = "default-src 'self'; script-src 'self' 'unsafe-inline' 'unsafe-eval'; \
     style-src 'self' 'unsafe-inline' https://fonts.googleapis.com; \
     font-src 'self' data: https://fonts.gstatic.com; img-src 'self' data: blob:; \
     media-src 'self' blob:; connect-src 'self'; object-src 'none'; base-uri 'self'; \
     frame-ancestors 'none'";

/// Adds the security headers to whatever the router answered.
pub async fn security_headers(request: Request, next: Next) -> Response {
    let policy = if request.uri().path().starts_with("/dev-ui") {
        ADK_WEB_POLICY
    } else {
        APP_POLICY
    };
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(policy));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("same-origin"));
    response
}
