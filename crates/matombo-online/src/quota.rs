//! Quotas of rooms made by the lobby (an accepted challenge, a quick pairing, a rematch):
//! such a room counts against the unfinished-room quota and the creation budget of every
//! address and every player identity involved, as `POST /api/online/rooms` counts against
//! its creator's address (issue 37: one address with a few identities accepting its own
//! challenges otherwise filled the server). The arithmetic: docs/security.md.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::Ordering;
use std::sync::Mutex;

use matombo_api::ErrorCode;

use super::budget::Bucket;
use super::http::ApiError;
use super::OnlineState;

/// A player identity's unfinished lobby rooms and creation budget.
struct PlayerUse {
    rooms: usize,
    creations: Bucket,
}

/// The charges of live lobby rooms, by room id, and the players' counts.
#[derive(Default)]
pub(crate) struct Charges {
    players: Mutex<HashMap<String, PlayerUse>>,
    rooms: Mutex<HashMap<String, Charge>>,
    /// Lobby connections' addresses, by connection number.
    conns: Mutex<HashMap<u64, IpAddr>>,
    /// The address of the side that offered a rematch, by the finished room's id.
    offers: Mutex<HashMap<String, IpAddr>>,
}

impl Charges {
    /// A lobby connection opened from `addr`.
    pub(crate) fn connected(&self, conn: u64, addr: Option<IpAddr>) {
        if let Some(a) = addr {
            self.conns.lock().expect("charges lock").insert(conn, a);
        }
    }

    /// A lobby connection closed.
    pub(crate) fn left(&self, conn: u64) {
        self.conns.lock().expect("charges lock").remove(&conn);
    }

    /// The address of a lobby connection.
    pub(crate) fn addr_of(&self, conn: u64) -> Option<IpAddr> {
        self.conns.lock().expect("charges lock").get(&conn).copied()
    }

    /// A rematch offered from `addr` in room `room`.
    pub(crate) fn offered(&self, room: &str, addr: Option<IpAddr>) {
        let mut o = self.offers.lock().expect("charges lock");
        // Offers of long-gone rooms are not worth more memory than this.
        if o.len() >= 10_000 {
            o.clear();
        }
        if let Some(a) = addr {
            o.insert(room.to_string(), a);
        }
    }

    /// The address that offered the rematch of `room`, forgotten.
    pub(crate) fn offer_of(&self, room: &str) -> Option<IpAddr> {
        self.offers.lock().expect("charges lock").remove(room)
    }
}

/// What one lobby room holds: a slot of the server's room cap, and one of each address's
/// and each player's quotas (an address or a player on both sides counts once).
#[derive(Debug, Default)]
pub(crate) struct Charge {
    addrs: Vec<IpAddr>,
    players: Vec<String>,
}

impl Charge {
    /// The first address charged (kept with the room, for the quotas after a restart).
    pub(crate) fn first_addr(&self) -> Option<IpAddr> {
        self.addrs.first().copied()
    }

    /// The addresses and players charged.
    pub(crate) fn parts(&self) -> (&[IpAddr], &[String]) {
        (&self.addrs, &self.players)
    }
}

/// Writes a room's creation. In a cluster, counted across nodes in the same transaction
/// (issue 35): each address's and player's creation budget in the database, the
/// unfinished rooms of the first address (the room's `creator_addr`) and of each player
/// counted from the rooms themselves, so that N nodes do not allow N times the quotas.
/// This node's own counts (taken before) stay: they are never more than the database's.
pub(crate) async fn write_room(
    s: &OnlineState,
    op: super::store::Op,
    addrs: &[IpAddr],
    players: &[String],
) -> Result<(), ApiError> {
    let storage = |e: super::store::StoreError| ApiError::new(ErrorCode::Storage, e.to_string());
    let Some(pg) = s.inner.store.shared() else {
        return s.inner.store.write(op).await.map(|_| ()).map_err(storage);
    };
    let limits = &s.inner.limits;
    let mut budgets: Vec<String> = addrs.iter().map(|a| format!("addr:{a}")).collect();
    budgets.extend(players.iter().map(|p| format!("player:{p}")));
    let k = super::store::postgres::Counted {
        addr: addrs.first().map(|a| a.to_string()),
        players: players.to_vec(),
        budgets,
        max_rooms: limits.rooms_per_addr,
        rate: limits.rooms_per_sec,
        burst: 2.0 * limits.rooms_per_sec,
        now: super::handle::now_ms(),
    };
    use super::store::postgres::Refusal;
    match pg.write_counted(op, &k).await {
        Ok(_) => Ok(()),
        Err(Refusal::Budget) => Err(ApiError::new(
            ErrorCode::RateLimited,
            format!("one address or player may start at most {} games per second", limits.rooms_per_sec),
        )),
        Err(Refusal::AddrQuota) => Err(ApiError::new(
            ErrorCode::TooManyRooms,
            format!("at most {} unfinished games per address; finish one first", limits.rooms_per_addr),
        )),
        Err(Refusal::PlayerQuota) => Err(ApiError::new(
            ErrorCode::TooManyRooms,
            format!("at most {} unfinished games per player; finish one first", limits.rooms_per_addr),
        )),
        Err(Refusal::Store(e)) => Err(storage(e)),
    }
}

