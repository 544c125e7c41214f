//! The one error of the HTTP routes (online play's and, re-exported by `matombo-web`, the
//! board's API): `matombo_api::ApiError` answered with its code's status and the error body.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use matombo_api::ErrorCode;

/// An API error as an HTTP answer: the status comes from the code (one mapping,
/// [`matombo_api::ErrorCode::status`]), the body is `{"error", "message"}`.
#[derive(Debug)]
pub struct ApiError(pub matombo_api::ApiError);

impl ApiError {
    /// An error of this code.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ApiError {
        ApiError(matombo_api::ApiError::new(code, message))
    }

    /// A refusal because the whole server is full (`503` for the quota codes).
    pub fn server_full(code: ErrorCode, message: impl Into<String>) -> ApiError {
        ApiError(matombo_api::ApiError::server_full(code, message))
    }

    /// Its code.
    pub fn code(&self) -> ErrorCode {
        self.0.code
    }

    /// Its message.
    pub fn message(&self) -> &str {
        &self.0.message
    }

    /// Its status.
    pub fn status(&self) -> StatusCode {
        StatusCode::from_u16(self.0.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
    }
}

impl From<matombo_api::ApiError> for ApiError {
    fn from(e: matombo_api::ApiError) -> ApiError {
        ApiError(e)
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0.message)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        crate::metrics::refusal(self.0.code);
        (self.status(), Json(self.0.body())).into_response()
    }
}

/// A request to a WebSocket route that is no upgrade: `405` `method_not_allowed` for
/// another method than GET, else `400` `malformed`.
pub(crate) fn upgrade_refused(e: axum::extract::ws::rejection::WebSocketUpgradeRejection) -> ApiError {
    let code =
        if e.status() == StatusCode::METHOD_NOT_ALLOWED { ErrorCode::MethodNotAllowed } else { ErrorCode::Malformed };
    ApiError::new(code, e.body_text())
}
