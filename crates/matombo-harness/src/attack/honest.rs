//! The honest client measured during every attack: `GET /` at a steady pace, and an
//! online game played turn by turn between two seats (a new room when a game ends).

use std::collections::BTreeMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use matombo_core::{Position, Side};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

use super::net::{self, Ws, HONEST};

/// Time between two honest `GET /`.
const GET_EVERY: Duration = Duration::from_millis(50);
/// Time between two honest turns (under the room's and the connection's budget of 5/s).
const TURN_EVERY: Duration = Duration::from_millis(250);
/// Longer than this is an error.
const WAIT: Duration = Duration::from_secs(5);

/// What the honest client saw.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct HonestReport {
    /// `GET /` sent.
    pub gets: usize,
    /// Median `GET /` time (connect to last byte), ms.
    pub get_p50_ms: f64,
    /// 99th percentile, ms.
    pub get_p99_ms: f64,
    /// `GET /` not answered 200 within 2 s.
    pub get_errors: u64,
    /// Online turns that reached the opponent.
    pub turns: usize,
    /// Median time from a turn sent to the opponent receiving it, ms.
    pub turn_p50_ms: f64,
    /// 99th percentile, ms.
    pub turn_p99_ms: f64,
    /// Failures of online play: rooms not created, refused turns, turns not delivered.
    pub turn_errors: u64,
    /// Errors by kind.
    pub error_kinds: BTreeMap<String, u64>,
}

/// Counters shared by the honest tasks.
#[derive(Default)]
struct Seen {
    gets_us: Mutex<Vec<u32>>,
    turns_us: Mutex<Vec<u32>>,
    get_errors: Mutex<u64>,
    turn_errors: Mutex<u64>,
    kinds: Mutex<BTreeMap<String, u64>>,
}

impl Seen {
    fn error(&self, turn: bool, kind: &str) {
        *if turn { &self.turn_errors } else { &self.get_errors }.lock().expect("counter") += 1;
        *self.kinds.lock().expect("counter").entry(kind.to_string()).or_default() += 1;
    }
}

/// The `p` quantile of sorted microseconds, in ms.
pub fn quantile_ms(sorted: &[u32], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len()) - 1;
    f64::from(sorted[i]) / 1000.0
}

fn micros(d: Duration) -> u32 {
    d.as_micros().min(u128::from(u32::MAX)) as u32
}

/// Runs the honest client against `server` until `until`.
pub async fn run(server: SocketAddr, ruleset: String, until: Instant, seed: u64) -> HonestReport {
    let seen = Seen::default();
    tokio::join!(gets(server, until, &seen), games(server, &ruleset, until, &seen, seed));
    let mut g = std::mem::take(&mut *seen.gets_us.lock().expect("counter"));
    let mut t = std::mem::take(&mut *seen.turns_us.lock().expect("counter"));
    g.sort_unstable();
    t.sort_unstable();
    let get_errors = *seen.get_errors.lock().expect("counter");
    let turn_errors = *seen.turn_errors.lock().expect("counter");
    let error_kinds = seen.kinds.lock().expect("counter").clone();
    HonestReport {
        gets: g.len() + get_errors as usize,
        get_p50_ms: quantile_ms(&g, 0.5),
        get_p99_ms: quantile_ms(&g, 0.99),
        get_errors,
        turns: t.len(),
        turn_p50_ms: quantile_ms(&t, 0.5),
        turn_p99_ms: quantile_ms(&t, 0.99),
        turn_errors,
        error_kinds,
    }
}

async fn gets(server: SocketAddr, until: Instant, seen: &Seen) {
    let mut next = Instant::now();
    while next < until {
        tokio::time::sleep_until(next.into()).await;
        next += GET_EVERY;
        let t0 = Instant::now();
        let a = net::request(HONEST, server, "GET", "/", &[], &[], Duration::from_secs(2)).await;
        if a.status == 200 {
            seen.gets_us.lock().expect("counter").push(micros(t0.elapsed()));
        } else {
            seen.error(false, &format!("GET / {}", a.kind()));
        }
    }
}

/// A room's id and the tokens of its two seats.
pub struct Seats {
    /// Room id.
    pub id: String,
    /// South's seat token.
    pub south: String,
    /// North's seat token.
    pub north: String,
}

/// Creates a room from `src` and claims its second seat; the error is the refusal (status
/// and code).
pub async fn open_room(src: IpAddr, server: SocketAddr, ruleset: &str) -> Result<Seats, String> {
    let body = json!({"ruleset": ruleset, "side": "south", "name": "a"}).to_string();
    let a = net::request(src, server, "POST", "/api/online/rooms", &[], body.as_bytes(), WAIT).await;
    let created: Value = serde_json::from_str(&a.body).unwrap_or_default();
    if a.status != 201 {
        return Err(format!("create {} {}", a.kind(), created["error"].as_str().unwrap_or("")).trim().to_string());
    }
    let id = created["id"].as_str().unwrap_or_default().to_string();
    let body = json!({"invite": created["invite"], "name": "b"}).to_string();
    let a =
        net::request(src, server, "POST", &format!("/api/online/rooms/{id}/claim"), &[], body.as_bytes(), WAIT).await;
    let claimed: Value = serde_json::from_str(&a.body).unwrap_or_default();
    if a.status != 200 {
        return Err(format!("claim {}", a.kind()));
    }
    let token = |v: &Value| v["token"].as_str().unwrap_or_default().to_string();
    Ok(Seats { id, south: token(&created), north: token(&claimed) })
}

