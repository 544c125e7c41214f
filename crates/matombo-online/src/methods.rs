//! Routes that take one method: any other is answered `405` with `Allow` and the error
//! body of docs/api.md. Shared by the board API (`matombo-web`) and online play.

use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Json;
use matombo_api::{ErrorBody, ErrorCode};

/// A route's answer to a method it does not take: `405` with `Allow` and the error body.
pub fn wrong_method(allow: &'static str) -> Response {
    let message = format!("this route answers {allow} only");
    (
        StatusCode::METHOD_NOT_ALLOWED,
        [(header::ALLOW, allow)],
        Json(ErrorBody::new(ErrorCode::MethodNotAllowed, &message)),
    )
        .into_response()
}

/// `POST` only, any other method answered [`wrong_method`].
pub fn post_only<H, T, S>(handler: H) -> axum::routing::MethodRouter<S>
where
    H: axum::handler::Handler<T, S>,
    T: 'static,
    S: Clone + Send + Sync + 'static,
{
    post(handler).fallback(|| async { wrong_method("POST") })
}

/// `GET` (and `HEAD`) only, any other method answered [`wrong_method`].
pub fn get_only<H, T, S>(handler: H) -> axum::routing::MethodRouter<S>
where
    H: axum::handler::Handler<T, S>,
    T: 'static,
    S: Clone + Send + Sync + 'static,
{
    axum::routing::get(handler).fallback(|| async { wrong_method("GET, HEAD") })
}
