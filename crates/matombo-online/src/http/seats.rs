//! Taking a seat (`claim`) or a place in a team (`join`).

use super::*;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct JoinReq {
    invite: String,
    #[serde(default)]
    name: Option<String>,
}

/// `POST /api/online/rooms/{id}/join`: a new member of the side whose invitation this is.
pub(crate) async fn join_team(
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
        crate::bus::reload(&s, &h, &mut room).await;
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
        crate::store::StoreError::TeamFull(_) => ApiError::new(ErrorCode::TeamFull, TeamError::Full.to_string()),
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
pub(crate) fn team_error(e: &TeamError) -> ErrorCode {
    match e {
        TeamError::BadInvite => ErrorCode::BadInvite,
        TeamError::Full => ErrorCode::TeamFull,
        TeamError::NotCaptain => ErrorCode::NotCaptain,
        TeamError::NoMember(_) | TeamError::Yourself | TeamError::LookAlike => ErrorCode::InvalidField,
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ClaimReq {
    invite: String,
    #[serde(default)]
    name: Option<String>,
}

pub(crate) async fn claim_seat(
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
    if crate::names::look_alike(&name, &room.seats[side.opponent().index()].name) {
        return Err(ApiError::new(
            ErrorCode::InvalidField,
            "name: looks like the name of the other player of this game; choose another",
        ));
    }
    let now = s.now();
    let claimed = s.inner.store.write(Op::Claim { id: id.clone(), side, name: name.clone(), at: now }).await;
    if let Err(e) = claimed {
        if let crate::store::StoreError::SeatTaken(_) = e {
            // Claimed through another node first: this copy catches up, the claim is refused.
            crate::bus::reload(&s, &h, &mut room).await;
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
