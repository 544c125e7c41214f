//! The client side of `matombo loadtest`: many rooms, two WebSocket clients each, playing
//! random legal turns against a server on loopback, measuring the time from a turn sent
//! to the opponent receiving it. In lobby mode (`Config::lobby`) the players meet through
//! the lobby's WebSocket first (half post open challenges, the others accept one of those
//! listed), and the time from a challenge accepted to both players in the room is measured too.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use matombo_core::{Position, Ruleset, Side};
use rand::{rngs::SmallRng, Rng, SeedableRng};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_tungstenite::tungstenite::Message;

use crate::local::{loopback, LocalServer};
use matombo_online::{routes, Limits};

/// What to run.
#[derive(Clone, Debug)]
pub struct Config {
    /// Servers to test (`http://127.0.0.1:PORT`), the nodes of one cluster: clients are
    /// spread over them (a game's two players on different nodes). None starts one in
    /// this process on a fresh temporary database.
    pub urls: Vec<String>,
    /// Concurrent rooms (two clients each); in lobby mode, pairs of players.
    pub rooms: usize,
    /// How long to measure, after the ramp.
    pub duration: Duration,
    /// Time over which rooms are opened and clients connect (not measured).
    pub ramp: Duration,
    /// Ruleset of every game.
    pub ruleset: Ruleset,
    /// Mean thinking time before each turn (uniform between half and one and a half).
    pub think: Duration,
    /// Seed of the random turns.
    pub seed: u64,
    /// Lobby mode: `2 * rooms` players with their own identities meet through the lobby
    /// (challenge, accept) instead of opening rooms over HTTP, and meet again after a game.
    pub lobby: bool,
    /// A client whose connection closes (a node draining with 1012, a node gone) connects
    /// again, as the pages do, and checks that no turn it saw played was lost; a room
    /// creation or claim that fails is tried again. Off: any closed connection is an error.
    pub reconnect: bool,
}

/// Counters that grow while the test runs (for a progress display).
#[derive(Debug, Default)]
pub struct Live {
    /// Turns received by opponents.
    pub turns: AtomicU64,
    /// Errors of any kind.
    pub errors: AtomicU64,
    /// Clients connected right now.
    pub connected: AtomicU64,
    /// Games played to their end.
    pub games_finished: AtomicU64,
    /// Lobby mode: challenges accepted (pairs met).
    pub matched: AtomicU64,
    /// Connections made again after a close (with `reconnect`).
    pub reconnects: AtomicU64,
    /// Lobby mode: accepts that lost the race for a challenge to another player (not
    /// errors: the acceptor picks another).
    pub accepts_lost: AtomicU64,
    /// Errors by kind.
    pub error_kinds: Mutex<HashMap<String, u64>>,
}

impl Live {
    fn error(&self, kind: &str) {
        self.errors.fetch_add(1, Ordering::Relaxed);
        *self.error_kinds.lock().expect("errors lock").entry(kind.to_string()).or_default() += 1;
    }
}

/// The figures of a run.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Report {
    /// Rooms.
    pub rooms: usize,
    /// Clients (two per room).
    pub clients: usize,
    /// Ruleset.
    pub ruleset: String,
    /// Mean think time, ms.
    pub think_ms: u64,
    /// Measured seconds.
    pub seconds: f64,
    /// Turns delivered to the opponent during the measured window.
    pub turns: u64,
    /// Turns per second.
    pub turns_per_sec: f64,
    /// Latency percentiles, turn sent to opponent received, ms.
    pub p50_ms: f64,
    /// 99th percentile, ms.
    pub p99_ms: f64,
    /// Worst, ms.
    pub max_ms: f64,
    /// Games that ended by the rules during the run (their rooms were replaced).
    pub games_finished: u64,
    /// Errors (error messages, failed connections or requests).
    pub errors: u64,
    /// Errors by kind (server error codes, `connect`, `closed`, `http`, and with
    /// `reconnect` `lost acknowledged turn`: a room's state after a reconnection behind a
    /// turn its client had seen played).
    pub error_kinds: HashMap<String, u64>,
    /// Connections made again after a close (with `reconnect`; 0 without).
    pub reconnects: u64,
    /// The server tested: "in-process" or the URL.
    pub server: String,
    /// Lobby mode's figures (absent in room mode).
    pub lobby: Option<LobbyReport>,
}

