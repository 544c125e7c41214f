//! The HTTP routes of online play: create, claim, state, record, archive and
//! the pages; their errors as `{"error": code, "message": sentence}`.

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
#[serde(deny_unknown_fields)]
pub(super) struct CreateReq {
    ruleset: String,
    #[serde(default)]
    side: Option<String>,
    #[serde(default)]
    clock: Option<ClockReq>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    teams: Option<TeamsReq>,
}

/// A time control as a creation asks for it: a clock per side, or days per turn.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ClockReq {
    #[serde(default)]
    initial_ms: Option<u64>,
    #[serde(default)]
    increment_ms: Option<u64>,
    /// Any JSON value, so that a fraction or a string is `invalid_field`, not `malformed`.
    #[serde(default)]
    days_per_turn: Option<serde_json::Value>,
}

/// Checks a creation's time control: stopped clocks of either kind.
fn check_clock(c: &ClockReq) -> Result<Clocks, ApiError> {
    let invalid = |m: &str| ApiError::new(ErrorCode::InvalidField, m.to_string());
    match (c.initial_ms, c.increment_ms, &c.days_per_turn) {
        (None, None, Some(d)) => {
            let (lo, hi) = DAYS_PER_TURN;
            match d.as_u64() {
                Some(n) if (u64::from(lo)..=u64::from(hi)).contains(&n) => Ok(Clocks::days(n as u32)),
                _ => Err(invalid(&format!("clock.days_per_turn: a whole number from {lo} to {hi}"))),
            }
        }
        (Some(initial_ms), Some(increment_ms), None) => {
            if !(1000..=MAX_CLOCK_MS).contains(&initial_ms) || increment_ms > 3_600_000 {
                return Err(invalid("clock: initial_ms from 1000 to 86400000, increment_ms at most 3600000"));
            }
            Ok(Clocks::of(TimeControl { initial_ms, increment_ms }))
        }
        (_, _, Some(_)) => Err(invalid("clock: either days_per_turn or initial_ms and increment_ms, not both")),
        _ => Err(invalid("clock: initial_ms and increment_ms, or days_per_turn")),
    }
}

/// A team game's settings (issue 42).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct TeamsReq {
    mode: String,
    #[serde(default)]
    vote_ms: Option<u64>,
    /// Listed by `GET /api/online/teams` while unfinished.
    #[serde(default)]
    public: bool,
}

/// Checks a team game's settings: its mode and vote length.
fn check_teams(t: &TeamsReq) -> Result<(TeamMode, u64), ApiError> {
    let mode = TeamMode::parse(&t.mode)
        .ok_or_else(|| ApiError::new(ErrorCode::InvalidField, "teams.mode: any, captain or vote"))?;
    let (lo, hi) = crate::team::VOTE_MS;
    match (mode, t.vote_ms) {
        (TeamMode::Vote, None) => Ok((mode, crate::team::DEFAULT_VOTE_MS)),
        (TeamMode::Vote, Some(ms)) if (lo..=hi).contains(&ms) => Ok((mode, ms)),
        (TeamMode::Vote, Some(_)) => {
            Err(ApiError::new(ErrorCode::InvalidField, format!("teams.vote_ms: from {lo} to {hi}")))
        }
        (_, Some(_)) => Err(ApiError::new(ErrorCode::InvalidField, "teams.vote_ms: only in vote mode")),
        (_, None) => Ok((mode, crate::team::DEFAULT_VOTE_MS)),
    }
}

pub(super) fn check_name(name: Option<String>) -> Result<String, ApiError> {
    let name = name.unwrap_or_default();
    if name.chars().count() > protocol::MAX_NAME || name.chars().any(char::is_control) {
        return Err(ApiError::new(ErrorCode::InvalidField, "name: at most 40 characters, no control characters"));
    }
    if let Some(why) = super::names::refusal(&name) {
        return Err(ApiError::new(ErrorCode::InvalidField, format!("name: {why}")));
    }
    Ok(super::names::nfc(name.trim()))
}

