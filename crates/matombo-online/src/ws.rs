//! The WebSocket endpoint: the hello, then client messages (turns, resignation, sync) and
//! the room's broadcasts until either side closes.

use std::net::IpAddr;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, State};
use axum::response::Response;
use matombo_api::{ErrorBody, ErrorCode};
use matombo_core::Side;
use serde_json::json;
use tokio::sync::broadcast;

use super::budget::{take_turn_budget, try_connect, Bucket};
use super::handle::{find_room, now_ms, Audience, RoomHandle};
use super::http::{room_error, ApiError, ClientAddr};
use super::lifecycle::{closed_message, end_game, finished, watch_clock};
use super::protocol::{self, ClientMsg};
use super::room::{RoomError, TurnCheck};
use super::store::Op;
use super::views::{clock_json, links, outcome_json, side_str, state_json};
use super::OnlineState;

pub(super) async fn ws_upgrade(
    State(s): State<OnlineState>,
    Path(id): Path<String>,
    ClientAddr(addr): ClientAddr,
    ws: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Result<Response, ApiError> {
    // A plain request (no upgrade) keeps the WebSocket layer's status, in the error body.
    let ws = ws.map_err(|e| ApiError(e.status(), ErrorCode::Malformed, e.body_text()))?;
    let found = find_room(&s, &id).await;
    let guard = try_connect(&s, addr)?;
    let h = match found {
        Ok(h) => h,
        // A browser cannot read the status of a refused upgrade: open the socket, say why
        // and close it, so that the page can tell "no such game" from a lost connection.
        Err(e) if matches!(e.1, ErrorCode::NotFound | ErrorCode::Closed) => {
            let code = if e.1 == ErrorCode::NotFound { 4404 } else { 4410 };
            return Ok(ws.on_upgrade(move |mut socket| async move {
                let _ = socket.send(error_msg(e.1, &e.2, None)).await;
                let frame = axum::extract::ws::CloseFrame { code, reason: e.1.as_str().into() };
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

/// An `error` message: the error body of every answer (`error`, `message`) with the ply.
pub(super) fn error_msg(code: ErrorCode, message: &str, ply: Option<u32>) -> Message {
    crate::metrics::refusal(code);
    let body = ErrorBody::new(code, message);
    Message::Text(json!({"type": "error", "error": body.error, "message": body.message, "ply": ply}).to_string().into())
}

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
    let mut rx = h.tx.subscribe();
    let mut events = h.events.subscribe();
    let seat = {
        let room = h.room.lock().await;
        let seat = token.as_deref().and_then(|t| room.seat_of(t));
        if token.is_some() && seat.is_none() {
            let _ = socket
                .send(error_msg(ErrorCode::BadToken, "this seat token is not valid here: you can watch", None))
                .await;
        }
        let msg = h.state(&room, seat, now_ms(), false).to_string();
        drop(room);
        if socket.send(Message::Text(msg.into())).await.is_err() {
            return;
        }
        seat
    };
    // Who this connection is in chat: its side, or a spectator number.
    let me = match seat {
        Some(side) => side_str(side).to_string(),
        None => format!("w{}", h.watchers.fetch_add(1, Ordering::Relaxed) + 1),
    };
    let mut chat =
        Chat { me, name: String::new(), muted: Default::default(), bucket: Bucket::new(s.inner.limits.chat_per_sec) };
    let name = name.trim().to_string();
    if let Some(side) = seat {
        if super::names::clashes_in_room(&h, side, &name).await {
            let why = "name: looks like the name of the other side's player; choose another";
            let _ = socket.send(error_msg(ErrorCode::InvalidField, why, None)).await;
            return;
        }
    }
    chat.name = name.clone();
    {
        let mut p = h.presence.lock().expect("presence lock");
        match seat {
            Some(side) => p.players[side.index()].push(name.clone()),
            None => p.spectators += 1,
        }
    }
    h.send(&h.presence_json());
    watch_clock(s.clone(), h.clone());
    let mut turns = Bucket::new(s.inner.limits.turns_per_sec);
    let mut messages = Bucket::new(s.inner.limits.messages_per_sec);
    // The server pings; a browser answers by itself, so a live page is never idle.
    let idle = s.inner.limits.ws_idle;
    let mut ping = tokio::time::interval(idle / 3);
    ping.tick().await;
    let mut last_heard = Instant::now();
    let mut limited = 0u32;
    loop {
        tokio::select! {
            incoming = socket.recv() => {
                last_heard = Instant::now();
                // Every frame counts against the rate, whatever its kind.
                let within = messages.take();
                if !within {
                    limited += 1;
                    // Warned once per burst; a client that keeps on is cut off.
                    if limited > 4 * s.inner.limits.messages_per_sec as u32 {
                        break;
                    }
                }
                let text = match incoming {
                    Some(Ok(Message::Text(t))) if within => t,
                    Some(Ok(Message::Binary(_))) if within => {
                        if socket.send(error_msg(ErrorCode::Malformed, "send JSON text messages", None)).await.is_err() {
                            break;
                        }
                        continue;
                    }
                    Some(Ok(Message::Close(_))) | None | Some(Err(_)) => break,
                    Some(Ok(Message::Text(_) | Message::Binary(_))) => {
                        if limited == 1
                            && socket.send(error_msg(ErrorCode::RateLimited, "too many messages; slow down", None)).await.is_err()
                        {
                            break;
                        }
                        continue;
                    }
                    Some(Ok(_)) => continue,
                };
                limited = 0;
                let replies = handle_message(&s, &h, seat, addr, &text, &mut turns, &mut chat).await;
                let mut failed = false;
                for m in replies {
                    if socket.send(m).await.is_err() {
                        failed = true;
                        break;
                    }
                }
                if failed {
                    break;
                }
            }
            _ = s.drained() => {
                let _ = socket.send(super::restart_frame()).await;
                break;
            }
            _ = ping.tick() => {
                if last_heard.elapsed() >= idle {
                    tracing::debug!(room = %h.id, "idle connection closed");
                    break;
                }
                if socket.send(Message::Ping(Default::default())).await.is_err() {
                    break;
                }
            }
            e = events.recv() => match e {
                Ok(t) => {
                    let mine = match t.to {
                        Audience::Players => seat.is_some(),
                        Audience::Spectators | Audience::NotSeated => seat.is_none(),
                        Audience::Side(x) => seat == Some(x),
                    };
                    let muted = t.from.as_ref().is_some_and(|f| chat.muted.contains(f));
                    if mine && !muted && socket.send(Message::Text(t.text)).await.is_err() {
                        break;
                    }
                }
                Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(broadcast::error::RecvError::Closed) => break,
            },
            b = rx.recv() => match b {
                Ok(text) => {
                    if socket.send(Message::Text(text)).await.is_err() {
                        break;
                    }
                }
                Err(broadcast::error::RecvError::Lagged(_)) => {
                    // Missed broadcasts: send the whole state instead.
                    let room = h.room.lock().await;
                    let msg = h.state(&room, seat, now_ms(), false).to_string();
                    drop(room);
                    if socket.send(Message::Text(msg.into())).await.is_err() {
                        break;
                    }
                }
                Err(broadcast::error::RecvError::Closed) => break,
            },
        }
    }
    {
        let mut p = h.presence.lock().expect("presence lock");
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
    h.send(&h.presence_json());
}

/// A connection's chat: who it is, its name, whom it muted, its rate.
pub(super) struct Chat {
    me: String,
    name: String,
    muted: std::collections::HashSet<String>,
    bucket: Bucket,
}

/// Handles one client message; returns the direct replies (broadcasts go to everyone).
pub(super) async fn handle_message(
    s: &OnlineState,
    h: &Arc<RoomHandle>,
    seat: Option<Side>,
    addr: Option<IpAddr>,
    text: &str,
    turns: &mut Bucket,
    chat: &mut Chat,
) -> Vec<Message> {
    let msg = match protocol::parse(text.as_bytes()) {
        Ok(m) => m,
        Err(e) => return vec![error_msg(e.code(), &e.to_string(), None)],
    };
    match msg {
        ClientMsg::Ping {} => vec![Message::Text(r#"{"type":"pong"}"#.into())],
        ClientMsg::Hello { .. } => vec![error_msg(ErrorCode::AlreadyHello, "hello is sent once, first", None)],
        ClientMsg::Sync {} => {
            let room = h.room.lock().await;
            vec![Message::Text(h.state(&room, seat, now_ms(), false).to_string().into())]
        }
        ClientMsg::Chat { text } => {
            if !chat.bucket.take() {
                return vec![error_msg(ErrorCode::RateLimited, "at most one chat line a second", None)];
            }
            // Plain text, relayed as a JSON string: never read as markup here.
            let channel = if seat.is_some() { "players" } else { "spectators" };
            let v = json!({
                "type": "chat",
                "channel": channel,
                "from": chat.me,
                "name": chat.name,
                "text": text,
                "at": now_ms(),
            });
            let to = if seat.is_some() { Audience::Players } else { Audience::Spectators };
            h.target(to, Some(chat.me.clone()), &v);
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
            if let Err(e) = s.inner.store.write(Op::Abort { id: room.id.clone(), at: now_ms() }).await {
                return vec![error_msg(ErrorCode::Storage, &e.to_string(), Some(0))];
            }
            h.closed.store(true, Ordering::Release);
            drop(room);
            h.send(&json!({
                "type": "closed",
                "reason": "aborted",
                "by": side_str(side),
                "message": closed_message(&s.inner.limits, "aborted"),
            }));
            finished(s, h);
            h.clock_changed.notify_one();
            Vec::new()
        }
        ClientMsg::Rematch {} => rematch(s, h, seat, addr).await,
        ClientMsg::Resign {} => {
            let mut room = h.room.lock().await;
            let now = now_ms();
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
            let now = now_ms();
            if let Some(o) = room.flag_due(now) {
                let _ = end_game(s, h, &mut room, o, now).await;
            }
            match room.check_turn(seat, ply, &turn, now) {
                Err(e) => {
                    let mut out = vec![error_msg(room_error(&e), &e.to_string(), Some(room.ply()))];
                    if matches!(e, RoomError::Stale { .. } | RoomError::Ahead { .. }) {
                        // The client is out of step: give it the whole state to resynchronise.
                        out.push(Message::Text(state_json(&room, seat, now, false).to_string().into()));
                    }
                    out
                }
                Ok(TurnCheck::Duplicate) => {
                    vec![Message::Text(json!({"type": "ack", "ply": ply, "duplicate": true}).to_string().into())]
                }
                Ok(TurnCheck::New(p)) => {
                    let before = room.clocks.clone();
                    room.commit_turn(&p);
                    let end = room.game.outcome();
                    let op = Op::Turn {
                        id: room.id.clone(),
                        ply: p.ply,
                        token: p.token.to_string(),
                        remaining: p.remaining,
                        at: p.at,
                        end,
                    };
                    // Stored before anyone is told; on failure the turn is taken back.
                    if let Err(e) = s.inner.store.write(op).await {
                        room.game.undo();
                        room.clocks = before;
                        tracing::error!(room = %room.id, error = %e, "turn not stored");
                        return vec![error_msg(
                            ErrorCode::Storage,
                            "the turn could not be stored; try again",
                            Some(p.ply),
                        )];
                    }
                    let v = json!({
                        "type": "turn",
                        "ply": p.ply,
                        "move": p.token.to_string(),
                        "side": side_str(p.side),
                        "position": room.game.position().to_string(),
                        "clock": clock_json(&room, now),
                        "outcome": outcome_json(end),
                    });
                    h.send(&v);
                    crate::metrics::turn_done(arrived);
                    if end.is_some() {
                        finished(s, h);
                    }
                    h.clock_changed.notify_one();
                    Vec::new()
                }
            }
        }
    }
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
        room.clocks.as_ref().map(|c| c.control),
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
                h.send(&json!({"type": "rematch", "offered_by": side_str(side)}));
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
            return vec![error_msg(e.1, &e.2, None)];
        }
    };
    let (id, tokens) = match made {
        Ok(x) => x,
        Err(e) => {
            h.rematch.lock().expect("rematch lock").1 = None;
            return vec![error_msg(e.1, &e.2, None)];
        }
    };
    h.rematch.lock().expect("rematch lock").1 = Some(id.clone());
    for old in [Side::South, Side::North] {
        let new_side = old.opponent();
        let token = &tokens[new_side.index()];
        h.target(
            Audience::Side(old),
            None,
            &json!({
                "type": "rematch_ready",
                "room": id,
                "side": side_str(new_side),
                "token": token,
                "links": links(&id, Some(token), None),
            }),
        );
    }
    h.target(
        Audience::NotSeated,
        None,
        &json!({"type": "rematch_ready", "room": id, "side": null, "token": null, "links": links(&id, None, None)}),
    );
    Vec::new()
}
