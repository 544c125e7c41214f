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
use super::handle::{find_room, now_ms, RoomHandle};
use super::http::{room_error, ApiError, ClientAddr};
use super::lifecycle::{closed_message, end_game, finished, watch_clock};
use super::protocol::{self, ClientMsg};
use super::room::{RoomError, TurnCheck};
use super::store::Op;
use super::views::{clock_json, outcome_json, side_str, state_json};
use super::OnlineState;

pub(super) async fn ws_upgrade(
    State(s): State<OnlineState>,
    Path(id): Path<String>,
    ClientAddr(addr): ClientAddr,
    ws: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Result<Response, ApiError> {
    // A plain request (no upgrade) keeps the WebSocket layer's status, in the error body.
    let ws = ws.map_err(|e| ApiError(e.status(), ErrorCode::Malformed, e.body_text()))?;
    let h = find_room(&s, &id).await?;
    let guard = try_connect(&s, addr)?;
    // Frames above this are refused by the WebSocket layer (close code 1009); between
    // MAX_MESSAGE and this, the protocol answers with a clear error.
    Ok(ws.max_message_size(64 * 1024).max_frame_size(64 * 1024).on_upgrade(move |socket| async move {
        connection(s, h, socket, addr).await;
        drop(guard);
    }))
}

/// An `error` message: the error body of every answer (`error`, `message`) with the ply.
pub(super) fn error_msg(code: ErrorCode, message: &str, ply: Option<u32>) -> Message {
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
    let seat = {
        let room = h.room.lock().await;
        let seat = token.as_deref().and_then(|t| room.seat_of(t));
        if token.is_some() && seat.is_none() {
            let _ = socket
                .send(error_msg(ErrorCode::BadToken, "this seat token is not valid here: you can watch", None))
                .await;
        }
        let msg = state_json(&room, seat, now_ms(), false).to_string();
        drop(room);
        if socket.send(Message::Text(msg.into())).await.is_err() {
            return;
        }
        seat
    };
    let name = name.trim().to_string();
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
                let replies = handle_message(&s, &h, seat, addr, &text, &mut turns).await;
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
            _ = ping.tick() => {
                if last_heard.elapsed() >= idle {
                    tracing::debug!(room = %h.id, "idle connection closed");
                    break;
                }
                if socket.send(Message::Ping(Default::default())).await.is_err() {
                    break;
                }
            }
            b = rx.recv() => match b {
                Ok(text) => {
                    if socket.send(Message::Text(text)).await.is_err() {
                        break;
                    }
                }
                Err(broadcast::error::RecvError::Lagged(_)) => {
                    // Missed broadcasts: send the whole state instead.
                    let room = h.room.lock().await;
                    let msg = state_json(&room, seat, now_ms(), false).to_string();
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

/// Handles one client message; returns the direct replies (broadcasts go to everyone).
pub(super) async fn handle_message(
    s: &OnlineState,
    h: &Arc<RoomHandle>,
    seat: Option<Side>,
    addr: Option<IpAddr>,
    text: &str,
    turns: &mut Bucket,
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
            vec![Message::Text(state_json(&room, seat, now_ms(), false).to_string().into())]
        }
        ClientMsg::Resign {} | ClientMsg::Turn { .. } if h.closed.load(Ordering::Acquire) => {
            let reason = if h.room.lock().await.full() { "abandoned" } else { "unclaimed" };
            vec![error_msg(ErrorCode::Closed, &closed_message(&s.inner.limits, reason), None)]
        }
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
