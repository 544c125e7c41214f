//! Issue 37 item 1, rooms through the lobby: one address with 10 player identities posts
//! link-only challenges and accepts each with its own second identity, as fast as the
//! lobby takes them. Each accept makes a room with both seats taken; before the fix none
//! counted against the address's quota, and 9,999 rooms filled the server. The bound: the
//! rooms made from that address stay within its quota (20 unfinished) and its creation
//! budget (2 a second, bursts of 4), and an honest `POST /api/online/rooms` and an honest
//! lobby accept still succeed at the end. Also the lobby client of the rating-farm attack.

use std::collections::HashSet;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

use super::attacks::{Effect, Tally};
use super::net::{self, attacker, Ws};
use super::Scale;

/// The attack's address group (127.11.x.y).
const GROUP: u8 = 10;
/// Identities of the flooding address (the server lets one address make 10 an hour).
const IDENTITIES: usize = 10;
/// Longer than this without the awaited answer is a failure.
const WAIT: Duration = Duration::from_secs(5);

/// A player secret (32–64 letters and digits) made from a label, the same on every run:
/// against a running server (`--url`) a second run finds its identities again instead of
/// spending the address's 10 new identities an hour.
pub(super) fn secret(label: &str) -> String {
    let mut s: String = label.chars().filter(char::is_ascii_alphanumeric).collect();
    while s.len() < 40 {
        s.push('x');
    }
    s.truncate(64);
    s
}

/// A lobby connection from `src` as the identity of `secret`, named `name`: the socket
/// and the player's id; the error is the refusal.
pub(super) async fn identity(
    src: IpAddr,
    server: SocketAddr,
    secret: &str,
    name: &str,
) -> Result<(Ws, String), String> {
    let mut ws =
        net::websocket(src, server, "/api/online/lobby/ws", None).await.map_err(|s| format!("lobby upgrade {s}"))?;
    send(&mut ws, json!({"type": "hello", "player": secret, "name": name})).await?;
    let v = next_of(&mut ws, &["welcome"], WAIT).await?;
    if v["type"] == "error" {
        return Err(format!("hello refused {}", v["error"].as_str().unwrap_or("?")));
    }
    let id = v["you"]["id"].as_str().ok_or("welcome without a player")?.to_string();
    Ok((ws, id))
}

/// Sends a JSON message.
pub(super) async fn send(ws: &mut Ws, v: Value) -> Result<(), String> {
    ws.send(Message::text(v.to_string())).await.map_err(|_| "send failed".to_string())
}

/// The next message of one of `types`, or an `error`, within `wait`; others are skipped.
pub(super) async fn next_of(ws: &mut Ws, types: &[&str], wait: Duration) -> Result<Value, String> {
    let until = Instant::now() + wait;
    loop {
        let left = until.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, ws.next()).await {
            Err(_) => return Err(format!("no {} in time", types.join(" or "))),
            Ok(Some(Ok(Message::Text(t)))) => {
                let v: Value = serde_json::from_str(&t).map_err(|_| "bad JSON".to_string())?;
                let ty = v["type"].as_str().unwrap_or_default();
                if ty == "error" || types.contains(&ty) {
                    return Ok(v);
                }
            }
            Ok(Some(Ok(Message::Close(_)))) | Ok(None) | Ok(Some(Err(_))) => return Err("closed".into()),
            Ok(Some(Ok(_))) => {}
        }
    }
}

/// The refusal code of an `error` message.
pub(super) fn code(v: &Value) -> &str {
    v["error"].as_str().unwrap_or("?")
}

/// `challenger` posts a link-only challenge on tsoro:8 (challenger on `side`) and
/// `acceptor` accepts it: the acceptor's `matched` message and the challenge's id, or the
/// refusal (`challenge CODE`, `accept CODE`; a refused accept's challenge is withdrawn).
/// Every connection of an identity hears of its challenges: one whose identity challenges
/// from several connections at once tells them apart by side.
pub(super) async fn challenge_and_accept(
    challenger: &mut Ws,
    acceptor: &mut Ws,
    rated: bool,
    side: &str,
) -> Result<(Value, String), String> {
    let c = json!({"type": "challenge", "ruleset": "tsoro:8", "side": side, "rated": rated, "open": false});
    send(challenger, c).await?;
    let v = loop {
        let v = next_of(challenger, &["challenge_added"], WAIT).await?;
        if v["type"] == "error" {
            return Err(format!("challenge {}", code(&v)));
        }
        if v["challenge"]["side"] == side {
            break v;
        }
    };
    let id = v["challenge"]["id"].as_str().ok_or("challenge without id")?.to_string();
    send(acceptor, json!({"type": "accept", "id": id})).await?;
    loop {
        let v = next_of(acceptor, &["matched"], WAIT).await?;
        if v["type"] == "error" {
            // Withdrawn, so that the challenger's 3 open challenges are not used up.
            send(challenger, json!({"type": "cancel", "id": id})).await?;
            return Err(format!("accept {}", code(&v)));
        }
        if v["challenge"] == id.as_str() {
            return Ok((v, id));
        }
    }
}

