//! # matombo-online
//!
//! Online play between two people (or two teams) through `matombo serve`.
//!
//! - [`room`]: the pure core (seats, secret tokens, ply numbers, clocks, validation).
//! - [`team`]: the pure core of team games (members, captaincy, votes, marks); `teamws`
//!   their WebSocket messages, each team's own reaching that side's members only.
//! - [`protocol`]: the WebSocket message format and its strict parser.
//! - [`store`]: the [`GameStore`] trait and its SQLite (default) and PostgreSQL
//!   implementations; every turn is committed before anyone hears of it.
//! - `server`: the router; `http` (the HTTP API and pages), `ws` (the WebSocket
//!   endpoint), `handle` (live rooms), `views` (the JSON a client sees), `budget`
//!   (connection and turn limits), `lifecycle` (game ends, clock watch, expiry).
//! - [`methods`]: one-method routes (`405` otherwise), shared with the site's API.
//!
//! The site (`matombo-web`) draws the pages [`PAGE_PATHS`] (`/online/` new game,
//! `/online/game/{id}` play or watch, `/online/archive`, …) and mounts [`routes`], the API
//! under `/api/online/` (see the `server` module).
#![deny(missing_docs)]

mod audience;
mod budget;
mod bus;
pub mod error;
mod handle;
mod http;
mod leader;
mod lifecycle;
mod lobby;
mod lobby_shared;
pub mod methods;
pub mod metrics;
pub mod names;
pub mod protocol;
mod pump;
pub mod puzzles;
mod quota;
pub mod rating;
pub mod room;
mod server;
pub mod store;
pub mod team;
mod teamlist;
mod teamws;
mod views;
mod ws;

use std::collections::HashMap;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

pub use error::ApiError;
pub use handle::Clock;
pub use server::{routes, PAGE_PATHS};
pub use store::{Db, GameStore, StoreError};

/// Limits that protect the server; the defaults suit a public server.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Unfinished rooms one address may have created (per server run).
    pub rooms_per_addr: usize,
    /// Unfinished rooms in all.
    pub max_rooms: usize,
    /// Rooms one address may create per second (sustained; bursts up to twice this):
    /// a finished game frees its creator's quota of unfinished rooms at once, so this is
    /// what bounds create-and-resign floods.
    pub rooms_per_sec: f64,
    /// Open WebSocket connections in all.
    pub max_connections: usize,
    /// Open WebSocket connections from one address.
    pub connections_per_addr: usize,
    /// Turns per second per connection (sustained); bursts up to twice this.
    pub turns_per_sec: f64,
    /// Turns per second one room accepts from all its seat holders together, however
    /// many connections share its seat links (sustained); bursts up to twice this.
    pub room_turns_per_sec: f64,
    /// Turns per second one address may play across all rooms (sustained); bursts up to
    /// twice this.
    pub addr_turns_per_sec: f64,
    /// A room whose invitation is not claimed this long after its creation is closed.
    pub unclaimed_expiry: std::time::Duration,
    /// A game without a turn (or a claim) for this long is closed as abandoned.
    pub idle_expiry: std::time::Duration,
    /// Frames of any kind (text, binary, ping, pong) per second per connection; bursts
    /// up to twice this. A connection that keeps on past it is closed.
    pub messages_per_sec: f64,
    /// A WebSocket silent this long (no frame, not even the answer to the server's ping,
    /// sent every third of it) is closed.
    pub ws_idle: std::time::Duration,
    /// Open challenges one player may have.
    pub challenges_per_player: usize,
    /// Open challenges in all.
    pub max_challenges: usize,
    /// Challenges and seeks one lobby connection may make per second (bursts of one).
    pub lobby_actions_per_sec: f64,
    /// Chat lines per second per connection (bursts of two).
    pub chat_per_sec: f64,
    /// New player identities one address may create per hour (counted in the database).
    pub players_per_addr_hour: u32,
    /// Transfer-code attempts one address may make per minute.
    pub transfer_tries_per_min: f64,
    /// Spectators (connections holding no seat) one room takes (issue 37: the audience's
    /// fan-out is bounded by this times the chat rates below).
    pub spectators_per_room: usize,
    /// Spectators of one room from one address.
    pub spectators_per_addr: usize,
    /// Chat lines per second the spectators of one room send together (bursts of two).
    pub room_spectators_chat_per_sec: f64,
    /// Chat lines per second the seat holders of one room send together (bursts of two).
    pub room_players_chat_per_sec: f64,
    /// Lobby connections from one address.
    pub lobby_per_addr: usize,
    /// Connections kept for newcomers: past `max_connections - newcomer_slots`, an
    /// address already holding [`NEWCOMER_CONNECTIONS`] connections is refused.
    pub newcomer_slots: usize,
    /// The server's time (tests move it forward; see [`Clock`]).
    pub clock: Clock,
}

