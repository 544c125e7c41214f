//! Live rooms: a room behind its lock with its broadcast channel, presence and turn
//! budget, and finding a room by id (in memory, or a finished one read back from the store).

use std::net::IpAddr;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use axum::extract::ws::Utf8Bytes;
use axum::http::StatusCode;
use matombo_api::ErrorCode;
use rand::Rng;
use serde_json::{json, Value};
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

/// Who is connected to a room.
#[derive(Default)]
pub(super) struct Presence {
    /// Names of connected seat holders, by side (a team may share a seat).
    pub(super) players: [Vec<String>; 2],
    pub(super) spectators: usize,
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
}

impl RoomHandle {
    pub(crate) fn new(room: Room, creator: Option<IpAddr>, limits: &super::Limits) -> Arc<RoomHandle> {
        let (tx, _) = broadcast::channel(256);
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
        })
    }

    pub(super) fn send(&self, v: &Value) {
        let _ = self.tx.send(Utf8Bytes::from(v.to_string()));
    }

    pub(super) fn presence_json(&self) -> Value {
        let p = self.presence.lock().expect("presence lock");
        json!({
            "type": "presence",
            "south": {"online": p.players[0].len(), "names": p.players[0]},
            "north": {"online": p.players[1].len(), "names": p.players[1]},
            "spectators": p.spectators,
        })
    }
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
    let not_found = || ApiError(StatusCode::NOT_FOUND, ErrorCode::NotFound, format!("no game {:?}", truncate(id, 32)));
    if id.is_empty() || id.len() > 32 || !id.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return Err(not_found());
    }
    if let Some(h) = s.inner.get(id) {
        return Ok(h);
    }
    let store = s.inner.store.clone();
    let key = id.to_string();
    let loaded = tokio::task::spawn_blocking(move || store.load_room(&key, now_ms()))
        .await
        .map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, ErrorCode::Internal, e.to_string()))?
        .map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, ErrorCode::Storage, e.to_string()))?;
    let Some(room) = loaded else {
        let store = s.inner.store.clone();
        let key = id.to_string();
        let closed = tokio::task::spawn_blocking(move || store.closed(&key)).await.ok().and_then(Result::ok).flatten();
        return Err(match closed {
            Some(reason) => ApiError(StatusCode::GONE, ErrorCode::Closed, closed_message(&s.inner.limits, &reason)),
            None => not_found(),
        });
    };
    if room.game.is_over() {
        // Finished games do not change: each request may read its own copy.
        return Ok(RoomHandle::new(room, None, &s.inner.limits));
    }
    let mut rooms = s.inner.rooms.lock().expect("rooms lock");
    Ok(rooms.entry(id.to_string()).or_insert_with(|| RoomHandle::new(room, None, &s.inner.limits)).clone())
}
