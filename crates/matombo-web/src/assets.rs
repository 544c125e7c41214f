//! The site's files (CSS, ES modules, images, translated content, the engine), embedded in
//! the binary, and how they are served: under a versioned path, cached for a year.

use std::sync::OnceLock;

use axum::extract::Path;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};

/// Everything under `assets/`, compiled into the binary.
#[derive(rust_embed::RustEmbed)]
#[folder = "assets/"]
pub struct Assets;

/// Cache-Control of a file under the current version: it never changes at that address.
pub const IMMUTABLE: &str = "public, max-age=31536000, immutable";

/// The version of the embedded files: the first 16 hex digits of a SHA-256 over every
/// file's path and content hash. Static URLs (`/static/{version}/…`) and the offline cache
/// are named by it, so that any change to any file gives new addresses and a new cache.
pub fn version() -> &'static str {
    static VERSION: OnceLock<String> = OnceLock::new();
    VERSION.get_or_init(|| {
        let mut paths: Vec<_> = Assets::iter().collect();
        paths.sort();
        let mut h = Sha256::new();
        for p in paths {
            let file = Assets::get(&p).expect("listed file exists");
            h.update(p.as_bytes());
            h.update([0]);
            h.update(file.metadata.sha256_hash());
        }
        hex(&h.finalize()[..8])
    })
}

/// The files a page may need (everything but the server-side content and the online
/// pages' own files), as paths under `assets/`: what the offline cache and a static site
/// hold.
pub fn page_files() -> Vec<String> {
    let mut files: Vec<String> = Assets::iter()
        .map(|p| p.into_owned())
        .filter(|p| ["css/", "js/", "img/", "wasm/"].iter().any(|d| p.starts_with(d)))
        .collect();
    files.sort();
    files
}

/// `GET /static/{*path}`: an embedded file with its content type. Under the current
/// version (`/static/{version}/js/play.js`) it is cached for a year as immutable; any
/// other address is revalidated every time (ETag, answered 304 when unchanged).
pub async fn static_file(Path(path): Path<String>, headers: HeaderMap) -> Response {
    let (file_path, immutable) = match path.split_once('/') {
        Some((v, rest)) if v == version() => (rest, true),
        // A page of an older version still open in a tab: the current file, revalidated.
        Some((v, rest)) if v.len() == 16 && v.bytes().all(|b| b.is_ascii_hexdigit()) => (rest, false),
        _ => (path.as_str(), false),
    };
    match Assets::get(file_path) {
        Some(file) => {
            let etag = format!("\"{}\"", hex(&file.metadata.sha256_hash()[..8]));
            let cache = if immutable { IMMUTABLE } else { "no-cache" };
            embedded(file_path, file.data.into_owned(), &etag, cache, &headers)
        }
        None => (StatusCode::NOT_FOUND, format!("no such file: {path}")).into_response(),
    }
}

/// A response with its content type (from the name), Cache-Control and ETag, or 304 Not
/// Modified when the request's If-None-Match names this ETag.
pub fn embedded(name: &str, data: Vec<u8>, etag: &str, cache: &str, headers: &HeaderMap) -> Response {
    let mime = mime_guess::from_path(name).first_or_octet_stream();
    let mime = match mime.essence_str() {
        // mime_guess calls .webmanifest application/manifest+json already; JavaScript gets
        // its charset so that non-ASCII words survive.
        "text/javascript" | "application/javascript" => "text/javascript; charset=utf-8".to_string(),
        m => m.to_string(),
    };
    let etag_value = HeaderValue::from_str(etag).expect("hex etag");
    let cache_value = HeaderValue::from_str(cache).expect("ascii cache-control");
    if if_none_match(headers, etag) {
        return (StatusCode::NOT_MODIFIED, [(header::ETAG, etag_value), (header::CACHE_CONTROL, cache_value)])
            .into_response();
    }
    (
        [
            (header::CONTENT_TYPE, HeaderValue::from_str(&mime).expect("ascii mime")),
            (header::CACHE_CONTROL, cache_value),
            (header::ETAG, etag_value),
        ],
        data,
    )
        .into_response()
}

/// Whether an If-None-Match header matches `etag` (a list, weak tags, or `*`).
fn if_none_match(headers: &HeaderMap, etag: &str) -> bool {
    headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|v| v.split(',').map(str::trim).any(|t| t == "*" || t.strip_prefix("W/").unwrap_or(t) == etag))
}

/// Lower-case hex digits of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