fn distinct<T: PartialEq + Clone>(xs: impl IntoIterator<Item = Option<T>>) -> Vec<T> {
    let mut out: Vec<T> = Vec::new();
    for x in xs.into_iter().flatten() {
        if !out.contains(&x) {
            out.push(x);
        }
    }
    out
}

/// Takes a lobby room's charge, or nothing: the server's cap, then each address's and
/// each player's creation budget and unfinished-room quota (all checked before any is
/// taken, so a refusal changes nothing).
pub(crate) fn take(
    s: &OnlineState,
    addrs: [Option<IpAddr>; 2],
    players: [Option<&str>; 2],
) -> Result<Charge, ApiError> {
    let limits = &s.inner.limits;
    let addrs = distinct(addrs);
    let players: Vec<String> = distinct(players.map(|p| p.map(str::to_string)));
    if s.inner.open_rooms.fetch_add(1, Ordering::AcqRel) >= limits.max_rooms {
        s.inner.open_rooms.fetch_sub(1, Ordering::AcqRel);
        return Err(ApiError::server_full(ErrorCode::TooManyRooms, "the server is full"));
    }
    let refuse = |e: ApiError| {
        s.inner.open_rooms.fetch_sub(1, Ordering::AcqRel);
        Err(e)
    };
    let budget = || {
        ApiError::new(
            ErrorCode::RateLimited,
            format!("one address or player may start at most {} games per second", limits.rooms_per_sec),
        )
    };
    let quota = |who: &str| {
        ApiError::new(
            ErrorCode::TooManyRooms,
            format!("at most {} unfinished games per {who}; finish one first", limits.rooms_per_addr),
        )
    };
    // Lock order: addresses, then players (nowhere else are both held).
    let mut per = s.inner.per_addr.lock().expect("addr lock");
    let mut ps = s.inner.lobby.charges.players.lock().expect("charges lock");
    for a in &addrs {
        let u = per.entry(*a).or_default();
        if !u.creations.get_or_insert_with(|| Bucket::new(limits.rooms_per_sec)).ready() {
            return refuse(budget());
        }
        if u.rooms >= limits.rooms_per_addr {
            return refuse(quota("address"));
        }
    }
    for p in &players {
        let u =
            ps.entry(p.clone()).or_insert_with(|| PlayerUse { rooms: 0, creations: Bucket::new(limits.rooms_per_sec) });
        if !u.creations.ready() {
            return refuse(budget());
        }
        if u.rooms >= limits.rooms_per_addr {
            return refuse(quota("player"));
        }
    }
    for a in &addrs {
        let u = per.get_mut(a).expect("entered above");
        u.creations.as_mut().expect("made above").take();
        u.rooms += 1;
    }
    for p in &players {
        let u = ps.get_mut(p).expect("entered above");
        u.creations.take();
        u.rooms += 1;
    }
    Ok(Charge { addrs, players })
}

/// Gives a charge back (the room was not made).
pub(crate) fn give_back(s: &OnlineState, charge: Charge) {
    s.inner.open_rooms.fetch_sub(1, Ordering::AcqRel);
    uncount(s, charge);
}

/// Keeps a charge with its room until the room ends.
pub(crate) fn hold(s: &OnlineState, room: &str, charge: Charge) {
    s.inner.lobby.charges.rooms.lock().expect("charges lock").insert(room.to_string(), charge);
}

/// A room ended or was closed: its addresses and players may start another (the slot of
/// the server's cap is given back by the caller, as for every room).
pub(crate) fn release(s: &OnlineState, room: &str) {
    let charge = s.inner.lobby.charges.rooms.lock().expect("charges lock").remove(room);
    if let Some(c) = charge {
        uncount(s, c);
    }
}

fn uncount(s: &OnlineState, c: Charge) {
    {
        let mut per = s.inner.per_addr.lock().expect("addr lock");
        for a in &c.addrs {
            if let Some(u) = per.get_mut(a) {
                u.rooms = u.rooms.saturating_sub(1);
            }
        }
    }
    let mut ps = s.inner.lobby.charges.players.lock().expect("charges lock");
    for p in &c.players {
        if let Some(u) = ps.get_mut(p) {
            u.rooms = u.rooms.saturating_sub(1);
        }
    }
    // Players with nothing open and a full budget are forgotten.
    ps.retain(|_, u| u.rooms > 0 || !u.creations.full());
}