/// The lobby's figures: a challenge accepted to both players in the room.
#[derive(Clone, Debug, serde::Serialize)]
pub struct LobbyReport {
    /// Players (each with its own identity).
    pub players: usize,
    /// Challenges accepted (pairs met), over the whole run.
    pub pairs_met: u64,
    /// Pairs both of whose players received the room's state (the latencies below).
    pub joined: u64,
    /// Latency percentiles, `accept` sent to the later of the two players receiving the
    /// room's first `state`, ms.
    pub join_p50_ms: f64,
    /// 99th percentile, ms.
    pub join_p99_ms: f64,
    /// Worst, ms.
    pub join_max_ms: f64,
    /// Accepts that found their challenge already taken by another player.
    pub accepts_lost: u64,
}

/// Times of one lobby match, keyed by room: the accept and each player's first state.
#[derive(Default)]
struct Join {
    accepted: Option<Instant>,
    in_room: Vec<Instant>,
}

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

/// When each turn of a room was sent, by ply (the opponent takes it out on receipt).
type SentTimes = Arc<Mutex<HashMap<u32, Instant>>>;

/// Shared by the run: counters, latencies, the measuring window.
struct Shared {
    live: Arc<Live>,
    latencies_us: Mutex<Vec<u32>>,
    measure_from: Instant,
    stop_at: Instant,
    /// The nodes, `host:port`.
    hosts: Vec<String>,
    config: Config,
    joins: Mutex<HashMap<String, Join>>,
    join_latencies_us: Mutex<Vec<u32>>,
    /// Lobby mode: each room's turn send times, shared by its two players.
    sent_by_room: Mutex<HashMap<String, SentTimes>>,
}

impl Shared {
    /// The node of client `i`: clients go round the nodes.
    fn host(&self, i: u64) -> &str {
        &self.hosts[(i % self.hosts.len() as u64) as usize]
    }

    /// Records one event of a lobby match; the third (accept and both states) completes it.
    fn join_event(&self, room: &str, f: impl FnOnce(&mut Join)) {
        let mut joins = self.joins.lock().expect("joins lock");
        let j = joins.entry(room.to_string()).or_default();
        f(j);
        if let (Some(t0), 2) = (j.accepted, j.in_room.len()) {
            let last = j.in_room.iter().max().copied().unwrap_or(t0);
            let us = last.saturating_duration_since(t0).as_micros().min(u128::from(u32::MAX)) as u32;
            joins.remove(room);
            self.join_latencies_us.lock().expect("join latencies lock").push(us);
        }
    }
}

/// Percentile `p` of sorted microseconds, in ms (0 when empty).
fn percentile(sorted_us: &[u32], p: f64) -> f64 {
    if sorted_us.is_empty() {
        return 0.0;
    }
    let i = ((p * sorted_us.len() as f64).ceil() as usize).clamp(1, sorted_us.len()) - 1;
    f64::from(sorted_us[i]) / 1000.0
}

