//! The bus between `matombo serve` nodes sharing one PostgreSQL database: PostgreSQL's
//! `LISTEN/NOTIFY` on one channel, [`CHANNEL`].
//!
//! A node that changes a room (a turn, an end, a closing, a claim, a rematch offer, a chat
//! line, its presence) stores the change first, tells its own connections, then publishes a
//! [`Note`]: the wire message its connections got (a typed [`RoomMsg`] serialized once)
//! with what the other nodes need to bring their copy of the room up to date. A node that
//! does not hold the room ignores the note (it loads the room from the store when a client
//! asks for it); a node that holds it applies the turn in memory when it follows the ply it
//! has, else reloads the room from the store, which is the authority, and passes the
//! message on to its own connections.
//!
//! Notes are published in order by one task per node on its own connection; one listening
//! connection per node reads them. When that connection is lost and made again, notes may
//! have been missed: every room held is reloaded from the store and its connections get
//! the whole state.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::Utf8Bytes;
use futures_util::StreamExt;
use matombo_api::online::{to_text, RoomMsg};
use matombo_core::Side;
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;
use tokio_postgres::{AsyncMessage, NoTls};

use super::handle::{Audience, RoomHandle, Targeted};
use super::room::{PreparedTurn, Room};
use super::OnlineState;

/// The NOTIFY channel of every node.
pub const CHANNEL: &str = "matombo_rooms";

/// PostgreSQL refuses a NOTIFY payload of 8000 bytes or more; a bigger note goes out
/// without its message, and the other nodes send their connections the whole state.
const MAX_PAYLOAD: usize = 7900;

/// A side on the bus.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub(crate) enum BusSide {
    South,
    North,
}

impl From<Side> for BusSide {
    fn from(s: Side) -> Self {
        match s {
            Side::South => BusSide::South,
            Side::North => BusSide::North,
        }
    }
}

impl From<BusSide> for Side {
    fn from(s: BusSide) -> Self {
        match s {
            BusSide::South => Side::South,
            BusSide::North => Side::North,
        }
    }
}

/// Who a passed-on message is for (see [`Audience`]).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case", tag = "to", content = "side")]
pub(crate) enum To {
    Players,
    Spectators,
    Side(BusSide),
    NotSeated,
    /// One side's team members only (issue 42): a node delivers it to the connections of
    /// that side's active members and to no one else.
    Team(BusSide),
}

/// What happened to a room (or to the lobby).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub(crate) enum Event {
    /// A turn stored (with the game's end if it ended it).
    Turn {
        /// Its ply.
        ply: u32,
        /// Its token.
        token: String,
        /// Clocks after it.
        remaining: Option<[u64; 2]>,
        /// When it was played (Unix ms).
        at: u64,
    },
    /// Something stored that the other nodes read back from the store: an end outside
    /// the board, a claimed seat.
    Changed,
    /// The room closed before its end (aborted, expired).
    Closed,
    /// A rematch offered by one side.
    Rematch {
        /// The side that offered.
        by: BusSide,
    },
    /// A message for part of the room's connections (chat, a rematch made).
    Targeted {
        /// Who it is for.
        to: To,
        /// The chat sender, for mutes.
        from: Option<String>,
    },
    /// A message for one side's team members after a change the other nodes read back
    /// from the store first (marks, votes).
    Team {
        /// The side.
        side: BusSide,
    },
    /// The connections a node holds to the room.
    Presence {
        /// Names of connected seat holders, by side.
        players: [Vec<String>; 2],
        /// Spectators.
        spectators: usize,
        /// Team members connected (team games).
        #[serde(default)]
        members: Vec<String>,
    },
    /// Lobby (no room): a challenge made on the sending node.
    ChallengeAdded {
        /// The challenge.
        challenge: super::lobby_shared::SharedChallenge,
    },
    /// Lobby: a challenge gone (taken, cancelled, its maker gone).
    ChallengeRemoved {
        /// Its id.
        id: String,
        /// Its maker.
        player: String,
        /// Listed (else only its maker hears of it).
        open: bool,
    },
    /// Lobby: a message for one player's lobby connections.
    ToPlayer {
        /// The player.
        player: String,
    },
    /// Lobby: a game in progress listed.
    GameListed {
        /// The game.
        game: matombo_api::online::ListedGame,
    },
    /// Lobby: a listed game over.
    GameUnlisted {
        /// Its room.
        id: String,
    },
    /// Lobby: a seek stored; the leader pairs at once.
    SeekAdded,
}

