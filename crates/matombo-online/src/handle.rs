//! Live rooms: a room behind its lock with its broadcast channel, presence and turn
//! budget, and finding a room by id (in memory, or a finished one read back from the store).

use std::net::IpAddr;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use axum::extract::ws::Utf8Bytes;
use matombo_api::online::{
    to_text, BySide, MemberJson, RoomMsg, RoomState, SeatPlayer, SidePresence, TeamJson, TeamState, TeamsJson,
};
use matombo_api::ErrorCode;
use rand::Rng;
use tokio::sync::{broadcast, Notify};

use super::budget::Bucket;
use super::http::ApiError;
use super::lifecycle::closed_message;
use super::room::{truncate, Room};
use super::{Inner, OnlineState};

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

/// The server's time (Unix ms): the system's, which tests move forward to let days pass
/// in an instant (production never does).
#[derive(Clone, Debug, Default)]
pub struct Clock {
    ahead: Arc<std::sync::atomic::AtomicU64>,
}

impl Clock {
    /// Now, in ms since the Unix epoch.
    pub fn now(&self) -> u64 {
        now_ms() + self.ahead.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Moves this clock forward by `ms` (tests only).
    pub fn advance(&self, ms: u64) {
        self.ahead.fetch_add(ms, std::sync::atomic::Ordering::Relaxed);
    }
}

/// Who is connected to a room.
#[derive(Default)]
pub(super) struct Presence {
    /// Names of connected seat holders, by side (a team may share a seat).
    pub(super) players: [Vec<String>; 2],
    pub(super) spectators: usize,
    /// Connections of each team member (by member id) through this node.
    pub(super) members: std::collections::HashMap<String, usize>,
    /// What the other nodes of a cluster hold, by node (see [`crate::bus`]): names by
    /// side, spectators, team members connected.
    pub(super) remote: std::collections::HashMap<u64, RemotePresence>,
}

/// What another node holds of a room: names by side, spectators, members connected.
pub(super) type RemotePresence = ([Vec<String>; 2], usize, Vec<String>);

impl Presence {
    /// Whether a team member has a connection open, here or on another node.
    pub(super) fn member_online(&self, member: &str) -> bool {
        self.members.get(member).is_some_and(|n| *n > 0)
            || self.remote.values().any(|r| r.2.iter().any(|m| m == member))
    }
}

/// Who plays a room and how it counts: players bound to seats (lobby games), rated, listed.
#[derive(Clone, Debug, Default)]
pub(crate) struct Meta {
    /// By side: (player id, rating at the start if known).
    pub(crate) players: [Option<(String, Option<f64>)>; 2],
    pub(crate) rated: bool,
    pub(crate) listed: bool,
}

/// Who a targeted room message goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Audience {
    /// The seat holders (players' chat).
    Players,
    /// The connections holding no seat (spectators' chat).
    Spectators,
    /// One side's seat holders.
    Side(matombo_core::Side),
    /// One side's team members (team chat, marks, proposals, votes): never the other
    /// side, never spectators.
    Team(matombo_core::Side),
    /// Those holding no seat (a rematch's news without tokens).
    NotSeated,
}

/// A message for part of a room's connections; `from` is the chat sender (for mutes).
#[derive(Clone, Debug)]
pub(crate) struct Targeted {
    pub(crate) to: Audience,
    pub(crate) from: Option<String>,
    pub(crate) text: Utf8Bytes,
}

/// A live room: the room behind an async lock (held across the storage write, so turns
/// of one room are stored and broadcast in order), its broadcast channel and presence.
pub(crate) struct RoomHandle {
    pub(super) id: String,
    pub(super) room: tokio::sync::Mutex<Room>,
    pub(super) tx: broadcast::Sender<Utf8Bytes>,
    pub(super) presence: Mutex<Presence>,
    /// Turns from every connection holding a seat of this room.
    pub(super) turn_budget: Mutex<Bucket>,
    pub(super) creator: Option<IpAddr>,
    pub(super) clock_changed: Notify,
    pub(super) watching: AtomicBool,
    /// Closed unfinished (unclaimed or abandoned): no more claims, turns or ends.
    pub(super) closed: AtomicBool,
    /// Its slot in the room counts has been given back (at its end or its closing).
    pub(super) released: AtomicBool,
    /// Players, rated, listed.
    pub(crate) meta: Mutex<Meta>,
    /// Chat and per-seat messages.
    pub(crate) events: broadcast::Sender<Targeted>,
    /// The side that offered a rematch, and the rematch once made (its id).
    pub(crate) rematch: Mutex<(Option<matombo_core::Side>, Option<String>)>,
    /// Numbers the spectator connections (`w1`, `w2`, …) for chat.
    pub(crate) watchers: std::sync::atomic::AtomicU32,
    /// Spectators' places, chat budgets, presence news.
    pub(crate) audience: super::audience::RoomAudience,
    /// A team game's mode (fixed at its creation), `None` for a game of two people.
    pub(crate) team_mode: Option<super::team::TeamMode>,
    /// A team game's removed members, kept in step with the room (see
    /// [`RoomHandle::note_removed`]) so that a connection checks its member without
    /// waiting for the room's lock.
    pub(crate) removed: Mutex<std::collections::HashSet<String>>,
    /// The server's time.
    pub(crate) clock: Clock,
}

