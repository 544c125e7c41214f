//! The JSON API of the board page, stateless: every request carries the game (start
//! position, turns played, decisions of the turn in progress) and the server replays it
//! with `matombo-core`, so nothing is kept per user on the server. The requests and
//! answers, and the functions that compute them, are those of the crate `matombo-api`,
//! which the in-browser engine runs too; this module puts them on HTTP.
//!
//! | method and path | body | answer |
//! |---|---|---|
//! | `GET /api/rulesets` | – | the games, their sizes (traditional first) and options |
//! | `POST /api/game` | [`GameRequest`] | [`GameState`]: board, legal decisions, events, outcome |
//! | `POST /api/ai` | [`AiRequest`] | [`AiAnswer`]: the AI's turn (token and decisions) |
//! | `POST /api/record/export` | [`ExportRequest`] | `{"record": "<PGN-like text>"}` |
//! | `POST /api/record/import` | `{"text": "<record>"}` | [`GameState`] of the recorded game |
//!
//! Malformed or illegal requests are answered `400` (cannot be read) or `422` (illegal in
//! the position) with `{"error": "<message>"}` and change nothing.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
pub use matombo_api::{
    game, games, AiAnswer, AiRequest, EventJson, ExportAnswer, ExportRequest, GameInfo, GameRequest, GameState,
    ImportAnswer, ImportRequest, Lost, OutcomeJson, Rows, RulesetInfo, NSOLO_TRADITIONAL, TSORO_TRADITIONAL,
};
use tokio::sync::Semaphore;

/// An API error as an HTTP answer.
#[derive(Debug)]
pub struct ApiError(pub matombo_api::ApiError);

impl From<matombo_api::ApiError> for ApiError {
    fn from(e: matombo_api::ApiError) -> ApiError {
        ApiError(e)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.0.kind.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        (status, Json(serde_json::json!({ "error": self.0.message }))).into_response()
    }
}

fn parse_body<T: for<'de> serde::Deserialize<'de>>(body: &Bytes) -> Result<T, ApiError> {
    Ok(matombo_api::parse_body(body)?)
}

/// `POST /api/game`.
pub async fn game_handler(body: Bytes) -> Result<Json<GameState>, ApiError> {
    let req: GameRequest = parse_body(&body)?;
    Ok(Json(game(&req)?))
}

/// Bounds the AI searches running at once, so that they never starve the server.
#[derive(Clone)]
pub struct AiPool {
    permits: Arc<Semaphore>,
}

impl AiPool {
    /// A pool running at most `n` searches at once.
    pub fn new(n: usize) -> AiPool {
        AiPool { permits: Arc::new(Semaphore::new(n.max(1))) }
    }
}

/// The longest any search may run, whatever its level says.
const AI_HARD_LIMIT: Duration = Duration::from_secs(10);

/// `POST /api/ai`.
pub async fn ai_handler(
    axum::extract::State(pool): axum::extract::State<AiPool>,
    body: Bytes,
) -> Result<Json<AiAnswer>, ApiError> {
    let req: AiRequest = parse_body(&body)?;
    let job = req.prepare(rand::random())?;
    let _permit = pool.permits.acquire().await.map_err(|_| matombo_api::ApiError::bad("server shutting down"))?;
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let limit = (job.level.time() * 2).min(AI_HARD_LIMIT);
    // The stop flag bounds the search even if its own clock overruns.
    let timer = tokio::spawn(async move {
        tokio::time::sleep(limit).await;
        flag.store(true, Ordering::Relaxed);
    });
    let search_stop = stop.clone();
    let result = tokio::task::spawn_blocking(move || job.run(&search_stop)).await.map_err(|e| {
        ApiError(matombo_api::ApiError {
            kind: matombo_api::ErrorKind::Internal,
            message: format!("search failed: {e}"),
        })
    })?;
    timer.abort();
    Ok(Json(result?))
}

/// `POST /api/record/export`.
pub async fn export_handler(body: Bytes) -> Result<Json<ExportAnswer>, ApiError> {
    let req: ExportRequest = parse_body(&body)?;
    Ok(Json(matombo_api::export(&req)?))
}

/// `POST /api/record/import`: the game of a record, as a [`GameState`] (plus its tags).
pub async fn import_handler(body: Bytes) -> Result<Json<ImportAnswer>, ApiError> {
    let req: ImportRequest = parse_body(&body)?;
    Ok(Json(matombo_api::import(&req)?))
}

/// `GET /api/rulesets`.
pub async fn rulesets_handler() -> Json<Vec<GameInfo>> {
    Json(games())
}