/// One note on the bus.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Note {
    /// The sending node (its own notes come back to it and are skipped).
    node: u64,
    /// The room.
    room: String,
    /// What happened.
    event: Event,
    /// The wire message the sender's connections got, passed on as it is.
    text: Option<String>,
}

/// A node's end of the bus: a queue to the publishing task.
pub(crate) struct Bus {
    node: u64,
    out: mpsc::UnboundedSender<Note>,
}

impl Bus {
    /// This node's id on the bus.
    pub(crate) fn node(&self) -> u64 {
        self.node
    }

    fn publish(&self, room: &str, event: Event, msg: Option<&RoomMsg>) {
        let text = msg.map(to_text);
        let _ = self.out.send(Note { node: self.node, room: room.to_string(), event, text });
    }

    fn publish_text(&self, event: Event, text: Option<String>) {
        let _ = self.out.send(Note { node: self.node, room: String::new(), event, text });
    }
}

impl Audience {
    fn to_bus(self) -> To {
        match self {
            Audience::Players => To::Players,
            Audience::Spectators => To::Spectators,
            Audience::Side(s) => To::Side(s.into()),
            Audience::NotSeated => To::NotSeated,
            Audience::Team(s) => To::Team(s.into()),
        }
    }
}

impl OnlineState {
    fn bus(&self) -> Option<&Bus> {
        self.inner.cluster.as_ref().map(|c| &c.bus)
    }

    /// This node's id on the bus, in a cluster.
    pub(crate) fn node_id(&self) -> Option<u64> {
        self.bus().map(Bus::node)
    }

    /// Tells the other nodes of a lobby change (`text`: the wire message passed on).
    pub(crate) fn publish_lobby(&self, event: Event, text: Option<String>) {
        if let Some(b) = self.bus() {
            b.publish_text(event, text);
        }
    }

    /// Tells the other nodes of a turn this node stored (and sent as `msg`).
    pub(crate) fn publish_turn(&self, room: &str, p: &PreparedTurn, msg: &RoomMsg) {
        if let Some(b) = self.bus() {
            let event = Event::Turn { ply: p.ply, token: p.token.to_string(), remaining: p.remaining, at: p.at };
            b.publish(room, event, Some(msg));
        }
    }

    /// Tells the other nodes that the room changed in the store (they read it back).
    pub(crate) fn publish_changed(&self, room: &str, msg: &RoomMsg) {
        if let Some(b) = self.bus() {
            b.publish(room, Event::Changed, Some(msg));
        }
    }

    /// Tells the other nodes that the room closed.
    pub(crate) fn publish_closed(&self, room: &str, msg: &RoomMsg) {
        if let Some(b) = self.bus() {
            b.publish(room, Event::Closed, Some(msg));
        }
    }

    /// Tells the other nodes of a rematch offer.
    pub(crate) fn publish_rematch(&self, room: &str, by: Side, msg: &RoomMsg) {
        if let Some(b) = self.bus() {
            b.publish(room, Event::Rematch { by: by.into() }, Some(msg));
        }
    }

    /// Passes a message for part of the room's connections to the other nodes.
    pub(crate) fn publish_targeted(&self, room: &str, to: Audience, from: Option<String>, msg: &RoomMsg) {
        if let Some(b) = self.bus() {
            b.publish(room, Event::Targeted { to: to.to_bus(), from }, Some(msg));
        }
    }

    /// Passes a message for one side's team members to the other nodes, which first read
    /// the room back from the store (its marks and vote changed).
    pub(crate) fn publish_team(&self, room: &str, side: Side, msg: &RoomMsg) {
        if let Some(b) = self.bus() {
            b.publish(room, Event::Team { side: side.into() }, Some(msg));
        }
    }

