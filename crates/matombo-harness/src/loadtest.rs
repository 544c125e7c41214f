//! The client side of `matombo loadtest`: many rooms, two WebSocket clients each, playing
//! random legal turns against a server on loopback, measuring the time from a turn sent
//! to the opponent receiving it. In lobby mode (`Config::lobby`) the players meet through
//! the lobby's WebSocket first (half post open challenges, the others accept one of those
//! listed), and the time from a challenge accepted to both players in the room is measured too.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use matombo_core::Ruleset;

use crate::local::{loopback, LocalServer};
use matombo_online::{routes, Limits};

mod lobby;
mod room;

use lobby::lobby_player;
use room::slot;

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