/// Runs the test; `live` can be watched meanwhile.
pub async fn run(config: Config, live: Arc<Live>) -> Result<Report, String> {
    if config.rooms == 0 || config.rooms > 5000 {
        return Err("rooms: from 1 to 5000".into());
    }
    if config.duration > Duration::from_secs(3600) || config.ramp > Duration::from_secs(600) {
        return Err("duration at most 3600 s, ramp at most 600 s".into());
    }
    let (_server, hosts, server_name) = match config.urls.as_slice() {
        [] => {
            // Online play's per-address budgets raised: every client shares one address.
            // A lobby player holds a lobby and a room connection and makes identities,
            // challenges and rooms: the budgets are sized for twice as many.
            let sized = if config.lobby { 2 * config.rooms } else { config.rooms };
            let s = LocalServer::start("loadtest", Limits::loadtest(sized), routes)?;
            let host = s.addr.to_string();
            (Some(s), vec![host], "in-process".to_string())
        }
        urls => {
            let hosts =
                urls.iter().map(|u| loopback(u, "the load test").map(|a| a.to_string())).collect::<Result<_, _>>()?;
            (None, hosts, urls.join(" "))
        }
    };
    let start = Instant::now();
    let shared = Arc::new(Shared {
        live: live.clone(),
        latencies_us: Mutex::new(Vec::new()),
        measure_from: start + config.ramp,
        stop_at: start + config.ramp + config.duration,
        hosts,
        config: config.clone(),
        joins: Mutex::default(),
        join_latencies_us: Mutex::default(),
        sent_by_room: Mutex::default(),
    });
    let mut tasks = Vec::with_capacity(config.rooms);
    for i in 0..config.rooms {
        let shared = shared.clone();
        // Rooms open evenly over the ramp.
        let at = start + config.ramp.mul_f64(i as f64 / config.rooms as f64);
        tasks.push(tokio::spawn(async move {
            tokio::time::sleep_until(at.into()).await;
            if shared.config.lobby {
                // The pair's players start independently: the challenger first, then
                // the acceptor, who picks any challenge listed.
                let acceptor = tokio::spawn(lobby_player(shared.clone(), i as u64, false));
                lobby_player(shared, i as u64, true).await;
                let _ = acceptor.await;
            } else {
                slot(shared, i as u64).await;
            }
        }));
    }
    for t in tasks {
        let _ = t.await;
    }
    let seconds = config.duration.as_secs_f64();
    let mut lat = std::mem::take(&mut *shared.latencies_us.lock().expect("latencies lock"));
    lat.sort_unstable();
    let pct = |p: f64| percentile(&lat, p);
    let lobby = config.lobby.then(|| {
        let mut j = std::mem::take(&mut *shared.join_latencies_us.lock().expect("join latencies lock"));
        j.sort_unstable();
        LobbyReport {
            players: 2 * config.rooms,
            pairs_met: live.matched.load(Ordering::Relaxed),
            joined: j.len() as u64,
            join_p50_ms: percentile(&j, 0.50),
            join_p99_ms: percentile(&j, 0.99),
            join_max_ms: j.last().map_or(0.0, |&m| f64::from(m) / 1000.0),
            accepts_lost: live.accepts_lost.load(Ordering::Relaxed),
        }
    });
    Ok(Report {
        rooms: config.rooms,
        clients: 2 * config.rooms,
        ruleset: config.ruleset.to_string(),
        think_ms: config.think.as_millis() as u64,
        seconds,
        turns: lat.len() as u64,
        turns_per_sec: lat.len() as f64 / seconds,
        p50_ms: pct(0.50),
        p99_ms: pct(0.99),
        max_ms: lat.last().map_or(0.0, |&m| f64::from(m) / 1000.0),
        games_finished: live.games_finished.load(Ordering::Relaxed),
        errors: live.errors.load(Ordering::Relaxed),
        error_kinds: live.error_kinds.lock().expect("errors lock").clone(),
        reconnects: live.reconnects.load(Ordering::Relaxed),
        server: server_name,
        lobby,
    })
}

