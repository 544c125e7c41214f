//! The thin network layer over [`super::room`]: HTTP API, WebSocket connections, pages.
//!
//! API:
//! - `POST /api/online/rooms` `{"ruleset":"tsoro:8","side":"south|north|random",
//!   "clock":{"initial_ms":300000,"increment_ms":5000},"name":"Rudo"}` → the creator's seat
//!   token and the links (seat, invitation, watch).
//! - `POST /api/online/rooms/{id}/claim` `{"invite":"…","name":"…"}` → the free seat.
//! - `GET /api/online/rooms/{id}` → public state (`?positions=1` adds every position).
//! - `GET /api/online/rooms/{id}/record` → the game record (text).
//! - `GET /api/online/rooms/{id}/ws` → WebSocket (see [`super::protocol`]).
//! - `GET /api/online/archive?limit=&offset=` → finished games, newest first.
//! - `POST /api/online/decisions` `{"position":"…","decisions":["sow B2",…]}` → the next
//!   legal decisions, the token when complete, and the sowing events for animation.

use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::ws::{Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::extract::{ConnectInfo, DefaultBodyLimit, FromRequestParts, Path, Query, State};
use axum::http::request::Parts;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use matombo_core::{Decision, Event, Outcome, Position, Record, Ruleset, Side, Token};
use rand::Rng;
use serde::Deserialize;
use serde_json::{json, Value};
use tokio::sync::{broadcast, Notify};

use super::protocol::{self, ClientMsg};
use super::room::{truncate, Room, RoomError, TimeControl, TurnCheck, MAX_CLOCK_MS};
use super::store::Op;
use super::{Inner, OnlineState};

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

fn side_str(s: Side) -> &'static str {
    match s {
        Side::South => "south",
        Side::North => "north",
    }
}

/// Who is connected to a room.
#[derive(Default)]
struct Presence {
    /// Names of connected seat holders, by side (a team may share a seat).
    players: [Vec<String>; 2],
    spectators: usize,
}

/// A live room: the room behind an async lock (held across the storage write, so turns
/// of one room are stored and broadcast in order), its broadcast channel and presence.
pub(crate) struct RoomHandle {
    id: String,
    room: tokio::sync::Mutex<Room>,
    tx: broadcast::Sender<Utf8Bytes>,
    presence: Mutex<Presence>,
    /// Turns from every connection holding a seat of this room.
    turn_budget: Mutex<Bucket>,
    creator: Option<IpAddr>,
    clock_changed: Notify,
    watching: AtomicBool,
    /// Closed unfinished (unclaimed or abandoned): no more claims, turns or ends.
    closed: AtomicBool,
    /// Its slot in the room counts has been given back (at its end or its closing).
    released: AtomicBool,
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

    fn send(&self, v: &Value) {
        let _ = self.tx.send(Utf8Bytes::from(v.to_string()));
    }

    fn presence_json(&self) -> Value {
        let p = self.presence.lock().expect("presence lock");
        json!({
            "type": "presence",
            "south": {"online": p.players[0].len(), "names": p.players[0]},
            "north": {"online": p.players[1].len(), "names": p.players[1]},
            "spectators": p.spectators,
        })
    }
}

fn outcome_json(o: Option<Outcome>) -> Value {
    match o {
        None => Value::Null,
        Some(o) => json!({
            "winner": o.winner.map(side_str),
            "termination": o.termination.tag(),
            "result": o.result(),
            "text": o.to_string(),
        }),
    }
}

fn clock_json(room: &Room, now: u64) -> Value {
    match &room.clocks {
        None => Value::Null,
        Some(c) => {
            let to_move = room.to_move();
            let running = c.running_since.is_some() && !room.game.is_over();
            json!({
                "initial_ms": c.control.initial_ms,
                "increment_ms": c.control.increment_ms,
                "south_ms": c.left(Side::South, to_move, now),
                "north_ms": c.left(Side::North, to_move, now),
                "running": running.then(|| side_str(to_move)),
            })
        }
    }
}

/// The full state of a room as a client needs it to (re)start.
fn state_json(room: &Room, you: Option<Side>, now: u64, positions: bool) -> Value {
    let mut v = json!({
        "type": "state",
        "room": room.id,
        "ruleset": room.ruleset().to_string(),
        "start": room.game.start().to_string(),
        "moves": room.game.moves().iter().map(|t| t.to_string()).collect::<Vec<_>>(),
        "ply": room.ply(),
        "position": room.game.position().to_string(),
        "to_move": side_str(room.to_move()),
        "you": you.map(side_str),
        "seats": {
            "south": {"taken": room.seats[0].claimed, "name": room.seats[0].name},
            "north": {"taken": room.seats[1].claimed, "name": room.seats[1].name},
        },
        "clock": clock_json(room, now),
        "outcome": outcome_json(room.game.outcome()),
        "created": room.created,
    });
    if positions {
        v["positions"] = room.game.positions().iter().map(|p| p.to_string()).collect::<Vec<_>>().into();
    }
    v
}