    /// Tells the other nodes who is connected to the room through this node.
    pub(crate) fn publish_presence(&self, h: &RoomHandle) {
        if let Some(b) = self.bus() {
            let (players, spectators, members) = {
                let p = h.presence.lock().expect("presence lock");
                let members = p.members.iter().filter(|(_, n)| **n > 0).map(|(m, _)| m.clone()).collect();
                (p.players.clone(), p.spectators, members)
            };
            b.publish(&h.id, Event::Presence { players, spectators, members }, None);
        }
    }
}

/// Starts the bus of a node on `url`: the publishing task and the listening task. Returns
/// the node's end, to be kept in the state; [`listen`] starts once the state exists.
pub(crate) fn start() -> (Bus, mpsc::UnboundedReceiver<Note>) {
    let (out, rx) = mpsc::unbounded_channel();
    let node = rand::random::<u64>() >> 11;
    (Bus { node, out }, rx)
}

/// Publishes the queued notes in order on a connection of their own, made again when it
/// is lost (the notes of that moment are lost: the other nodes catch up from the store).
pub(crate) fn publish_loop(url: String, mut rx: mpsc::UnboundedReceiver<Note>) {
    tokio::spawn(async move {
        let mut batch = Vec::new();
        'connect: loop {
            let client = match tokio_postgres::connect(&url, NoTls).await {
                Ok((client, conn)) => {
                    tokio::spawn(async move {
                        let _ = conn.await;
                    });
                    client
                }
                Err(e) => {
                    tracing::warn!(error = %e, "bus: cannot connect to publish; trying again");
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    continue;
                }
            };
            let stmt = match client.prepare("SELECT pg_notify($1, $2)").await {
                Ok(s) => s,
                Err(_) => continue,
            };
            loop {
                if batch.is_empty() {
                    match rx.recv().await {
                        Some(n) => batch.push(n),
                        None => break 'connect,
                    }
                    while batch.len() < 256 {
                        match rx.try_recv() {
                            Ok(n) => batch.push(n),
                            Err(_) => break,
                        }
                    }
                }
                let payloads: Vec<String> = batch.drain(..).map(payload).collect();
                // Sent together on one connection: pipelined, and delivered in this order.
                let params: Vec<[&(dyn tokio_postgres::types::ToSql + Sync); 2]> =
                    payloads.iter().map(|p| [&CHANNEL as &(dyn tokio_postgres::types::ToSql + Sync), p]).collect();
                let sent = futures_util::future::join_all(params.iter().map(|ps| client.execute(&stmt, &ps[..]))).await;
                if let Some(Err(e)) = sent.into_iter().find(|r| r.is_err()) {
                    tracing::warn!(error = %e, "bus: publishing failed; reconnecting");
                    continue 'connect;
                }
            }
        }
    });
}

/// A note as its NOTIFY payload; one too big goes without its message.
fn payload(mut n: Note) -> String {
    let p = serde_json::to_string(&n).expect("a note serializes");
    if p.len() <= MAX_PAYLOAD {
        return p;
    }
    n.text = None;
    if let Event::Targeted { .. } | Event::Team { .. } = n.event {
        // A message for a part of the room cannot be rebuilt elsewhere: dropped (never
        // passed to the whole room).
        n.event = Event::Changed;
    }
    serde_json::to_string(&n).expect("a note serializes")
}

