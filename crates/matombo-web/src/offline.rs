//! Playing offline and installing on a phone: the web app manifest and the service worker
//! (`assets/sw.js`), which caches the pages and files of the current version.

use axum::http::HeaderMap;
use axum::response::Response;

use crate::assets::{self, Assets};
use crate::pages::{Target, LANGUAGES};

/// The manifest, its paths relative to itself (the site's root).
pub fn manifest(t: Target) -> String {
    let st = match t {
        Target::Server => format!("static/{}", assets::version()),
        Target::Site => "static".to_string(),
    };
    let icon = |file: &str, sizes: &str, kind: &str, purpose: &str| serde_json::json!({"src": format!("{st}/img/{file}"), "sizes": sizes, "type": kind, "purpose": purpose});
    let m = serde_json::json!({
        "name": "matombo",
        "short_name": "matombo",
        "description": "Tsoro and Nsolo, mancala games of southern Africa: rules, a board, a computer opponent.",
        "start_url": "./",
        "scope": "./",
        "display": "standalone",
        "background_color": "#f7f1e6",
        "theme_color": "#9a6634",
        "icons": [
            icon("icon-192.png", "192x192", "image/png", "any"),
            icon("icon-512.png", "512x512", "image/png", "any"),
            icon("icon-maskable-512.png", "512x512", "image/png", "maskable"),
            icon("icon.svg", "any", "image/svg+xml", "any"),
        ],
    });
    serde_json::to_string_pretty(&m).expect("manifest serializes")
}

/// The service worker: the version and the files to cache at install, then `assets/sw.js`.
pub fn service_worker(t: Target) -> String {
    let mut files: Vec<String> = vec!["./".into(), "manifest.webmanifest".into()];
    match t {
        // Pages in the visitor's language (the cookie goes with the worker's requests).
        Target::Server => {
            files.extend(["rules/tsoro", "rules/nsolo", "play", "review"].map(String::from));
            files.extend(crate::learn::offline_files(t));
            files.extend(crate::puzzles::offline_files(t));
            files.extend(assets::page_files().iter().map(|f| format!("static/{}/{f}", assets::version())));
        }
        Target::Site => {
            for (lang, _) in LANGUAGES {
                for p in ["index", "rules-tsoro", "rules-nsolo", "play", "review"] {
                    files.push(Target::site_file(p, lang));
                }
            }
            files.extend(crate::learn::offline_files(t));
            files.extend(crate::puzzles::offline_files(t));
            files.extend(assets::page_files().iter().map(|f| format!("static/{f}")));
        }
    }
    let body = Assets::get("sw.js").expect("sw.js is embedded");
    format!(
        "const VERSION = {};\nconst FILES = {};\n{}",
        serde_json::to_string(assets::version()).expect("string"),
        serde_json::to_string(&files).expect("strings"),
        String::from_utf8_lossy(&body.data)
    )
}

/// `GET /sw.js`.
pub async fn service_worker_file(headers: HeaderMap) -> Response {
    let etag = format!("\"sw-{}\"", assets::version());
    assets::embedded("sw.js", service_worker(Target::Server).into_bytes(), &etag, "no-cache", &headers)
}

/// `GET /manifest.webmanifest`.
pub async fn manifest_file(headers: HeaderMap) -> Response {
    let etag = format!("\"mf-{}\"", assets::version());
    assets::embedded("manifest.webmanifest", manifest(Target::Server).into_bytes(), &etag, "no-cache", &headers)
}