/// A seat's WebSocket, introduced with `token`, and the room's state message.
pub async fn join(src: IpAddr, server: SocketAddr, id: &str, token: &str) -> Result<(Ws, Value), String> {
    let mut ws = net::websocket(src, server, &format!("/api/online/rooms/{id}/ws"), None)
        .await
        .map_err(|s| format!("websocket {s}"))?;
    ws.send(Message::text(json!({"type": "hello", "token": token}).to_string()))
        .await
        .map_err(|_| "websocket send".to_string())?;
    loop {
        let v = next_json(&mut ws).await?;
        match v["type"].as_str() {
            Some("state") => return Ok((ws, v)),
            Some("error") => return Err(format!("hello {}", v["error"].as_str().unwrap_or("error"))),
            _ => {}
        }
    }
}

/// The next JSON message, within five seconds.
pub async fn next_json(ws: &mut Ws) -> Result<Value, String> {
    loop {
        match tokio::time::timeout(WAIT, ws.next()).await {
            Err(_) => return Err("no answer".into()),
            Ok(Some(Ok(Message::Text(t)))) => return serde_json::from_str(&t).map_err(|_| "bad JSON".to_string()),
            Ok(Some(Ok(Message::Close(_)))) | Ok(None) | Ok(Some(Err(_))) => return Err("closed".into()),
            Ok(Some(Ok(_))) => {}
        }
    }
}

/// A random legal turn in `pos`, in notation (the engine's, decision by decision).
pub fn random_turn(pos: &Position, rng: &mut SmallRng) -> Option<String> {
    matombo_ai::random_turn(pos, rng).map(|t| t.to_string())
}

/// The position and ply of a `state` or `turn` message, and whether the game is over.
pub fn position_of(v: &Value) -> Option<(Position, u32, bool)> {
    let pos = v["position"].as_str()?.parse().ok()?;
    let ply = v["ply"].as_u64()? as u32;
    Some((pos, ply, !v["outcome"].is_null()))
}

async fn games(server: SocketAddr, ruleset: &str, until: Instant, seen: &Seen, seed: u64) {
    let mut rng = SmallRng::seed_from_u64(seed);
    while Instant::now() < until {
        if let Err(e) = game(server, ruleset, until, seen, &mut rng).await {
            seen.error(true, &e);
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    }
}

/// One honest game, to its end or `until` (then resigned, so that no room is left open).
async fn game(
    server: SocketAddr,
    ruleset: &str,
    until: Instant,
    seen: &Seen,
    rng: &mut SmallRng,
) -> Result<(), String> {
    let seats = open_room(HONEST, server, ruleset).await?;
    let (mut south, state) = join(HONEST, server, &seats.id, &seats.south).await?;
    let (mut north, _) = join(HONEST, server, &seats.id, &seats.north).await?;
    let (mut pos, mut ply, _) = position_of(&state).ok_or("bad state")?;
    let mut next = Instant::now();
    loop {
        let (mover, other) =
            if pos.side_to_move() == Side::South { (&mut south, &mut north) } else { (&mut north, &mut south) };
        if Instant::now() >= until {
            let _ = mover.send(Message::text(json!({"type": "resign"}).to_string())).await;
            let _ = next_json(mover).await;
            return Ok(());
        }
        tokio::time::sleep_until(next.into()).await;
        next = Instant::now() + TURN_EVERY;
        let mv = random_turn(&pos, rng).ok_or("no legal turn")?;
        let t0 = Instant::now();
        mover
            .send(Message::text(json!({"type": "turn", "ply": ply, "move": mv}).to_string()))
            .await
            .map_err(|_| "turn send")?;
        // Both seats receive the turn; the opponent's copy is the one timed.
        let (mut got_other, mut got_mover) = (None, false);
        while got_other.is_none() || !got_mover {
            tokio::select! {
                m = next_json(other), if got_other.is_none() => {
                    let v = m.map_err(|e| format!("turn {e}"))?;
                    match v["type"].as_str() {
                        Some("turn") if v["ply"] == ply => {
                            seen.turns_us.lock().expect("counter").push(micros(t0.elapsed()));
                            got_other = Some(v);
                        }
                        Some("error") => return Err(format!("turn {}", v["error"].as_str().unwrap_or("error"))),
                        _ => {}
                    }
                }
                m = next_json(mover), if !got_mover => {
                    let v = m.map_err(|e| format!("turn {e}"))?;
                    match v["type"].as_str() {
                        Some("turn") if v["ply"] == ply => got_mover = true,
                        Some("error") => return Err(format!("turn {}", v["error"].as_str().unwrap_or("error"))),
                        _ => {}
                    }
                }
            }
        }
        let (p, _, over) = position_of(&got_other.expect("received")).ok_or("bad turn message")?;
        if over {
            return Ok(());
        }
        pos = p;
        ply += 1;
    }
}