/// Listens to the bus for as long as the state lives, reconnecting when the connection is
/// lost (and then reloading every room held, since notes may have been missed).
pub(crate) fn listen(s: &OnlineState, url: String) {
    let weak = Arc::downgrade(&s.inner);
    tokio::spawn(async move {
        let mut first = true;
        loop {
            let (client, mut conn) = match tokio_postgres::connect(&url, NoTls).await {
                Ok(x) => x,
                Err(e) => {
                    tracing::warn!(error = %e, "bus: cannot connect to listen; trying again");
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    continue;
                }
            };
            let (tx, mut notes) = mpsc::unbounded_channel();
            let driver = tokio::spawn(async move {
                let mut stream = futures_util::stream::poll_fn(move |cx| conn.poll_message(cx));
                while let Some(m) = stream.next().await {
                    match m {
                        Ok(AsyncMessage::Notification(n)) => {
                            if tx.send(n.payload().to_string()).is_err() {
                                break;
                            }
                        }
                        Ok(_) => {}
                        Err(e) => {
                            tracing::warn!(error = %e, "bus: the listening connection failed");
                            break;
                        }
                    }
                }
            });
            if let Err(e) = client.batch_execute(&format!("LISTEN {CHANNEL}")).await {
                tracing::warn!(error = %e, "bus: LISTEN failed; trying again");
                driver.abort();
                tokio::time::sleep(Duration::from_secs(1)).await;
                continue;
            }
            let Some(inner) = weak.upgrade() else { return };
            let s = OnlineState { inner };
            // This node's lock, held as long as this connection: while it is held, the
            // leader keeps the lobby rows of this node's connections.
            if let Some(node) = s.node_id() {
                if let Err(e) = crate::store::postgres::PgStore::hold_node_lock(&client, node).await {
                    tracing::warn!(error = %e, "bus: cannot take the node's lock; trying again");
                    driver.abort();
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    continue;
                }
            }
            if !first {
                resync_all(&s).await;
            }
            super::lobby_shared::reread(&s).await;
            drop(s);
            first = false;
            tracing::info!("bus: listening");
            while let Some(p) = notes.recv().await {
                let Some(inner) = weak.upgrade() else { return };
                let s = OnlineState { inner };
                match serde_json::from_str::<Note>(&p) {
                    Ok(n) => on_note(&s, n).await,
                    Err(e) => tracing::warn!(error = %e, "bus: a note that cannot be read"),
                }
            }
            drop(client);
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    });
}

/// Reloads every room held from the store and sends its connections the whole state.
async fn resync_all(s: &OnlineState) {
    let held: Vec<_> = s.inner.rooms.lock().expect("rooms lock").values().cloned().collect();
    for h in held {
        let mut room = h.room.lock().await;
        if reload(s, &h, &mut room).await {
            send_states(&h, &room);
        }
    }
}

/// Sends every connection of the room the whole state as it sees it (its seat's `you`).
fn send_states(h: &RoomHandle, room: &Room) {
    let now = h.clock.now();
    for side in [Side::South, Side::North] {
        h.target(Audience::Side(side), None, &h.state(room, Some(side), now, false));
    }
    h.target(Audience::NotSeated, None, &h.state(room, None, now, false));
}

/// Reads the room back from the store (the authority) into `room`; true if it changed.
/// A room the store no longer has live (closed) is marked closed.
pub(crate) async fn reload(s: &OnlineState, h: &Arc<RoomHandle>, room: &mut Room) -> bool {
    match s.inner.store.load_room(h.id.clone(), s.now()).await {
        Ok(Some(r)) => {
            let changed = r.ply() != room.ply()
                || r.game.is_over() != room.game.is_over()
                || r.seats.iter().zip(&room.seats).any(|(a, b)| a.claimed != b.claimed);
            *room = r;
            h.note_removed(room);
            if room.game.is_over() {
                super::lifecycle::finished(s, h);
            }
            h.clock_changed.notify_one();
            changed
        }
        Ok(None) => {
            h.closed.store(true, Ordering::Release);
            super::lifecycle::finished(s, h);
            h.clock_changed.notify_one();
            true
        }
        Err(e) => {
            tracing::warn!(room = %h.id, error = %e, "cannot reload the room from the store");
            false
        }
    }
}

async fn on_note(s: &OnlineState, n: Note) {
    if s.bus().is_some_and(|b| b.node() == n.node) {
        return;
    }
    if n.room.is_empty() {
        super::lobby_shared::on_note(s, n.event, n.text);
        return;
    }
    let Some(h) = s.inner.get(&n.room) else { return };
    let pass = |h: &RoomHandle, text: Option<String>| {
        if let Some(t) = text {
            let _ = h.tx.send(Utf8Bytes::from(t));
        }
    };
    match n.event {
        Event::Turn { ply, token, remaining, at } => {
            let mut room = h.room.lock().await;
            let applied = room.ply() == ply
                && !room.game.is_over()
                && token.parse().ok().is_some_and(|token| {
                    let side = room.to_move();
                    if room.game.position().play(&token).is_err() {
                        return false;
                    }
                    room.commit_turn(&PreparedTurn { ply, token, side, remaining, at });
                    true
                });
            if !applied && room.ply() <= ply {
                reload(s, &h, &mut room).await;
            }
            match n.text {
                Some(t) => pass(&h, Some(t)),
                None => send_states(&h, &room),
            }
            if room.game.is_over() {
                super::lifecycle::finished(s, &h);
            }
            drop(room);
            h.clock_changed.notify_one();
        }
        Event::Changed => {
            let mut room = h.room.lock().await;
            reload(s, &h, &mut room).await;
            match n.text {
                Some(t) => pass(&h, Some(t)),
                None => send_states(&h, &room),
            }
            drop(room);
            super::lifecycle::watch_clock(s.clone(), h.clone());
        }
        Event::Closed => {
            h.closed.store(true, Ordering::Release);
            pass(&h, n.text);
            super::lifecycle::finished(s, &h);
            h.clock_changed.notify_one();
        }
        Event::Rematch { by } => {
            h.rematch.lock().expect("rematch lock").0 = Some(by.into());
            pass(&h, n.text);
        }
        Event::Targeted { to, from } => {
            let Some(text) = n.text else { return };
            let to = match to {
                To::Players => Audience::Players,
                To::Spectators => Audience::Spectators,
                To::Side(s) => Audience::Side(s.into()),
                To::NotSeated => Audience::NotSeated,
                To::Team(s) => Audience::Team(s.into()),
            };
            let _ = h.events.send(Targeted { to, from, text: Utf8Bytes::from(text) });
        }
        Event::Team { side } => {
            {
                let mut room = h.room.lock().await;
                reload(s, &h, &mut room).await;
            }
            let Some(text) = n.text else { return };
            let _ =
                h.events.send(Targeted { to: Audience::Team(side.into()), from: None, text: Utf8Bytes::from(text) });
            // A vote's closing time is watched here too.
            h.clock_changed.notify_one();
            super::lifecycle::watch_clock(s.clone(), h.clone());
        }
        Event::Presence { players, spectators, members } => {
            let before: Vec<String> = {
                let p = h.presence.lock().expect("presence lock");
                p.remote.get(&n.node).map(|r| r.2.clone()).unwrap_or_default()
            };
            let changed = before != members;
            h.presence.lock().expect("presence lock").remote.insert(n.node, (players, spectators, members));
            super::audience::presence_changed(&h);
            if changed {
                // A member came or went on another node: a vote his leaving decides.
                super::teamws::close_if_all_voted(s, &h).await;
            }
        }
        // Lobby notes have no room (handled above).
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notes_read_back_as_written() {
        let n = Note {
            node: 7,
            room: "abc".into(),
            event: Event::Targeted { to: To::Side(BusSide::North), from: Some("w1".into()) },
            text: Some("{\"type\":\"chat\"}".into()),
        };
        let back: Note = serde_json::from_str(&payload(n)).unwrap();
        assert_eq!(back.event, Event::Targeted { to: To::Side(BusSide::North), from: Some("w1".into()) });
        assert_eq!(back.text.as_deref(), Some("{\"type\":\"chat\"}"));
    }

    #[test]
    fn a_note_too_big_goes_without_its_message() {
        let n = Note { node: 1, room: "r".into(), event: Event::Changed, text: Some("x".repeat(9000)) };
        let p = payload(n);
        assert!(p.len() < MAX_PAYLOAD);
        let back: Note = serde_json::from_str(&p).unwrap();
        assert_eq!(back.text, None);
    }
}
