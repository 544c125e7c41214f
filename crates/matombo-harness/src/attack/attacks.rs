//! The attacks of issue 29, each run against the server until a deadline; every request's
//! outcome is counted by kind (status or failure).

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use matombo_core::{Game, Position, Side};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use serde_json::json;
use tokio_tungstenite::tungstenite::Message;

use super::honest::{join, open_room, position_of, random_turn};
use super::net::{self, attacker};
use super::Scale;

/// Outcomes by kind, and free-form figures, of one attack.
#[derive(Default)]
pub struct Tally {
    kinds: Mutex<BTreeMap<String, u64>>,
}

impl Tally {
    /// Counts one outcome.
    pub fn count(&self, kind: impl Into<String>) {
        *self.kinds.lock().expect("tally").entry(kind.into()).or_default() += 1;
    }
    /// The counts.
    pub fn take(&self) -> BTreeMap<String, u64> {
        self.kinds.lock().expect("tally").clone()
    }
}

/// The outcome of an attack apart from the counts: what it achieved and whether the
/// server's bound held.
pub struct Effect {
    /// What the attacker achieved, in words.
    pub text: String,
    /// Whether the bound it tests held (the honest client is judged apart).
    pub held: bool,
}

/// Runs `worker(i)` for `i` in `0..n` until `until`; stragglers are dropped a second later.
async fn workers<F, Fut>(n: usize, until: Instant, worker: F)
where
    F: Fn(usize) -> Fut,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    let tasks: Vec<_> = (0..n).map(|i| tokio::spawn(worker(i))).collect();
    let grace = tokio::time::sleep_until((until + Duration::from_secs(1)).into());
    tokio::pin!(grace);
    for t in tasks {
        let abort = t.abort_handle();
        tokio::select! {
            _ = t => {}
            _ = &mut grace => abort.abort(),
        }
    }
}

/// The request timeout of an attacker: until the deadline, at least a second.
fn left(until: Instant) -> Duration {
    until.saturating_duration_since(Instant::now()).max(Duration::from_secs(1))
}

/// Exports of 100,000 tags and imports of 80,000 (1.4 MB each), several at once.
pub async fn huge_tags(server: SocketAddr, until: Instant, scale: Scale, tally: Arc<Tally>) -> Effect {
    let tags: serde_json::Map<String, serde_json::Value> =
        (0..100_000).map(|i| (format!("Tag{i:06}"), json!("v"))).collect();
    let export = Arc::new(json!({"start": "tsoro:8", "tags": tags}).to_string().into_bytes());
    let text: String = (0..80_000).map(|i| format!("[Tag{i:06} \"v\"]\n")).collect::<String>() + "\n*";
    let import = Arc::new(json!({ "text": text }).to_string().into_bytes());
    let n = if scale == Scale::Short { 4 } else { 8 };
    workers(n, until, |i| {
        let (tally, export, import) = (tally.clone(), export.clone(), import.clone());
        async move {
            while Instant::now() < until {
                let (path, body) =
                    if i % 2 == 0 { ("/api/record/export", &export) } else { ("/api/record/import", &import) };
                let a = net::request(attacker(0, i), server, "POST", path, &[], body, left(until)).await;
                tally.count(format!("{} {}", path.rsplit('/').next().unwrap_or(path), a.kind()));
            }
        }
    })
    .await;
    let accepted: u64 = tally.take().iter().filter(|(k, _)| k.ends_with(" 200")).map(|(_, n)| n).sum();
    Effect { text: format!("{accepted} huge records accepted"), held: accepted == 0 }
}

