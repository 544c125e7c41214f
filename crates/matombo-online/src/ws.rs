//! The WebSocket endpoint: the hello, then client messages (turns, resignation, sync) and
//! the room's broadcasts until either side closes.

use std::net::IpAddr;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, State};
use axum::response::Response;
use matombo_api::online::{to_text, RoomMsg, WireError};
use matombo_api::ErrorCode;
use matombo_core::Side;
use tokio::sync::broadcast;

use super::budget::{take_turn_budget, try_connect, Bucket};
use super::handle::{find_room, Audience, RoomHandle, Targeted};
use super::http::{room_error, ApiError, ClientAddr};
use super::lifecycle::{closed_message, end_game, finished, watch_clock};
use super::protocol::{self, ClientMsg};
use super::pump::{pump, Feed, Session};
use super::room::{RoomError, TurnCheck};
use super::store::{Op, StoreError};
use super::views::{clock_json, links, outcome_json, side_json, side_str, state_json};
use super::OnlineState;

pub(super) async fn ws_upgrade(
    State(s): State<OnlineState>,
    Path(id): Path<String>,
    ClientAddr(addr): ClientAddr,
    ws: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Result<Response, ApiError> {
    // A plain request (no upgrade) keeps the WebSocket layer's status, in the error body.
    let ws = ws.map_err(crate::error::upgrade_refused)?;
    let found = find_room(&s, &id).await;
    let guard = try_connect(&s, addr)?;
    let h = match found {
        Ok(h) => h,
        // A browser cannot read the status of a refused upgrade: open the socket, say why
        // and close it, so that the page can tell "no such game" from a lost connection.
        Err(e) if matches!(e.code(), ErrorCode::NotFound | ErrorCode::Closed) => {
            let code = if e.code() == ErrorCode::NotFound { 4404 } else { 4410 };
            return Ok(ws.on_upgrade(move |mut socket| async move {
                let _ = socket.send(error_msg(e.code(), e.message(), None)).await;
                let frame = axum::extract::ws::CloseFrame { code, reason: e.code().as_str().into() };
                let _ = socket.send(Message::Close(Some(frame))).await;
                drop(guard);
            }));
        }
        Err(e) => return Err(e),
    };
    // Frames above this are refused by the WebSocket layer (close code 1009); between
    // MAX_MESSAGE and this, the protocol answers with a clear error.
    Ok(ws.max_message_size(64 * 1024).max_frame_size(64 * 1024).on_upgrade(move |socket| async move {
        let _open = crate::metrics::websocket_open("room");
        connection(s, h, socket, addr).await;
        drop(guard);
    }))
}

pub(super) use super::pump::error_msg;

/// One connection: hello, then messages and broadcasts until either side closes.
pub(super) async fn connection(s: OnlineState, h: Arc<RoomHandle>, mut socket: WebSocket, addr: Option<IpAddr>) {
    // The first message must be a hello (within 10 s).
    let first = tokio::time::timeout(Duration::from_secs(10), socket.recv()).await;
    let (token, name) = match first {
        Ok(Some(Ok(Message::Text(t)))) => match protocol::parse(t.as_bytes()) {
            Ok(ClientMsg::Hello { token, name }) => (token, name.unwrap_or_default()),
            Ok(_) => {
                let _ = socket.send(error_msg(ErrorCode::HelloFirst, "the first message must be a hello", None)).await;
                return;
            }
            Err(e) => {
                let _ = socket.send(error_msg(e.code(), &e.to_string(), None)).await;
                return;
            }
        },
        _ => return,
    };
    let rx = h.tx.subscribe();
    let events = h.events.subscribe();
    let (seat, member, roster_name) = {
        let mut room = h.room.lock().await;
        let mut seat = token.as_deref().and_then(|t| room.seat_of(t));
        if seat.is_none() && token.is_some() && room.teams.is_some() && s.clustered() {
            // A member who joined through another node may come before its note: the store
            // has him.
            super::bus::reload(&s, &h, &mut room).await;
            seat = token.as_deref().and_then(|t| room.seat_of(t));
        }
        if token.is_some() && seat.is_none() {
            let _ = socket
                .send(error_msg(ErrorCode::BadToken, "this seat token is not valid here: you can watch", None))
                .await;
        }
        // A team member is known by his own token: his id, and the name he joined with.
        let m =
            token.as_deref().and_then(|t| room.teams.as_ref()?.member_of(t)).map(|m| (m.id.clone(), m.name.clone()));
        match m {
            Some((id, n)) => (seat, Some(id), Some(n)),
            None => (seat, None, None),
        }
    };
    let name = roster_name.unwrap_or_else(|| name.trim().to_string());
    if let (Some(side), None) = (seat, &member) {
        if super::names::clashes_in_room(&h, side, &name).await {
            let why = "name: looks like the name of the other side's player; choose another";
            let _ = socket.send(error_msg(ErrorCode::InvalidField, why, None)).await;
            return;
        }
    }
    // A spectator takes one of the room's places (and of his address's) until he leaves.
    let place = match seat {
        Some(_) => None,
        None => match super::audience::take_place(&s, &h, addr) {
            Ok(p) => Some(p),
            Err(e) => {
                let _ = socket.send(error_msg(e.code(), e.message(), None)).await;
                let frame = axum::extract::ws::CloseFrame { code: 4429, reason: e.code().as_str().into() };
                let _ = socket.send(Message::Close(Some(frame))).await;
                return;
            }
        },
    };
    {
        let room = h.room.lock().await;
        let msg = to_text(&RoomMsg::State(super::teamws::state_for(&h, &room, seat, member.as_deref())));
        drop(room);
        if socket.send(Message::Text(msg.into())).await.is_err() {
            drop(place);
            return;
        }
    }
    // Who this connection is in chat: its side, or a spectator number.
    let me = match seat {
        Some(side) => side_str(side).to_string(),
        None => format!("w{}", h.watchers.fetch_add(1, Ordering::Relaxed) + 1),
    };
    let chat =
        Chat { me, name: name.clone(), muted: Default::default(), bucket: Bucket::new(s.inner.limits.chat_per_sec) };
    {
        let mut p = h.presence.lock().expect("presence lock");
        match seat {
            Some(side) => p.players[side.index()].push(name.clone()),
            None => p.spectators += 1,
        }
        if let Some(m) = &member {
            *p.members.entry(m.clone()).or_default() += 1;
        }
    }
    super::audience::presence_changed(&h);
    s.publish_presence(&h);
    watch_clock(s.clone(), h.clone());
    let turns = Bucket::new(s.inner.limits.turns_per_sec);
    let team = super::teamws::TeamBudget::new(s.inner.limits.chat_per_sec);
    let mut session =
        RoomSession { s: s.clone(), h: h.clone(), seat, member: member.clone(), addr, turns, chat, team, rx, events };
    pump(&s, &mut socket, &mut session).await;
    {
        let mut p = h.presence.lock().expect("presence lock");
        if let Some(m) = &member {
            if let Some(n) = p.members.get_mut(m) {
                *n -= 1;
                if *n == 0 {
                    p.members.remove(m);
                }
            }
        }
        match seat {
            Some(side) => {
                let v = &mut p.players[side.index()];
                if let Some(i) = v.iter().position(|n| *n == name) {
                    v.swap_remove(i);
                }
            }
            None => p.spectators = p.spectators.saturating_sub(1),
        }
    }
    drop(place);
    super::audience::presence_changed(&h);
    s.publish_presence(&h);
    if member.is_some() {
        // The one who had not voted left: the others' votes decide now.
        super::teamws::close_if_all_voted(&s, &h).await;
    }
}

/// A room connection's part for the pump: its seat, budgets, chat and the room's channels.
pub(super) struct RoomSession {
    pub(super) s: OnlineState,
    pub(super) h: Arc<RoomHandle>,
    pub(super) seat: Option<Side>,
    /// A team game's member id of this connection (the seat comes with it).
    pub(super) member: Option<String>,
    addr: Option<IpAddr>,
    turns: Bucket,
    pub(super) chat: Chat,
    /// Marks, proposals and votes, each paced like chat.
    pub(super) team: super::teamws::TeamBudget,
    rx: broadcast::Receiver<Utf8Bytes>,
    events: broadcast::Receiver<Targeted>,
}

impl RoomSession {
    /// A member removed by his captain (here or on another node) holds nothing any more:
    /// the connection watches from now on. True if that just happened.
    pub(super) fn demoted(&mut self) -> bool {
        let Some(m) = &self.member else { return false };
        // No waiting here: the fan-out must not lose a message to a cancelled wait.
        if !self.h.is_removed(m) {
            return false;
        }
        self.member = None;
        self.seat = None;
        self.chat.me = format!("w{}", self.h.watchers.fetch_add(1, Ordering::Relaxed) + 1);
        true
    }
}

impl Session for RoomSession {
    async fn message(&mut self, text: &str) -> Vec<Message> {
        let mut out = Vec::new();
        if self.demoted() {
            out.push(error_msg(ErrorCode::BadToken, "you were removed from your team: you can watch", None));
        }
        out.extend(handle_message(self, text).await);
        out
    }

    async fn feed(&mut self) -> Feed {
        tokio::select! {
            e = self.events.recv() => match e {
                Ok(t) => {
                    // A member removed meanwhile gets nothing meant for his side any more.
                    if self.member.is_some()
                        && !matches!(t.to, Audience::Spectators | Audience::NotSeated)
                        && self.demoted()
                    {
                        let why = "you were removed from your team: you can watch";
                        return Feed::Send(to_text(&RoomMsg::Error(WireError::new(ErrorCode::BadToken, why, None))).into());
                    }
                    let seat = self.seat;
                    let mine = match t.to {
                        Audience::Players => seat.is_some(),
                        Audience::Spectators | Audience::NotSeated => seat.is_none(),
                        Audience::Side(x) => seat == Some(x),
                        // Team messages: only the side's members still on its roster.
                        Audience::Team(x) => seat == Some(x) && self.member.is_some(),
                    };
                    let muted = t.from.as_ref().is_some_and(|f| self.chat.muted.contains(f));
                    if mine && !muted { Feed::Send(t.text) } else { Feed::Skip }
                }
                Err(broadcast::error::RecvError::Lagged(_)) => Feed::Skip,
                Err(broadcast::error::RecvError::Closed) => Feed::End,
            },
            b = self.rx.recv() => match b {
                Ok(text) => Feed::Send(text),
                Err(broadcast::error::RecvError::Lagged(_)) => {
                    // Missed broadcasts: send the whole state instead.
                    let room = self.h.room.lock().await;
                    let state = super::teamws::state_for(&self.h, &room, self.seat, self.member.as_deref());
                    Feed::Send(to_text(&RoomMsg::State(state)).into())
                }
                Err(broadcast::error::RecvError::Closed) => Feed::End,
            },
        }
    }
}

/// A connection's chat: who it is, its name, whom it muted, its rate.
pub(super) struct Chat {
    pub(super) me: String,
    pub(super) name: String,
    muted: std::collections::HashSet<String>,
    pub(super) bucket: Bucket,
}

/// Handles one client message; returns the direct replies (broadcasts go to everyone).
pub(super) async fn handle_message(x: &mut RoomSession, text: &str) -> Vec<Message> {
    let msg = match protocol::parse(text.as_bytes()) {
        Ok(m) => m,
        Err(e) => return vec![error_msg(e.code(), &e.to_string(), None)],
    };
    let (s, h, seat, addr) = (&x.s.clone(), &x.h.clone(), x.seat, x.addr);
    // Team games: who may act for his side, and the team's own messages.
    let msg = match super::teamws::handle(x, msg).await {
        Ok(m) => m,
        Err(out) => return out,
    };
    let member = x.member.clone();
    let (turns, chat) = (&mut x.turns, &mut x.chat);
    match msg {
        ClientMsg::Ping {} => vec![text_msg(&RoomMsg::Pong)],
        ClientMsg::Hello { .. } => vec![error_msg(ErrorCode::AlreadyHello, "hello is sent once, first", None)],
        ClientMsg::Sync {} => {
            let room = h.room.lock().await;
            vec![text_msg(&RoomMsg::State(super::teamws::state_for(h, &room, seat, x.member.as_deref())))]
        }
        ClientMsg::Chat { text, .. } => {
            if !chat.bucket.take() {
                return vec![error_msg(ErrorCode::RateLimited, "at most one chat line a second", None)];
            }
            // The whole channel's rate: many connections do not multiply the fan-out.
            if let Err(why) = super::audience::take_chat(s, h, seat.is_some()) {
                return vec![error_msg(ErrorCode::RateLimited, &why, None)];
            }
            // Plain text, relayed as a JSON string: never read as markup here.
            let channel = if seat.is_some() { "players" } else { "spectators" };
            let v = RoomMsg::Chat { channel, from: chat.me.clone(), name: chat.name.clone(), text, at: s.now() };
            let to = if seat.is_some() { Audience::Players } else { Audience::Spectators };
            h.target(to, Some(chat.me.clone()), &v);
            s.publish_targeted(&h.id, to, Some(chat.me.clone()), &v);
            Vec::new()
        }
        ClientMsg::Mute { from } => {
            if chat.muted.len() < 256 {
                chat.muted.insert(from);
            }
            Vec::new()
        }
        ClientMsg::Unmute { from } => {
            chat.muted.remove(&from);
            Vec::new()
        }
        ClientMsg::Resign {} | ClientMsg::Turn { .. } | ClientMsg::Abort {} | ClientMsg::Rematch {}
            if h.closed.load(Ordering::Acquire) =>
        {
            vec![error_msg(ErrorCode::Closed, "this game was closed", None)]
        }
        ClientMsg::Abort {} => {
            let Some(side) = seat else {
                return vec![error_msg(ErrorCode::NotAPlayer, "only a player can abort the game", None)];
            };
            let room = h.room.lock().await;
            if room.game.is_over() {
                return vec![error_msg(ErrorCode::GameOver, "the game is over", Some(room.ply()))];
            }
            if room.ply() > 0 {
                return vec![error_msg(
                    ErrorCode::CannotAbort,
                    "a game is aborted only before its first turn; resign instead",
                    Some(room.ply()),
                )];
            }
            if let Err(e) = s.inner.store.write(Op::Abort { id: room.id.clone(), at: s.now() }).await {
                return vec![error_msg(ErrorCode::Storage, &e.to_string(), Some(0))];
            }
            h.closed.store(true, Ordering::Release);
            drop(room);
            let msg = RoomMsg::Closed {
                reason: "aborted",
                by: Some(side_json(side)),
                message: closed_message(&s.inner.limits, "aborted"),
            };
            h.send(&msg);
            s.publish_closed(&h.id, &msg);
            finished(s, h);
            h.clock_changed.notify_one();
            Vec::new()
        }
        ClientMsg::Rematch {} => rematch(s, h, seat, addr).await,
        ClientMsg::Resign {} => {
            let mut room = h.room.lock().await;
            let now = s.now();
            let outcome = match room.check_resign(seat) {
                Ok(o) => o,
                Err(e) => return vec![error_msg(room_error(&e), &e.to_string(), Some(room.ply()))],
            };
            if let Err(e) = end_game(s, h, &mut room, outcome, now).await {
                return vec![error_msg(ErrorCode::Storage, &e, Some(room.ply()))];
            }
            Vec::new()
        }
        ClientMsg::Turn { ply, turn } => {
            let arrived = Instant::now();
            if seat.is_some() && !turns.take() {
                return vec![error_msg(ErrorCode::RateLimited, "too many turns per second", Some(ply))];
            }
            let mut room = h.room.lock().await;
            if seat.is_some() {
                // Only the side to move spends the room's budget: the other side's turns are
                // refused anyway, and must not use up the mover's (and run its clock down).
                let mover = seat == Some(room.to_move()) && !room.game.is_over();
                if let Err(why) = take_turn_budget(s, h, addr, mover) {
                    return vec![error_msg(ErrorCode::RateLimited, &why, Some(ply))];
                }
            }
            let now = s.now();
            if let Some(o) = room.flag_due(now) {
                let _ = end_game(s, h, &mut room, o, now).await;
            }
            let mut checked = room.check_turn(seat, ply, &turn, now);
            if s.clustered() && matches!(checked, Err(RoomError::Ahead { .. })) {
                // This node's copy may be behind the store (a note not yet read): read it
                // back and check again.
                super::bus::reload(s, h, &mut room).await;
                checked = room.check_turn(seat, ply, &turn, now);
            }
            match checked {
                Err(e) => {
                    let mut out = vec![error_msg(room_error(&e), &e.to_string(), Some(room.ply()))];
                    if matches!(e, RoomError::Stale { .. } | RoomError::Ahead { .. }) {
                        // The client is out of step: give it the whole state to resynchronise.
                        let state = match h.team_mode {
                            // A team member's state keeps his team's part.
                            Some(_) => super::teamws::state_for(h, &room, seat, member.as_deref()),
                            None => state_json(&room, seat, now, false),
                        };
                        out.push(text_msg(&RoomMsg::State(state)));
                    }
                    out
                }
                Ok(TurnCheck::Duplicate) => {
                    vec![text_msg(&RoomMsg::Ack { ply, duplicate: true })]
                }
                Ok(TurnCheck::New(p)) => play_checked(s, h, &mut room, p, seat, arrived).await,
            }
        }
        // Handled by `teamws`.
        ClientMsg::Captain { .. }
        | ClientMsg::Remove { .. }
        | ClientMsg::Propose { .. }
        | ClientMsg::Vote { .. }
        | ClientMsg::Mark { .. } => Vec::new(),
    }
}

/// Stores a checked turn, then applies and broadcasts it (a team's vote closing plays its
/// turn here too); a turn another node stored first resynchronises the client.
pub(super) async fn play_checked(
    s: &OnlineState,
    h: &Arc<RoomHandle>,
    room: &mut super::room::Room,
    p: super::room::PreparedTurn,
    seat: Option<Side>,
    arrived: Instant,
) -> Vec<Message> {
    let before = room.clocks.clone();
    let vote_before = room.teams.as_ref().and_then(|t| t.vote.clone());
    room.commit_turn(&p);
    let end = room.game.outcome();
    let op =
        Op::Turn { id: room.id.clone(), ply: p.ply, token: p.token.to_string(), remaining: p.remaining, at: p.at, end };
    // Stored before anyone is told; on failure the turn is taken back.
    if let Err(e) = s.inner.store.write(op).await {
        room.game.undo();
        room.clocks = before;
        if let Some(t) = room.teams.as_mut() {
            t.vote = vote_before;
        }
        if let StoreError::PlyTaken { .. } | StoreError::Closed(_) = e {
            // Another node stored this ply (or ended the game) first: the
            // store decides. The client gets the winner's turn, as a
            // resynchronisation, and may play on from there.
            super::bus::reload(s, h, room).await;
            let now = s.now();
            let mut out = vec![error_msg(
                ErrorCode::Stale,
                &format!("turn {} was played first by another connection", p.ply),
                Some(room.ply()),
            )];
            if let Some((i, token)) = room.game.moves().iter().enumerate().nth(p.ply as usize) {
                let side = room.game.positions()[i].side_to_move();
                out.push(text_msg(&RoomMsg::Turn {
                    ply: p.ply,
                    token: token.to_string(),
                    side: side_json(side),
                    position: room
                        .game
                        .positions()
                        .get(i + 1)
                        .map_or_else(|| room.game.position().to_string(), |pos| pos.to_string()),
                    clock: clock_json(room, now),
                    outcome: outcome_json(room.game.outcome()),
                }));
            }
            out.push(text_msg(&h.state(room, seat, now, false)));
            return out;
        }
        tracing::error!(room = %room.id, error = %e, "turn not stored");
        return vec![error_msg(ErrorCode::Storage, "the turn could not be stored; try again", Some(p.ply))];
    }
    let v = RoomMsg::Turn {
        ply: p.ply,
        token: p.token.to_string(),
        side: side_json(p.side),
        position: room.game.position().to_string(),
        clock: clock_json(room, s.now()),
        outcome: outcome_json(end),
    };
    h.send(&v);
    s.publish_turn(&h.id, &p, &v);
    crate::metrics::turn_done(arrived);
    if end.is_some() {
        finished(s, h);
    }
    h.clock_changed.notify_one();
    Vec::new()
}

/// A rematch offered, or accepted by the other side: the new room (colours swapped, same
/// ruleset, clock, players, rated and listed) and each seat holder's new seat.
async fn rematch(s: &OnlineState, h: &Arc<RoomHandle>, seat: Option<Side>, addr: Option<IpAddr>) -> Vec<Message> {
    let Some(side) = seat else {
        return vec![error_msg(ErrorCode::NotAPlayer, "only a player can offer a rematch", None)];
    };
    let room = h.room.lock().await;
    if !room.game.is_over() {
        return vec![error_msg(ErrorCode::NotOver, "a rematch is offered once the game is over", Some(room.ply()))];
    }
    let (ruleset, clock, names) = (
        room.ruleset(),
        room.clocks.as_ref().map(|c| c.fresh()),
        [room.seats[0].name.clone(), room.seats[1].name.clone()],
    );
    drop(room);
    {
        let mut r = h.rematch.lock().expect("rematch lock");
        if let Some(id) = &r.1 {
            return vec![error_msg(ErrorCode::GameOver, &format!("the rematch is already made: game {id}"), None)];
        }
        let offered = r.0;
        match offered {
            Some(by) if by != side => {}
            _ => {
                r.0 = Some(side);
                drop(r);
                s.inner.lobby.charges.offered(&h.id, addr);
                let msg = RoomMsg::Rematch { offered_by: side_json(side) };
                h.send(&msg);
                s.publish_rematch(&h.id, side, &msg);
                return Vec::new();
            }
        }
        // Accepted: mark it made now, so two acceptances make one room.
        r.1 = Some(String::new());
    }
    let meta = h.meta.lock().expect("meta lock").clone();
    // Colours swapped: the new South is the old North.
    let seat_of = |old: usize| (meta.players[old].as_ref().map(|p| p.0.clone()), names[old].clone(), None);
    // The rematch counts against both players' and both addresses' quotas (issue 37).
    let ids = [0, 1].map(|i| meta.players[i].as_ref().map(|p| p.0.as_str()));
    let offer = s.inner.lobby.charges.offer_of(&h.id);
    let made = match super::quota::take(s, [offer, addr], ids) {
        Ok(charge) => {
            super::lobby::create_bound_room(
                s,
                ruleset,
                clock,
                meta.rated,
                meta.listed,
                [seat_of(1), seat_of(0)],
                charge,
            )
            .await
        }
        Err(e) => {
            // Refused: the offer stays, so that it may be accepted later.
            s.inner.lobby.charges.offered(&h.id, offer);
            let mut r = h.rematch.lock().expect("rematch lock");
            r.1 = None;
            return vec![error_msg(e.code(), e.message(), None)];
        }
    };
    let (id, tokens) = match made {
        Ok(x) => x,
        Err(e) => {
            h.rematch.lock().expect("rematch lock").1 = None;
            return vec![error_msg(e.code(), e.message(), None)];
        }
    };
    h.rematch.lock().expect("rematch lock").1 = Some(id.clone());
    for old in [Side::South, Side::North] {
        let new_side = old.opponent();
        let token = &tokens[new_side.index()];
        let msg = RoomMsg::RematchReady {
            room: id.clone(),
            side: Some(side_json(new_side)),
            token: Some(token.clone()),
            links: links(&id, Some(token), None),
        };
        h.target(Audience::Side(old), None, &msg);
        s.publish_targeted(&h.id, Audience::Side(old), None, &msg);
    }
    let msg = RoomMsg::RematchReady { room: id.clone(), side: None, token: None, links: links(&id, None, None) };
    h.target(Audience::NotSeated, None, &msg);
    s.publish_targeted(&h.id, Audience::NotSeated, None, &msg);
    Vec::new()
}

/// A message as a text frame.
fn text_msg(m: &RoomMsg) -> Message {
    Message::Text(to_text(m).into())
}
