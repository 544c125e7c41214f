//! One lobby for every node of a cluster (issue 35; PostgreSQL only, SQLite is one node
//! and keeps its lobby in memory alone).
//!
//! The database is the authority: an open challenge or seek is a row tagged with the node
//! holding its maker's connection (`store/postgres/shared.rs`). Taking a challenge is one
//! `DELETE … RETURNING`: of two accepts on two nodes, one gets the row and makes the room,
//! the other answers `not_found` as for a challenge gone. Each node keeps a copy of the
//! open challenges and listed games for its connections' welcomes, brought up to date by
//! the bus ([`Event`] notes carrying the wire message its own connections got) and read
//! again from the database whenever the node's bus connection comes back.
//!
//! Quick pairing runs on the leader, over the seeks of every node: one pass a second (and
//! at once when a node tells of a new seek), two seeks taken for a game in one
//! transaction. A message for a player (matched, seeking, a refusal) goes to his lobby
//! connections on every node. The leader also removes the rows of nodes that died: a
//! node holds an advisory lock keyed by its id while it lives.

use std::net::IpAddr;
use std::time::{Duration, Instant};

use axum::extract::ws::Utf8Bytes;
use matombo_api::online::{to_text, ListedGame, LobbyOut, SideChoice, TimeControl, WireError};
use matombo_api::ErrorCode;
use serde::{Deserialize, Serialize};

use super::bus::Event;
use super::handle::now_ms;
use super::http::ApiError;
use super::lobby::{challenge_json, Challenge, PlayerRef, Seek};
use super::rating::Rating;
use super::store::postgres::{ChallengeRow, PgStore, SeekRow};
use super::OnlineState;

/// A challenge as stored and passed between nodes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct SharedChallenge {
    id: String,
    ruleset: String,
    side: SideChoice,
    clock: Option<TimeControl>,
    rated: bool,
    open: bool,
    created: u64,
    by: SharedPlayer,
    addr: Option<IpAddr>,
}

/// A player as a challenge or a seek carries him.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct SharedPlayer {
    id: String,
    name: String,
    rating: f64,
    rd: f64,
    vol: f64,
}

/// A seek as stored.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct SharedSeek {
    player: SharedPlayer,
    ruleset: String,
    clock: Option<TimeControl>,
    rated: bool,
    addr: Option<IpAddr>,
}

impl From<&PlayerRef> for SharedPlayer {
    fn from(p: &PlayerRef) -> Self {
        SharedPlayer {
            id: p.id.clone(),
            name: p.name.clone(),
            rating: p.rating.rating,
            rd: p.rating.rd,
            vol: p.rating.vol,
        }
    }
}

impl From<SharedPlayer> for PlayerRef {
    fn from(p: SharedPlayer) -> Self {
        PlayerRef { id: p.id, name: p.name, rating: Rating { rating: p.rating, rd: p.rd, vol: p.vol } }
    }
}

impl From<&Challenge> for SharedChallenge {
    fn from(c: &Challenge) -> Self {
        SharedChallenge {
            id: c.id.clone(),
            ruleset: c.ruleset.to_string(),
            side: c.side,
            clock: c.clock,
            rated: c.rated,
            open: c.open,
            created: c.created,
            by: (&c.by).into(),
            addr: c.addr,
        }
    }
}

impl SharedChallenge {
    fn challenge(self) -> Option<Challenge> {
        Some(Challenge {
            id: self.id,
            ruleset: self.ruleset.parse().ok()?,
            side: self.side,
            clock: self.clock,
            rated: self.rated,
            open: self.open,
            created: self.created,
            by: self.by.into(),
            addr: self.addr,
        })
    }
}

fn storage(e: super::store::StoreError) -> ApiError {
    ApiError::new(ErrorCode::Storage, e.to_string())
}

/// The shared store and this node's id, when the node is part of a cluster.
pub(crate) fn shared(s: &OnlineState) -> Option<(&PgStore, u64)> {
    Some((s.inner.store.shared()?, s.node_id()?))
}

/// Stores a challenge this node's connection made (before anyone hears of it).
pub(crate) async fn store_challenge(s: &OnlineState, c: &Challenge) -> Result<(), ApiError> {
    let Some((pg, node)) = shared(s) else { return Ok(()) };
    let body = serde_json::to_string(&SharedChallenge::from(c)).expect("a challenge serializes");
    let row = ChallengeRow { id: c.id.clone(), node, player: c.by.id.clone(), open: c.open, body };
    pg.put_challenge(&row, c.created).await.map_err(storage)
}

/// Tells the other nodes of a challenge made here (`m`: its `challenge_added`).
pub(crate) fn publish_added(s: &OnlineState, c: &Challenge, m: &LobbyOut) {
    s.publish_lobby(Event::ChallengeAdded { challenge: c.into() }, Some(to_text(m)));
}