/// Thousands of connections that never send a byte, spread over many addresses.
pub async fn idle_sockets(server: SocketAddr, until: Instant, scale: Scale, tally: Arc<Tally>) -> Effect {
    // Every descriptor of this process counts: the in-process server's too.
    let fds = matombo_web::limits::raise_open_files().unwrap_or(1024) as usize;
    let want = if scale == Scale::Short { 2_000 } else { 20_000 };
    let n = want.min(fds.saturating_sub(6_000)).max(100);
    let closed_fast = Arc::new(AtomicU64::new(0));
    let closed_late = Arc::new(AtomicU64::new(0));
    let open_now = Arc::new(AtomicU64::new(0));
    let peak = Arc::new(AtomicU64::new(0));
    // 64 workers opening one after the other, 200 from each address (over the server's
    // cap per address).
    let per_worker = n.div_ceil(64);
    workers(64, until, |w| {
        let (tally, closed_fast, closed_late, open_now, peak) =
            (tally.clone(), closed_fast.clone(), closed_late.clone(), open_now.clone(), peak.clone());
        async move {
            let mut held = Vec::new();
            for k in 0..per_worker {
                let i = w * per_worker + k;
                if i >= n || Instant::now() >= until {
                    break;
                }
                match net::connect(attacker(1, i / 200), server).await {
                    Ok(s) => {
                        let now = open_now.fetch_add(1, Ordering::Relaxed) + 1;
                        peak.fetch_max(now, Ordering::Relaxed);
                        tally.count("opened");
                        held.push(tokio::spawn({
                            let (closed_fast, closed_late, open_now) =
                                (closed_fast.clone(), closed_late.clone(), open_now.clone());
                            async move {
                                let mut s = s;
                                let t0 = Instant::now();
                                let mut b = [0u8; 64];
                                let r = tokio::time::timeout(
                                    until.saturating_duration_since(t0),
                                    tokio::io::AsyncReadExt::read(&mut s, &mut b),
                                )
                                .await;
                                open_now.fetch_sub(1, Ordering::Relaxed);
                                if r.is_ok() {
                                    if t0.elapsed() < Duration::from_secs(1) { &closed_fast } else { &closed_late }
                                        .fetch_add(1, Ordering::Relaxed);
                                }
                            }
                        }));
                    }
                    Err(_) => tally.count("connect failed"),
                }
            }
            for h in held {
                let _ = h.await;
            }
        }
    })
    .await;
    let (fast, late) = (closed_fast.load(Ordering::Relaxed), closed_late.load(Ordering::Relaxed));
    Effect {
        text: format!(
            "{n} sockets tried, at most {} open at once; {fast} closed at once (over a cap), {late} closed by the \
             header-read timeout",
            peak.load(Ordering::Relaxed)
        ),
        held: true,
    }
}

/// Many addresses creating rooms until refused.
pub async fn room_fill(server: SocketAddr, until: Instant, scale: Scale, tally: Arc<Tally>) -> Effect {
    let addresses = if scale == Scale::Short { 40 } else { 500 };
    let created_most = Arc::new(Mutex::new(0u64));
    let next = Arc::new(AtomicU64::new(0));
    workers(32, until, |_| {
        let (tally, next, created_most) = (tally.clone(), next.clone(), created_most.clone());
        async move {
            loop {
                let a = next.fetch_add(1, Ordering::Relaxed) as usize;
                if a >= addresses || Instant::now() >= until {
                    return;
                }
                let mut created = 0;
                for _ in 0..25 {
                    let body = json!({"ruleset": "tsoro:8", "side": "south"}).to_string();
                    let r = net::request(
                        attacker(2, a),
                        server,
                        "POST",
                        "/api/online/rooms",
                        &[],
                        body.as_bytes(),
                        left(until),
                    )
                    .await;
                    tally.count(r.kind());
                    if r.status == 201 {
                        created += 1;
                    }
                }
                let mut m = created_most.lock().expect("max");
                *m = (*m).max(created);
            }
        }
    })
    .await;
    let most = *created_most.lock().expect("max");
    let per_addr = matombo_online::Limits::default().rooms_per_addr as u64;
    Effect {
        text: format!("{addresses} addresses; at most {most} rooms created by one (quota {per_addr})"),
        held: most <= per_addr,
    }
}

/// The longest of a few random legal games on tsoro:6, within the API's bound.
fn long_game() -> Vec<String> {
    let mut best = Vec::new();
    for seed in 0..64 {
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut game = Game::new("tsoro:6".parse::<Position>().expect("a start position"));
        let mut moves = Vec::new();
        while !game.is_over() && moves.len() < matombo_web::api::MAX_PLIES {
            let Some(t) = random_turn(game.position(), &mut rng) else { break };
            if game.play(&t.parse().expect("a turn the position made")).is_err() {
                break;
            }
            moves.push(t);
        }
        // The AI needs a turn to play: a finished game loses its last turn.
        if game.is_over() {
            moves.pop();
        }
        if moves.len() > best.len() {
            best = moves;
        }
    }
    best
}