/// One room slot: open a room, play it with two clients, open another when it ends.
async fn slot(shared: Arc<Shared>, index: u64) {
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

type Ws = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// One lobby player with its own identity: meets an opponent through the lobby (posts a
/// challenge, or accepts one of those listed), plays the game in its room, and meets
/// again until the run ends.
async fn lobby_player(shared: Arc<Shared>, index: u64, challenger: bool) {
    // A fresh identity per player and run (the secret is never derived from the seed).
    let secret = format!("{:032x}", rand::rngs::StdRng::from_os_rng().random::<u128>());
    let name = format!("{}{index}", if challenger { "c" } else { "a" });
    let mut rng = SmallRng::seed_from_u64(shared.config.seed ^ (index << 21) ^ u64::from(challenger));
    let mut game = 0u64;
    while Instant::now() < shared.stop_at {
        // Both players of a pair meet in the lobby of one node (each node has its own).
        let url = format!("ws://{}/api/online/lobby/ws", shared.host(index));
        let Ok((mut ws, _)) = tokio_tungstenite::connect_async(url).await else {
            shared.live.error("lobby connect");
            return;
        };
        shared.live.connected.fetch_add(1, Ordering::Relaxed);
        let met = meet(&shared, &mut ws, &secret, &name, challenger, &mut rng).await;
        shared.live.connected.fetch_sub(1, Ordering::Relaxed);
        // As the page does: the lobby is left for the room.
        let _ = ws.close(None).await;
        let Ok(Some((room, side, token))) = met else { return };
        // The two players of a room share the turns' send times, whoever reaches it first.
        let sent = shared.sent_by_room.lock().expect("rooms lock").entry(room.clone()).or_default().clone();
        let seed = shared.config.seed ^ (index << 21) ^ (game << 1) ^ u64::from(challenger);
        let played =
            client(shared.clone(), index + u64::from(!challenger), room.clone(), token, side, sent, seed, true).await;
        shared.sent_by_room.lock().expect("rooms lock").remove(&room);
        if played.is_err() {
            // Counted by the client already.
            return;
        }
        game += 1;
    }
}

/// In the lobby until matched: the room, this player's side and seat token; `None` when
/// the run ended first.
async fn meet(
    shared: &Shared,
    ws: &mut Ws,
    secret: &str,
    name: &str,
    challenger: bool,
    rng: &mut SmallRng,
) -> Result<Option<(String, Side, String)>, ()> {
    let hello = json!({"type": "hello", "player": secret, "name": name});
    ws.send(Message::text(hello.to_string())).await.map_err(|_| shared.live.error("lobby closed"))?;
    if challenger {
        let c = json!({"type": "challenge", "ruleset": shared.config.ruleset.to_string(), "side": "random"});
        ws.send(Message::text(c.to_string())).await.map_err(|_| shared.live.error("lobby closed"))?;
    }
    // Open challenges listed to this player, and the accept in flight.
    let mut listed: Vec<String> = Vec::new();
    let mut accepting: Option<Instant> = None;
    let stop = tokio::time::sleep_until(shared.stop_at.into());
    tokio::pin!(stop);
    loop {
        let m = tokio::select! {
            _ = &mut stop => return Ok(None),
            m = ws.next() => m,
        };
        let text = match m {
            Some(Ok(Message::Text(t))) => t,
            Some(Ok(Message::Close(_))) | None | Some(Err(_)) => {
                shared.live.error("lobby closed");
                return Err(());
            }
            Some(Ok(_)) => continue,
        };
        let Ok(v) = serde_json::from_str::<Value>(&text) else {
            shared.live.error("bad JSON");
            continue;
        };
        match v["type"].as_str() {
            Some("welcome") => {
                listed = v["challenges"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|c| c["id"].as_str().map(String::from))
                    .collect();
            }
            Some("challenge_added") => listed.extend(v["challenge"]["id"].as_str().map(String::from)),
            Some("challenge_removed") => listed.retain(|id| v["id"] != id.as_str()),
            Some("matched") => {
                let room = v["room"].as_str().unwrap_or_default().to_string();
                let side = if v["side"] == "north" { Side::North } else { Side::South };
                let token = v["token"].as_str().unwrap_or_default().to_string();
                if let Some(t0) = accepting {
                    shared.live.matched.fetch_add(1, Ordering::Relaxed);
                    shared.join_event(&room, |j| j.accepted = Some(t0));
                }
                return Ok(Some((room, side, token)));
            }
            Some("error") => {
                let code = v["error"].as_str().unwrap_or("error");
                if accepting.is_some() && code == "not_found" {
                    // Another player took it first.
                    shared.live.accepts_lost.fetch_add(1, Ordering::Relaxed);
                    accepting = None;
                } else {
                    shared.live.error(code);
                }
            }
            _ => {}
        }
        if !challenger && accepting.is_none() && !listed.is_empty() {
            let id = listed.swap_remove(rng.random_range(0..listed.len()));
            accepting = Some(Instant::now());
            let a = json!({"type": "accept", "id": id});
            ws.send(Message::text(a.to_string())).await.map_err(|_| shared.live.error("lobby closed"))?;
        }
    }
}

fn random_turn(pos: &Position, rng: &mut SmallRng) -> Option<String> {
    let mut t = pos.begin_turn();
    if !t.apply_random(rng) {
        return None;
    }
    while !t.is_complete() {
        t.apply_random(rng);
    }
    t.token().map(|t| t.to_string())
}

/// One player: moves when it is his turn (after thinking), records when each turn is
/// received from the opponent. Ends at the end of the game or of the run.
#[allow(clippy::too_many_arguments)]
async fn client(
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
                let Some(mv) = random_turn(p, rng) else { continue };
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