/// An API error: HTTP status, machine code and a sentence.
struct ApiError(StatusCode, &'static str, String);

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.0, Json(json!({"error": self.1, "message": crate::limits::cut(&self.2)}))).into_response()
    }
}

fn room_error(e: &RoomError) -> &'static str {
    match e {
        RoomError::NotAPlayer => "not_a_player",
        RoomError::NotYourTurn(_) => "not_your_turn",
        RoomError::Stale { .. } => "stale",
        RoomError::Ahead { .. } => "ahead",
        RoomError::BadToken(_) => "bad_move",
        RoomError::Illegal(_) => "illegal",
        RoomError::GameOver(_) => "game_over",
        RoomError::WaitingForOpponent => "waiting",
        RoomError::BadInvite => "bad_invite",
        RoomError::SeatsTaken => "seats_taken",
    }
}

/// The client's address, when the server was started with connect info.
pub(crate) struct ClientAddr(Option<IpAddr>);

impl<S: Send + Sync> FromRequestParts<S> for ClientAddr {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        Ok(ClientAddr(parts.extensions.get::<ConnectInfo<SocketAddr>>().map(|c| c.0.ip())))
    }
}

fn random_secret(len: usize) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    let mut rng = rand::rngs::StdRng::from_os_rng();
    (0..len).map(|_| ALPHABET[rng.random_range(0..ALPHABET.len())] as char).collect()
}

use rand::SeedableRng as _;

impl Inner {
    fn get(&self, id: &str) -> Option<Arc<RoomHandle>> {
        self.rooms.lock().expect("rooms lock").get(id).cloned()
    }
}

