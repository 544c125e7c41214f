//! The lobby: player identities (a browser-made secret, kept hashed), open challenges,
//! quick pairing and the games in progress, pushed live over one WebSocket
//! (`/api/online/lobby/ws`; messages in docs/api.md).

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

/// SHA-256 of a secret, in hex: all the server keeps of it.
pub(crate) fn hash_secret(secret: &str) -> String {
    Sha256::digest(secret.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
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

/// Creates a room with both seats taken by `players` (by side): stored, live, watched,
/// listed if asked. Answers the id and the seat tokens by side.
pub(crate) async fn create_bound_room(
    s: &OnlineState,
    ruleset: Ruleset,
    clock: Option<Clocks>,
    rated: bool,
    listed: bool,
    players: [(Option<String>, String, Option<f64>); 2],
    charge: super::quota::Charge,
) -> Result<(String, [String; 2]), ApiError> {
    let id = random_secret(10);
    let tokens = [random_secret(32), random_secret(32)];
    let invite = random_secret(24);
    let now = s.now();
    let mut room = Room::new(id.clone(), ruleset, Side::South, tokens.clone(), invite.clone(), None, now);
    room.clocks = clock.clone();
    room.seats[0].name = players[0].1.clone();
    room.commit_claim(Side::North, &players[1].1, now);
    let days_per_turn = clock.as_ref().and_then(|c| c.days_per_turn);
    // Correspondence games are casual.
    let rated =
        rated && days_per_turn.is_none() && players.iter().all(|p| p.0.is_some()) && players[0].0 != players[1].0;
    let op = Op::Many(vec![
        Op::Create {
            id: id.clone(),
            ruleset: ruleset.to_string(),
            start: room.game.start().to_string(),
            tokens: tokens.clone(),
            invite,
            creator: Side::South,
            name: players[0].1.clone(),
            control: clock.map(|c| c.control),
            days_per_turn,
            created: now,
            // After a restart the room counts against this address's quota.
            creator_addr: charge.first_addr().map(|a| a.to_string()),
        },
        Op::Claim { id: id.clone(), side: Side::North, name: players[1].1.clone(), at: now },
        Op::Bind { id: id.clone(), players: [players[0].0.clone(), players[1].0.clone()], rated, listed },
    ]);
    let (addrs, ids) = charge.parts();
    if let Err(e) = super::quota::write_room(s, op, addrs, ids).await {
        super::quota::give_back(s, charge);
        return Err(e);
    }
    super::quota::hold(s, &id, charge);
    let meta = Meta {
        players: [players[0].0.clone().map(|p| (p, players[0].2)), players[1].0.clone().map(|p| (p, players[1].2))],
        rated,
        listed,
    };
    if listed {
        let g = s.inner.lobby.list_game(&room, &meta, now);
        super::lobby_shared::publish_listed(s, &g);
    }
    let h = RoomHandle::new(room, None, &s.inner.limits);
    *h.meta.lock().expect("meta lock") = meta;
    s.inner.rooms.lock().expect("rooms lock").insert(id.clone(), h.clone());
    watch_clock(s.clone(), h);
    tracing::info!(room = %id, %ruleset, rated, "game created from the lobby");
    Ok((id, tokens))
}

/// Lists a challenge just made and tells who must hear of it (every node in a cluster).
fn announce(s: &OnlineState, mut st: std::sync::MutexGuard<'_, LobbyState>, c: Challenge) {
    let lobby = &s.inner.lobby;
    let v = LobbyOut::ChallengeAdded { challenge: challenge_json(&c) };
    if c.open {
        lobby.send(&v);
    } else {
        // Link-only: its creator alone hears of it.
        lobby.tell(&st, &c.by.id, &v);
    }
    super::lobby_shared::publish_added(s, &c, &v);
    st.challenges.push(c);
}

/// A copy of a challenge (kept listed while the database decides an accept).
fn clone_challenge(c: &Challenge) -> Challenge {
    Challenge { id: c.id.clone(), by: c.by.clone(), addr: c.addr, ..*c }
}

fn random_side() -> Side {
    if rand::rngs::StdRng::from_os_rng().random_bool(0.5) {
        Side::South
    } else {
        Side::North
    }
}

/// What a game between two players is: ruleset, clock, rated, listed, and the challenge
/// it comes from.
struct Terms {
    ruleset: Ruleset,
    clock: Option<TimeControl>,
    rated: bool,
    listed: bool,
    challenge: Option<String>,
}

/// Starts the game between two players (`a` on side `a_side`) and tells both.
async fn start_match(
    s: &OnlineState,
    a: PlayerRef,
    a_side: Side,
    b: PlayerRef,
    t: Terms,
    charge: super::quota::Charge,
) -> Result<(), ApiError> {
    let (south, north) = if a_side == Side::South { (&a, &b) } else { (&b, &a) };
    let seat = |p: &PlayerRef| (Some(p.id.clone()), p.name.clone(), Some(p.rating.rating));
    let (id, tokens) =
        create_bound_room(s, t.ruleset, t.clock.map(Clocks::of), t.rated, t.listed, [seat(south), seat(north)], charge)
            .await?;
    let challenge = t.challenge;
    for (side, p) in [(Side::South, south), (Side::North, north)] {
        let token = &tokens[side.index()];
        let m = LobbyOut::Matched {
            room: id.clone(),
            side: side_json(side),
            token: token.clone(),
            links: links(&id, Some(token), None),
            challenge: challenge.clone(),
        };
        if s.clustered() {
            // The player's lobby connections may be on other nodes.
            super::lobby_shared::tell_everywhere(s, &p.id, &m);
        } else {
            s.inner.lobby.tell_player(&p.id, &m);
        }
    }
    Ok(())
}

// ---------------------------------------------------------------- quick pairing

/// The rating window of a seek waiting `waited`: 100 + 25 a second.
fn window(waited: Duration) -> f64 {
    100.0 + 25.0 * waited.as_secs_f64()
}

/// Pairs waiting players: the first two compatible seeks whose ratings are within the
/// older one's window. Answers the pairs removed from the queue.
pub(crate) fn find_pairs(seeks: &mut Vec<Seek>, now: Instant) -> Vec<(Seek, Seek)> {
    let mut out = Vec::new();
    'again: loop {
        for i in 0..seeks.len() {
            for j in i + 1..seeks.len() {
                let (x, y) = (&seeks[i], &seeks[j]);
                let older = if x.since <= y.since { x } else { y };
                if x.player.id != y.player.id
                    && x.ruleset == y.ruleset
                    && x.clock == y.clock
                    && x.rated == y.rated
                    && (x.player.rating.rating - y.player.rating.rating).abs()
                        <= window(now.duration_since(older.since))
                {
                    let b = seeks.remove(j);
                    let a = seeks.remove(i);
                    out.push((a, b));
                    continue 'again;
                }
            }
        }
        return out;
    }
}

async fn pair_now(s: &OnlineState) {
    let pairs = {
        let mut st = s.inner.lobby.state.lock().expect("lobby lock");
        find_pairs(&mut st.seeks, Instant::now())
    };
    for (a, b) in pairs {
        start_pair(s, a, b).await;
    }
}

/// Starts the game of two seeks taken from the queue (or the database), telling both.
pub(crate) async fn start_pair(s: &OnlineState, a: Seek, b: Seek) {
    {
        for p in [&a.player.id, &b.player.id] {
            if s.clustered() {
                super::lobby_shared::tell_everywhere(s, p, &LobbyOut::Seeking { seek: None });
            } else {
                s.inner.lobby.tell_player(p, &LobbyOut::Seeking { seek: None });
            }
        }
        let side = random_side();
        let ids = [a.player.id.clone(), b.player.id.clone()];
        let terms = Terms { ruleset: a.ruleset, clock: a.clock, rated: a.rated, listed: true, challenge: None };
        let charge = super::quota::take(s, [a.addr, b.addr], [Some(&a.player.id), Some(&b.player.id)]);
        let done = match charge {
            Ok(charge) => start_match(s, a.player, side, b.player, terms, charge).await,
            Err(e) => Err(e),
        };
        if let Err(e) = done {
            // Both hear why no game came (their seeks are gone: they may seek again).
            if s.clustered() {
                super::lobby_shared::pairing_failed(s, [&ids[0], &ids[1]], &e);
                return;
            }
            let st = s.inner.lobby.state.lock().expect("lobby lock");
            let why = Utf8Bytes::from(to_text(&LobbyOut::Error(WireError::new(e.code(), &e.to_string(), None))));
            for conn in [a.conn, b.conn] {
                if let Some((_, tx)) = st.conns.get(&conn) {
                    let _ = tx.send(why.clone());
                }
            }
            tracing::warn!(error = %e, "pairing failed");
        }
    }
}

/// Pairs seeks as their windows widen, once a second, for as long as the state lives.
pub(super) fn pairing_loop(s: &OnlineState) {
    if tokio::runtime::Handle::try_current().is_err() {
        return;
    }
    let weak = Arc::downgrade(&s.inner);
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(Duration::from_secs(1));
        loop {
            tick.tick().await;
            let Some(inner) = weak.upgrade() else { break };
            let s = OnlineState { inner };
            if s.clustered() {
                if s.is_leader() {
                    super::lobby_shared::leader_tick(&s).await;
                }
                continue;
            }
            if !s.inner.lobby.state.lock().expect("lobby lock").seeks.is_empty() {
                pair_now(&s).await;
            }
        }
    });
}