/// An address holding fewer connections than this is a newcomer (see
/// [`Limits::newcomer_slots`]).
pub const NEWCOMER_CONNECTIONS: usize = 4;

impl Default for Limits {
    fn default() -> Self {
        Limits {
            rooms_per_addr: 20,
            max_rooms: 10_000,
            rooms_per_sec: 2.0,
            max_connections: 4_000,
            connections_per_addr: 64,
            turns_per_sec: 5.0,
            room_turns_per_sec: 5.0,
            addr_turns_per_sec: 20.0,
            unclaimed_expiry: std::time::Duration::from_secs(30 * 60),
            idle_expiry: std::time::Duration::from_secs(24 * 3600),
            messages_per_sec: 20.0,
            ws_idle: std::time::Duration::from_secs(90),
            challenges_per_player: 3,
            max_challenges: 2_000,
            lobby_actions_per_sec: 1.0,
            chat_per_sec: 1.0,
            players_per_addr_hour: 10,
            transfer_tries_per_min: 5.0,
            spectators_per_room: 200,
            spectators_per_addr: 8,
            room_spectators_chat_per_sec: 2.0,
            room_players_chat_per_sec: 4.0,
            lobby_per_addr: 16,
            newcomer_slots: 400,
            clock: Clock::default(),
        }
    }
}

impl Limits {
    /// Limits for a load test on loopback: many rooms and connections from one address.
    pub fn loadtest(rooms: usize) -> Limits {
        Limits {
            rooms_per_addr: rooms + 10,
            max_rooms: rooms + 10,
            rooms_per_sec: 1e9,
            max_connections: 2 * rooms + 20,
            connections_per_addr: 2 * rooms + 20,
            // Every simulated player shares the loopback address.
            addr_turns_per_sec: 1e9,
            room_turns_per_sec: 1e9,
            players_per_addr_hour: u32::MAX,
            lobby_actions_per_sec: 1e9,
            max_challenges: 2 * rooms + 20,
            spectators_per_room: usize::MAX,
            spectators_per_addr: usize::MAX,
            lobby_per_addr: usize::MAX,
            newcomer_slots: 0,
            ..Limits::default()
        }
    }
}

/// An error opening online play (the database).
#[derive(Debug, thiserror::Error)]
#[error("online play: {0}")]
pub struct OnlineError(pub String);

/// Shared state of online play: the store, the live rooms and the limits.
#[derive(Clone)]
pub struct OnlineState {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for OnlineState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OnlineState").field("db", &self.inner.store.describe()).finish()
    }
}

pub(crate) struct Inner {
    store: Arc<dyn GameStore>,
    rooms: Mutex<HashMap<String, Arc<handle::RoomHandle>>>,
    limits: Limits,
    connections: AtomicUsize,
    /// Unfinished rooms (finished ones leave memory and are read back from the store).
    open_rooms: AtomicUsize,
    per_addr: Mutex<HashMap<IpAddr, AddrUse>>,
    lobby: lobby::Lobby,
    lobby_places: audience::LobbyPlaces,
    /// Set when the node drains (SIGTERM): every WebSocket closes with 1012.
    draining: tokio::sync::watch::Sender<bool>,
    /// With PostgreSQL: the bus to the other nodes and the leader's lock.
    cluster: Option<Cluster>,
}

/// A node's part in a cluster of nodes sharing one PostgreSQL database.
pub(crate) struct Cluster {
    bus: bus::Bus,
    leader: leader::Leader,
}

#[derive(Default)]
struct AddrUse {
    rooms: usize,
    connections: usize,
    /// Turns played from the address, across rooms (made at its first turn).
    turns: Option<budget::Bucket>,
    /// Room creations (see [`Limits::rooms_per_sec`]).
    creations: Option<budget::Bucket>,
    /// Transfer-code attempts.
    codes: Option<budget::Bucket>,
}

