//! The games that challenges and quick pairs start: bound rooms, and challenges announced.

use super::*;

/// Creates a room with both seats taken by `players` (by side): stored, live, watched,
/// listed if asked. Answers the id and the seat tokens by side.
pub(crate) async fn create_bound_room(
    s: &OnlineState,
    ruleset: Ruleset,
    clock: Option<Clocks>,
    rated: bool,
    listed: bool,
    players: [(Option<String>, String, Option<f64>); 2],
    charge: crate::quota::Charge,
) -> Result<(String, [String; 2]), ApiError> {
    let id = random_secret(10);
    let tokens = [random_secret(32), random_secret(32)];
    let invite = random_secret(24);
    let now = s.now();
    let mut room = Room::new(id.clone(), ruleset, Side::South, tokens.clone(), invite.clone(), None, now);
    room.clocks = clock.clone();
    room.seats[0].name = players[0].1.clone();
    room.commit_claim(Side::North, &players[1].1, now);
    let days_per_turn = clock.as_ref().and_then(|c| c.days_per_turn);
    // Correspondence games are casual.
    let rated =
        rated && days_per_turn.is_none() && players.iter().all(|p| p.0.is_some()) && players[0].0 != players[1].0;
    let op = Op::Many(vec![
        Op::Create {
            id: id.clone(),
            ruleset: ruleset.to_string(),
            start: room.game.start().to_string(),
            tokens: tokens.clone(),
            invite,
            creator: Side::South,
            name: players[0].1.clone(),
            control: clock.map(|c| c.control),
            days_per_turn,
            created: now,
            // After a restart the room counts against this address's quota.
            creator_addr: charge.first_addr().map(|a| a.to_string()),
        },
        Op::Claim { id: id.clone(), side: Side::North, name: players[1].1.clone(), at: now },
        Op::Bind { id: id.clone(), players: [players[0].0.clone(), players[1].0.clone()], rated, listed },
    ]);
    let (addrs, ids) = charge.parts();
    if let Err(e) = crate::quota::write_room(s, op, addrs, ids).await {
        crate::quota::give_back(s, charge);
        return Err(e);
    }
    crate::quota::hold(s, &id, charge);
    let meta = Meta {
        players: [players[0].0.clone().map(|p| (p, players[0].2)), players[1].0.clone().map(|p| (p, players[1].2))],
        rated,
        listed,
    };
    if listed {
        let g = s.inner.lobby.list_game(&room, &meta, now);
        crate::lobby_shared::publish_listed(s, &g);
    }
    let h = RoomHandle::new(room, None, &s.inner.limits);
    *h.meta.lock().expect("meta lock") = meta;
    s.inner.rooms.lock().expect("rooms lock").insert(id.clone(), h.clone());
    watch_clock(s.clone(), h);
    tracing::info!(room = %id, %ruleset, rated, "game created from the lobby");
    Ok((id, tokens))
}

/// Lists a challenge just made and tells who must hear of it (every node in a cluster).
pub(super) fn announce(s: &OnlineState, mut st: std::sync::MutexGuard<'_, LobbyState>, c: Challenge) {
    let lobby = &s.inner.lobby;
    let v = LobbyOut::ChallengeAdded { challenge: challenge_json(&c) };
    if c.open {
        lobby.send(&v);
    } else {
        // Link-only: its creator alone hears of it.
        lobby.tell(&st, &c.by.id, &v);
    }
    crate::lobby_shared::publish_added(s, &c, &v);
    st.challenges.push(c);
}

/// A copy of a challenge (kept listed while the database decides an accept).
pub(super) fn clone_challenge(c: &Challenge) -> Challenge {
    Challenge { id: c.id.clone(), by: c.by.clone(), addr: c.addr, ..*c }
}

pub(super) fn random_side() -> Side {
    if rand::rngs::StdRng::from_os_rng().random_bool(0.5) {
        Side::South
    } else {
        Side::North
    }
}

/// What a game between two players is: ruleset, clock, rated, listed, and the challenge
/// it comes from.
pub(super) struct Terms {
    pub(super) ruleset: Ruleset,
    pub(super) clock: Option<TimeControl>,
    pub(super) rated: bool,
    pub(super) listed: bool,
    pub(super) challenge: Option<String>,
}

/// Starts the game between two players (`a` on side `a_side`) and tells both.
pub(super) async fn start_match(
    s: &OnlineState,
    a: PlayerRef,
    a_side: Side,
    b: PlayerRef,
    t: Terms,
    charge: crate::quota::Charge,
) -> Result<(), ApiError> {
    let (south, north) = if a_side == Side::South { (&a, &b) } else { (&b, &a) };
    let seat = |p: &PlayerRef| (Some(p.id.clone()), p.name.clone(), Some(p.rating.rating));
    let (id, tokens) =
        create_bound_room(s, t.ruleset, t.clock.map(Clocks::of), t.rated, t.listed, [seat(south), seat(north)], charge)
            .await?;
    let challenge = t.challenge;
    for (side, p) in [(Side::South, south), (Side::North, north)] {
        let token = &tokens[side.index()];
        let m = LobbyOut::Matched {
            room: id.clone(),
            side: side_json(side),
            token: token.clone(),
            links: links(&id, Some(token), None),
            challenge: challenge.clone(),
        };
        if s.clustered() {
            // The player's lobby connections may be on other nodes.
            crate::lobby_shared::tell_everywhere(s, &p.id, &m);
        } else {
            s.inner.lobby.tell_player(&p.id, &m);
        }
    }
    Ok(())
}
