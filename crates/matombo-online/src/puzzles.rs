//! Puzzle ratings of online identities over HTTP (issue 36; docs/api.md, "Puzzle ratings"):
//! `GET /api/online/puzzles/rating` and `POST /api/online/puzzles/{id}/attempt`
//! `{"solved": bool}`, both with the lobby's player secret as `Authorization: Bearer …`.
//! The server rates each attempt against the puzzle's rating in the shipped set; the
//! client never sends a rating.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use axum::{Json, Router};
use matombo_api::puzzles::{AttemptAnswer, AttemptRequest, PuzzleRatingJson};
use matombo_api::ErrorCode;

use crate::budget::Bucket;
use crate::error::ApiError;
use crate::http::ClientAddr;
use crate::methods::{get_only, post_only};
use crate::store::puzzles::{PuzzleAttempt, PuzzleRating};
use crate::store::round2;
use crate::OnlineState;

/// Requests (reads and attempts) one identity may make: a burst, then as many a minute.
pub const IDENTITY_BURST: f64 = 60.0;
/// Requests one address may make: a burst, then as many a minute.
pub const ADDRESS_BURST: f64 = 200.0;

/// The shipped puzzles' ratings by id: what attempts are rated against.
#[derive(Clone, Debug, Default)]
pub struct PuzzleSet(HashMap<String, f64>);

impl PuzzleSet {
    /// Reads `puzzles.jsonl` text (one JSON object a line with `id` and `rating`); lines
    /// without both are skipped.
    pub fn from_jsonl(text: &str) -> PuzzleSet {
        let set = text
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter_map(|v| Some((v["id"].as_str()?.to_string(), v["rating"].as_f64()?)))
            .collect();
        PuzzleSet(set)
    }

    /// A puzzle's rating.
    pub fn rating(&self, id: &str) -> Option<f64> {
        self.0.get(id).copied()
    }

    /// How many puzzles.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

#[derive(Clone)]
struct PuzzleState {
    online: OnlineState,
    set: Arc<PuzzleSet>,
    /// Budgets by `a:<address>` and `p:<identity>`.
    budgets: Arc<Mutex<HashMap<String, Bucket>>>,
}

/// The puzzle-rating routes, rating against `set`.
pub fn routes(online: OnlineState, set: PuzzleSet) -> Router {
    let st = PuzzleState { online, set: Arc::new(set), budgets: Default::default() };
    Router::new()
        .route("/api/online/puzzles/rating", get_only(get_rating))
        .route("/api/online/puzzles/{id}/attempt", post_only(post_attempt))
        .layer(axum::extract::DefaultBodyLimit::max(1024))
        .with_state(st)
}

fn storage(e: crate::store::StoreError) -> ApiError {
    ApiError::new(ErrorCode::Storage, e.to_string())
}

/// Takes one request from the budget named `key`.
fn take(st: &PuzzleState, key: String, burst: f64) -> bool {
    let mut b = st.budgets.lock().expect("budget lock");
    // Refilled budgets are forgotten, so that the map stays small.
    if b.len() > 4096 {
        b.retain(|_, x| !x.full());
    }
    b.entry(key).or_insert_with(|| Bucket::with_burst(burst / 60.0, burst)).take()
}

/// The identity of the request's `Authorization: Bearer <player secret>`, within its budget.
async fn identity(st: &PuzzleState, headers: &HeaderMap, addr: Option<std::net::IpAddr>) -> Result<String, ApiError> {
    let limited = |what: &str| ApiError::new(ErrorCode::RateLimited, format!("too many puzzle requests from {what}"));
    if let Some(a) = addr {
        if !take(st, format!("a:{a}"), ADDRESS_BURST) {
            return Err(limited("this address"));
        }
    }
    let secret = headers
        .get(axum::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .filter(|s| (16..=128).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_alphanumeric()));
    let no_identity = |m: &str| ApiError::new(ErrorCode::NoIdentity, m.to_string());
    let Some(secret) = secret else {
        return Err(no_identity("send your player secret as Authorization: Bearer …"));
    };
    let key = crate::lobby::hash_secret(secret);
    let Some((id, _, _)) = st.online.inner.store.player_by_key(key).await.map_err(storage)? else {
        return Err(no_identity("no online identity has this secret: open the lobby first"));
    };
    if !take(st, format!("p:{id}"), IDENTITY_BURST) {
        return Err(limited("this identity"));
    }
    Ok(id)
}

fn rating_json(r: &PuzzleRating) -> PuzzleRatingJson {
    PuzzleRatingJson {
        rating: round2(r.rating.rating),
        rd: round2(r.rating.rd),
        volatility: (r.rating.vol * 100_000.0).round() / 100_000.0,
        attempts: r.attempts,
        solved: r.solved,
        last_attempt: r.last_attempt,
        provisional: r.rating.provisional(),
    }
}

async fn get_rating(
    State(st): State<PuzzleState>,
    ClientAddr(addr): ClientAddr,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let id = identity(&st, &headers, addr).await?;
    let r = st.online.inner.store.puzzle_rating(id).await.map_err(storage)?;
    Ok(Json(rating_json(&r)).into_response())
}

async fn post_attempt(
    State(st): State<PuzzleState>,
    ClientAddr(addr): ClientAddr,
    Path(puzzle): Path<String>,
    headers: HeaderMap,
    body: Result<Json<AttemptRequest>, axum::extract::rejection::JsonRejection>,
) -> Result<Response, ApiError> {
    let player = identity(&st, &headers, addr).await?;
    let Some(puzzle_rating) = st.set.rating(&puzzle) else {
        return Err(ApiError::new(ErrorCode::NotFound, format!("no puzzle {puzzle:?}")));
    };
    let Json(req) = body.map_err(|e| ApiError::new(ErrorCode::Malformed, e.body_text()))?;
    let a = PuzzleAttempt { player, puzzle: puzzle.clone(), puzzle_rating, solved: req.solved, at: st.online.now() };
    let o = st.online.inner.store.puzzle_attempt(a).await.map_err(storage)?;
    Ok(Json(AttemptAnswer {
        puzzle,
        counted: o.counted,
        solved: o.solved,
        puzzle_rating,
        before: round2(o.before.rating),
        after: round2(o.after.rating),
        rating: rating_json(&o.now),
    })
    .into_response())
}
