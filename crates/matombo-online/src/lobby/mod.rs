//! The lobby: player identities (a browser-made secret, kept hashed), open challenges,
//! quick pairing and the games in progress, pushed live over one WebSocket
//! (`/api/online/lobby/ws`; messages in docs/api.md).
//!
//! By job: `identity` who a connection is, `session` the WebSocket, `messages` what
//! a connection asks, `games` the games that challenges and pairs start, `pairing`
//! quick pairing.

use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use matombo_api::online::{
    to_text, ChallengeJson, Challenger, ListedGame, LobbyOut, PlayerJson, RatedRules, RatingJson, SeatPlayer, SeekJson,
    WireError,
};
use matombo_api::ErrorCode;
use matombo_core::{Ruleset, Side};
use rand::{Rng, SeedableRng as _};
use sha2::{Digest, Sha256};
use tokio::sync::{broadcast, mpsc};

use super::budget::{try_connect, Bucket};
use super::handle::{now_ms, random_secret, Meta, RoomHandle};
use super::http::{ApiError, ClientAddr};
use super::lifecycle::watch_clock;
use super::protocol::{self, LobbyMsg, SideChoice};
use super::pump::{pump, Feed, Session};
use super::rating::{group_of, Rating};
use super::room::{Clocks, Room, TimeControl};
use super::store::{round2, Op, StoreError};
use super::views::{links, side_json};
use super::OnlineState;
mod games;
mod identity;
mod messages;
mod pairing;
mod session;

// The jobs below share one namespace: each sees the others through `use super::*`.
use games::*;
use identity::*;
use messages::*;
use pairing::*;
use session::*;

pub(crate) use games::create_bound_room;
pub(crate) use identity::hash_secret;
pub(crate) use pairing::{find_pairs, pairing_loop, start_pair};
pub(crate) use session::{get_challenge, lobby_upgrade};

/// A player as the lobby shows him.
#[derive(Clone, Debug)]
pub(crate) struct PlayerRef {
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) rating: Rating,
}

pub(crate) struct Challenge {
    pub(crate) id: String,
    pub(crate) ruleset: Ruleset,
    pub(crate) side: SideChoice,
    pub(crate) clock: Option<TimeControl>,
    pub(crate) rated: bool,
    pub(crate) open: bool,
    pub(crate) created: u64,
    pub(crate) by: PlayerRef,
    /// The challenger's address (the room counts against its quota).
    pub(crate) addr: Option<IpAddr>,
}

pub(crate) struct Seek {
    /// The node holding the connection (a cluster; 0 alone).
    pub(crate) node: u64,
    pub(crate) conn: u64,
    pub(crate) player: PlayerRef,
    pub(crate) ruleset: Ruleset,
    pub(crate) clock: Option<TimeControl>,
    pub(crate) rated: bool,
    pub(crate) since: Instant,
    pub(crate) addr: Option<IpAddr>,
}

/// The lobby as this node sees it. In a cluster, `challenges` and `games` are this node's
/// copy of the shared lobby and `seeks` stays empty (the seeks are rows: lobby_shared).
#[derive(Default)]
pub(crate) struct LobbyState {
    pub(crate) challenges: Vec<Challenge>,
    seeks: Vec<Seek>,
    /// Connection → (its player, its own channel).
    pub(crate) conns: HashMap<u64, (Option<String>, mpsc::UnboundedSender<Utf8Bytes>)>,
    /// Listed games in progress by room id.
    pub(crate) games: BTreeMap<String, ListedGame>,
}

/// The lobby's shared state and its broadcast channel.
pub(crate) struct Lobby {
    pub(crate) state: Mutex<LobbyState>,
    pub(crate) tx: broadcast::Sender<Utf8Bytes>,
    next_conn: AtomicU64,
    /// Quotas of the rooms the lobby makes.
    pub(crate) charges: super::quota::Charges,
    /// Identities' names, against look-alikes.
    pub(crate) names: super::names::Registry,
}

