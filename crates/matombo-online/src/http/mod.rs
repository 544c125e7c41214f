//! The HTTP routes of online play: create, claim, state, record, archive and
//! the pages; their errors as `{"error": code, "message": sentence}`.//!
//! `create` makes rooms, `seats` fills their seats and teams, `players` answers
//! the leaderboards and player pages; reading rooms back is here.

use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::Ordering;

use axum::extract::{ConnectInfo, FromRequestParts, Path, Query, State};
use axum::http::request::Parts;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use matombo_api::online::{
    BySide, GroupJson, HistoryJson, LeaderRow, Leaderboard, Links, Opponent, Page, PlayerPage, PublicState,
    RatingPoint, RoomMsg, SeatAnswer,
};
use matombo_api::{ErrorCode, SideJson};
use matombo_core::{Record, Ruleset, Side};
use rand::{Rng, SeedableRng as _};
use serde::Deserialize;

use super::handle::{find_room, random_secret, RoomHandle};
use super::lifecycle::{closed_message, watch_clock};
use super::protocol;
use super::room::{Clocks, Room, RoomError, TimeControl, DAYS_PER_TURN, MAX_CLOCK_MS};
use super::store::Op;
use super::team::{Member, TeamError, TeamMode, Teams};
use super::views::{links, room_view, side_json, side_str};
use super::OnlineState;

mod create;
mod players;
mod seats;

use players::*;

pub(crate) use create::{check_name, create_room};
pub(crate) use players::{groups, leaderboard, player};
pub(crate) use seats::{claim_seat, join_team, team_error};

pub(super) use crate::error::ApiError;

pub(super) fn room_error(e: &RoomError) -> ErrorCode {
    match e {
        RoomError::NotAPlayer => ErrorCode::NotAPlayer,
        RoomError::NotYourTurn(_) => ErrorCode::NotYourTurn,
        RoomError::Stale { .. } => ErrorCode::Stale,
        RoomError::Ahead { .. } => ErrorCode::Ahead,
        RoomError::BadToken(_) => ErrorCode::BadMove,
        RoomError::Illegal(_) => ErrorCode::Illegal,
        RoomError::GameOver(_) => ErrorCode::GameOver,
        RoomError::WaitingForOpponent => ErrorCode::Waiting,
        RoomError::BadInvite => ErrorCode::BadInvite,
        RoomError::SeatsTaken => ErrorCode::SeatsTaken,
    }
}

/// The client's address, when the server was started with connect info.
pub(super) struct ClientAddr(pub(super) Option<IpAddr>);

impl<S: Send + Sync> FromRequestParts<S> for ClientAddr {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        Ok(ClientAddr(parts.extensions.get::<ConnectInfo<SocketAddr>>().map(|c| c.0.ip())))
    }
}

#[derive(Deserialize)]
pub(super) struct StateQuery {
    #[serde(default)]
    positions: Option<u8>,
}

pub(super) async fn get_room(
    State(s): State<OnlineState>,
    Path(id): Path<String>,
    Query(q): Query<StateQuery>,
) -> Result<Response, ApiError> {
    let h = find_room(&s, &id).await?;
    let room = h.room.lock().await;
    let state = h.state_of(&room, None, s.now(), q.positions.unwrap_or(0) != 0);
    drop(room);
    Ok(Json(PublicState { state, kind: "state", presence: h.presence_json() }).into_response())
}

pub(super) async fn get_record(State(s): State<OnlineState>, Path(id): Path<String>) -> Result<Response, ApiError> {
    let h = find_room(&s, &id).await?;
    let room = h.room.lock().await;
    let mut rec = Record::new(room.game.clone());
    let name = |i: usize| if room.seats[i].name.is_empty() { "?".to_string() } else { room.seats[i].name.clone() };
    rec.set_tag("South", &name(0));
    rec.set_tag("North", &name(1));
    rec.set_tag("Date", &date(room.created));
    rec.set_tag("Site", &format!("matombo online, game {}", room.id));
    if let Some(c) = &room.clocks {
        let tc = match c.days_per_turn {
            // One turn per span of seconds, as PGN writes a correspondence control.
            Some(_) => format!("1/{}", c.control.initial_ms / 1000),
            None => format!("{}+{}", c.control.initial_ms / 1000, c.control.increment_ms / 1000),
        };
        rec.set_tag("TimeControl", &tc);
    }
    let body = rec.to_string();
    let id = room.id.clone();
    Ok((
        [
            (header::CONTENT_TYPE, "text/plain; charset=utf-8".to_string()),
            (header::CONTENT_DISPOSITION, format!("attachment; filename=\"matombo-{id}.txt\"")),
        ],
        body,
    )
        .into_response())
}

/// `YYYY.MM.DD` of a Unix time in ms (UTC), for the record's Date tag.
pub(super) fn date(ms: u64) -> String {
    matombo_core::date_tag((ms / 1000) as i64)
}

#[derive(Deserialize)]
pub(super) struct ArchiveQuery {
    #[serde(default)]
    limit: Option<u32>,
    #[serde(default)]
    offset: Option<u32>,
}

pub(super) async fn archive(State(s): State<OnlineState>, Query(q): Query<ArchiveQuery>) -> Result<Response, ApiError> {
    let limit = q.limit.unwrap_or(50).min(200);
    let offset = q.offset.unwrap_or(0);
    let list =
        s.inner.store.archive(limit, offset).await.map_err(|e| ApiError::new(ErrorCode::Storage, e.to_string()))?;
    Ok(Json(Page { items: Games { games: list }, limit, offset }).into_response())
}

#[cfg(test)]
mod tests {
    #[test]
    fn dates() {
        assert_eq!(super::date(0), "1970.01.01");
        assert_eq!(super::date(1_700_000_000_000), "2023.11.14");
    }
}