pub(super) async fn create_room(
    State(s): State<OnlineState>,
    ClientAddr(addr): ClientAddr,
    body: Result<Json<CreateReq>, axum::extract::rejection::JsonRejection>,
) -> Result<Response, ApiError> {
    let Json(req) = body.map_err(|e| ApiError::new(ErrorCode::Malformed, e.body_text()))?;
    let ruleset: Ruleset = req.ruleset.parse().map_err(|e| ApiError::new(ErrorCode::BadRuleset, format!("{e}")))?;
    let side = match req.side.as_deref().unwrap_or("random") {
        "south" => Side::South,
        "north" => Side::North,
        "random" => {
            if rand::rngs::StdRng::from_os_rng().random_bool(0.5) {
                Side::South
            } else {
                Side::North
            }
        }
        _ => return Err(ApiError::new(ErrorCode::InvalidField, "side: south, north or random")),
    };
    let clocks = req.clock.as_ref().map(check_clock).transpose()?;
    let name = check_name(req.name)?;
    let teams = req.teams.as_ref().map(check_teams).transpose()?;
    let limits = &s.inner.limits;
    // Reserve the room slot first, so concurrent requests cannot overshoot the limits.
    {
        if s.inner.open_rooms.fetch_add(1, Ordering::AcqRel) >= limits.max_rooms {
            s.inner.open_rooms.fetch_sub(1, Ordering::AcqRel);
            return Err(ApiError::server_full(ErrorCode::TooManyRooms, "the server is full"));
        }
        if let Some(a) = addr {
            let mut per = s.inner.per_addr.lock().expect("addr lock");
            let u = per.entry(a).or_default();
            if !u.creations.get_or_insert_with(|| super::budget::Bucket::new(limits.rooms_per_sec)).take() {
                s.inner.open_rooms.fetch_sub(1, Ordering::AcqRel);
                return Err(ApiError::new(
                    ErrorCode::RateLimited,
                    format!("one address may create at most {} games per second", limits.rooms_per_sec),
                ));
            }
            if u.rooms >= limits.rooms_per_addr {
                s.inner.open_rooms.fetch_sub(1, Ordering::AcqRel);
                return Err(ApiError::new(
                    ErrorCode::TooManyRooms,
                    format!("at most {} unfinished games per address", limits.rooms_per_addr),
                ));
            }
            u.rooms += 1;
        }
    }
    let release = |s: &OnlineState| {
        s.inner.open_rooms.fetch_sub(1, Ordering::AcqRel);
        if let Some(a) = addr {
            if let Some(u) = s.inner.per_addr.lock().expect("addr lock").get_mut(&a) {
                u.rooms = u.rooms.saturating_sub(1);
            }
        }
    };
    let id = random_secret(10);
    let tokens = [random_secret(32), random_secret(32)];
    let invite = random_secret(24);
    let now = s.now();
    let mut room = Room::new(id.clone(), ruleset, side, tokens.clone(), invite.clone(), None, now);
    room.clocks = clocks.clone();
    room.seats[side.index()].name = name.clone();
    let token = tokens[side.index()].clone();
    let mut team_ops = Vec::new();
    let mut creator_member = None;
    if let Some((mode, vote_ms)) = teams {
        // The creator is his side's first member and captain; his seat token is his own.
        let invites = [random_secret(24), random_secret(24)];
        let member = random_secret(12);
        let mut t = Teams::new(mode, vote_ms, invites.clone());
        t.members.push(Member {
            id: member.clone(),
            side,
            token: token.clone(),
            name: name.clone(),
            captain: true,
            removed: false,
        });
        let public = req.teams.as_ref().is_some_and(|t| t.public);
        team_ops.push(Op::Teams { id: id.clone(), mode, vote_ms, invites, public });
        team_ops.push(Op::Join {
            id: id.clone(),
            side,
            member: member.clone(),
            token: token.clone(),
            name: name.clone(),
            captain: true,
            at: now,
        });
        room.teams = Some(t);
        creator_member = Some(member);
    }
    let op = Op::Create {
        id: id.clone(),
        ruleset: ruleset.to_string(),
        start: room.game.start().to_string(),
        tokens: tokens.clone(),
        invite: invite.clone(),
        creator: side,
        name,
        control: clocks.as_ref().map(|c| c.control),
        days_per_turn: clocks.as_ref().and_then(|c| c.days_per_turn),
        created: now,
        creator_addr: addr.map(|a| a.to_string()),
    };
    let op = if team_ops.is_empty() {
        op
    } else {
        team_ops.insert(0, op);
        Op::Many(team_ops)
    };
    let invites = room.teams.as_ref().map(|t| BySide { south: t.invites[0].clone(), north: t.invites[1].clone() });
    let addrs: Vec<IpAddr> = addr.into_iter().collect();
    if let Err(e) = super::quota::write_room(&s, op, &addrs, &[]).await {
        release(&s);
        return Err(e);
    }
    s.inner.rooms.lock().expect("rooms lock").insert(id.clone(), RoomHandle::new(room, addr, &s.inner.limits));
    tracing::info!(room = %id, %ruleset, teams = invites.is_some(), "game created");
    let answer = match invites {
        // A team game has no plain invitation: each side has its own.
        Some(invites) => SeatAnswer {
            id: id.clone(),
            side: side_json(side),
            token: token.clone(),
            invite: None,
            links: Links::team(&id, &token, &invites),
            invites: Some(invites),
            member: creator_member,
        },
        None => SeatAnswer {
            id: id.clone(),
            side: side_json(side),
            token: token.clone(),
            invite: Some(invite.clone()),
            links: links(&id, Some(&token), Some(&invite)),
            invites: None,
            member: None,
        },
    };
    Ok((StatusCode::CREATED, Json(answer)).into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct JoinReq {
    invite: String,
    #[serde(default)]
    name: Option<String>,
}

/// `POST /api/online/rooms/{id}/join`: a new member of the side whose invitation this is.
pub(super) async fn join_team(
    State(s): State<OnlineState>,
    Path(id): Path<String>,
    body: Result<Json<JoinReq>, axum::extract::rejection::JsonRejection>,
) -> Result<Response, ApiError> {
    let Json(req) = body.map_err(|e| ApiError::new(ErrorCode::Malformed, e.body_text()))?;
    let name = check_name(req.name)?;
    if req.invite.len() > protocol::MAX_TOKEN {
        return Err(ApiError::new(ErrorCode::BadInvite, "wrong invitation code"));
    }
    let h = find_room(&s, &id).await?;
    let mut room = h.room.lock().await;
    if s.clustered() && room.teams.is_some() {
        // The rosters as the store has them (members who joined through other nodes), so
        // that no look-alike name slips in.
        super::bus::reload(&s, &h, &mut room).await;
    }
    if h.closed.load(Ordering::Acquire) || room.game.is_over() {
        return Err(ApiError::new(ErrorCode::Closed, "this game is over or closed: no one joins it any more"));
    }
    let Some(teams) = &room.teams else {
        return Err(ApiError::new(ErrorCode::NotATeamGame, "this game has no teams: claim its seat instead"));
    };
    let side = teams.check_join(&req.invite, &name).map_err(|e| ApiError::new(team_error(&e), e.to_string()))?;
    // The first member of the side that has no captain (the invited side) is its captain.
    let captain = teams.active(side).all(|m| !m.captain);
    let member = random_secret(12);
    let token = random_secret(32);
    let now = s.now();
    let op = Op::Join {
        id: id.clone(),
        side,
        member: member.clone(),
        token: token.clone(),
        name: name.clone(),
        captain,
        at: now,
    };
    s.inner.store.write(op).await.map_err(|e| match e {
        super::store::StoreError::TeamFull(_) => ApiError::new(ErrorCode::TeamFull, TeamError::Full.to_string()),
        e => ApiError::new(ErrorCode::Storage, e.to_string()),
    })?;
    let m = Member { id: member.clone(), side, token: token.clone(), name: name.clone(), captain, removed: false };
    room.teams.as_mut().expect("a team game").members.push(m);
    let first = !room.seats[side.index()].claimed;
    if first {
        room.commit_claim(side, &name, now);
        let msg = RoomMsg::Seats(room_view(&room, now, false));
        h.send(&msg);
        s.publish_changed(&id, &msg);
    }
    h.send_teams(&room);
    s.publish_changed(&id, &h.teams_msg(&room));
    drop(room);
    if first {
        h.clock_changed.notify_one();
        watch_clock(s.clone(), h.clone());
    }
    tracing::info!(room = %id, side = side_str(side), "team member joined");
    let links = links(&id, Some(&token), None);
    let answer =
        SeatAnswer { id, side: side_json(side), token, invite: None, invites: None, member: Some(member), links };
    Ok((StatusCode::CREATED, Json(answer)).into_response())
}

/// The code of a team refusal.
pub(super) fn team_error(e: &TeamError) -> ErrorCode {
    match e {
        TeamError::BadInvite => ErrorCode::BadInvite,
        TeamError::Full => ErrorCode::TeamFull,
        TeamError::NotCaptain => ErrorCode::NotCaptain,
        TeamError::NoMember(_) | TeamError::Yourself | TeamError::LookAlike => ErrorCode::InvalidField,
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ClaimReq {
    invite: String,
    #[serde(default)]
    name: Option<String>,
}

pub(super) async fn claim_seat(
    State(s): State<OnlineState>,
    Path(id): Path<String>,
    body: Result<Json<ClaimReq>, axum::extract::rejection::JsonRejection>,
) -> Result<Response, ApiError> {
    let Json(req) = body.map_err(|e| ApiError::new(ErrorCode::Malformed, e.body_text()))?;
    let name = check_name(req.name)?;
    let h = find_room(&s, &id).await?;
    let mut room = h.room.lock().await;
    if h.closed.load(Ordering::Acquire) {
        return Err(ApiError::new(ErrorCode::Closed, closed_message(&s.inner.limits, "unclaimed")));
    }
    let side = room.check_claim(&req.invite).map_err(|e| ApiError::new(room_error(&e), e.to_string()))?;
    // The roster shows names people trust: none that looks like the other seat's.
    if super::names::look_alike(&name, &room.seats[side.opponent().index()].name) {
        return Err(ApiError::new(
            ErrorCode::InvalidField,
            "name: looks like the name of the other player of this game; choose another",
        ));
    }
    let now = s.now();
    let claimed = s.inner.store.write(Op::Claim { id: id.clone(), side, name: name.clone(), at: now }).await;
    if let Err(e) = claimed {
        if let super::store::StoreError::SeatTaken(_) = e {
            // Claimed through another node first: this copy catches up, the claim is refused.
            super::bus::reload(&s, &h, &mut room).await;
            return Err(ApiError::new(ErrorCode::SeatsTaken, RoomError::SeatsTaken.to_string()));
        }
        return Err(ApiError::new(ErrorCode::Storage, e.to_string()));
    }
    room.commit_claim(side, &name, now);
    let token = room.seats[side.index()].token.clone();
    // Broadcast as a "seats" update: `you` differs per connection, so no full state.
    let msg = RoomMsg::Seats(room_view(&room, now, false));
    h.send(&msg);
    s.publish_changed(&id, &msg);
    drop(room);
    h.clock_changed.notify_one();
    watch_clock(s.clone(), h.clone());
    tracing::info!(room = %id, side = side_str(side), "seat taken");
    let links = links(&id, Some(&token), None);
    Ok(Json(SeatAnswer { id, side: side_json(side), token, invite: None, invites: None, member: None, links })
        .into_response())
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

// ---------------------------------------------------------------- players

pub(super) async fn groups() -> Response {
    let v: Vec<GroupJson> = super::rating::GROUPS
        .iter()
        .map(|g| GroupJson { group: g.name, game: g.game.name(), min: g.min, max: g.max })
        .collect();
    Json(v).into_response()
}

#[derive(Deserialize)]
pub(super) struct PageQuery {
    #[serde(default)]
    limit: Option<u32>,
    #[serde(default)]
    offset: Option<u32>,
}

pub(super) async fn leaderboard(
    State(s): State<OnlineState>,
    Path(group): Path<String>,
    Query(q): Query<PageQuery>,
) -> Result<Response, ApiError> {
    let g = super::rating::group(&group).ok_or_else(|| ApiError::new(ErrorCode::NotFound, "no such rating group"))?;
    let limit = q.limit.unwrap_or(50).min(200);
    let offset = q.offset.unwrap_or(0);
    let since = s.now().saturating_sub(365 * 24 * 3600 * 1000);
    let rows = s
        .inner
        .store
        .leaderboard(g.name.to_string(), since, limit, offset)
        .await
        .map_err(|e| ApiError::new(ErrorCode::Storage, e.to_string()))?;
    let players = rows
        .iter()
        .enumerate()
        .map(|(i, (id, name, r, games))| LeaderRow {
            rank: offset as usize + i + 1,
            id: id.clone(),
            name: name.clone(),
            rating: super::store::round2(r.rating),
            rd: super::store::round2(r.rd),
            games: *games,
            provisional: r.provisional(),
        })
        .collect();
    Ok(Json(Page { items: Leaderboard { group: g.name, players }, limit, offset }).into_response())
}

pub(super) async fn player(
    State(s): State<OnlineState>,
    Path(id): Path<String>,
    Query(q): Query<PageQuery>,
) -> Result<Response, ApiError> {
    let not_found = || ApiError::new(ErrorCode::NotFound, "no such player");
    if id.is_empty() || id.len() > 32 || !id.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return Err(not_found());
    }
    let limit = q.limit.unwrap_or(50).min(200);
    let offset = q.offset.unwrap_or(0);
    let storage = |e: super::store::StoreError| ApiError::new(ErrorCode::Storage, e.to_string());
    let Some(p) = s.inner.store.player(id).await.map_err(storage)? else { return Err(not_found()) };
    let games = s.inner.store.history(p.id.clone(), limit, offset).await.map_err(storage)?;
    let player = super::lobby::player_json(&p);
    let page = PlayerPage { player, games: games.iter().map(history_json).collect() };
    Ok(Json(Page { items: page, limit, offset }).into_response())
}

/// The archive's list of games.
#[derive(serde::Serialize)]
struct Games<T> {
    games: Vec<T>,
}

/// One finished game of a player, as `GET /api/online/players/{id}` lists it.
fn history_json(h: &super::store::HistoryRow) -> HistoryJson {
    let r2 = super::store::round2;
    let pair = |p: Option<(f64, f64)>| p.map(|(r, d)| RatingPoint { rating: r2(r), rd: r2(d) });
    let group = h.ruleset.parse::<Ruleset>().map(super::rating::group_of).unwrap_or("other");
    HistoryJson {
        room: h.room.clone(),
        ruleset: h.ruleset.clone(),
        group,
        side: if h.south { SideJson::South } else { SideJson::North },
        opponent: Opponent { id: h.opponent_id.clone(), name: h.opponent_name.clone() },
        result: match h.winner.as_deref() {
            Some("south") => "1-0",
            Some("north") => "0-1",
            _ => "1/2-1/2",
        },
        termination: h.termination.clone(),
        rated: h.rated,
        before: pair(h.before),
        after: pair(h.after),
        finished: h.finished,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn dates() {
        assert_eq!(super::date(0), "1970.01.01");
        assert_eq!(super::date(1_700_000_000_000), "2023.11.14");
    }
}
