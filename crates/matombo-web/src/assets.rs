//! The site's files (CSS, ES modules, images, translated content), embedded in the binary.

use axum::extract::Path;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};

/// Everything under `assets/`, compiled into the binary.
#[derive(rust_embed::RustEmbed)]
#[folder = "assets/"]
pub struct Assets;

/// `GET /static/{*path}`: an embedded file with its content type.
pub async fn static_file(Path(path): Path<String>) -> Response {
    match Assets::get(&path) {
        Some(file) => {
            let mime = mime_guess::from_path(&path).first_or_octet_stream();
            (
                [
                    (header::CONTENT_TYPE, mime.essence_str().to_string()),
                    (header::CACHE_CONTROL, "no-cache".to_string()),
                    (header::ETAG, format!("\"{}\"", hex(&file.metadata.sha256_hash()[..8]))),
                ],
                file.data,
            )
                .into_response()
        }
        None => (StatusCode::NOT_FOUND, format!("no such file: {path}")).into_response(),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
