//! The bounded cost of a room's audience and of the lobby (issue 37): places for
//! spectators per room and per address, chat paced per room's channel (not only per
//! connection), presence news coalesced, lobby connections per address. Each fan-out then
//! costs at most (places × channel rate) frames a second, whatever the senders do.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use matombo_api::ErrorCode;

use super::budget::Bucket;
use super::handle::RoomHandle;
use super::http::ApiError;
use super::OnlineState;

/// Presence news of a room go out at most this often: a burst of arrivals and departures
/// costs one fan-out (with the latest figures), not one per connection.
pub(crate) const PRESENCE_EVERY: Duration = Duration::from_millis(250);

/// A room's audience: its spectators' places by address, its chat channels' budgets, and
/// when its presence was last sent.
#[derive(Default)]
pub(crate) struct RoomAudience {
    places: Mutex<Places>,
    /// The players' and the spectators' channel, made at their first line.
    chat: Mutex<[Option<Bucket>; 2]>,
    presence: Mutex<PresenceNews>,
}

#[derive(Default)]
struct Places {
    taken: usize,
    by_addr: HashMap<IpAddr, usize>,
}

#[derive(Default)]
struct PresenceNews {
    last: Option<Instant>,
    pending: bool,
}

/// A spectator's place in a room, given back on drop.
pub(crate) struct Place {
    h: Arc<RoomHandle>,
    addr: Option<IpAddr>,
}

impl Drop for Place {
    fn drop(&mut self) {
        let mut p = self.h.audience.places.lock().expect("places lock");
        p.taken = p.taken.saturating_sub(1);
        if let Some(a) = self.addr {
            if let Some(n) = p.by_addr.get_mut(&a) {
                *n -= 1;
                if *n == 0 {
                    p.by_addr.remove(&a);
                }
            }
        }
    }
}

/// Takes a spectator's place in `h`, or says why not (`too_many_connections`: 429 for the
/// address's share, 503 when the room is full).
pub(crate) fn take_place(s: &OnlineState, h: &Arc<RoomHandle>, addr: Option<IpAddr>) -> Result<Place, ApiError> {
    let limits = &s.inner.limits;
    let mut p = h.audience.places.lock().expect("places lock");
    if p.taken >= limits.spectators_per_room {
        return Err(ApiError::server_full(
            ErrorCode::TooManyConnections,
            format!("this game has {} spectators, the most it takes; try again later", limits.spectators_per_room),
        ));
    }
    if let Some(a) = addr {
        let n = p.by_addr.entry(a).or_default();
        if *n >= limits.spectators_per_addr {
            return Err(ApiError::new(
                ErrorCode::TooManyConnections,
                format!("at most {} spectators of one game per address", limits.spectators_per_addr),
            ));
        }
        *n += 1;
    }
    p.taken += 1;
    Ok(Place { h: h.clone(), addr })
}

/// Spends one line of the room's channel (players' or spectators'); `Err` says the rate.
pub(crate) fn take_chat(s: &OnlineState, h: &RoomHandle, players: bool) -> Result<(), String> {
    let rate =
        if players { s.inner.limits.room_players_chat_per_sec } else { s.inner.limits.room_spectators_chat_per_sec };
    let mut c = h.audience.chat.lock().expect("chat lock");
    let b = c[usize::from(!players)].get_or_insert_with(|| Bucket::new(rate));
    if b.take() {
        Ok(())
    } else if players {
        Err(format!("the players of this game may send at most {rate} chat lines a second together"))
    } else {
        Err(format!("the spectators of this game may send at most {rate} chat lines a second together; try again"))
    }
}

/// Presence changed: sends it now, or once [`PRESENCE_EVERY`] has passed since the last
/// one (a single flush carries every change meanwhile).
pub(crate) fn presence_changed(h: &Arc<RoomHandle>) {
    let mut news = h.audience.presence.lock().expect("presence news lock");
    if news.pending {
        return;
    }
    let now = Instant::now();
    let wait = news.last.map_or(Duration::ZERO, |t| PRESENCE_EVERY.saturating_sub(now.duration_since(t)));
    if wait.is_zero() || tokio::runtime::Handle::try_current().is_err() {
        news.last = Some(now);
        drop(news);
        h.send(&h.presence_json());
        return;
    }
    news.pending = true;
    drop(news);
    let h = h.clone();
    tokio::spawn(async move {
        tokio::time::sleep(wait).await;
        {
            let mut news = h.audience.presence.lock().expect("presence news lock");
            news.pending = false;
            news.last = Some(Instant::now());
        }
        h.send(&h.presence_json());
    });
}

/// Lobby connections by address.
#[derive(Default)]
pub(crate) struct LobbyPlaces(Mutex<HashMap<IpAddr, usize>>);

/// A lobby connection's place, given back on drop.
pub(crate) struct LobbyPlace {
    s: OnlineState,
    addr: IpAddr,
}

impl Drop for LobbyPlace {
    fn drop(&mut self) {
        let mut m = self.s.inner.lobby_places.0.lock().expect("lobby places lock");
        if let Some(n) = m.get_mut(&self.addr) {
            *n -= 1;
            if *n == 0 {
                m.remove(&self.addr);
            }
        }
    }
}

/// Takes one of the address's lobby places (`429` `too_many_connections` past its share).
pub(crate) fn take_lobby_place(s: &OnlineState, addr: Option<IpAddr>) -> Result<Option<LobbyPlace>, ApiError> {
    let Some(addr) = addr else { return Ok(None) };
    let limit = s.inner.limits.lobby_per_addr;
    let mut m = s.inner.lobby_places.0.lock().expect("lobby places lock");
    let n = m.entry(addr).or_default();
    if *n >= limit {
        return Err(ApiError::new(
            ErrorCode::TooManyConnections,
            format!("at most {limit} lobby connections per address"),
        ));
    }
    *n += 1;
    Ok(Some(LobbyPlace { s: s.clone(), addr }))
}
