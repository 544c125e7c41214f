//! The headers of every kind of route (pages, versioned and unversioned files, the service
//! worker and manifest, the JSON API, online pages), compression, and 304 answers.

use axum::http::{header, HeaderMap, StatusCode};

mod common;

async fn get(uri: &str, extra: &[(&str, &str)]) -> (StatusCode, HeaderMap, Vec<u8>) {
    common::get("headers", uri, extra).await
}

fn h(headers: &HeaderMap, name: header::HeaderName) -> &str {
    headers.get(&name).map_or("", |v| v.to_str().unwrap())
}

fn hardened(uri: &str, headers: &HeaderMap) {
    let csp = h(headers, header::CONTENT_SECURITY_POLICY);
    for part in
        ["script-src 'self' 'wasm-unsafe-eval'", "worker-src 'self'", "frame-ancestors 'none'", "object-src 'none'"]
    {
        assert!(csp.contains(part), "{uri}: CSP {csp:?} lacks {part}");
    }
    assert!(!csp.contains("unsafe-inline"), "{uri}: {csp}");
    assert_eq!(h(headers, header::X_CONTENT_TYPE_OPTIONS), "nosniff", "{uri}");
    assert_eq!(h(headers, header::REFERRER_POLICY), "no-referrer", "{uri}");
    assert_eq!(h(headers, header::X_FRAME_OPTIONS), "DENY", "{uri}");
}

/// The page's versioned URL of `file`, e.g. `/static/0123…/js/play.js`.
fn versioned(html: &str, file: &str) -> String {
    let at = html.find(&format!("/{file}\"")).unwrap_or_else(|| panic!("{file} not linked"));
    let start = html[..at].rfind('"').unwrap() + 1;
    html[start..at + file.len() + 1].to_string()
}

#[tokio::test]
async fn every_route_kind_carries_the_security_headers() {
    let version = matombo_web::assets::version();
    for uri in [
        "/",
        "/?lang=fi",
        "/rules/tsoro",
        "/rules/nsolo?size=36&lang=bn",
        "/play?ruleset=tsoro:8",
        "/play?position=nonsense",
        "/review?ruleset=tsoro:8&moves=B2%3D&turn=1&lang=da",
        "/rules/chess",
        "/static/js/play.js",
        &format!("/static/{version}/js/play.js"),
        &format!("/static/{version}/wasm/matombo.wasm"),
        "/static/nope.js",
        "/sw.js",
        "/manifest.webmanifest",
        "/api/rulesets",
        "/online/",
        "/online/assets/lobby.js",
        "/no/such/route",
    ] {
        let (_, headers, _) = get(uri, &[]).await;
        hardened(uri, &headers);
    }
}