/// The live room, or the stored one (a finished game) loaded on demand.
async fn find_room(s: &OnlineState, id: &str) -> Result<Arc<RoomHandle>, ApiError> {
    let not_found = || ApiError(StatusCode::NOT_FOUND, "no_such_room", format!("no game {:?}", truncate(id, 32)));
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
        .map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, "internal", e.to_string()))?
        .map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, "storage", e.to_string()))?;
    let Some(room) = loaded else {
        let store = s.inner.store.clone();
        let key = id.to_string();
        let closed = tokio::task::spawn_blocking(move || store.closed(&key)).await.ok().and_then(Result::ok).flatten();
        return Err(match closed {
            Some(reason) => ApiError(StatusCode::GONE, "closed", closed_message(&s.inner.limits, &reason)),
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

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CreateReq {
    ruleset: String,
    #[serde(default)]
    side: Option<String>,
    #[serde(default)]
    clock: Option<TimeControl>,
    #[serde(default)]
    name: Option<String>,
}

fn check_name(name: Option<String>) -> Result<String, ApiError> {
    let name = name.unwrap_or_default();
    if name.chars().count() > protocol::MAX_NAME || name.chars().any(char::is_control) {
        return Err(ApiError(
            StatusCode::BAD_REQUEST,
            "invalid_field",
            "name: at most 40 characters, no control characters".into(),
        ));
    }
    Ok(name.trim().to_string())
}

fn links(id: &str, seat: Option<&str>, invite: Option<&str>) -> Value {
    json!({
        "watch": format!("/online/game/{id}"),
        "seat": seat.map(|t| format!("/online/game/{id}#seat={t}")),
        "invite": invite.map(|i| format!("/online/game/{id}#invite={i}")),
    })
}

async fn create_room(
    State(s): State<OnlineState>,
    ClientAddr(addr): ClientAddr,
    body: Result<Json<CreateReq>, axum::extract::rejection::JsonRejection>,
) -> Result<Response, ApiError> {
    let Json(req) = body.map_err(|e| ApiError(StatusCode::BAD_REQUEST, "malformed", e.body_text()))?;
    let ruleset: Ruleset =
        req.ruleset.parse().map_err(|e| ApiError(StatusCode::BAD_REQUEST, "bad_ruleset", format!("{e}")))?;
    let side = match req.side.as_deref().unwrap_or("random") {
        "south" => Side::South,
        "north" => Side::North,
        "random" => {
            if rand::rngs::StdRng::from_os_rng().random_bool(0.5) {
                Side::South
            } else {
                Side::North
            }
        }
        _ => return Err(ApiError(StatusCode::BAD_REQUEST, "invalid_field", "side: south, north or random".into())),
    };
    if let Some(c) = req.clock {
        if c.initial_ms < 1000 || c.initial_ms > MAX_CLOCK_MS || c.increment_ms > 3_600_000 {
            return Err(ApiError(
                StatusCode::BAD_REQUEST,
                "invalid_field",
                "clock: initial_ms from 1000 to 86400000, increment_ms at most 3600000".into(),
            ));
        }
    }
    let name = check_name(req.name)?;
    let limits = &s.inner.limits;
    // Reserve the room slot first, so concurrent requests cannot overshoot the limits.
    {
        if s.inner.open_rooms.fetch_add(1, Ordering::AcqRel) >= limits.max_rooms {
            s.inner.open_rooms.fetch_sub(1, Ordering::AcqRel);
            return Err(ApiError(StatusCode::SERVICE_UNAVAILABLE, "too_many_rooms", "the server is full".into()));
        }
        if let Some(a) = addr {
            let mut per = s.inner.per_addr.lock().expect("addr lock");
            let u = per.entry(a).or_default();
            if u.rooms >= limits.rooms_per_addr {
                s.inner.open_rooms.fetch_sub(1, Ordering::AcqRel);
                return Err(ApiError(
                    StatusCode::TOO_MANY_REQUESTS,
                    "too_many_rooms",
                    format!("at most {} unfinished games per address", limits.rooms_per_addr),
                ));
            }
            u.rooms += 1;
        }
    }
    let release = |s: &OnlineState| {
        s.inner.open_rooms.fetch_sub(1, Ordering::AcqRel);
        if let Some(a) = addr {
            if let Some(u) = s.inner.per_addr.lock().expect("addr lock").get_mut(&a) {
                u.rooms = u.rooms.saturating_sub(1);
            }
        }
    };
    let id = random_secret(10);
    let tokens = [random_secret(32), random_secret(32)];
    let invite = random_secret(24);
    let now = now_ms();
    let mut room = Room::new(id.clone(), ruleset, side, tokens.clone(), invite.clone(), req.clock, now);
    room.seats[side.index()].name = name.clone();
    let op = Op::Create {
        id: id.clone(),
        ruleset: ruleset.to_string(),
        start: room.game.start().to_string(),
        tokens: tokens.clone(),
        invite: invite.clone(),
        creator: side,
        name,
        control: req.clock,
        created: now,
        creator_addr: addr.map(|a| a.to_string()),
    };
    if let Err(e) = s.inner.store.write(op).await {
        release(&s);
        return Err(ApiError(StatusCode::INTERNAL_SERVER_ERROR, "storage", e.to_string()));
    }
    s.inner.rooms.lock().expect("rooms lock").insert(id.clone(), RoomHandle::new(room, addr, &s.inner.limits));
    tracing::info!(room = %id, %ruleset, "game created");
    let token = &tokens[side.index()];
    Ok((
        StatusCode::CREATED,
        Json(json!({
            "id": id,
            "side": side_str(side),
            "token": token,
            "invite": invite,
            "links": links(&id, Some(token), Some(&invite)),
        })),
    )
        .into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ClaimReq {
    invite: String,
    #[serde(default)]
    name: Option<String>,
}

async fn claim_seat(
    State(s): State<OnlineState>,
    Path(id): Path<String>,
    body: Result<Json<ClaimReq>, axum::extract::rejection::JsonRejection>,
) -> Result<Response, ApiError> {
    let Json(req) = body.map_err(|e| ApiError(StatusCode::BAD_REQUEST, "malformed", e.body_text()))?;
    let name = check_name(req.name)?;
    let h = find_room(&s, &id).await?;
    let mut room = h.room.lock().await;
    if h.closed.load(Ordering::Acquire) {
        return Err(ApiError(StatusCode::GONE, "closed", closed_message(&s.inner.limits, "unclaimed")));
    }
    let side = room.check_claim(&req.invite).map_err(|e| {
        let status = if e == RoomError::SeatsTaken { StatusCode::CONFLICT } else { StatusCode::FORBIDDEN };
        ApiError(status, room_error(&e), e.to_string())
    })?;
    s.inner
        .store
        .write(Op::Claim { id: id.clone(), side, name: name.clone(), at: now_ms() })
        .await
        .map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, "storage", e.to_string()))?;
    let now = now_ms();
    room.commit_claim(side, &name, now);
    let token = room.seats[side.index()].token.clone();
    h.send(&state_json(&room, None, now, false).as_object().map_or(Value::Null, |o| {
        let mut o = o.clone();
        // Broadcast as a "seats" update: `you` differs per connection, so no full state.
        o.insert("type".into(), "seats".into());
        o.remove("you");
        Value::Object(o)
    }));
    drop(room);
    h.clock_changed.notify_one();
    watch_clock(s.clone(), h.clone());
    tracing::info!(room = %id, side = side_str(side), "seat taken");
    Ok(Json(json!({"id": id, "side": side_str(side), "token": token, "links": links(&id, Some(&token), None)}))
        .into_response())
}

#[derive(Deserialize)]
struct StateQuery {
    #[serde(default)]
    positions: Option<u8>,
}

async fn get_room(
    State(s): State<OnlineState>,
    Path(id): Path<String>,
    Query(q): Query<StateQuery>,
) -> Result<Response, ApiError> {
    let h = find_room(&s, &id).await?;
    let room = h.room.lock().await;
    let mut v = state_json(&room, None, now_ms(), q.positions.unwrap_or(0) != 0);
    drop(room);
    v["presence"] = h.presence_json();
    Ok(Json(v).into_response())
}

async fn get_record(State(s): State<OnlineState>, Path(id): Path<String>) -> Result<Response, ApiError> {
    let h = find_room(&s, &id).await?;
    let room = h.room.lock().await;
    let mut rec = Record::new(room.game.clone());
    let name = |i: usize| if room.seats[i].name.is_empty() { "?".to_string() } else { room.seats[i].name.clone() };
    rec.set_tag("South", &name(0));
    rec.set_tag("North", &name(1));
    rec.set_tag("Date", &date(room.created));
    rec.set_tag("Site", &format!("matombo online, game {}", room.id));
    if let Some(c) = &room.clocks {
        rec.set_tag("TimeControl", &format!("{}+{}", c.control.initial_ms / 1000, c.control.increment_ms / 1000));
    }
    let body = rec.to_string();
    let id = room.id.clone();
    Ok((
        [
            (header::CONTENT_TYPE, "text/plain; charset=utf-8".to_string()),
            (header::CONTENT_DISPOSITION, format!("attachment; filename=\"matombo-{id}.txt\"")),
        ],
        body,
    )
        .into_response())
}

/// `YYYY.MM.DD` of a Unix time in ms (UTC), for the record's Date tag.
fn date(ms: u64) -> String {
    matombo_core::date_tag((ms / 1000) as i64)
}

#[derive(Deserialize)]
struct ArchiveQuery {
    #[serde(default)]
    limit: Option<u32>,
    #[serde(default)]
    offset: Option<u32>,
}

async fn archive(State(s): State<OnlineState>, Query(q): Query<ArchiveQuery>) -> Result<Response, ApiError> {
    let limit = q.limit.unwrap_or(50).min(200);
    let offset = q.offset.unwrap_or(0);
    let store = s.inner.store.clone();
    let list = tokio::task::spawn_blocking(move || store.archive(limit, offset))
        .await
        .map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, "internal", e.to_string()))?
        .map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, "storage", e.to_string()))?;
    Ok(Json(json!({"games": list, "limit": limit, "offset": offset})).into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DecisionsReq {
    position: String,
    #[serde(default)]
    decisions: Vec<String>,
    /// A whole turn instead of decisions (to animate a turn received).
    #[serde(default)]
    token: Option<String>,
}

fn event_json(e: Event) -> Value {
    match e {
        Event::Lap { from, stones, last } => {
            json!({"type": "lap", "from": from.to_string(), "stones": stones, "last": last.to_string()})
        }
        Event::Capture { hole, stones } => json!({"type": "capture", "hole": hole.to_string(), "stones": stones}),
    }
}

/// The next decisions of a turn under construction (the page has no rules engine).
async fn decisions(
    body: Result<Json<DecisionsReq>, axum::extract::rejection::JsonRejection>,
) -> Result<Response, ApiError> {
    let Json(req) = body.map_err(|e| ApiError(StatusCode::BAD_REQUEST, "malformed", e.body_text()))?;
    let bad = |code: &'static str, m: String| ApiError(StatusCode::BAD_REQUEST, code, m);
    let pos: Position = req.position.parse().map_err(|e| bad("bad_position", format!("{e}")))?;
    if req.decisions.len() > 400 {
        return Err(bad("invalid_field", "too many decisions".into()));
    }
    let mut turn = pos.begin_turn();
    let mut events = Vec::new();
    let mut list: Vec<Decision> = Vec::with_capacity(req.decisions.len());
    for d in &req.decisions {
        list.push(d.parse().map_err(|e| bad("bad_decision", format!("{e}")))?);
    }
    if let Some(t) = &req.token {
        let token: Token = t.parse().map_err(|e| bad("bad_move", format!("{e}")))?;
        list.extend(pos.resolve(&token).map_err(|e| bad("illegal", e.to_string()))?);
    }
    for d in list {
        turn.apply_with(d, &mut |e| events.push(event_json(e))).map_err(|e| bad("illegal", e.to_string()))?;
    }
    let complete = turn.is_complete();
    let next: Vec<String> =
        if complete { Vec::new() } else { turn.decisions().iter().map(|d| d.to_string()).collect() };
    let partial = turn.position().to_string();
    let token = turn.token().map(|t| t.to_string());
    Ok(Json(json!({
        "complete": complete,
        "decisions": next,
        "token": token,
        "position": partial,
        "events": events,
    }))
    .into_response())
}

// ---------------------------------------------------------------- WebSocket

/// Counts a connection against the limits; released on drop.
struct ConnGuard {
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
                if u.connections == 0 && u.rooms == 0 {
                    per.remove(&a);
                }
            }
        }
    }
}