impl AddrUse {
    /// Nothing open and every budget refilled: the entry can go (a budget still in use
    /// must stay, or create-and-resign would get a fresh one each time).
    fn idle(&mut self) -> bool {
        self.connections == 0
            && self.rooms == 0
            && self.turns.as_mut().is_none_or(|b| b.full())
            && self.creations.as_mut().is_none_or(|b| b.full())
            && self.codes.as_mut().is_none_or(|b| b.full())
    }
}

/// The default database file: `<data dir>/matombo/online.sqlite3`.
pub fn default_db_path() -> Result<PathBuf, OnlineError> {
    store::default_db_path().ok_or_else(|| OnlineError("no data directory found; pass --db PATH".into()))
}

/// What `--db` names: None is the default SQLite file; a `postgres://` (or
/// `postgresql://`) URL is PostgreSQL; anything else a SQLite file.
pub fn db_of(arg: Option<&Path>) -> Result<Db, OnlineError> {
    match arg {
        None => Ok(Db::Sqlite(default_db_path()?)),
        Some(p) => match p.to_str() {
            Some(s) => Ok(Db::parse(s)),
            None => Ok(Db::Sqlite(p.to_path_buf())),
        },
    }
}

impl OnlineState {
    /// Opens the SQLite store at `db` (None: the default file in the user's data
    /// directory, parent directories created) with the default limits, and reloads every
    /// game in progress.
    pub fn open(db: Option<&Path>) -> Result<OnlineState, OnlineError> {
        OnlineState::open_with_limits(db, Limits::default())
    }

    /// Like [`OnlineState::open`], with chosen limits.
    pub fn open_with_limits(db: Option<&Path>, limits: Limits) -> Result<OnlineState, OnlineError> {
        let path = match db {
            Some(p) => p.to_path_buf(),
            None => default_db_path()?,
        };
        let store =
            store::sqlite::SqliteStore::open(&path).map_err(|e| OnlineError(format!("{}: {e}", path.display())))?;
        let now = limits.clock.now();
        let (unclaimed_before, idle_before) = lifecycle::expiry_bounds(&limits, now);
        let rooms =
            store.load_unfinished(now, unclaimed_before, idle_before).map_err(|e| OnlineError(e.to_string()))?;
        let mut bindings = HashMap::new();
        for (r, _) in &rooms {
            if let Ok(Some(b)) = store.binding(&r.id) {
                bindings.insert(r.id.clone(), b);
            }
        }
        Ok(OnlineState::assemble(Arc::new(store), limits, rooms, bindings, now, None))
    }

    /// Opens the store `db` (a SQLite file or a PostgreSQL database; see [`Db`]) under
    /// `limits` and reloads every game in progress. A PostgreSQL URL that is wrong or
    /// unreachable fails here, with a message that says so.
    pub async fn connect(db: &Db, limits: Limits) -> Result<OnlineState, OnlineError> {
        let store = store::open(db).await.map_err(|e| OnlineError(format!("{}: {e}", db.describe())))?;
        let now = limits.clock.now();
        let (unclaimed_before, idle_before) = lifecycle::expiry_bounds(&limits, now);
        let rooms =
            store.load_unfinished(now, unclaimed_before, idle_before).await.map_err(|e| OnlineError(e.to_string()))?;
        let mut bindings = HashMap::new();
        for (r, _) in &rooms {
            if let Ok(Some(b)) = store.binding(r.id.clone()).await {
                bindings.insert(r.id.clone(), b);
            }
        }
        let Db::Postgres(url) = db else {
            return Ok(OnlineState::assemble(store, limits, rooms, bindings, now, None));
        };
        // Several nodes may share this database: the bus between them, and the leader's
        // lock for the jobs one node runs.
        let (bus, notes) = bus::start();
        let leader = leader::Leader::default();
        let state =
            OnlineState::assemble(store, limits, rooms, bindings, now, Some(Cluster { bus, leader: leader.clone() }));
        bus::publish_loop(url.clone(), notes);
        bus::listen(&state, url.clone());
        let weak = Arc::downgrade(&state.inner);
        leader.run(url.clone(), move || weak.strong_count() > 0);
        Ok(state)
    }

