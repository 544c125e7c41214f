//! Room play: a slot opens rooms over HTTP, and each player plays random legal turns over
//! the room's WebSocket, timing the turns it receives.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use matombo_core::{Position, Side};
use rand::{rngs::SmallRng, Rng, SeedableRng};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_tungstenite::tungstenite::Message;

use super::Shared;

/// A minimal HTTP/1.1 POST (loopback only), returning status and JSON body.
async fn http_post(host: &str, path: &str, body: &Value) -> Result<(u16, Value), String> {
    let body = body.to_string();
    let mut s = tokio::net::TcpStream::connect(host).await.map_err(|e| e.to_string())?;
    let req = format!(
        "POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).await.map_err(|e| e.to_string())?;
    let mut buf = Vec::new();
    s.read_to_end(&mut buf).await.map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&buf);
    let (head, body) = text.split_once("\r\n\r\n").ok_or("bad HTTP response")?;
    let status = head.split_whitespace().nth(1).and_then(|s| s.parse().ok()).ok_or("bad HTTP status line")?;
    // Small bodies come whole; a chunked body would need decoding.
    let body = if head.to_ascii_lowercase().contains("transfer-encoding: chunked") {
        body.split_once("\r\n").map(|(_, b)| b).unwrap_or(body).rsplit_once("\r\n0").map_or(body, |(b, _)| b)
    } else {
        body
    };
    let v = serde_json::from_str(body.trim()).map_err(|e| format!("bad JSON from server: {e}"))?;
    Ok((status, v))
}

/// One room slot: open a room, play it with two clients, open another when it ends.
pub(super) async fn slot(shared: Arc<Shared>, index: u64) {
    let mut game = 0u64;
    while Instant::now() < shared.stop_at {
        let body = json!({"ruleset": shared.config.ruleset.to_string(), "side": "south", "name": format!("s{index}")});
        let Some(created) = post_retrying(&shared, shared.host(index), "/api/online/rooms", &body, 201).await else {
            shared.live.error("create room");
            return;
        };
        let id = created["id"].as_str().unwrap_or_default().to_string();
        let claim = json!({"invite": created["invite"], "name": format!("n{index}")});
        let path = format!("/api/online/rooms/{id}/claim");
        let Some(claimed) = post_retrying(&shared, shared.host(index + 1), &path, &claim, 200).await else {
            shared.live.error("claim seat");
            return;
        };
        let sent: Arc<Mutex<HashMap<u32, Instant>>> = Arc::default();
        let seed = shared.config.seed ^ (index << 20) ^ game;
        // South on node `index`, North on the next one: with several nodes every game
        // crosses two of them.
        let south = client(
            shared.clone(),
            index,
            id.clone(),
            created["token"].as_str().unwrap_or_default().into(),
            Side::South,
            sent.clone(),
            seed,
            false,
        );
        let north = client(
            shared.clone(),
            index + 1,
            id,
            claimed["token"].as_str().unwrap_or_default().into(),
            Side::North,
            sent,
            seed ^ 1,
            false,
        );
        let (a, b) = tokio::join!(south, north);
        if a.is_err() || b.is_err() {
            // Counted by the client already.
            return;
        }
        game += 1;
    }
}