impl RoomHandle {
    pub(crate) fn new(room: Room, creator: Option<IpAddr>, limits: &super::Limits) -> Arc<RoomHandle> {
        let (tx, _) = broadcast::channel(256);
        let team_mode = room.teams.as_ref().map(|t| t.mode);
        let removed = Mutex::new(removed_of(&room));
        Arc::new(RoomHandle {
            id: room.id.clone(),
            room: tokio::sync::Mutex::new(room),
            tx,
            presence: Mutex::new(Presence::default()),
            turn_budget: Mutex::new(Bucket::new(limits.room_turns_per_sec)),
            creator,
            clock_changed: Notify::new(),
            watching: AtomicBool::new(false),
            closed: AtomicBool::new(false),
            released: AtomicBool::new(false),
            meta: Mutex::new(Meta::default()),
            events: broadcast::channel(256).0,
            rematch: Mutex::new((None, None)),
            watchers: std::sync::atomic::AtomicU32::new(0),
            audience: Default::default(),
            team_mode,
            removed,
            clock: limits.clock.clone(),
        })
    }

    /// Brings the removed members in step with `room` (after a removal or a reload).
    pub(crate) fn note_removed(&self, room: &Room) {
        *self.removed.lock().expect("removed lock") = removed_of(room);
    }

    /// Whether `member` was removed from his team.
    pub(crate) fn is_removed(&self, member: &str) -> bool {
        self.removed.lock().expect("removed lock").contains(member)
    }

    /// Sends `m` to part of the room's connections (serialized once for all of them).
    pub(crate) fn target(&self, to: Audience, from: Option<String>, m: &RoomMsg) {
        let _ = self.events.send(Targeted { to, from, text: Utf8Bytes::from(to_text(m)) });
    }

    /// The room's players as the state shows them: id, name and rating, or null.
    pub(crate) fn players_json(&self, room: &Room) -> BySide<Option<SeatPlayer>> {
        let m = self.meta.lock().expect("meta lock");
        let p = |i: usize| {
            m.players[i].as_ref().map(|(id, rating)| SeatPlayer {
                id: Some(id.clone()),
                name: room.seats[i].name.clone(),
                rating: rating.map(super::store::round2),
            })
        };
        BySide { south: p(0), north: p(1) }
    }

    /// The state with the room's players, rated and group.
    pub(crate) fn state_of(
        &self,
        room: &Room,
        you: Option<matombo_core::Side>,
        now: u64,
        positions: bool,
    ) -> RoomState {
        let mut v = super::views::state_json(room, you, now, positions);
        v.players = Some(self.players_json(room));
        v.rated = Some(self.meta.lock().expect("meta lock").rated);
        v.group = Some(super::rating::group_of(room.ruleset()).to_string());
        if let Some(teams) = self.teams_json(room) {
            v.team = Some(Box::new(TeamState { teams: Some(teams), ..TeamState::default() }));
        }
        v
    }

    /// A team game's teams as every client sees them (no token), or `None`.
    pub(crate) fn teams_json(&self, room: &Room) -> Option<TeamsJson> {
        let t = room.teams.as_ref()?;
        let p = self.presence.lock().expect("presence lock");
        let team = |side: matombo_core::Side| TeamJson {
            members: t
                .active(side)
                .map(|m| MemberJson {
                    member: m.id.clone(),
                    name: m.name.clone(),
                    online: p.member_online(&m.id),
                    captain: m.captain,
                })
                .collect(),
        };
        Some(TeamsJson {
            mode: t.mode.as_str(),
            vote_ms: (t.mode == super::team::TeamMode::Vote).then_some(t.vote_ms),
            south: team(matombo_core::Side::South),
            north: team(matombo_core::Side::North),
        })
    }

    /// The `teams` message of a team game (a game without teams: its state).
    pub(crate) fn teams_msg(&self, room: &Room) -> RoomMsg {
        match self.teams_json(room) {
            Some(teams) => RoomMsg::Teams { teams },
            None => RoomMsg::Seats(super::views::room_view(room, self.clock.now(), false)),
        }
    }

