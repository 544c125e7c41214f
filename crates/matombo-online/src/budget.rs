//! Limits on use: counted connections (in all and per address) and the token buckets
//! that pace turns per connection, per room and per address.

use std::net::IpAddr;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

use matombo_api::ErrorCode;

use super::handle::RoomHandle;
use super::http::ApiError;
use super::{Inner, OnlineState};

/// Counts a connection against the limits; released on drop.
pub(super) struct ConnGuard {
    inner: Arc<Inner>,
    addr: Option<IpAddr>,
}

impl Drop for ConnGuard {
    fn drop(&mut self) {
        self.inner.connections.fetch_sub(1, Ordering::Relaxed);
        if let Some(a) = self.addr {
            let mut per = self.inner.per_addr.lock().expect("addr lock");
            if let Some(u) = per.get_mut(&a) {
                u.connections = u.connections.saturating_sub(1);
                if u.idle() {
                    per.remove(&a);
                }
            }
        }
    }
}

pub(super) fn try_connect(s: &OnlineState, addr: Option<IpAddr>) -> Result<ConnGuard, ApiError> {
    let limits = &s.inner.limits;
    let full = || ApiError::server_full(ErrorCode::TooManyConnections, "too many connections");
    if s.inner.connections.fetch_add(1, Ordering::Relaxed) >= limits.max_connections {
        s.inner.connections.fetch_sub(1, Ordering::Relaxed);
        return Err(full());
    }
    let mut guard = ConnGuard { inner: s.inner.clone(), addr: None };
    if let Some(a) = addr {
        let mut per = s.inner.per_addr.lock().expect("addr lock");
        let u = per.entry(a).or_default();
        // The last slots are kept for addresses holding few connections, so that a few
        // addresses filling the server still leave room for newcomers.
        let crowded =
            s.inner.connections.load(Ordering::Relaxed) > limits.max_connections.saturating_sub(limits.newcomer_slots);
        if crowded && u.connections >= super::NEWCOMER_CONNECTIONS {
            return Err(ApiError::server_full(
                ErrorCode::TooManyConnections,
                "the server is nearly full: its last connections are kept for newcomers",
            ));
        }
        if u.connections >= limits.connections_per_addr {
            return Err(ApiError::new(
                ErrorCode::TooManyConnections,
                format!("at most {} connections per address", limits.connections_per_addr),
            ));
        }
        u.connections += 1;
        guard.addr = Some(a);
    }
    Ok(guard)
}

/// A token bucket: `rate` per second, bursts of `2 * rate`.
pub(crate) struct Bucket {
    rate: f64,
    burst: f64,
    tokens: f64,
    last: Instant,
}

impl Bucket {
    pub(super) fn new(rate: f64) -> Bucket {
        Bucket::with_burst(rate, 2.0 * rate)
    }

    /// `rate` per second, bursts of `burst` (for slow rates, where twice the rate is
    /// less than one).
    pub(super) fn with_burst(rate: f64, burst: f64) -> Bucket {
        Bucket { rate, burst, tokens: burst, last: Instant::now() }
    }

    /// Whether a token is there (refilled to now), without taking it.
    pub(super) fn ready(&mut self) -> bool {
        let now = Instant::now();
        self.tokens = (self.tokens + now.duration_since(self.last).as_secs_f64() * self.rate).min(self.burst);
        self.last = now;
        self.tokens >= 1.0
    }

    /// Whether the bucket has refilled to its burst: forgetting it would change nothing.
    pub(super) fn full(&mut self) -> bool {
        self.ready();
        self.tokens >= self.burst
    }

    pub(super) fn take(&mut self) -> bool {
        if self.ready() {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// Takes one turn from the address's budget and (for the side to move) the room's, or
/// neither: many connections sharing seat links (or many rooms of one address) cannot
/// multiply the per-connection rate.
pub(super) fn take_turn_budget(
    s: &OnlineState,
    h: &RoomHandle,
    addr: Option<IpAddr>,
    mover: bool,
) -> Result<(), String> {
    let limits = &s.inner.limits;
    let mut room = h.turn_budget.lock().expect("budget lock");
    if mover && !room.ready() {
        return Err(format!(
            "this game accepts at most {} turns per second; the turn was not played, send it again shortly",
            limits.room_turns_per_sec
        ));
    }
    if let Some(a) = addr {
        let mut per = s.inner.per_addr.lock().expect("addr lock");
        let bucket = per.entry(a).or_default().turns.get_or_insert_with(|| Bucket::new(limits.addr_turns_per_sec));
        if !bucket.take() {
            return Err(format!(
                "one address may play at most {} turns per second across games; the turn was not played",
                limits.addr_turns_per_sec
            ));
        }
    }
    if mover {
        room.take();
    }
    Ok(())
}