/// Takes a challenge in the database (accepted, or cancelled by `by`): true for the one
/// caller that got it. Without a cluster, the caller's lobby lock decided already.
pub(crate) async fn take(s: &OnlineState, id: &str, by: Option<&str>) -> Result<bool, ApiError> {
    let Some((pg, _)) = shared(s) else { return Ok(true) };
    Ok(pg.take_challenge(id, by).await.map_err(storage)?.is_some())
}

/// Tells the other nodes that a challenge is gone (`m`: its `challenge_removed`).
pub(crate) fn publish_removed(s: &OnlineState, id: &str, player: &str, open: bool, m: &LobbyOut) {
    let e = Event::ChallengeRemoved { id: id.to_string(), player: player.to_string(), open };
    s.publish_lobby(e, Some(to_text(m)));
}

/// Sends `m` to the player's lobby connections on every node.
pub(crate) fn tell_everywhere(s: &OnlineState, player: &str, m: &LobbyOut) {
    s.inner.lobby.tell_player(player, m);
    s.publish_lobby(Event::ToPlayer { player: player.to_string() }, Some(to_text(m)));
}

/// Tells the other nodes of a game listed here.
pub(crate) fn publish_listed(s: &OnlineState, g: &ListedGame) {
    let m = LobbyOut::GameAdded { game: g.clone() };
    s.publish_lobby(Event::GameListed { game: g.clone() }, Some(to_text(&m)));
}

/// Tells the other nodes of a listed game over.
pub(crate) fn publish_unlisted(s: &OnlineState, id: &str) {
    let m = LobbyOut::GameRemoved { id: id.to_string() };
    s.publish_lobby(Event::GameUnlisted { id: id.to_string() }, Some(to_text(&m)));
}

/// A lobby note from another node: the copy brought up to date, the message passed on.
pub(crate) fn on_note(s: &OnlineState, event: Event, text: Option<String>) {
    let lobby = &s.inner.lobby;
    let text = text.map(Utf8Bytes::from);
    let mut st = lobby.state.lock().expect("lobby lock");
    match event {
        Event::ChallengeAdded { challenge } => {
            let Some(c) = challenge.challenge() else { return };
            if st.challenges.iter().any(|x| x.id == c.id) {
                return;
            }
            let (open, by) = (c.open, c.by.id.clone());
            st.challenges.push(c);
            st.challenges.sort_by_key(|c| c.created);
            pass(lobby, &st, open, &by, text);
        }
        Event::ChallengeRemoved { id, player, open } => {
            let before = st.challenges.len();
            st.challenges.retain(|c| c.id != id);
            if st.challenges.len() < before {
                pass(lobby, &st, open, &player, text);
            }
        }
        Event::ToPlayer { player } => pass(lobby, &st, false, &player, text),
        Event::GameListed { game } => {
            st.games.insert(game.id.clone(), game);
            pass(lobby, &st, true, "", text);
        }
        Event::GameUnlisted { id } => {
            let was = st.games.remove(&id).is_some();
            pass(lobby, &st, was, "", text.filter(|_| was));
        }
        Event::SeekAdded => {
            drop(st);
            if s.is_leader() {
                let s = s.clone();
                tokio::spawn(async move { pair(&s).await });
            }
        }
        _ => {}
    }
}

/// Passes a message on to every lobby connection (`all`) or to one player's.
fn pass(lobby: &super::lobby::Lobby, st: &super::lobby::LobbyState, all: bool, player: &str, text: Option<Utf8Bytes>) {
    let Some(t) = text else { return };
    if all {
        let _ = lobby.tx.send(t);
    } else {
        for (p, tx) in st.conns.values() {
            if p.as_deref() == Some(player) {
                let _ = tx.send(t.clone());
            }
        }
    }
}

/// Reads the open challenges again (the node's bus connection came back: notes may have
/// been missed) and tells this node's connections what changed.
pub(crate) async fn reread(s: &OnlineState) {
    let Some((pg, _)) = shared(s) else { return };
    let rows = match pg.challenges().await {
        Ok(r) => r,
        Err(e) => {
            tracing::warn!(error = %e, "lobby: cannot read the challenges back");
            return;
        }
    };
    let fresh: Vec<Challenge> = rows
        .iter()
        .filter_map(|r| serde_json::from_str::<SharedChallenge>(&r.body).ok().and_then(SharedChallenge::challenge))
        .collect();
    let lobby = &s.inner.lobby;
    let mut st = lobby.state.lock().expect("lobby lock");
    let gone: Vec<(String, String, bool)> = st
        .challenges
        .iter()
        .filter(|c| !fresh.iter().any(|f| f.id == c.id))
        .map(|c| (c.id.clone(), c.by.id.clone(), c.open))
        .collect();
    let added: Vec<usize> = (0..fresh.len()).filter(|&i| !st.challenges.iter().any(|c| c.id == fresh[i].id)).collect();
    for (id, by, open) in gone {
        let m = Utf8Bytes::from(to_text(&LobbyOut::ChallengeRemoved { id, reason: "left" }));
        pass(lobby, &st, open, &by, Some(m));
    }
    for i in added {
        let m = Utf8Bytes::from(to_text(&LobbyOut::ChallengeAdded { challenge: challenge_json(&fresh[i]) }));
        pass(lobby, &st, fresh[i].open, &fresh[i].by.id, Some(m));
    }
    st.challenges = fresh;
}

