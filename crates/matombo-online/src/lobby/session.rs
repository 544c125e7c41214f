//! The lobby's WebSocket: a connection's hello, its messages and what it hears.

use super::*;

/// `GET /api/online/challenges/{id}`: one open or link-only challenge, for the page a
/// challenge's link opens (a link-only challenge is in no list).
pub(crate) async fn get_challenge(
    State(s): State<OnlineState>,
    axum::extract::Path(id): axum::extract::Path<String>,
) -> Result<Response, ApiError> {
    let st = s.inner.lobby.state.lock().expect("lobby lock");
    let c = st
        .challenges
        .iter()
        .find(|c| c.id == id)
        .ok_or_else(|| ApiError::new(ErrorCode::NotFound, "no such challenge: taken, withdrawn or never made"))?;
    Ok(axum::Json(challenge_json(c)).into_response())
}

pub(crate) async fn lobby_upgrade(
    State(s): State<OnlineState>,
    ClientAddr(addr): ClientAddr,
    ws: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Result<Response, ApiError> {
    let ws = ws.map_err(crate::error::upgrade_refused)?;
    let place = crate::audience::take_lobby_place(&s, addr)?;
    let guard = try_connect(&s, addr)?;
    Ok(ws.max_message_size(64 * 1024).max_frame_size(64 * 1024).on_upgrade(move |socket| async move {
        let _open = crate::metrics::websocket_open("lobby");
        connection(s, socket, addr).await;
        drop(guard);
        drop(place);
    }))
}

pub(super) fn text(m: &LobbyOut) -> Message {
    Message::Text(to_text(m).into())
}

/// A refusal as the lobby's `error` message.
pub(super) fn api_err(e: ApiError) -> Message {
    lobby_error(e.code(), e.message())
}

/// An `error` message of the lobby.
pub(super) fn lobby_error(code: ErrorCode, message: &str) -> Message {
    crate::metrics::refusal(code);
    text(&LobbyOut::Error(WireError::new(code, message, None)))
}

pub(super) fn storage(e: StoreError) -> ApiError {
    ApiError::new(ErrorCode::Storage, e.to_string())
}

pub(super) fn welcome(s: &OnlineState, me: Option<&crate::store::PlayerInfo>) -> LobbyOut {
    let st = s.inner.lobby.state.lock().expect("lobby lock");
    let challenges =
        st.challenges.iter().filter(|c| c.open || me.is_some_and(|m| m.id == c.by.id)).map(challenge_json).collect();
    let games = st.games.values().cloned().collect();
    LobbyOut::Welcome {
        you: me.map(player_json),
        challenges,
        games,
        seeking: None,
        rated_rules: RatedRules {
            min_turns_each: crate::rating::MIN_TURNS_EACH as u32,
            per_pair_per_day: crate::rating::RATED_PER_PAIR_PER_DAY as u32,
        },
    }
}

pub(super) fn parse_ruleset(r: &str) -> Result<Ruleset, ApiError> {
    r.parse().map_err(|e| ApiError::new(ErrorCode::BadRuleset, format!("{e}")))
}

pub(super) fn no_identity() -> ApiError {
    ApiError::new(ErrorCode::NoIdentity, "send hello with your player secret first")
}

/// One lobby connection: hello, then messages, broadcasts and its own messages.
pub(super) async fn connection(s: OnlineState, mut socket: WebSocket, addr: Option<IpAddr>) {
    let first = tokio::time::timeout(Duration::from_secs(10), socket.recv()).await;
    let hello = match first {
        Ok(Some(Ok(Message::Text(t)))) => protocol::parse_lobby(t.as_bytes()),
        _ => return,
    };
    let me = match hello {
        Ok(LobbyMsg::Hello { player: Some(secret), name, transfer }) => {
            match identify(&s, addr, &secret, name, transfer).await {
                Ok(p) => Some(p),
                Err(e) => {
                    let _ = socket.send(api_err(e)).await;
                    return;
                }
            }
        }
        Ok(LobbyMsg::Hello { player: None, .. }) => None,
        Ok(_) => {
            let _ = socket.send(lobby_error(ErrorCode::HelloFirst, "the first message must be a hello")).await;
            return;
        }
        Err(e) => {
            let _ = socket.send(lobby_error(e.code(), &e.to_string())).await;
            return;
        }
    };
    let conn = s.inner.lobby.next_conn.fetch_add(1, Ordering::Relaxed);
    s.inner.lobby.charges.connected(conn, addr);
    let (own_tx, own_rx) = mpsc::unbounded_channel::<Utf8Bytes>();
    let rx = s.inner.lobby.tx.subscribe();
    s.inner.lobby.state.lock().expect("lobby lock").conns.insert(conn, (me.as_ref().map(|p| p.id.clone()), own_tx));
    if socket.send(text(&welcome(&s, me.as_ref()))).await.is_ok() {
        let limits = &s.inner.limits;
        let actions = Bucket::with_burst(limits.lobby_actions_per_sec, limits.lobby_actions_per_sec.max(1.0));
        let mut session = LobbySession { s: s.clone(), conn, me, actions, own_rx, rx };
        pump(&s, &mut socket, &mut session).await;
    }
    leave(&s, conn);
}

/// A lobby connection's part for the pump: its player, its action budget, the lobby's
/// broadcasts and its own messages.
pub(super) struct LobbySession {
    s: OnlineState,
    conn: u64,
    me: Option<crate::store::PlayerInfo>,
    actions: Bucket,
    own_rx: mpsc::UnboundedReceiver<Utf8Bytes>,
    rx: broadcast::Receiver<Utf8Bytes>,
}

impl Session for LobbySession {
    async fn message(&mut self, t: &str) -> Vec<Message> {
        handle(&self.s, self.conn, &mut self.me, t, &mut self.actions).await
    }

    async fn feed(&mut self) -> Feed {
        tokio::select! {
            own = self.own_rx.recv() => match own {
                Some(t) => Feed::Send(t),
                None => Feed::End,
            },
            b = self.rx.recv() => match b {
                Ok(t) => Feed::Send(t),
                // Missed broadcasts: the whole lobby again.
                Err(broadcast::error::RecvError::Lagged(_)) => {
                    Feed::Send(to_text(&welcome(&self.s, self.me.as_ref())).into())
                }
                Err(broadcast::error::RecvError::Closed) => Feed::End,
            },
        }
    }
}

/// A connection closed: its seek ends, and its player's challenges go with his last
/// connection.
pub(super) fn leave(s: &OnlineState, conn: u64) {
    let lobby = &s.inner.lobby;
    lobby.charges.left(conn);
    let mut st = lobby.state.lock().expect("lobby lock");
    let player = st.conns.remove(&conn).and_then(|(p, _)| p);
    st.seeks.retain(|k| k.conn != conn);
    if s.clustered() {
        let s2 = s.clone();
        tokio::spawn(async move { crate::lobby_shared::unseek(&s2, conn).await });
    }
    let Some(player) = player else { return };
    if st.conns.values().any(|(p, _)| p.as_deref() == Some(player.as_str())) {
        return;
    }
    if s.clustered() {
        // The challenges made through this node go, on every node (the database decides).
        drop(st);
        crate::lobby_shared::left(s, player);
        return;
    }
    let mut gone = Vec::new();
    st.challenges.retain(|c| {
        let keep = c.by.id != player;
        if !keep {
            gone.push((c.id.clone(), c.open));
        }
        keep
    });
    drop(st);
    // A link-only challenge was never listed: nobody else is told of it.
    for (id, _) in gone.into_iter().filter(|(_, open)| *open) {
        lobby.send(&LobbyOut::ChallengeRemoved { id, reason: "left" });
    }
}