fn try_connect(s: &OnlineState, addr: Option<IpAddr>) -> Result<ConnGuard, ApiError> {
    let limits = &s.inner.limits;
    let full = || ApiError(StatusCode::SERVICE_UNAVAILABLE, "too_many_connections", "too many connections".into());
    if s.inner.connections.fetch_add(1, Ordering::Relaxed) >= limits.max_connections {
        s.inner.connections.fetch_sub(1, Ordering::Relaxed);
        return Err(full());
    }
    let mut guard = ConnGuard { inner: s.inner.clone(), addr: None };
    if let Some(a) = addr {
        let mut per = s.inner.per_addr.lock().expect("addr lock");
        let u = per.entry(a).or_default();
        if u.connections >= limits.connections_per_addr {
            return Err(ApiError(
                StatusCode::TOO_MANY_REQUESTS,
                "too_many_connections",
                format!("at most {} connections per address", limits.connections_per_addr),
            ));
        }
        u.connections += 1;
        guard.addr = Some(a);
    }
    Ok(guard)
}

async fn ws_upgrade(
    State(s): State<OnlineState>,
    Path(id): Path<String>,
    ClientAddr(addr): ClientAddr,
    ws: WebSocketUpgrade,
) -> Result<Response, ApiError> {
    let h = find_room(&s, &id).await?;
    let guard = try_connect(&s, addr)?;
    // Frames above this are refused by the WebSocket layer (close code 1009); between
    // MAX_MESSAGE and this, the protocol answers with a clear error.
    Ok(ws.max_message_size(64 * 1024).max_frame_size(64 * 1024).on_upgrade(move |socket| async move {
        connection(s, h, socket, addr).await;
        drop(guard);
    }))
}