/// A long legal game sent to `/api/ai` at the `max` level from many addresses at once,
/// and games longer than the bound.
pub async fn long_games(server: SocketAddr, until: Instant, scale: Scale, tally: Arc<Tally>) -> Effect {
    let moves = long_game();
    let plies = moves.len();
    let legal = Arc::new(json!({"start": "tsoro:6", "moves": moves, "level": "max"}).to_string().into_bytes());
    let too_long: Vec<&str> = vec!["A1"; matombo_web::api::MAX_PLIES + 1];
    let too_long = Arc::new(json!({"start": "tsoro:6", "moves": too_long, "level": "max"}).to_string().into_bytes());
    let n = if scale == Scale::Short { 24 } else { 96 };
    workers(n, until, |i| {
        let (tally, legal, too_long) = (tally.clone(), legal.clone(), too_long.clone());
        async move {
            while Instant::now() < until {
                let (what, body) = if i % 8 == 7 { ("too long", &too_long) } else { ("legal", &legal) };
                let a = net::request(attacker(3, i), server, "POST", "/api/ai", &[], body, left(until)).await;
                tally.count(format!("{what} {}", a.kind()));
            }
        }
    })
    .await;
    let through: u64 = tally.take().iter().filter(|(k, _)| k.starts_with("too long 200")).map(|(_, n)| n).sum();
    Effect { text: format!("{n} clients; a legal game of {plies} turns at the max level"), held: through == 0 }
}

/// One address drives one room as fast as it can over many connections sharing its two
/// seat links; a new room when the game ends.
pub async fn one_room(server: SocketAddr, until: Instant, scale: Scale, tally: Arc<Tally>) -> Effect {
    let per_seat = if scale == Scale::Short { 8 } else { 31 };
    let src = attacker(4, 0);
    let accepted = Arc::new(AtomicU64::new(0));
    let start = Instant::now();
    let mut rooms = 0;
    while Instant::now() < until {
        let seats = match open_room(src, server, "tsoro:8").await {
            Ok(s) => s,
            Err(e) => {
                tally.count(e);
                tokio::time::sleep(Duration::from_millis(200)).await;
                continue;
            }
        };
        rooms += 1;
        let over = Arc::new(AtomicBool::new(false));
        let seats = Arc::new(seats);
        workers(2 * per_seat, until, |i| {
            let (tally, accepted, over, seats) = (tally.clone(), accepted.clone(), over.clone(), seats.clone());
            async move {
                let token = if i % 2 == 0 { &seats.south } else { &seats.north };
                let me = if i % 2 == 0 { Side::South } else { Side::North };
                let mut rng = SmallRng::seed_from_u64(i as u64);
                while Instant::now() < until && !over.load(Ordering::Relaxed) {
                    let Ok((mut ws, state)) = join(src, server, &seats.id, token).await.map_err(|e| tally.count(e))
                    else {
                        tokio::time::sleep(Duration::from_millis(100)).await;
                        continue;
                    };
                    let Some((mut pos, mut ply, done)) = position_of(&state) else { return };
                    if done {
                        over.store(true, Ordering::Relaxed);
                        return;
                    }
                    loop {
                        if Instant::now() >= until || over.load(Ordering::Relaxed) {
                            return;
                        }
                        if pos.side_to_move() == me {
                            if let Some(mv) = random_turn(&pos, &mut rng) {
                                let m = json!({"type": "turn", "ply": ply, "move": mv}).to_string();
                                if ws.send(Message::text(m)).await.is_err() {
                                    tally.count("closed by the server");
                                    break;
                                }
                                tally.count("turn sent");
                            }
                        }
                        let r = tokio::time::timeout(Duration::from_millis(200), ws.next()).await;
                        let Ok(m) = r else { continue };
                        let Some(Ok(Message::Text(t))) = m else {
                            if !matches!(m, Some(Ok(_))) {
                                tally.count("closed by the server");
                                break;
                            }
                            continue;
                        };
                        let Ok(v) = serde_json::from_str::<serde_json::Value>(&t) else { continue };
                        match v["type"].as_str() {
                            Some("turn") | Some("state") => {
                                if let Some((p, n, done)) = position_of(&v) {
                                    if v["type"] == "turn" && i == 0 {
                                        accepted.fetch_add(1, Ordering::Relaxed);
                                    }
                                    pos = p;
                                    ply = if v["type"] == "turn" { n + 1 } else { n };
                                    if done {
                                        over.store(true, Ordering::Relaxed);
                                        return;
                                    }
                                }
                            }
                            Some("error") => tally.count(format!("refused {}", v["error"].as_str().unwrap_or("error"))),
                            _ => {}
                        }
                    }
                }
            }
        })
        .await;
    }
    let secs = start.elapsed().as_secs_f64().max(0.001);
    let n = accepted.load(Ordering::Relaxed);
    let l = matombo_online::Limits::default();
    // The room's budget, its burst, and one burst per room played.
    let bound = l.room_turns_per_sec * secs + 2.0 * l.room_turns_per_sec * rooms as f64;
    Effect {
        text: format!(
            "{} connections, {rooms} rooms: {n} turns accepted = {:.1}/s (room budget {}/s)",
            2 * per_seat,
            n as f64 / secs,
            l.room_turns_per_sec
        ),
        held: (n as f64) <= bound,
    }
}