/// A player's last lobby connection on this node closed: the challenges he made through
/// it go, on every node.
pub(crate) fn left(s: &OnlineState, player: String) {
    let Some((_, node)) = shared(s) else { return };
    let s = s.clone();
    tokio::spawn(async move {
        let Some((pg, _)) = shared(&s) else { return };
        match pg.drop_challenges_of(node, &player).await {
            Ok(rows) => withdrawn(&s, rows),
            Err(e) => tracing::warn!(error = %e, "lobby: cannot withdraw a leaver's challenges"),
        }
    });
}

/// Challenges removed from the database for their maker's leaving: removed here, told to
/// this node's connections and to the other nodes.
fn withdrawn(s: &OnlineState, rows: Vec<ChallengeRow>) {
    let lobby = &s.inner.lobby;
    for r in rows {
        let m = LobbyOut::ChallengeRemoved { id: r.id.clone(), reason: "left" };
        {
            let mut st = lobby.state.lock().expect("lobby lock");
            st.challenges.retain(|c| c.id != r.id);
            pass(lobby, &st, r.open, &r.player, Some(Utf8Bytes::from(to_text(&m))));
        }
        publish_removed(s, &r.id, &r.player, r.open, &m);
    }
}

/// Stores a seek of this node's connection `conn` and has the leader pair at once.
pub(crate) async fn seek(s: &OnlineState, conn: u64, k: &Seek) -> Result<(), ApiError> {
    let Some((pg, node)) = shared(s) else { return Ok(()) };
    let body = SharedSeek {
        player: (&k.player).into(),
        ruleset: k.ruleset.to_string(),
        clock: k.clock,
        rated: k.rated,
        addr: k.addr,
    };
    let row = SeekRow {
        node,
        conn,
        player: k.player.id.clone(),
        body: serde_json::to_string(&body).expect("a seek serializes"),
        since: now_ms(),
    };
    if !pg.put_seek(&row).await.map_err(storage)? {
        return Err(ApiError::new(ErrorCode::TooManyChallenges, "one quick pairing at a time per player"));
    }
    if s.is_leader() {
        pair(s).await;
    } else {
        s.publish_lobby(Event::SeekAdded, None);
    }
    Ok(())
}

/// Ends the seek of this node's connection `conn`, if any.
pub(crate) async fn unseek(s: &OnlineState, conn: u64) {
    let Some((pg, node)) = shared(s) else { return };
    if let Err(e) = pg.drop_seek(node, conn).await {
        tracing::warn!(error = %e, "lobby: cannot remove a seek");
    }
}

/// The leader's pairing pass over every node's seeks.
pub(crate) async fn pair(s: &OnlineState) {
    let Some((pg, _)) = shared(s) else { return };
    let rows = match pg.seeks().await {
        Ok(r) => r,
        Err(e) => {
            tracing::warn!(error = %e, "lobby: cannot read the seeks");
            return;
        }
    };
    let (now, now_ms) = (Instant::now(), now_ms());
    let mut seeks: Vec<Seek> = rows
        .iter()
        .filter_map(|r| {
            let b: SharedSeek = serde_json::from_str(&r.body).ok()?;
            let waited = Duration::from_millis(now_ms.saturating_sub(r.since));
            Some(Seek {
                node: r.node,
                conn: r.conn,
                player: b.player.into(),
                ruleset: b.ruleset.parse().ok()?,
                clock: b.clock,
                rated: b.rated,
                since: now.checked_sub(waited).unwrap_or(now),
                addr: b.addr,
            })
        })
        .collect();
    for (a, b) in super::lobby::find_pairs(&mut seeks, now) {
        match pg.take_pair((a.node, a.conn), (b.node, b.conn)).await {
            Ok(true) => super::lobby::start_pair(s, a, b).await,
            Ok(false) => {}
            Err(e) => tracing::warn!(error = %e, "lobby: cannot take two seeks"),
        }
    }
}

/// Tells both players of a pairing that failed why (their seeks are gone).
pub(crate) fn pairing_failed(s: &OnlineState, players: [&str; 2], e: &ApiError) {
    let m = LobbyOut::Error(WireError::new(e.code(), &e.to_string(), None));
    for p in players {
        tell_everywhere(s, p, &m);
    }
}

/// The leader's second: the rows of dead nodes removed, the seeks paired, the budgets
/// refilled to the full forgotten.
pub(crate) async fn leader_tick(s: &OnlineState) {
    let Some((pg, node)) = shared(s) else { return };
    match pg.drop_dead_nodes(node).await {
        Ok(rows) => withdrawn(s, rows),
        Err(e) => tracing::warn!(error = %e, "lobby: cannot sweep dead nodes' rows"),
    }
    pair(s).await;
    let l = &s.inner.limits;
    let _ = pg.prune_budgets(now_ms(), l.rooms_per_sec, 2.0 * l.rooms_per_sec).await;
}