    fn assemble(
        store: Arc<dyn GameStore>,
        limits: Limits,
        rooms: Vec<(room::Room, Option<IpAddr>)>,
        bindings: HashMap<String, store::Binding>,
        now: u64,
        cluster: Option<Cluster>,
    ) -> OnlineState {
        let n = rooms.len();
        // The rooms per address count the games still in play, across restarts.
        let mut per_addr: HashMap<IpAddr, AddrUse> = HashMap::new();
        for a in rooms.iter().filter_map(|(_, a)| *a) {
            per_addr.entry(a).or_default().rooms += 1;
        }
        let map: HashMap<String, Arc<handle::RoomHandle>> =
            rooms.into_iter().map(|(r, a)| (r.id.clone(), handle::RoomHandle::new(r, a, &limits))).collect();
        let lobby = lobby::Lobby::new();
        for h in map.values() {
            if let Some(([sp, np], rated, listed)) = bindings.get(&h.id).cloned() {
                *h.meta.lock().expect("meta lock") =
                    handle::Meta { players: [sp.map(|p| (p, None)), np.map(|p| (p, None))], rated, listed };
                if listed {
                    if let Ok(room) = h.room.try_lock() {
                        lobby.list_game(&room, &h.meta.lock().expect("meta lock"), now);
                    }
                }
            }
        }
        tracing::info!(db = %store.describe(), games_in_progress = n, "online play store opened");
        let state = OnlineState {
            inner: Arc::new(Inner {
                store,
                rooms: Mutex::new(map),
                limits,
                connections: AtomicUsize::new(0),
                open_rooms: AtomicUsize::new(n),
                per_addr: Mutex::new(per_addr),
                lobby,
                lobby_places: Default::default(),
                draining: tokio::sync::watch::Sender::new(false),
                cluster,
            }),
        };
        lifecycle::sweep_expired(&state);
        lobby::pairing_loop(&state);
        // Reloaded clocks start running again now; watch them.
        let handles: Vec<_> = state.inner.rooms.lock().expect("rooms lock").values().cloned().collect();
        for h in handles {
            lifecycle::watch_clock(state.clone(), h);
        }
        state
    }

    /// The database in use: the file, or the URL without its password.
    pub fn db(&self) -> String {
        self.inner.store.describe()
    }

    /// Whether this node runs the jobs one node runs at a time (expiry sweeps): always
    /// with SQLite; with PostgreSQL, the node holding the leader's lock.
    pub fn is_leader(&self) -> bool {
        self.inner.cluster.as_ref().is_none_or(|c| c.leader.is_leader())
    }

    /// The server's time (Unix ms).
    pub(crate) fn now(&self) -> u64 {
        self.inner.limits.clock.now()
    }

    /// Whether the store is shared with other nodes (PostgreSQL).
    pub(crate) fn clustered(&self) -> bool {
        self.inner.cluster.is_some()
    }

    /// Open WebSocket connections right now.
    pub fn connections(&self) -> usize {
        self.inner.connections.load(Ordering::Relaxed)
    }

    /// Unfinished rooms right now.
    pub fn open_rooms(&self) -> usize {
        self.inner.open_rooms.load(Ordering::Relaxed)
    }

    /// Starts draining: every WebSocket is closed with code 1012 (service restart).
    pub fn drain(&self) {
        self.inner.draining.send_replace(true);
    }

    /// Whether the node drains.
    pub fn is_draining(&self) -> bool {
        *self.inner.draining.borrow()
    }

    /// Resolves once the node drains.
    pub(crate) async fn drained(&self) {
        let mut rx = self.inner.draining.subscribe();
        let _ = rx.wait_for(|d| *d).await;
    }

    /// Whether the store answers a read.
    pub async fn store_answers(&self) -> bool {
        self.inner.store.ping().await.is_ok()
    }

    /// Makes the store whole in its own files at a stop (see [`GameStore::finish`]).
    pub fn finish_store(&self) {
        self.inner.store.finish();
    }
}

/// The close frame of a WebSocket closed because the node drains.
pub(crate) fn restart_frame() -> axum::extract::ws::Message {
    axum::extract::ws::Message::Close(Some(axum::extract::ws::CloseFrame {
        code: 1012,
        reason: "service restart: reconnect".into(),
    }))
}
