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
//! the whole state.//!
//! `link` holds the node's two connections (publishing and listening); `receive`
//! applies the notes of the other nodes.

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

mod link;
mod receive;

pub(crate) use link::{connect_or_wait, listen, publish_loop};
pub(crate) use receive::reload;

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