#[tokio::test]
async fn pages_are_revalidated_and_link_versioned_immutable_files() {
    let (status, headers, body) = get("/play?ruleset=tsoro:8", &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(h(&headers, header::CACHE_CONTROL), "no-cache");
    let html = String::from_utf8(body).unwrap();
    assert!(!html.contains("<script>") && !html.contains("style="), "no inline script or style");
    assert!(!html.contains("\"/static/js/") && !html.contains("\"/static/css/"), "only versioned file URLs");
    for file in ["js/play.js", "css/site.css", "js/offline.js"] {
        let url = versioned(&html, file);
        assert!(url.starts_with(&format!("/static/{}/", matombo_web::assets::version())), "{url}");
        let (status, headers, _) = get(&url, &[]).await;
        assert_eq!(status, StatusCode::OK, "{url}");
        assert_eq!(h(&headers, header::CACHE_CONTROL), "public, max-age=31536000, immutable", "{url}");
    }
    // The same file unversioned, or under a stale version, is revalidated every time.
    for url in ["/static/js/play.js", "/static/0123456789abcdef/js/play.js"] {
        let (status, headers, _) = get(url, &[]).await;
        assert_eq!(status, StatusCode::OK, "{url}");
        assert_eq!(h(&headers, header::CACHE_CONTROL), "no-cache", "{url}");
    }
    let (status, headers, _) = get("/sw.js", &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(h(&headers, header::CACHE_CONTROL), "no-cache");
    assert!(h(&headers, header::CONTENT_TYPE).starts_with("text/javascript"));
    let (_, headers, body) = get("/manifest.webmanifest", &[]).await;
    assert_eq!(h(&headers, header::CONTENT_TYPE), "application/manifest+json");
    let manifest: serde_json::Value = serde_json::from_slice(&body).unwrap();
    for icon in manifest["icons"].as_array().unwrap() {
        let (status, _, _) = get(&format!("/{}", icon["src"].as_str().unwrap()), &[]).await;
        assert_eq!(status, StatusCode::OK, "{icon}");
    }
}

#[tokio::test]
async fn if_none_match_answers_304_without_a_body() {
    let version = matombo_web::assets::version();
    for url in [
        "/static/js/board.js".to_string(),
        format!("/static/{version}/css/site.css"),
        "/sw.js".into(),
        "/manifest.webmanifest".into(),
    ] {
        let (status, headers, _) = get(&url, &[]).await;
        assert_eq!(status, StatusCode::OK);
        let etag = h(&headers, header::ETAG).to_string();
        assert!(etag.starts_with('"'), "{url}: etag {etag:?}");
        let (status, again, body) = get(&url, &[("if-none-match", &etag)]).await;
        assert_eq!(status, StatusCode::NOT_MODIFIED, "{url}");
        assert!(body.is_empty());
        assert_eq!(h(&again, header::ETAG), etag);
        let (status, _, _) = get(&url, &[("if-none-match", &format!("W/\"x\", {etag}"))]).await;
        assert_eq!(status, StatusCode::NOT_MODIFIED, "{url}: a list with the tag");
        let (status, _, _) = get(&url, &[("if-none-match", "\"other\"")]).await;
        assert_eq!(status, StatusCode::OK, "{url}: another tag");
    }
}

#[tokio::test]
async fn text_is_compressed_with_gzip_or_brotli() {
    let version = matombo_web::assets::version();
    for url in [
        "/play?ruleset=tsoro:8".to_string(),
        format!("/static/{version}/js/play.js"),
        format!("/static/{version}/wasm/matombo.wasm"),
    ] {
        let (_, _, plain) = get(&url, &[]).await;
        for enc in ["gzip", "br"] {
            let (status, headers, body) = get(&url, &[("accept-encoding", enc)]).await;
            assert_eq!(status, StatusCode::OK);
            assert_eq!(h(&headers, header::CONTENT_ENCODING), enc, "{url}");
            assert!(h(&headers, header::VARY).to_ascii_lowercase().contains("accept-encoding"), "{url}");
            assert!(body.len() * 2 < plain.len(), "{url} {enc}: {} of {} bytes", body.len(), plain.len());
        }
        let (_, headers, body) = get(&url, &[("accept-encoding", "identity")]).await;
        assert_eq!(h(&headers, header::CONTENT_ENCODING), "", "{url}");
        assert_eq!(body, plain);
    }
}

#[tokio::test]
async fn the_service_worker_caches_the_current_version() {
    let (_, _, body) = get("/sw.js", &[]).await;
    let sw = String::from_utf8(body).unwrap();
    let version = matombo_web::assets::version();
    assert!(sw.starts_with(&format!("const VERSION = \"{version}\";")), "{}", &sw[..80]);
    for file in ["./", "play", "review", "rules/tsoro", "manifest.webmanifest"] {
        assert!(sw.contains(&format!("\"{file}\"")), "precaches {file}");
    }
    for file in ["js/engine-worker.js", "js/wasm.js", "wasm/matombo.wasm", "js/play.js", "js/review.js"] {
        assert!(sw.contains(&format!("\"static/{version}/{file}\"")), "precaches {file}");
    }
    assert_eq!(version.len(), 16);
}
