//! The router of online play: every route with its handler and the shared state.
//!
//! API:
//! - `POST /api/online/rooms` `{"ruleset":"tsoro:8","side":"south|north|random",
//!   "clock":{"initial_ms":300000,"increment_ms":5000},"name":"Rudo"}` → the creator's seat
//!   token and the links (seat, invitation, watch).
//! - `POST /api/online/rooms/{id}/claim` `{"invite":"…","name":"…"}` → the free seat.
//!   A team game (`"teams": {"mode": "any|captain|vote", "vote_ms": 30000}` at its
//!   creation) is joined instead: `POST /api/online/rooms/{id}/join` `{"invite","name"}`.
//! - `GET /api/online/rooms/{id}` → public state (`?positions=1` adds every position).
//! - `GET /api/online/rooms/{id}/record` → the game record (text).
//! - `GET /api/online/rooms/{id}/ws` → WebSocket (see [`crate::protocol`]).
//! - `GET /api/online/archive?limit=&offset=` → finished games, newest first.
//! - `GET /api/online/lobby/ws` → the lobby's WebSocket (challenges, pairing, identities).
//! - `GET /api/online/challenges/{id}` → one challenge (for its link's page).
//! - `GET /api/online/groups`, `/api/online/leaderboard/{group}`, `/api/online/players/{id}`.

use axum::extract::DefaultBodyLimit;
use axum::Router;

use crate::http::{archive, claim_seat, create_room, get_record, get_room, groups, join_team, leaderboard, player};
use crate::lobby::{get_challenge, lobby_upgrade};
use crate::methods::{get_only, post_only};
use crate::teamlist::public_teams;
use crate::ws::ws_upgrade;
use crate::OnlineState;

/// The paths of online play's pages; the site (`matombo-web`) draws them on its templates
/// and mounts them with [`routes`].
pub const PAGE_PATHS: [&str; 6] =
    ["/online", "/online/", "/online/archive", "/online/leaderboard", "/online/player", "/online/game/{*id}"];

/// The API routes of online play (under `/api/online/`), with their state applied.
pub fn routes(state: OnlineState) -> Router {
    Router::new()
        .route("/api/online/rooms", post_only(create_room))
        .route("/api/online/rooms/{id}", get_only(get_room))
        .route("/api/online/rooms/{id}/claim", post_only(claim_seat))
        .route("/api/online/rooms/{id}/join", post_only(join_team))
        .route("/api/online/rooms/{id}/record", get_only(get_record))
        .route("/api/online/rooms/{id}/ws", get_only(ws_upgrade))
        .route("/api/online/archive", get_only(archive))
        .route("/api/online/teams", get_only(public_teams))
        .route("/api/online/lobby/ws", get_only(lobby_upgrade))
        .route("/api/online/groups", get_only(groups))
        .route("/api/online/challenges/{id}", get_only(get_challenge))
        .route("/api/online/leaderboard/{group}", get_only(leaderboard))
        .route("/api/online/players/{id}", get_only(player))
        .layer(DefaultBodyLimit::max(16 * 1024))
        .with_state(state)
}
