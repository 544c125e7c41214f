//! `GET /api/online/teams`: the public team games in play, for the lobby.

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::Json;
use matombo_api::online::{ControlJson, Links, PublicSide, PublicTeamGame, PublicTeamGames};
use matombo_api::ErrorCode;

use super::http::ApiError;
use super::team::TeamMode;
use super::OnlineState;

/// `GET /api/online/teams`: the public team games in play, newest first, from the store
/// (so every node of a cluster lists the same).
pub(crate) async fn public_teams(State(s): State<OnlineState>) -> Result<Response, ApiError> {
    let rows = s.inner.store.public_teams(50).await.map_err(|e| ApiError::new(ErrorCode::Storage, e.to_string()))?;
    let games = rows
        .into_iter()
        .map(|r| {
            let side = |i: usize| PublicSide {
                members: r.members[i],
                join: (r.members[i] < super::team::MAX_MEMBERS).then(|| Links::join(&r.id, &r.invites[i])),
            };
            let clock = match (r.days_per_turn, r.control) {
                (Some(days_per_turn), _) => Some(ControlJson::Days { days_per_turn }),
                (None, c) => c.map(ControlJson::Clock),
            };
            PublicTeamGame {
                south: side(0),
                north: side(1),
                vote_ms: (r.mode == TeamMode::Vote.as_str()).then_some(r.vote_ms),
                id: r.id,
                ruleset: r.ruleset,
                mode: r.mode,
                clock,
                created_ms: r.created,
                creator: r.creator,
            }
        })
        .collect();
    Ok(Json(PublicTeamGames { games }).into_response())
}