// ---------------------------------------------------------------- the WebSocket

/// `GET /api/online/challenges/{id}`: one open or link-only challenge, for the page a
/// challenge's link opens (a link-only challenge is in no list).
pub(super) async fn get_challenge(
    State(s): State<OnlineState>,
    axum::extract::Path(id): axum::extract::Path<String>,
) -> Result<Response, ApiError> {
    let st = s.inner.lobby.state.lock().expect("lobby lock");
    let c = st
        .challenges
        .iter()
        .find(|c| c.id == id)
        .ok_or_else(|| ApiError::new(ErrorCode::NotFound, "no such challenge: taken, withdrawn or never made"))?;
    Ok(axum::Json(challenge_json(c)).into_response())
}

pub(super) async fn lobby_upgrade(
    State(s): State<OnlineState>,
    ClientAddr(addr): ClientAddr,
    ws: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Result<Response, ApiError> {
    let ws = ws.map_err(crate::error::upgrade_refused)?;
    let place = super::audience::take_lobby_place(&s, addr)?;
    let guard = try_connect(&s, addr)?;
    Ok(ws.max_message_size(64 * 1024).max_frame_size(64 * 1024).on_upgrade(move |socket| async move {
        let _open = crate::metrics::websocket_open("lobby");
        connection(s, socket, addr).await;
        drop(guard);
        drop(place);
    }))
}

fn text(m: &LobbyOut) -> Message {
    Message::Text(to_text(m).into())
}

/// A refusal as the lobby's `error` message.
fn api_err(e: ApiError) -> Message {
    lobby_error(e.code(), e.message())
}

/// An `error` message of the lobby.
fn lobby_error(code: ErrorCode, message: &str) -> Message {
    crate::metrics::refusal(code);
    text(&LobbyOut::Error(WireError::new(code, message, None)))
}

fn storage(e: StoreError) -> ApiError {
    ApiError::new(ErrorCode::Storage, e.to_string())
}

fn default_name(id: &str) -> String {
    format!("Player {}", &id[..4])
}

/// Finds or creates the player of `secret` (moving an identity here with `transfer`).
async fn identify(
    s: &OnlineState,
    addr: Option<IpAddr>,
    secret: &str,
    name: Option<String>,
    transfer: Option<String>,
) -> Result<super::store::PlayerInfo, ApiError> {
    let key = hash_secret(secret);
    let found = { s.inner.store.player_by_key(key.clone()).await.map_err(storage)? };
    let id = if let Some(code) = transfer {
        if found.is_some() {
            return Err(ApiError::new(ErrorCode::InvalidField, "a transfer needs a fresh player secret"));
        }
        if let Some(a) = addr {
            let mut per = s.inner.per_addr.lock().expect("addr lock");
            let limits = &s.inner.limits;
            let b = per.entry(a).or_default().codes.get_or_insert_with(|| {
                Bucket::with_burst(limits.transfer_tries_per_min / 60.0, limits.transfer_tries_per_min)
            });
            if !b.take() {
                return Err(ApiError::new(
                    ErrorCode::RateLimited,
                    format!("at most {} transfer codes a minute", limits.transfer_tries_per_min),
                ));
            }
        }
        let op = Op::UseTransfer { code_hash: hash_secret(&code.to_ascii_uppercase()), key_hash: key, now: now_ms() };
        match s.inner.store.write(op).await {
            Ok(ids) if !ids.is_empty() => {
                tracing::info!(player = %ids[0], "identity moved to another device");
                ids[0].clone()
            }
            Err(StoreError::BadCode) => {
                return Err(ApiError::new(ErrorCode::BadCode, "this transfer code is wrong, used or expired"))
            }
            Ok(_) => return Err(ApiError::new(ErrorCode::BadCode, "no such transfer code")),
            Err(e) => return Err(ApiError::new(ErrorCode::Storage, e.to_string())),
        }
    } else if let Some((id, _, _)) = found {
        id
    } else {
        let now = now_ms();
        if let Some(a) = addr {
            let a = a.to_string();
            let n = s.inner.store.players_from(a, now.saturating_sub(3_600_000)).await.map_err(storage)?;
            if n >= s.inner.limits.players_per_addr_hour {
                return Err(ApiError::new(
                    ErrorCode::RateLimited,
                    format!("at most {} new players an hour from one address", s.inner.limits.players_per_addr_hour),
                ));
            }
        }
        let id = random_secret(12);
        let name = name.as_deref().map(str::trim).map(str::to_string).unwrap_or_else(|| default_name(&id));
        check_look_alike(s, &id, &name)?;
        let op =
            Op::CreatePlayer { id: id.clone(), key_hash: key, name, created: now, addr: addr.map(|a| a.to_string()) };
        s.inner.store.write(op).await.map_err(|e| ApiError::new(ErrorCode::Storage, e.to_string()))?;
        tracing::info!(player = %id, "new player");
        let p = load_player(s, &id).await?;
        s.inner.lobby.names.set(&p.id, &p.name);
        return Ok(p);
    };
    if let Some(n) = name {
        rename(s, &id, &n).await?;
    }
    let p = load_player(s, &id).await?;
    s.inner.lobby.names.set(&p.id, &p.name);
    Ok(p)
}

/// Refuses a name that looks like another identity's (issue 42, names that cannot deceive).
fn check_look_alike(s: &OnlineState, id: &str, name: &str) -> Result<(), ApiError> {
    if s.inner.lobby.names.taken_by_other(id, name).is_some() {
        return Err(ApiError::new(ErrorCode::InvalidField, "name: looks like another player's name; choose another"));
    }
    Ok(())
}

async fn rename(s: &OnlineState, id: &str, name: &str) -> Result<(), ApiError> {
    check_look_alike(s, id, name.trim())?;
    s.inner
        .store
        .write(Op::RenamePlayer { id: id.to_string(), name: name.trim().to_string() })
        .await
        .map(|_| ())
        .map_err(storage)?;
    s.inner.lobby.names.set(id, name.trim());
    Ok(())
}

async fn load_player(s: &OnlineState, id: &str) -> Result<super::store::PlayerInfo, ApiError> {
    s.inner
        .store
        .player(id.to_string())
        .await
        .map_err(storage)?
        .ok_or_else(|| ApiError::new(ErrorCode::NotFound, "no such player"))
}

/// The player's rating in `ruleset`'s group (the start rating if none).
fn rating_in(p: &super::store::PlayerInfo, ruleset: Ruleset) -> Rating {
    let g = group_of(ruleset);
    p.ratings.iter().find(|(name, _, _)| name == g).map_or_else(Rating::default, |(_, r, _)| *r)
}

fn welcome(s: &OnlineState, me: Option<&super::store::PlayerInfo>) -> LobbyOut {
    let st = s.inner.lobby.state.lock().expect("lobby lock");
    let challenges =
        st.challenges.iter().filter(|c| c.open || me.is_some_and(|m| m.id == c.by.id)).map(challenge_json).collect();
    let games = st.games.values().cloned().collect();
    LobbyOut::Welcome {
        you: me.map(player_json),
        challenges,
        games,
        seeking: None,
        rated_rules: RatedRules {
            min_turns_each: super::rating::MIN_TURNS_EACH as u32,
            per_pair_per_day: super::rating::RATED_PER_PAIR_PER_DAY as u32,
        },
    }
}

fn parse_ruleset(r: &str) -> Result<Ruleset, ApiError> {
    r.parse().map_err(|e| ApiError::new(ErrorCode::BadRuleset, format!("{e}")))
}

fn no_identity() -> ApiError {
    ApiError::new(ErrorCode::NoIdentity, "send hello with your player secret first")
}

/// One lobby connection: hello, then messages, broadcasts and its own messages.
async fn connection(s: OnlineState, mut socket: WebSocket, addr: Option<IpAddr>) {
    let first = tokio::time::timeout(Duration::from_secs(10), socket.recv()).await;
    let hello = match first {
        Ok(Some(Ok(Message::Text(t)))) => protocol::parse_lobby(t.as_bytes()),
        _ => return,
    };
    let me = match hello {
        Ok(LobbyMsg::Hello { player: Some(secret), name, transfer }) => {
            match identify(&s, addr, &secret, name, transfer).await {
                Ok(p) => Some(p),
                Err(e) => {
                    let _ = socket.send(api_err(e)).await;
                    return;
                }
            }
        }
        Ok(LobbyMsg::Hello { player: None, .. }) => None,
        Ok(_) => {
            let _ = socket.send(lobby_error(ErrorCode::HelloFirst, "the first message must be a hello")).await;
            return;
        }
        Err(e) => {
            let _ = socket.send(lobby_error(e.code(), &e.to_string())).await;
            return;
        }
    };
    let conn = s.inner.lobby.next_conn.fetch_add(1, Ordering::Relaxed);
    s.inner.lobby.charges.connected(conn, addr);
    let (own_tx, own_rx) = mpsc::unbounded_channel::<Utf8Bytes>();
    let rx = s.inner.lobby.tx.subscribe();
    s.inner.lobby.state.lock().expect("lobby lock").conns.insert(conn, (me.as_ref().map(|p| p.id.clone()), own_tx));
    if socket.send(text(&welcome(&s, me.as_ref()))).await.is_ok() {
        let limits = &s.inner.limits;
        let actions = Bucket::with_burst(limits.lobby_actions_per_sec, limits.lobby_actions_per_sec.max(1.0));
        let mut session = LobbySession { s: s.clone(), conn, me, actions, own_rx, rx };
        pump(&s, &mut socket, &mut session).await;
    }
    leave(&s, conn);
}

/// A lobby connection's part for the pump: its player, its action budget, the lobby's
/// broadcasts and its own messages.
struct LobbySession {
    s: OnlineState,
    conn: u64,
    me: Option<super::store::PlayerInfo>,
    actions: Bucket,
    own_rx: mpsc::UnboundedReceiver<Utf8Bytes>,
    rx: broadcast::Receiver<Utf8Bytes>,
}

impl Session for LobbySession {
    async fn message(&mut self, t: &str) -> Vec<Message> {
        handle(&self.s, self.conn, &mut self.me, t, &mut self.actions).await
    }

    async fn feed(&mut self) -> Feed {
        tokio::select! {
            own = self.own_rx.recv() => match own {
                Some(t) => Feed::Send(t),
                None => Feed::End,
            },
            b = self.rx.recv() => match b {
                Ok(t) => Feed::Send(t),
                // Missed broadcasts: the whole lobby again.
                Err(broadcast::error::RecvError::Lagged(_)) => {
                    Feed::Send(to_text(&welcome(&self.s, self.me.as_ref())).into())
                }
                Err(broadcast::error::RecvError::Closed) => Feed::End,
            },
        }
    }
}

/// A connection closed: its seek ends, and its player's challenges go with his last
/// connection.
fn leave(s: &OnlineState, conn: u64) {
    let lobby = &s.inner.lobby;
    lobby.charges.left(conn);
    let mut st = lobby.state.lock().expect("lobby lock");
    let player = st.conns.remove(&conn).and_then(|(p, _)| p);
    st.seeks.retain(|k| k.conn != conn);
    if s.clustered() {
        let s2 = s.clone();
        tokio::spawn(async move { super::lobby_shared::unseek(&s2, conn).await });
    }
    let Some(player) = player else { return };
    if st.conns.values().any(|(p, _)| p.as_deref() == Some(player.as_str())) {
        return;
    }
    if s.clustered() {
        // The challenges made through this node go, on every node (the database decides).
        drop(st);
        super::lobby_shared::left(s, player);
        return;
    }
    let mut gone = Vec::new();
    st.challenges.retain(|c| {
        let keep = c.by.id != player;
        if !keep {
            gone.push((c.id.clone(), c.open));
        }
        keep
    });
    drop(st);
    // A link-only challenge was never listed: nobody else is told of it.
    for (id, _) in gone.into_iter().filter(|(_, open)| *open) {
        lobby.send(&LobbyOut::ChallengeRemoved { id, reason: "left" });
    }
}

/// Handles one lobby message; answers the direct replies. A refused message changes nothing.
async fn handle(
    s: &OnlineState,
    conn: u64,
    me: &mut Option<super::store::PlayerInfo>,
    t: &str,
    actions: &mut Bucket,
) -> Vec<Message> {
    let msg = match protocol::parse_lobby(t.as_bytes()) {
        Ok(m) => m,
        Err(e) => return vec![lobby_error(e.code(), &e.to_string())],
    };
    match handle_msg(s, conn, me, msg, actions).await {
        Ok(v) => v.iter().map(text).collect(),
        Err(e) => vec![api_err(e)],
    }
}

async fn handle_msg(
    s: &OnlineState,
    conn: u64,
    me: &mut Option<super::store::PlayerInfo>,
    msg: LobbyMsg,
    actions: &mut Bucket,
) -> Result<Vec<LobbyOut>, ApiError> {
    let lobby = &s.inner.lobby;
    let limits = &s.inner.limits;
    let rate_limited = || {
        ApiError::new(
            ErrorCode::RateLimited,
            format!("at most {} challenges or seeks a second", limits.lobby_actions_per_sec),
        )
    };
    match msg {
        LobbyMsg::Ping {} => Ok(vec![LobbyOut::Pong]),
        LobbyMsg::Hello { .. } => Err(ApiError::new(ErrorCode::AlreadyHello, "hello is sent once, first")),
        LobbyMsg::Name { name } => {
            let p = me.as_ref().ok_or_else(no_identity)?;
            rename(s, &p.id, &name).await?;
            let fresh = load_player(s, &p.id).await?;
            let v = LobbyOut::You { player: player_json(&fresh) };
            *me = Some(fresh);
            Ok(vec![v])
        }
        LobbyMsg::TransferCode {} => {
            let p = me.as_ref().ok_or_else(no_identity)?;
            if !actions.take() {
                return Err(rate_limited());
            }
            const ALPHABET: &[u8] = b"ABCDEFGHJKMNPQRSTUVWXYZ23456789";
            let mut rng = rand::rngs::StdRng::from_os_rng();
            let code: String = (0..8).map(|_| ALPHABET[rng.random_range(0..ALPHABET.len())] as char).collect();
            let expires = now_ms() + 10 * 60 * 1000;
            s.inner
                .store
                .write(Op::TransferCode { code_hash: hash_secret(&code), player: p.id.clone(), expires })
                .await
                .map_err(|e| ApiError::new(ErrorCode::Storage, e.to_string()))?;
            Ok(vec![LobbyOut::TransferCode { code, expires }])
        }
        LobbyMsg::Challenge { ruleset, side, clock, rated, open } => {
            let p = me.as_ref().ok_or_else(no_identity)?;
            let ruleset = parse_ruleset(&ruleset)?;
            // A fresh view of the player's rating (it may have changed since the hello).
            let fresh = load_player(s, &p.id).await?;
            let by = PlayerRef { id: fresh.id.clone(), name: fresh.name.clone(), rating: rating_in(&fresh, ruleset) };
            let c = {
                let st = lobby.state.lock().expect("lobby lock");
                if st.challenges.iter().filter(|c| c.by.id == by.id).count() >= limits.challenges_per_player {
                    return Err(ApiError::new(
                        ErrorCode::TooManyChallenges,
                        format!("at most {} open challenges per player", limits.challenges_per_player),
                    ));
                }
                if st.challenges.len() >= limits.max_challenges {
                    return Err(ApiError::new(ErrorCode::Busy, "the lobby is full"));
                }
                if !actions.take() {
                    return Err(rate_limited());
                }
                let c = Challenge {
                    id: random_secret(10),
                    ruleset,
                    side: side.unwrap_or(SideChoice::Random),
                    clock,
                    rated,
                    open,
                    created: now_ms(),
                    by,
                    addr: lobby.charges.addr_of(conn),
                };
                if !s.clustered() {
                    announce(s, st, c);
                    return Ok(Vec::new());
                }
                c
            };
            // In a cluster, stored first: the row is what another node's accept takes.
            super::lobby_shared::store_challenge(s, &c).await?;
            announce(s, lobby.state.lock().expect("lobby lock"), c);
            Ok(Vec::new())
        }
        LobbyMsg::Cancel { id } => {
            let p = me.as_ref().ok_or_else(no_identity)?;
            let mine = || ApiError::new(ErrorCode::NotFound, "no such challenge of yours");
            if !lobby.state.lock().expect("lobby lock").challenges.iter().any(|c| c.id == id && c.by.id == p.id) {
                return Err(mine());
            }
            // In a cluster an accept on another node may take it first.
            if !super::lobby_shared::take(s, &id, Some(&p.id)).await? {
                return Err(mine());
            }
            let mut st = lobby.state.lock().expect("lobby lock");
            // Without a cluster nothing ran between the check and here; in one, a note
            // may have removed the copy: the row taken is what counts.
            let Some(i) = st.challenges.iter().position(|c| c.id == id) else {
                return if s.clustered() { Ok(Vec::new()) } else { Err(mine()) };
            };
            let c = st.challenges.remove(i);
            drop(st);
            let v = LobbyOut::ChallengeRemoved { id: c.id.clone(), reason: "cancelled" };
            if c.open {
                lobby.send(&v);
            } else {
                lobby.tell_player(&p.id, &v);
            }
            super::lobby_shared::publish_removed(s, &c.id, &p.id, c.open, &v);
            Ok(Vec::new())
        }
        LobbyMsg::Accept { id } => {
            let p = me.as_ref().ok_or_else(no_identity)?;
            let c = {
                let mut st = lobby.state.lock().expect("lobby lock");
                let i = st
                    .challenges
                    .iter()
                    .position(|c| c.id == id)
                    .ok_or_else(|| ApiError::new(ErrorCode::NotFound, "no such challenge"))?;
                if st.challenges[i].by.id == p.id {
                    return Err(ApiError::new(ErrorCode::OwnChallenge, "you cannot accept your own challenge"));
                }
                // Refused by a quota: the challenge stays open, nothing changed.
                let c = &st.challenges[i];
                let charge =
                    super::quota::take(s, [c.addr, lobby.charges.addr_of(conn)], [Some(&c.by.id), Some(&p.id)])?;
                if s.clustered() {
                    // The database decides between accepts on several nodes (below).
                    (Challenge { ..clone_challenge(c) }, charge)
                } else {
                    (st.challenges.remove(i), charge)
                }
            };
            let (c, charge) = c;
            if s.clustered() {
                let gone = || ApiError::new(ErrorCode::NotFound, "no such challenge");
                match super::lobby_shared::take(s, &id, None).await {
                    Ok(true) => lobby.state.lock().expect("lobby lock").challenges.retain(|x| x.id != id),
                    Ok(false) => {
                        super::quota::give_back(s, charge);
                        return Err(gone());
                    }
                    Err(e) => {
                        super::quota::give_back(s, charge);
                        return Err(e);
                    }
                }
            }
            let v = LobbyOut::ChallengeRemoved { id: c.id.clone(), reason: "accepted" };
            if c.open {
                lobby.send(&v);
            } else {
                lobby.tell_player(&c.by.id, &v);
            }
            super::lobby_shared::publish_removed(s, &c.id, &c.by.id, c.open, &v);
            let fresh = match load_player(s, &p.id).await {
                Ok(f) => f,
                Err(e) => {
                    super::quota::give_back(s, charge);
                    return Err(e);
                }
            };
            let b = PlayerRef { id: fresh.id.clone(), name: fresh.name.clone(), rating: rating_in(&fresh, c.ruleset) };
            let side = match c.side {
                SideChoice::South => Side::South,
                SideChoice::North => Side::North,
                SideChoice::Random => random_side(),
            };
            let terms =
                Terms { ruleset: c.ruleset, clock: c.clock, rated: c.rated, listed: c.open, challenge: Some(c.id) };
            start_match(s, c.by, side, b, terms, charge).await?;
            Ok(Vec::new())
        }
        LobbyMsg::Seek { ruleset, clock, rated } => {
            let p = me.as_ref().ok_or_else(no_identity)?;
            let ruleset = parse_ruleset(&ruleset)?;
            let fresh = load_player(s, &p.id).await?;
            let player =
                PlayerRef { id: fresh.id.clone(), name: fresh.name.clone(), rating: rating_in(&fresh, ruleset) };
            if s.clustered() {
                if !actions.take() {
                    return Err(rate_limited());
                }
                let since = now_ms();
                let addr = lobby.charges.addr_of(conn);
                let k = Seek { node: 0, conn, player, ruleset, clock, rated, since: Instant::now(), addr };
                let m =
                    LobbyOut::Seeking { seek: Some(SeekJson { ruleset: ruleset.to_string(), clock, rated, since }) };
                // Told before the leader may pair it, so that `seeking` comes before `matched`.
                super::lobby_shared::tell_everywhere(s, &k.player.id, &m);
                if let Err(e) = super::lobby_shared::seek(s, conn, &k).await {
                    super::lobby_shared::tell_everywhere(s, &k.player.id, &LobbyOut::Seeking { seek: None });
                    return Err(e);
                }
                return Ok(Vec::new());
            }
            {
                let mut st = lobby.state.lock().expect("lobby lock");
                if st.seeks.iter().any(|k| k.player.id == player.id) {
                    return Err(ApiError::new(ErrorCode::TooManyChallenges, "one quick pairing at a time per player"));
                }
                if !actions.take() {
                    return Err(rate_limited());
                }
                let since_ms = now_ms();
                lobby.tell(
                    &st,
                    &player.id,
                    &LobbyOut::Seeking {
                        seek: Some(SeekJson { ruleset: ruleset.to_string(), clock, rated, since: since_ms }),
                    },
                );
                let addr = lobby.charges.addr_of(conn);
                st.seeks.push(Seek { node: 0, conn, player, ruleset, clock, rated, since: Instant::now(), addr });
            }
            pair_now(s).await;
            Ok(Vec::new())
        }
        LobbyMsg::Unseek {} => {
            super::lobby_shared::unseek(s, conn).await;
            let mut st = lobby.state.lock().expect("lobby lock");
            let before = st.seeks.len();
            st.seeks.retain(|k| k.conn != conn);
            let _ = before;
            Ok(vec![LobbyOut::Seeking { seek: None }])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seek(id: &str, rating: f64, ago: u64, ruleset: &str) -> Seek {
        Seek {
            node: 0,
            conn: 0,
            player: PlayerRef { id: id.into(), name: id.into(), rating: Rating { rating, rd: 100.0, vol: 0.06 } },
            ruleset: ruleset.parse().unwrap(),
            clock: None,
            rated: true,
            since: Instant::now() - Duration::from_secs(ago),
            addr: None,
        }
    }

    #[test]
    fn pairing_window_widens_with_waiting() {
        let now = Instant::now();
        let mut q = vec![seek("a", 1500.0, 0, "tsoro:8"), seek("b", 1800.0, 0, "tsoro:8")];
        assert!(find_pairs(&mut q, now).is_empty(), "300 apart, nobody has waited");
        let mut q = vec![seek("a", 1500.0, 10, "tsoro:8"), seek("b", 1800.0, 0, "tsoro:8")];
        assert_eq!(find_pairs(&mut q, now).len(), 1, "after 10 s the window is 350");
        let mut q = vec![seek("a", 1500.0, 100, "tsoro:8"), seek("b", 1500.0, 0, "tsoro:9")];
        assert!(find_pairs(&mut q, now).is_empty(), "another ruleset");
        let mut q = vec![seek("a", 1500.0, 100, "tsoro:8"), seek("a", 1500.0, 0, "tsoro:8")];
        assert!(find_pairs(&mut q, now).is_empty(), "the same player");
        let mut q = vec![
            seek("a", 1500.0, 0, "tsoro:8"),
            seek("b", 2000.0, 0, "tsoro:8"),
            seek("c", 1550.0, 0, "tsoro:8"),
            seek("d", 1990.0, 0, "tsoro:8"),
        ];
        let pairs = find_pairs(&mut q, now);
        let ids: Vec<(String, String)> =
            pairs.iter().map(|(x, y)| (x.player.id.clone(), y.player.id.clone())).collect();
        assert_eq!(ids, [("a".to_string(), "c".to_string()), ("b".to_string(), "d".to_string())]);
    }

    #[test]
    fn secrets_are_kept_hashed() {
        let h = hash_secret("abc");
        assert_eq!(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }
}