fn rating_json(r: &Rating, games: u32) -> RatingJson {
    RatingJson {
        rating: round2(r.rating),
        rd: round2(r.rd),
        volatility: (r.vol * 100_000.0).round() / 100_000.0,
        games,
        provisional: r.provisional(),
    }
}

/// A player's public view: id, name, created, ratings by group.
pub(crate) fn player_json(p: &super::store::PlayerInfo) -> PlayerJson {
    let ratings = p.ratings.iter().map(|(g, r, n)| (g.clone(), rating_json(r, *n))).collect();
    PlayerJson { id: p.id.clone(), name: p.name.clone(), created: p.created, ratings }
}

pub(crate) fn challenge_json(c: &Challenge) -> ChallengeJson {
    let r = c.ruleset;
    ChallengeJson {
        id: c.id.clone(),
        ruleset: r.to_string(),
        game: r.kind().name(),
        size: r.size(),
        heads: r.heads(),
        bonus: r.bonus(),
        side: c.side,
        clock: c.clock,
        rated: c.rated,
        open: c.open,
        created: c.created,
        group: group_of(r).to_string(),
        by: Challenger {
            id: c.by.id.clone(),
            name: c.by.name.clone(),
            rating: round2(c.by.rating.rating),
            rd: round2(c.by.rating.rd),
            provisional: c.by.rating.provisional(),
        },
        link: format!("/online/?challenge={}", c.id),
    }
}

impl Lobby {
    pub(crate) fn new() -> Lobby {
        Lobby {
            state: Mutex::new(LobbyState::default()),
            tx: broadcast::channel(1024).0,
            next_conn: AtomicU64::new(1),
            charges: Default::default(),
            names: Default::default(),
        }
    }

    /// Sends `m` to every lobby connection (serialized once for all of them).
    fn send(&self, m: &LobbyOut) {
        let _ = self.tx.send(Utf8Bytes::from(to_text(m)));
    }

    /// Sends `m` to every lobby connection of `player`.
    fn tell(&self, st: &LobbyState, player: &str, m: &LobbyOut) {
        let text = Utf8Bytes::from(to_text(m));
        for (p, tx) in st.conns.values() {
            if p.as_deref() == Some(player) {
                let _ = tx.send(text.clone());
            }
        }
    }

    /// Lists a game in progress (a lobby game, at its start or reload).
    pub(crate) fn list_game(&self, room: &Room, meta: &Meta, now: u64) -> ListedGame {
        let p = |i: usize| SeatPlayer {
            id: meta.players[i].as_ref().map(|p| p.0.clone()),
            name: room.seats[i].name.clone(),
            rating: meta.players[i].as_ref().and_then(|p| p.1).map(round2),
        };
        let g = ListedGame {
            id: room.id.clone(),
            ruleset: room.ruleset().to_string(),
            group: group_of(room.ruleset()).to_string(),
            clock: room.clocks.as_ref().map(|c| c.control),
            rated: meta.rated,
            south: p(0),
            north: p(1),
            started: now,
        };
        self.state.lock().expect("lobby lock").games.insert(room.id.clone(), g.clone());
        self.send(&LobbyOut::GameAdded { game: g.clone() });
        g
    }

    /// A listed game is over (or closed); true if it was listed here.
    pub(crate) fn unlist_game(&self, id: &str) -> bool {
        let was = self.state.lock().expect("lobby lock").games.remove(id).is_some();
        if was {
            self.send(&LobbyOut::GameRemoved { id: id.to_string() });
        }
        was
    }

    /// Tells a player's lobby connections his new profile.
    pub(crate) fn tell_player(&self, player: &str, m: &LobbyOut) {
        let st = self.state.lock().expect("lobby lock");
        self.tell(&st, player, m);
    }
}

// ---------------------------------------------------------------- rooms from the lobby