/// A POST expecting `status`; with `reconnect`, tried again for up to 10 s (a node
/// draining refuses it, the balancer or the next node answers). A claim that went through
/// before its answer was lost is refused `seat_taken` when tried again: the slot then gives up.
async fn post_retrying(shared: &Shared, host: &str, path: &str, body: &Value, status: u16) -> Option<Value> {
    let tries = if shared.config.reconnect { 40 } else { 1 };
    for i in 0..tries {
        if i > 0 {
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
        if let Ok((s, v)) = http_post(host, path, body).await {
            if s == status {
                return Some(v);
            }
            if s < 500 && s != 429 {
                return None;
            }
        }
    }
    None
}

/// How one connection of a client ended.
enum Ended {
    /// The game ended, or the run did.
    Done,
    /// The connection closed (with `reconnect`: connect again).
    Dropped,
}

pub(super) type Ws = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// One player: moves when it is his turn (after thinking), records when each turn is
/// received from the opponent. Ends at the end of the game or of the run.
#[allow(clippy::too_many_arguments)]
pub(super) async fn client(
    shared: Arc<Shared>,
    node: u64,
    id: String,
    token: String,
    me: Side,
    sent: Arc<Mutex<HashMap<u32, Instant>>>,
    seed: u64,
    lobby_match: bool,
) -> Result<(), ()> {
    let url = format!("ws://{}/api/online/rooms/{id}/ws", shared.host(node));
    let mut joined = lobby_match.then_some(id.as_str());
    // Turns this client has seen played: a state after a reconnection must not be behind.
    let mut acked = 0u32;
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut first = true;
    loop {
        let mut ws = match tokio_tungstenite::connect_async(url.as_str()).await {
            Ok((ws, _)) => ws,
            Err(_) if !first && Instant::now() < shared.stop_at => {
                // The node is gone or draining: the balancer (or the node, back) answers soon.
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
            Err(_) if !first => return Ok(()),
            Err(_) => {
                shared.live.error("connect");
                return Err(());
            }
        };
        if !first {
            shared.live.reconnects.fetch_add(1, Ordering::Relaxed);
        }
        first = false;
        shared.live.connected.fetch_add(1, Ordering::Relaxed);
        let result = play(&shared, &mut ws, &token, me, &sent, &mut rng, &mut joined, &mut acked).await;
        shared.live.connected.fetch_sub(1, Ordering::Relaxed);
        let _ = ws.close(None).await;
        match result {
            Ok(Ended::Dropped) if shared.config.reconnect && Instant::now() < shared.stop_at => continue,
            Ok(Ended::Dropped) if shared.config.reconnect => return Ok(()),
            Ok(Ended::Dropped) => {
                shared.live.error("connection closed");
                return Err(());
            }
            Ok(Ended::Done) => return Ok(()),
            Err(()) => return Err(()),
        }
    }
}

#[allow(clippy::too_many_arguments)]
async fn play(
    shared: &Shared,
    ws: &mut Ws,
    token: &str,
    me: Side,
    sent: &Mutex<HashMap<u32, Instant>>,
    rng: &mut SmallRng,
    joined: &mut Option<&str>,
    acked: &mut u32,
) -> Result<Ended, ()> {
    ws.send(Message::text(json!({"type": "hello", "token": token}).to_string())).await.map_err(|_| ())?;
    let mut pos: Option<Position> = None;
    let mut ply = 0u32;
    let mut move_at: Option<Instant> = None;
    let think = shared.config.think;
    let stop = tokio::time::sleep_until(shared.stop_at.into());
    tokio::pin!(stop);
    loop {
        let wake = move_at.unwrap_or(shared.stop_at + Duration::from_secs(3600));
        tokio::select! {
            _ = &mut stop => return Ok(Ended::Done),
            _ = tokio::time::sleep_until(wake.into()) => {
                move_at = None;
                let Some(p) = &pos else { continue };
                let Some(mv) = matombo_ai::random_turn(p, rng).map(|t| t.to_string()) else { continue };
                sent.lock().expect("sent lock").insert(ply, Instant::now());
                let msg = json!({"type": "turn", "ply": ply, "move": mv}).to_string();
                if ws.send(Message::text(msg)).await.is_err() {
                    return Ok(Ended::Dropped);
                }
            }
            m = ws.next() => {
                let now = Instant::now();
                let text = match m {
                    Some(Ok(Message::Text(t))) => t,
                    Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return Ok(Ended::Dropped),
                    Some(Ok(_)) => continue,
                };
                let Ok(v) = serde_json::from_str::<Value>(&text) else {
                    shared.live.error("bad JSON");
                    continue;
                };
                let over;
                match v["type"].as_str() {
                    Some("state") => {
                        // A lobby match: this player is in the room.
                        if let Some(room) = joined.take() {
                            shared.join_event(room, |j| j.in_room.push(now));
                        }
                        pos = v["position"].as_str().and_then(|s| s.parse().ok());
                        ply = v["ply"].as_u64().unwrap_or(0) as u32;
                        if ply < *acked {
                            shared.live.error("lost acknowledged turn");
                        }
                        *acked = (*acked).max(ply);
                        over = !v["outcome"].is_null();
                    }
                    Some("turn") => {
                        let p = v["ply"].as_u64().unwrap_or(0) as u32;
                        if v["side"] != if me == Side::South { "south" } else { "north" } {
                            if let Some(t0) = sent.lock().expect("sent lock").remove(&p) {
                                if t0 >= shared.measure_from {
                                    let us = now.duration_since(t0).as_micros().min(u128::from(u32::MAX)) as u32;
                                    shared.latencies_us.lock().expect("latencies lock").push(us);
                                }
                                shared.live.turns.fetch_add(1, Ordering::Relaxed);
                            }
                        }
                        pos = v["position"].as_str().and_then(|s| s.parse().ok());
                        ply = p + 1;
                        *acked = (*acked).max(ply);
                        over = !v["outcome"].is_null();
                        if over && me == Side::South {
                            shared.live.games_finished.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                    Some("end") => return Ok(Ended::Done),
                    Some("error") => {
                        shared.live.error(v["error"].as_str().unwrap_or("error"));
                        over = false;
                    }
                    _ => continue,
                }
                if over {
                    return Ok(Ended::Done);
                }
                if pos.as_ref().is_some_and(|p| p.side_to_move() == me) && move_at.is_none() {
                    move_at = Some(now + think.mul_f64(rng.random_range(0.5..1.5)));
                }
            }
        }
    }
}
