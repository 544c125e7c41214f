//! A lobby connection's messages: names, transfer codes, challenges, seeks.

use super::*;

/// Handles one lobby message; answers the direct replies. A refused message changes nothing.
pub(super) async fn handle(
    s: &OnlineState,
    conn: u64,
    me: &mut Option<crate::store::PlayerInfo>,
    t: &str,
    actions: &mut Bucket,
) -> Vec<Message> {
    let msg = match protocol::parse_lobby(t.as_bytes()) {
        Ok(m) => m,
        Err(e) => return vec![lobby_error(e.code(), &e.to_string())],
    };
    match handle_msg(s, conn, me, msg, actions).await {
        Ok(v) => v.iter().map(text).collect(),
        Err(e) => vec![api_err(e)],
    }
}

pub(super) async fn handle_msg(
    s: &OnlineState,
    conn: u64,
    me: &mut Option<crate::store::PlayerInfo>,
    msg: LobbyMsg,
    actions: &mut Bucket,
) -> Result<Vec<LobbyOut>, ApiError> {
    let lobby = &s.inner.lobby;
    let limits = &s.inner.limits;
    let rate_limited = || {
        ApiError::new(
            ErrorCode::RateLimited,
            format!("at most {} challenges or seeks a second", limits.lobby_actions_per_sec),
        )
    };
    match msg {
        LobbyMsg::Ping {} => Ok(vec![LobbyOut::Pong]),
        LobbyMsg::Hello { .. } => Err(ApiError::new(ErrorCode::AlreadyHello, "hello is sent once, first")),
        LobbyMsg::Name { name } => {
            let p = me.as_ref().ok_or_else(no_identity)?;
            rename(s, &p.id, &name).await?;
            let fresh = load_player(s, &p.id).await?;
            let v = LobbyOut::You { player: player_json(&fresh) };
            *me = Some(fresh);
            Ok(vec![v])
        }
        LobbyMsg::TransferCode {} => {
            let p = me.as_ref().ok_or_else(no_identity)?;
            if !actions.take() {
                return Err(rate_limited());
            }
            const ALPHABET: &[u8] = b"ABCDEFGHJKMNPQRSTUVWXYZ23456789";
            let mut rng = rand::rngs::StdRng::from_os_rng();
            let code: String = (0..8).map(|_| ALPHABET[rng.random_range(0..ALPHABET.len())] as char).collect();
            let expires = now_ms() + 10 * 60 * 1000;
            s.inner
                .store
                .write(Op::TransferCode { code_hash: hash_secret(&code), player: p.id.clone(), expires })
                .await
                .map_err(|e| ApiError::new(ErrorCode::Storage, e.to_string()))?;
            Ok(vec![LobbyOut::TransferCode { code, expires }])
        }
        LobbyMsg::Challenge { ruleset, side, clock, rated, open } => {
            let p = me.as_ref().ok_or_else(no_identity)?;
            let ruleset = parse_ruleset(&ruleset)?;
            // A fresh view of the player's rating (it may have changed since the hello).
            let fresh = load_player(s, &p.id).await?;
            let by = PlayerRef { id: fresh.id.clone(), name: fresh.name.clone(), rating: rating_in(&fresh, ruleset) };
            let c = {
                let st = lobby.state.lock().expect("lobby lock");
                if st.challenges.iter().filter(|c| c.by.id == by.id).count() >= limits.challenges_per_player {
                    return Err(ApiError::new(
                        ErrorCode::TooManyChallenges,
                        format!("at most {} open challenges per player", limits.challenges_per_player),
                    ));
                }
                if st.challenges.len() >= limits.max_challenges {
                    return Err(ApiError::new(ErrorCode::Busy, "the lobby is full"));
                }
                if !actions.take() {
                    return Err(rate_limited());
                }
                let c = Challenge {
                    id: random_secret(10),
                    ruleset,
                    side: side.unwrap_or(SideChoice::Random),
                    clock,
                    rated,
                    open,
                    created: now_ms(),
                    by,
                    addr: lobby.charges.addr_of(conn),
                };
                if !s.clustered() {
                    announce(s, st, c);
                    return Ok(Vec::new());
                }
                c
            };
            // In a cluster, stored first: the row is what another node's accept takes.
            crate::lobby_shared::store_challenge(s, &c).await?;
            announce(s, lobby.state.lock().expect("lobby lock"), c);
            Ok(Vec::new())
        }
        LobbyMsg::Cancel { id } => {
            let p = me.as_ref().ok_or_else(no_identity)?;
            let mine = || ApiError::new(ErrorCode::NotFound, "no such challenge of yours");
            if !lobby.state.lock().expect("lobby lock").challenges.iter().any(|c| c.id == id && c.by.id == p.id) {
                return Err(mine());
            }
            // In a cluster an accept on another node may take it first.
            if !crate::lobby_shared::take(s, &id, Some(&p.id)).await? {
                return Err(mine());
            }
            let mut st = lobby.state.lock().expect("lobby lock");
            // Without a cluster nothing ran between the check and here; in one, a note
            // may have removed the copy: the row taken is what counts.
            let Some(i) = st.challenges.iter().position(|c| c.id == id) else {
                return if s.clustered() { Ok(Vec::new()) } else { Err(mine()) };
            };
            let c = st.challenges.remove(i);
            drop(st);
            let v = LobbyOut::ChallengeRemoved { id: c.id.clone(), reason: "cancelled" };
            if c.open {
                lobby.send(&v);
            } else {
                lobby.tell_player(&p.id, &v);
            }
            crate::lobby_shared::publish_removed(s, &c.id, &p.id, c.open, &v);
            Ok(Vec::new())
        }
        LobbyMsg::Accept { id } => {
            let p = me.as_ref().ok_or_else(no_identity)?;
            let c = {
                let mut st = lobby.state.lock().expect("lobby lock");
                let i = st
                    .challenges
                    .iter()
                    .position(|c| c.id == id)
                    .ok_or_else(|| ApiError::new(ErrorCode::NotFound, "no such challenge"))?;
                if st.challenges[i].by.id == p.id {
                    return Err(ApiError::new(ErrorCode::OwnChallenge, "you cannot accept your own challenge"));
                }
                // Refused by a quota: the challenge stays open, nothing changed.
                let c = &st.challenges[i];
                let charge =
                    crate::quota::take(s, [c.addr, lobby.charges.addr_of(conn)], [Some(&c.by.id), Some(&p.id)])?;
                if s.clustered() {
                    // The database decides between accepts on several nodes (below).
                    (Challenge { ..clone_challenge(c) }, charge)
                } else {
                    (st.challenges.remove(i), charge)
                }
            };
            let (c, charge) = c;
            if s.clustered() {
                let gone = || ApiError::new(ErrorCode::NotFound, "no such challenge");
                match crate::lobby_shared::take(s, &id, None).await {
                    Ok(true) => lobby.state.lock().expect("lobby lock").challenges.retain(|x| x.id != id),
                    Ok(false) => {
                        crate::quota::give_back(s, charge);
                        return Err(gone());
                    }
                    Err(e) => {
                        crate::quota::give_back(s, charge);
                        return Err(e);
                    }
                }
            }
            let v = LobbyOut::ChallengeRemoved { id: c.id.clone(), reason: "accepted" };
            if c.open {
                lobby.send(&v);
            } else {
                lobby.tell_player(&c.by.id, &v);
            }
            crate::lobby_shared::publish_removed(s, &c.id, &c.by.id, c.open, &v);
            let fresh = match load_player(s, &p.id).await {
                Ok(f) => f,
                Err(e) => {
                    crate::quota::give_back(s, charge);
                    return Err(e);
                }
            };
            let b = PlayerRef { id: fresh.id.clone(), name: fresh.name.clone(), rating: rating_in(&fresh, c.ruleset) };
            let side = match c.side {
                SideChoice::South => Side::South,
                SideChoice::North => Side::North,
                SideChoice::Random => random_side(),
            };
            let terms =
                Terms { ruleset: c.ruleset, clock: c.clock, rated: c.rated, listed: c.open, challenge: Some(c.id) };
            start_match(s, c.by, side, b, terms, charge).await?;
            Ok(Vec::new())
        }
        LobbyMsg::Seek { ruleset, clock, rated } => {
            let p = me.as_ref().ok_or_else(no_identity)?;
            let ruleset = parse_ruleset(&ruleset)?;
            let fresh = load_player(s, &p.id).await?;
            let player =
                PlayerRef { id: fresh.id.clone(), name: fresh.name.clone(), rating: rating_in(&fresh, ruleset) };
            if s.clustered() {
                if !actions.take() {
                    return Err(rate_limited());
                }
                let since = now_ms();
                let addr = lobby.charges.addr_of(conn);
                let k = Seek { node: 0, conn, player, ruleset, clock, rated, since: Instant::now(), addr };
                let m =
                    LobbyOut::Seeking { seek: Some(SeekJson { ruleset: ruleset.to_string(), clock, rated, since }) };
                // Told before the leader may pair it, so that `seeking` comes before `matched`.
                crate::lobby_shared::tell_everywhere(s, &k.player.id, &m);
                if let Err(e) = crate::lobby_shared::seek(s, conn, &k).await {
                    crate::lobby_shared::tell_everywhere(s, &k.player.id, &LobbyOut::Seeking { seek: None });
                    return Err(e);
                }
                return Ok(Vec::new());
            }
            {
                let mut st = lobby.state.lock().expect("lobby lock");
                if st.seeks.iter().any(|k| k.player.id == player.id) {
                    return Err(ApiError::new(ErrorCode::TooManyChallenges, "one quick pairing at a time per player"));
                }
                if !actions.take() {
                    return Err(rate_limited());
                }
                let since_ms = now_ms();
                lobby.tell(
                    &st,
                    &player.id,
                    &LobbyOut::Seeking {
                        seek: Some(SeekJson { ruleset: ruleset.to_string(), clock, rated, since: since_ms }),
                    },
                );
                let addr = lobby.charges.addr_of(conn);
                st.seeks.push(Seek { node: 0, conn, player, ruleset, clock, rated, since: Instant::now(), addr });
            }
            pair_now(s).await;
            Ok(Vec::new())
        }
        LobbyMsg::Unseek {} => {
            crate::lobby_shared::unseek(s, conn).await;
            let mut st = lobby.state.lock().expect("lobby lock");
            let before = st.seeks.len();
            st.seeks.retain(|k| k.conn != conn);
            let _ = before;
            Ok(vec![LobbyOut::Seeking { seek: None }])
        }
    }
}