    /// Sends the rosters to every connection of a team game.
    pub(crate) fn send_teams(&self, room: &Room) {
        if room.teams.is_some() {
            self.send(&self.teams_msg(room));
        }
    }

    /// The `state` message with the room's players, rated and group.
    pub(crate) fn state(&self, room: &Room, you: Option<matombo_core::Side>, now: u64, positions: bool) -> RoomMsg {
        RoomMsg::State(self.state_of(room, you, now, positions))
    }

    /// Sends `m` to every connection of the room (serialized once for all of them).
    pub(super) fn send(&self, m: &RoomMsg) {
        let _ = self.tx.send(Utf8Bytes::from(to_text(m)));
    }

    pub(super) fn presence_json(&self) -> RoomMsg {
        let p = self.presence.lock().expect("presence lock");
        let side = |i: usize| {
            let mut names = p.players[i].clone();
            names.extend(p.remote.values().flat_map(|r| r.0[i].iter().cloned()));
            SidePresence { online: names.len(), names }
        };
        let spectators = p.spectators + p.remote.values().map(|r| r.1).sum::<usize>();
        // A team game's online dots travel here, coalesced with the rest of the presence.
        let members = self.team_mode.map(|_| {
            let mut ids: Vec<String> = p.members.iter().filter(|(_, n)| **n > 0).map(|(m, _)| m.clone()).collect();
            ids.extend(p.remote.values().flat_map(|r| r.2.iter().cloned()));
            ids.sort();
            ids.dedup();
            ids
        });
        RoomMsg::Presence { south: side(0), north: side(1), spectators, members }
    }
}

/// The removed members of a team game.
fn removed_of(room: &Room) -> std::collections::HashSet<String> {
    room.teams.iter().flat_map(|t| t.members.iter().filter(|m| m.removed).map(|m| m.id.clone())).collect()
}

pub(super) fn random_secret(len: usize) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    let mut rng = rand::rngs::StdRng::from_os_rng();
    (0..len).map(|_| ALPHABET[rng.random_range(0..ALPHABET.len())] as char).collect()
}

use rand::SeedableRng as _;

impl Inner {
    pub(super) fn get(&self, id: &str) -> Option<Arc<RoomHandle>> {
        self.rooms.lock().expect("rooms lock").get(id).cloned()
    }
}

/// The live room, or the stored one (a finished game) loaded on demand.
pub(super) async fn find_room(s: &OnlineState, id: &str) -> Result<Arc<RoomHandle>, ApiError> {
    let not_found = || ApiError::new(ErrorCode::NotFound, format!("no game {:?}", truncate(id, 32)));
    if id.is_empty() || id.len() > 32 || !id.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return Err(not_found());
    }
    if let Some(h) = s.inner.get(id) {
        return Ok(h);
    }
    let loaded = s
        .inner
        .store
        .load_room(id.to_string(), s.now())
        .await
        .map_err(|e| ApiError::new(ErrorCode::Storage, e.to_string()))?;
    let Some(room) = loaded else {
        let closed = s.inner.store.closed(id.to_string()).await.ok().flatten();
        return Err(match closed {
            Some(reason) => ApiError::new(ErrorCode::Closed, closed_message(&s.inner.limits, &reason)),
            None => not_found(),
        });
    };
    let meta = load_meta(s, id).await;
    if room.game.is_over() {
        // Finished games do not change: each request may read its own copy.
        let h = RoomHandle::new(room, None, &s.inner.limits);
        *h.meta.lock().expect("meta lock") = meta;
        return Ok(h);
    }
    let mut rooms = s.inner.rooms.lock().expect("rooms lock");
    Ok(rooms
        .entry(id.to_string())
        .or_insert_with(|| {
            // A game in play that another node started (a cluster): counted here too, since
            // its end gives a slot back.
            s.inner.open_rooms.fetch_add(1, std::sync::atomic::Ordering::AcqRel);
            let h = RoomHandle::new(room, None, &s.inner.limits);
            *h.meta.lock().expect("meta lock") = meta;
            h
        })
        .clone())
}

/// A stored room's players and flags (ratings at the start are not kept: null).
pub(super) async fn load_meta(s: &OnlineState, id: &str) -> Meta {
    let b = s.inner.store.binding(id.to_string()).await.ok().flatten();
    match b {
        Some(([sp, np], rated, listed)) => {
            Meta { players: [sp.map(|p| (p, None)), np.map(|p| (p, None))], rated, listed }
        }
        None => Meta::default(),
    }
}