/// A token bucket: `rate` per second, bursts of `2 * rate`.
pub(crate) struct Bucket {
    rate: f64,
    tokens: f64,
    last: Instant,
}

impl Bucket {
    fn new(rate: f64) -> Bucket {
        Bucket { rate, tokens: 2.0 * rate, last: Instant::now() }
    }

    /// Whether a token is there (refilled to now), without taking it.
    fn ready(&mut self) -> bool {
        let now = Instant::now();
        self.tokens = (self.tokens + now.duration_since(self.last).as_secs_f64() * self.rate).min(2.0 * self.rate);
        self.last = now;
        self.tokens >= 1.0
    }

    fn take(&mut self) -> bool {
        if self.ready() {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

fn error_msg(code: &str, message: &str, ply: Option<u32>) -> Message {
    let message = crate::limits::cut(message);
    Message::Text(json!({"type": "error", "code": code, "message": message, "ply": ply}).to_string().into())
}

/// One connection: hello, then messages and broadcasts until either side closes.
async fn connection(s: OnlineState, h: Arc<RoomHandle>, mut socket: WebSocket, addr: Option<IpAddr>) {
    // The first message must be a hello (within 10 s).
    let first = tokio::time::timeout(Duration::from_secs(10), socket.recv()).await;
    let (token, name) = match first {
        Ok(Some(Ok(Message::Text(t)))) => match protocol::parse(t.as_bytes()) {
            Ok(ClientMsg::Hello { token, name }) => (token, name.unwrap_or_default()),
            Ok(_) => {
                let _ = socket.send(error_msg("hello_first", "the first message must be a hello", None)).await;
                return;
            }
            Err(e) => {
                let _ = socket.send(error_msg(e.code(), &e.to_string(), None)).await;
                return;
            }
        },
        _ => return,
    };
    let mut rx = h.tx.subscribe();
    let seat = {
        let room = h.room.lock().await;
        let seat = token.as_deref().and_then(|t| room.seat_of(t));
        if token.is_some() && seat.is_none() {
            let _ = socket.send(error_msg("bad_token", "this seat token is not valid here: you can watch", None)).await;
        }
        let msg = state_json(&room, seat, now_ms(), false).to_string();
        drop(room);
        if socket.send(Message::Text(msg.into())).await.is_err() {
            return;
        }
        seat
    };
    let name = name.trim().to_string();
    {
        let mut p = h.presence.lock().expect("presence lock");
        match seat {
            Some(side) => p.players[side.index()].push(name.clone()),
            None => p.spectators += 1,
        }
    }
    h.send(&h.presence_json());
    watch_clock(s.clone(), h.clone());
    let mut turns = Bucket::new(s.inner.limits.turns_per_sec);
    let mut messages = Bucket::new(s.inner.limits.messages_per_sec);
    // The server pings; a browser answers by itself, so a live page is never idle.
    let idle = s.inner.limits.ws_idle;
    let mut ping = tokio::time::interval(idle / 3);
    ping.tick().await;
    let mut last_heard = Instant::now();
    let mut limited = 0u32;
    loop {
        tokio::select! {
            incoming = socket.recv() => {
                last_heard = Instant::now();
                // Every frame counts against the rate, whatever its kind.
                let within = messages.take();
                if !within {
                    limited += 1;
                    // Warned once per burst; a client that keeps on is cut off.
                    if limited > 4 * s.inner.limits.messages_per_sec as u32 {
                        break;
                    }
                }
                let text = match incoming {
                    Some(Ok(Message::Text(t))) if within => t,
                    Some(Ok(Message::Binary(_))) if within => {
                        if socket.send(error_msg("malformed", "send JSON text messages", None)).await.is_err() {
                            break;
                        }
                        continue;
                    }
                    Some(Ok(Message::Close(_))) | None | Some(Err(_)) => break,
                    Some(Ok(Message::Text(_) | Message::Binary(_))) => {
                        if limited == 1
                            && socket.send(error_msg("rate_limited", "too many messages; slow down", None)).await.is_err()
                        {
                            break;
                        }
                        continue;
                    }
                    Some(Ok(_)) => continue,
                };
                limited = 0;
                let replies = handle_message(&s, &h, seat, addr, &text, &mut turns).await;
                let mut failed = false;
                for m in replies {
                    if socket.send(m).await.is_err() {
                        failed = true;
                        break;
                    }
                }
                if failed {
                    break;
                }
            }
            _ = ping.tick() => {
                if last_heard.elapsed() >= idle {
                    tracing::debug!(room = %h.id, "idle connection closed");
                    break;
                }
                if socket.send(Message::Ping(Default::default())).await.is_err() {
                    break;
                }
            }
            b = rx.recv() => match b {
                Ok(text) => {
                    if socket.send(Message::Text(text)).await.is_err() {
                        break;
                    }
                }
                Err(broadcast::error::RecvError::Lagged(_)) => {
                    // Missed broadcasts: send the whole state instead.
                    let room = h.room.lock().await;
                    let msg = state_json(&room, seat, now_ms(), false).to_string();
                    drop(room);
                    if socket.send(Message::Text(msg.into())).await.is_err() {
                        break;
                    }
                }
                Err(broadcast::error::RecvError::Closed) => break,
            },
        }
    }
    {
        let mut p = h.presence.lock().expect("presence lock");
        match seat {
            Some(side) => {
                let v = &mut p.players[side.index()];
                if let Some(i) = v.iter().position(|n| *n == name) {
                    v.swap_remove(i);
                }
            }
            None => p.spectators = p.spectators.saturating_sub(1),
        }
    }
    h.send(&h.presence_json());
}

/// Handles one client message; returns the direct replies (broadcasts go to everyone).
async fn handle_message(
    s: &OnlineState,
    h: &Arc<RoomHandle>,
    seat: Option<Side>,
    addr: Option<IpAddr>,
    text: &str,
    turns: &mut Bucket,
) -> Vec<Message> {
    let msg = match protocol::parse(text.as_bytes()) {
        Ok(m) => m,
        Err(e) => return vec![error_msg(e.code(), &e.to_string(), None)],
    };
    match msg {
        ClientMsg::Ping {} => vec![Message::Text(r#"{"type":"pong"}"#.into())],
        ClientMsg::Hello { .. } => vec![error_msg("already_hello", "hello is sent once, first", None)],
        ClientMsg::Sync {} => {
            let room = h.room.lock().await;
            vec![Message::Text(state_json(&room, seat, now_ms(), false).to_string().into())]
        }
        ClientMsg::Resign {} | ClientMsg::Turn { .. } if h.closed.load(Ordering::Acquire) => {
            let reason = if h.room.lock().await.full() { "abandoned" } else { "unclaimed" };
            vec![error_msg("closed", &closed_message(&s.inner.limits, reason), None)]
        }
        ClientMsg::Resign {} => {
            let mut room = h.room.lock().await;
            let now = now_ms();
            let outcome = match room.check_resign(seat) {
                Ok(o) => o,
                Err(e) => return vec![error_msg(room_error(&e), &e.to_string(), Some(room.ply()))],
            };
            if let Err(e) = end_game(s, h, &mut room, outcome, now).await {
                return vec![error_msg("storage", &e, Some(room.ply()))];
            }
            Vec::new()
        }
        ClientMsg::Turn { ply, turn } => {
            if seat.is_some() && !turns.take() {
                return vec![error_msg("rate_limited", "too many turns per second", Some(ply))];
            }
            let mut room = h.room.lock().await;
            if seat.is_some() {
                // Only the side to move spends the room's budget: the other side's turns are
                // refused anyway, and must not use up the mover's (and run its clock down).
                let mover = seat == Some(room.to_move()) && !room.game.is_over();
                if let Err(why) = take_turn_budget(s, h, addr, mover) {
                    return vec![error_msg("rate_limited", &why, Some(ply))];
                }
            }
            let now = now_ms();
            if let Some(o) = room.flag_due(now) {
                let _ = end_game(s, h, &mut room, o, now).await;
            }
            match room.check_turn(seat, ply, &turn, now) {
                Err(e) => {
                    let mut out = vec![error_msg(room_error(&e), &e.to_string(), Some(room.ply()))];
                    if matches!(e, RoomError::Stale { .. } | RoomError::Ahead { .. }) {
                        // The client is out of step: give it the whole state to resynchronise.
                        out.push(Message::Text(state_json(&room, seat, now, false).to_string().into()));
                    }
                    out
                }
                Ok(TurnCheck::Duplicate) => {
                    vec![Message::Text(json!({"type": "ack", "ply": ply, "duplicate": true}).to_string().into())]
                }
                Ok(TurnCheck::New(p)) => {
                    let before = room.clocks.clone();
                    room.commit_turn(&p);
                    let end = room.game.outcome();
                    let op = Op::Turn {
                        id: room.id.clone(),
                        ply: p.ply,
                        token: p.token.to_string(),
                        remaining: p.remaining,
                        at: p.at,
                        end,
                    };
                    // Stored before anyone is told; on failure the turn is taken back.
                    if let Err(e) = s.inner.store.write(op).await {
                        room.game.undo();
                        room.clocks = before;
                        tracing::error!(room = %room.id, error = %e, "turn not stored");
                        return vec![error_msg("storage", "the turn could not be stored; try again", Some(p.ply))];
                    }
                    let v = json!({
                        "type": "turn",
                        "ply": p.ply,
                        "move": p.token.to_string(),
                        "side": side_str(p.side),
                        "position": room.game.position().to_string(),
                        "clock": clock_json(&room, now),
                        "outcome": outcome_json(end),
                    });
                    h.send(&v);
                    if end.is_some() {
                        finished(s, h);
                    }
                    h.clock_changed.notify_one();
                    Vec::new()
                }
            }
        }
    }
}

/// Takes one turn from the address's budget and (for the side to move) the room's, or
/// neither: many connections sharing seat links (or many rooms of one address) cannot
/// multiply the per-connection rate.
fn take_turn_budget(s: &OnlineState, h: &RoomHandle, addr: Option<IpAddr>, mover: bool) -> Result<(), String> {
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

/// Ends a game outside the board (resignation, time): store, apply, broadcast.
async fn end_game(s: &OnlineState, h: &Arc<RoomHandle>, room: &mut Room, o: Outcome, now: u64) -> Result<(), String> {
    let mut after = room.clone();
    after.commit_end(o, now);
    let remaining = after.clocks.as_ref().map(|c| c.remaining);
    s.inner
        .store
        .write(Op::End { id: room.id.clone(), outcome: o, remaining, at: now })
        .await
        .map_err(|e| e.to_string())?;
    room.commit_end(o, now);
    h.send(&json!({
        "type": "end",
        "ply": room.ply(),
        "outcome": outcome_json(Some(o)),
        "clock": clock_json(room, now),
    }));
    tracing::info!(room = %room.id, termination = o.termination.tag(), "game over");
    finished(s, h);
    h.clock_changed.notify_one();
    Ok(())
}

/// A game ended (or was closed): its creator may open another, and it leaves memory
/// (connections still holding it keep it alive; later requests read it back from the store).
fn finished(s: &OnlineState, h: &Arc<RoomHandle>) {
    // An end and a closing may meet: the slot is given back once.
    if h.released.swap(true, Ordering::AcqRel) {
        return;
    }
    s.inner.open_rooms.fetch_sub(1, Ordering::AcqRel);
    {
        let mut rooms = s.inner.rooms.lock().expect("rooms lock");
        if rooms.get(&h.id).is_some_and(|x| Arc::ptr_eq(x, h)) {
            rooms.remove(&h.id);
        }
    }
    if let Some(a) = h.creator {
        if let Some(u) = s.inner.per_addr.lock().expect("addr lock").get_mut(&a) {
            u.rooms = u.rooms.saturating_sub(1);
        }
    }
}

/// Makes the flag fall on the server: one task per room while its clock runs.
pub(crate) fn watch_clock(s: OnlineState, h: Arc<RoomHandle>) {
    if tokio::runtime::Handle::try_current().is_err() || h.watching.swap(true, Ordering::AcqRel) {
        return;
    }
    tokio::spawn(async move {
        loop {
            let deadline = {
                let mut room = h.room.lock().await;
                if room.game.is_over() || h.closed.load(Ordering::Acquire) {
                    break;
                }
                let now = now_ms();
                if let Some(o) = room.flag_due(now) {
                    if end_game(&s, &h, &mut room, o, now).await.is_err() {
                        // Storage failed; try again shortly.
                        Some(now + 1000)
                    } else {
                        break;
                    }
                } else {
                    let to_move = room.to_move();
                    room.clocks.as_ref().and_then(|c| c.deadline(to_move))
                }
            };
            let Some(deadline) = deadline else { break };
            let wait = Duration::from_millis(deadline.saturating_sub(now_ms()));
            tokio::select! {
                _ = tokio::time::sleep(wait) => {}
                _ = h.clock_changed.notified() => {}
            }
        }
        h.watching.store(false, Ordering::Release);
    });
}

// ---------------------------------------------------------------- expiry

/// The creation time before which an unjoined room is due, and the last activity before
/// which a game is abandoned, at `now` (Unix ms).
pub(crate) fn expiry_bounds(limits: &super::Limits, now: u64) -> (u64, u64) {
    let before = |d: Duration| now.saturating_sub(d.as_millis() as u64);
    (before(limits.unclaimed_expiry), before(limits.idle_expiry))
}

/// A duration in words: `24 hours`, `30 minutes`, `0.5 seconds`.
fn span(d: Duration) -> String {
    match d.as_secs() {
        s if s >= 3600 && s % 3600 == 0 => format!("{} hours", s / 3600),
        s if s >= 60 && s % 60 == 0 => format!("{} minutes", s / 60),
        _ => format!("{} seconds", d.as_secs_f64()),
    }
}

fn closed_message(limits: &super::Limits, reason: &str) -> String {
    if reason == "unclaimed" {
        format!("this game was closed: its invitation was not taken within {}", span(limits.unclaimed_expiry))
    } else {
        format!("this game was closed as abandoned: nothing was played for {}", span(limits.idle_expiry))
    }
}

/// Closes unclaimed and abandoned rooms as they fall due, for as long as the state lives:
/// the store first (so a restart does not bring them back), then memory and the counts.
pub(crate) fn sweep_expired(s: &OnlineState) {
    if tokio::runtime::Handle::try_current().is_err() {
        return;
    }
    let limits = &s.inner.limits;
    let every =
        (limits.unclaimed_expiry.min(limits.idle_expiry) / 4).clamp(Duration::from_millis(50), Duration::from_secs(60));
    // Weak: the sweep must not keep the store open once the server has let go of it.
    let weak = Arc::downgrade(&s.inner);
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(every);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            let Some(inner) = weak.upgrade() else { break };
            let s = OnlineState { inner };
            let now = now_ms();
            let (unclaimed_before, idle_before) = expiry_bounds(&s.inner.limits, now);
            let ids = match s.inner.store.expire(now, unclaimed_before, idle_before).await {
                Ok(ids) => ids,
                Err(e) => {
                    tracing::warn!(error = %e, "closing expired games failed; trying again later");
                    continue;
                }
            };
            for id in ids {
                let Some(h) = s.inner.get(&id) else { continue };
                h.closed.store(true, Ordering::Release);
                let reason = if h.room.lock().await.full() { "abandoned" } else { "unclaimed" };
                h.send(
                    &json!({"type": "closed", "reason": reason, "message": closed_message(&s.inner.limits, reason)}),
                );
                finished(&s, &h);
                h.clock_changed.notify_one();
                tracing::info!(room = %id, reason, "game closed");
            }
        }
    });
}

// ---------------------------------------------------------------- pages

/// The pages of online play; their scripts and styles are under `/static/online/`.
fn asset(path: &str) -> Response {
    match crate::assets::Assets::get(&format!("online/{path}")) {
        Some(f) => ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], f.data.into_owned()).into_response(),
        None => ApiError(StatusCode::NOT_FOUND, "not_found", format!("no file {path:?}")).into_response(),
    }
}

async fn page_lobby() -> Response {
    asset("lobby.html")
}

async fn page_game() -> Response {
    asset("game.html")
}

async fn page_archive() -> Response {
    asset("archive.html")
}

/// The routes of online play, with their state applied.
pub fn routes(state: OnlineState) -> Router {
    Router::new()
        .route("/online", get(page_lobby))
        .route("/online/", get(page_lobby))
        .route("/online/game/{id}", get(page_game))
        .route("/online/archive", get(page_archive))
        .route("/api/online/rooms", post(create_room))
        .route("/api/online/rooms/{id}", get(get_room))
        .route("/api/online/rooms/{id}/claim", post(claim_seat))
        .route("/api/online/rooms/{id}/record", get(get_record))
        .route("/api/online/rooms/{id}/ws", get(ws_upgrade))
        .route("/api/online/archive", get(archive))
        .route("/api/online/decisions", post(decisions))
        .layer(DefaultBodyLimit::max(16 * 1024))
        .with_state(state)
}

#[cfg(test)]
mod tests {
    #[test]
    fn dates() {
        assert_eq!(super::date(0), "1970.01.01");
        assert_eq!(super::date(1_700_000_000_000), "2023.11.14");
    }
}
