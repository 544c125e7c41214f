//! The headers every response carries, and compression: a strict Content-Security-Policy
//! (the pages have no inline script or style), no MIME sniffing, no referrer, no framing;
//! gzip or brotli as the client accepts; `no-cache` on whatever sets no caching of its own
//! (pages and API answers: always revalidated; the versioned files say `immutable`).

use axum::http::{header, HeaderValue};
use axum::Router;
use tower_http::compression::CompressionLayer;
use tower_http::set_header::SetResponseHeaderLayer;

/// The Content-Security-Policy of every response. `'wasm-unsafe-eval'` lets the page
/// compile the engine's WebAssembly (and nothing else); workers come from the site only.
pub const CSP: &str = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; \
style-src 'self'; img-src 'self' data:; connect-src 'self'; manifest-src 'self'; object-src 'none'; \
base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// Wraps `router` with the site's response headers and compression.
pub fn harden(router: Router) -> Router {
    let set = |name, value: &'static str| SetResponseHeaderLayer::if_not_present(name, HeaderValue::from_static(value));
    router
        .layer(CompressionLayer::new())
        .layer(set(header::CACHE_CONTROL, "no-cache"))
        .layer(set(header::CONTENT_SECURITY_POLICY, CSP))
        .layer(set(header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .layer(set(header::REFERRER_POLICY, "no-referrer"))
        .layer(set(header::X_FRAME_OPTIONS, "DENY"))
}