/// The flood; see the module.
pub async fn lobby_flood(server: SocketAddr, until: Instant, scale: Scale, tally: Arc<Tally>) -> Effect {
    let _ = scale; // one size: the server's budgets set the pace, not the attacker's
    let limits = matombo_online::Limits::default();
    let src = attacker(GROUP, 0);
    let mut sockets = Vec::new();
    for i in 0..IDENTITIES {
        match identity(src, server, &secret(&format!("lobbyflood{i}")), &format!("flood{i}")).await {
            Ok((ws, _)) => sockets.push(ws),
            Err(e) => tally.count(format!("identity {e}")),
        }
    }
    if sockets.len() < 2 {
        return Effect { text: format!("only {} identities from one address", sockets.len()), held: false };
    }
    let identities = sockets.len();
    // Pairs of identities, each accepting the other's challenges in turn.
    let rooms = Arc::new(Mutex::new(HashSet::new()));
    let start = Instant::now();
    let mut pairs = Vec::new();
    let mut it = sockets.into_iter();
    while let (Some(mut a), Some(mut b)) = (it.next(), it.next()) {
        let (tally, rooms) = (tally.clone(), rooms.clone());
        pairs.push(tokio::spawn(async move {
            let mut flip = false;
            while Instant::now() < until {
                flip = !flip;
                let (x, y) = if flip { (&mut a, &mut b) } else { (&mut b, &mut a) };
                match challenge_and_accept(x, y, false, "south").await {
                    Ok((m, _)) => {
                        tally.count("accept: matched");
                        rooms.lock().expect("rooms").insert(m["room"].as_str().unwrap_or_default().to_string());
                    }
                    Err(e) => {
                        tally.count(e.clone());
                        if e.contains("closed") || e.contains("failed") {
                            break;
                        }
                        // Under the lobby's own pace (one challenge a second per
                        // connection, 20 frames a second), not the quota's.
                        if e.ends_with("rate_limited") {
                            tokio::time::sleep(Duration::from_millis(100)).await;
                        }
                    }
                }
            }
            (a, b)
        }));
    }
    // The pairs keep their sockets (and their rooms) open while the honest side checks.
    let mut held = Vec::new();
    for p in pairs {
        if let Ok(s) = p.await {
            held.push(s);
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    let made = rooms.lock().expect("rooms").len();
    let post = honest_post(server).await;
    tally.count(format!("honest post /api/online/rooms: {post}"));
    let accept = honest_accept(server).await;
    tally.count(format!("honest lobby accept: {}", accept.as_deref().unwrap_or_else(|e| e)));
    drop(held);
    let budget = 2.0 * limits.rooms_per_sec + limits.rooms_per_sec * seconds;
    let held = made <= limits.rooms_per_addr && made as f64 <= budget && post == "201" && accept.is_ok();
    Effect {
        text: format!(
            "{identities} identities of one address: {made} rooms made in {seconds:.1} s (quota {} unfinished per \
             address, budget {} a second, bursts of {}); honest POST /api/online/rooms {post}, honest lobby accept {}",
            limits.rooms_per_addr,
            limits.rooms_per_sec,
            2.0 * limits.rooms_per_sec,
            accept.as_deref().unwrap_or_else(|e| e),
        ),
        held,
    }
}

/// An honest room created from the honest address: the status.
async fn honest_post(server: SocketAddr) -> String {
    let body = json!({"ruleset": "tsoro:8", "side": "south", "name": "honest"}).to_string();
    net::request(net::HONEST, server, "POST", "/api/online/rooms", &[], body.as_bytes(), WAIT).await.kind()
}

/// Two honest players from addresses of their own meet through a link-only challenge.
async fn honest_accept(server: SocketAddr) -> Result<String, String> {
    let (mut a, _) = identity(attacker(GROUP + 1, 0), server, &secret("lobbyfloodhonesta"), "Honest A").await?;
    let (mut b, _) = identity(attacker(GROUP + 1, 1), server, &secret("lobbyfloodhonestb"), "Honest B").await?;
    challenge_and_accept(&mut a, &mut b, false, "south").await.map(|_| "matched".to_string())
}
