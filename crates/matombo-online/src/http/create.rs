//! `POST /api/online/rooms`: a room made from a request, checked first.

use super::*;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CreateReq {
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
pub(crate) struct ClockReq {
    #[serde(default)]
    initial_ms: Option<u64>,
    #[serde(default)]
    increment_ms: Option<u64>,
    /// Any JSON value, so that a fraction or a string is `invalid_field`, not `malformed`.
    #[serde(default)]
    days_per_turn: Option<serde_json::Value>,
}

/// Checks a creation's time control: stopped clocks of either kind.
pub(super) fn check_clock(c: &ClockReq) -> Result<Clocks, ApiError> {
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
pub(crate) struct TeamsReq {
    mode: String,
    #[serde(default)]
    vote_ms: Option<u64>,
    /// Listed by `GET /api/online/teams` while unfinished.
    #[serde(default)]
    public: bool,
}

/// Checks a team game's settings: its mode and vote length.
pub(super) fn check_teams(t: &TeamsReq) -> Result<(TeamMode, u64), ApiError> {
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

pub(crate) fn check_name(name: Option<String>) -> Result<String, ApiError> {
    let name = name.unwrap_or_default();
    if name.chars().count() > protocol::MAX_NAME || name.chars().any(char::is_control) {
        return Err(ApiError::new(ErrorCode::InvalidField, "name: at most 40 characters, no control characters"));
    }
    if let Some(why) = crate::names::refusal(&name) {
        return Err(ApiError::new(ErrorCode::InvalidField, format!("name: {why}")));
    }
    Ok(crate::names::nfc(name.trim()))
}

pub(crate) async fn create_room(
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
            if !u.creations.get_or_insert_with(|| crate::budget::Bucket::new(limits.rooms_per_sec)).take() {
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
    if let Err(e) = crate::quota::write_room(&s, op, &addrs, &[]).await {
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