/// Create a room, claim it, resign, again, from a few addresses as fast as they can.
pub async fn create_resign(server: SocketAddr, until: Instant, scale: Scale, tally: Arc<Tally>) -> Effect {
    let n = if scale == Scale::Short { 4 } else { 16 };
    let finished = Arc::new(AtomicU64::new(0));
    let start = Instant::now();
    workers(n, until, |i| {
        let (tally, finished) = (tally.clone(), finished.clone());
        async move {
            let src = attacker(5, i);
            while Instant::now() < until {
                let seats = match open_room(src, server, "tsoro:8").await {
                    Ok(s) => s,
                    Err(e) => {
                        tally.count(e);
                        continue;
                    }
                };
                let Ok((mut ws, _)) = join(src, server, &seats.id, &seats.south).await.map_err(|e| tally.count(e))
                else {
                    continue;
                };
                let _ = ws.send(Message::text(json!({"type": "resign"}).to_string())).await;
                loop {
                    match super::honest::next_json(&mut ws).await {
                        Ok(v) if !v["outcome"].is_null() => {
                            finished.fetch_add(1, Ordering::Relaxed);
                            tally.count("resigned");
                            break;
                        }
                        Ok(v) if v["type"] == "error" => {
                            tally.count(format!("refused {}", v["error"].as_str().unwrap_or("error")));
                            break;
                        }
                        Ok(_) => {}
                        Err(e) => {
                            tally.count(e);
                            break;
                        }
                    }
                }
                let _ = ws.close(None).await;
            }
        }
    })
    .await;
    let f = finished.load(Ordering::Relaxed);
    let secs = start.elapsed().as_secs_f64().max(0.001);
    Effect { text: format!("{n} addresses: {f} games finished = {:.1}/s", f as f64 / secs), held: true }
}

/// A foreign request: what it is, its path, body and headers.
type Try<'a> = (&'a str, &'a str, &'a [u8], &'a [(&'a str, &'a str)]);

/// Posts and WebSocket upgrades from a foreign page (a foreign `Origin`, a `text/plain`
/// body a form can send).
pub async fn foreign_origin(server: SocketAddr, until: Instant, _scale: Scale, tally: Arc<Tally>) -> Effect {
    const EVIL: &str = "https://evil.example";
    let through = Arc::new(AtomicU64::new(0));
    workers(4, until, |i| {
        let (tally, through) = (tally.clone(), through.clone());
        async move {
            let src = attacker(6, i);
            let game = br#"{"start":"tsoro:8"}"#;
            let room = br#"{"ruleset":"tsoro:8"}"#;
            while Instant::now() < until {
                let tries: [Try; 4] = [
                    ("post /api/game, foreign origin", "/api/game", game, &[("Origin", EVIL)]),
                    ("post /api/online/rooms, foreign origin", "/api/online/rooms", room, &[("Origin", EVIL)]),
                    (
                        "post /api/online/rooms, text/plain",
                        "/api/online/rooms",
                        room,
                        &[("Content-Type", "text/plain")],
                    ),
                    (
                        "post /api/ai, text/plain, foreign origin",
                        "/api/ai",
                        game,
                        &[("Content-Type", "text/plain"), ("Origin", EVIL)],
                    ),
                ];
                for (what, path, body, headers) in tries {
                    let a = net::request(src, server, "POST", path, headers, body, left(until)).await;
                    if (200..300).contains(&a.status) {
                        through.fetch_add(1, Ordering::Relaxed);
                    }
                    tally.count(format!("{what}: {}", a.kind()));
                }
                let ws = net::websocket(src, server, "/api/online/rooms/x/ws", Some(EVIL)).await;
                match ws {
                    Ok(_) => {
                        through.fetch_add(1, Ordering::Relaxed);
                        tally.count("websocket, foreign origin: 101");
                    }
                    Err(s) => tally.count(format!("websocket, foreign origin: {s}")),
                }
            }
        }
    })
    .await;
    let t = through.load(Ordering::Relaxed);
    Effect { text: format!("{t} foreign requests let through"), held: t == 0 }
}
