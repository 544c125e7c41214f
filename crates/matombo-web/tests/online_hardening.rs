//! Online play under hostile clients, with real WebSocket clients and a real SQLite file:
//! every frame kind counted by the rate limit, silent connections closed, errors cut
//! short, a corrupt stored room skipped at start, an unwritable database refused at start,
//! the checkpoint thread stopping with the store, the online files under one path, the
//! turn budgets of a room and of an address, the expiry of unclaimed and abandoned rooms
//! (persisted across restarts) and the migration of an earlier database.

use std::net::SocketAddr;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use matombo_testkit::http::{get, post, seated_room};
use matombo_testkit::ws::{self, send, Ws};
use matombo_web::limits::ServerLimits;
use matombo_web::online::{Limits, OnlineState};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

/// The tests of this file count threads of the process: one at a time.
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

mod common;

fn temp_db(name: &str) -> std::path::PathBuf {
    common::temp_db("online-hardening", name)
}

async fn start(db: &std::path::Path, limits: Limits) -> SocketAddr {
    common::start_server(db, limits, ServerLimits::default()).await
}

/// A server on `db` that stops when the sender is dropped or sent to.
async fn start_stoppable(
    db: &std::path::Path,
    limits: Limits,
) -> (SocketAddr, tokio::sync::oneshot::Sender<()>, tokio::task::JoinHandle<std::io::Result<()>>) {
    let state = OnlineState::open_with_limits(Some(db), limits).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(matombo_web::limits::serve_until(
        listener,
        matombo_web::app(state),
        ServerLimits::default(),
        async move {
            let _ = stop_rx.await;
        },
    ));
    (addr, stop_tx, server)
}

async fn create(addr: SocketAddr) -> Value {
    let (st, room) = post(addr, "/api/online/rooms", json!({"ruleset": "tsoro:8", "side": "south"})).await;
    assert_eq!(st, 201);
    room
}

/// A room's socket that said hello with `token` (nothing read yet).
async fn connect(addr: SocketAddr, id: &str, token: &str) -> Ws {
    let mut ws = ws::connect(addr, &format!("/api/online/rooms/{id}/ws")).await;
    send(&mut ws, json!({"type": "hello", "token": token})).await;
    ws
}

/// Limits that leave turns and messages free but for the turn budgets of a room and of
/// an address.
fn budgets(room_turns_per_sec: f64, addr_turns_per_sec: f64) -> Limits {
    Limits {
        turns_per_sec: 1000.0,
        messages_per_sec: 1000.0,
        room_turns_per_sec,
        addr_turns_per_sec,
        ..Limits::default()
    }
}

/// Reads until the server closes; the text messages received meanwhile.
async fn until_closed(ws: &mut Ws, within: Duration) -> Option<Vec<Value>> {
    let mut got = Vec::new();
    let end = tokio::time::Instant::now() + within;
    loop {
        match tokio::time::timeout_at(end, ws.next()).await {
            Err(_) => return None,
            Ok(None) | Ok(Some(Err(_))) | Ok(Some(Ok(Message::Close(_)))) => return Some(got),
            Ok(Some(Ok(Message::Text(t)))) => got.push(serde_json::from_str(&t).unwrap()),
            Ok(Some(Ok(_))) => {}
        }
    }
}

#[tokio::test]
async fn room_creation_is_rate_limited_per_address() {
    let _one = SERIAL.lock().await;
    // Create-and-resign frees the unfinished-room quota at once: the rate bounds it.
    let addr = start(&temp_db("creations"), Limits { rooms_per_sec: 1.0, ..Limits::default() }).await;
    let client = reqwest::Client::new();
    let post = || {
        client
            .post(format!("http://{addr}/api/online/rooms"))
            .json(&json!({"ruleset": "tsoro:8", "side": "south"}))
            .send()
    };
    // A burst of two (twice the rate), far under the quota of unfinished rooms.
    for _ in 0..2 {
        assert_eq!(post().await.unwrap().status(), 201);
    }
    let r = post().await.unwrap();
    assert_eq!(r.status(), 429);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["error"], "rate_limited", "{v}");
    tokio::time::sleep(Duration::from_millis(1100)).await;
    assert_eq!(post().await.unwrap().status(), 201, "the budget refills");
}

#[tokio::test]
async fn binary_frames_and_pings_count_against_the_rate_limit() {
    let _one = SERIAL.lock().await;
    let addr = start(&temp_db("rate"), Limits::default()).await;
    for flood in [Message::Binary(vec![0u8; 16].into()), Message::Ping(vec![1u8; 8].into())] {
        let room = create(addr).await;
        let mut ws = connect(addr, room["id"].as_str().unwrap(), room["token"].as_str().unwrap()).await;
        for _ in 0..400 {
            if ws.send(flood.clone()).await.is_err() {
                break;
            }
        }
        assert!(until_closed(&mut ws, Duration::from_secs(5)).await.is_some(), "a flood of {flood:?} was not cut off");
    }
}

#[tokio::test]
async fn a_silent_connection_is_closed_and_errors_are_cut() {
    let _one = SERIAL.lock().await;
    let limits = Limits { ws_idle: Duration::from_millis(600), ..Limits::default() };
    let addr = start(&temp_db("idle"), limits).await;
    let room = create(addr).await;
    let mut ws = connect(addr, room["id"].as_str().unwrap(), room["token"].as_str().unwrap()).await;
    // A bad message of 30 kB gets an error of bounded length.
    ws.send(Message::text(format!("{{\"type\":\"{}\"}}", "x".repeat(30_000)))).await.unwrap();
    // Not reading means not answering the server's pings: the connection goes silent.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let got = until_closed(&mut ws, Duration::from_secs(3)).await.expect("a silent connection left open");
    let error = got.iter().find(|m| m["type"] == "error").expect("an error answer");
    assert!(error["message"].as_str().unwrap().chars().count() <= matombo_web::limits::MAX_ERROR_CHARS + 1);
}

#[tokio::test]
async fn a_corrupt_room_is_skipped_at_start_and_the_others_are_served() {
    let _one = SERIAL.lock().await;
    let db = temp_db("corrupt");
    let (good, bad) = {
        let (addr, stop_tx, server) = start_stoppable(&db, Limits::default()).await;
        let good = create(addr).await["id"].as_str().unwrap().to_string();
        let bad = create(addr).await["id"].as_str().unwrap().to_string();
        let _ = stop_tx.send(());
        server.await.unwrap().unwrap();
        (good, bad)
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    let c = rusqlite::Connection::open(&db).unwrap();
    c.execute("UPDATE rooms SET start='not a position' WHERE id=?1", [&bad]).unwrap();
    drop(c);
    let addr = start(&db, Limits::default()).await;
    let r = reqwest::get(format!("http://{addr}/api/online/rooms/{good}")).await.unwrap();
    assert_eq!(r.status(), 200);
    let r = reqwest::get(format!("http://{addr}/api/online/rooms/{bad}")).await.unwrap();
    assert_ne!(r.status(), 200);
}

#[cfg(unix)]
#[tokio::test]
async fn an_unwritable_database_is_refused_at_start() {
    use std::os::unix::fs::PermissionsExt;
    let _one = SERIAL.lock().await;
    let db = temp_db("readonly");
    drop(OnlineState::open(Some(&db)).unwrap());
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o444)).unwrap();
    // Root writes anyway: then there is nothing to test.
    if std::fs::OpenOptions::new().append(true).open(&db).is_ok() {
        return;
    }
    let e = OnlineState::open(Some(&db)).expect_err("a read-only database was accepted");
    assert!(e.to_string().contains("not writable"), "{e}");
}

#[cfg(target_os = "linux")]
fn checkpoint_threads() -> usize {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
        .filter(|n| n.trim() == "online-checkpoi" || n.trim() == "online-checkpoint")
        .count()
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn the_checkpoint_thread_stops_with_the_store() {
    let _one = SERIAL.lock().await;
    // Stores of the tests before may still be winding down: wait for none, then one.
    let wait_for = |n: usize| async move {
        let t = std::time::Instant::now();
        while checkpoint_threads() != n {
            assert!(t.elapsed() < Duration::from_secs(3), "checkpoint threads: {} not {n}", checkpoint_threads());
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    wait_for(0).await;
    let state = OnlineState::open(Some(&temp_db("checkpoint"))).unwrap();
    wait_for(1).await;
    drop(state);
    wait_for(0).await;
}

#[tokio::test]
async fn online_files_are_served_under_one_path() {
    let _one = SERIAL.lock().await;
    let addr = start(&temp_db("assets"), Limits::default()).await;
    let page = reqwest::get(format!("http://{addr}/online/")).await.unwrap().text().await.unwrap();
    // The page is drawn from the site's templates, which link versioned files.
    assert!(page.contains(&format!("/static/{}/online/lobby.js", matombo_web::assets::version())), "{page}");
    assert_eq!(reqwest::get(format!("http://{addr}/static/online/lobby.js")).await.unwrap().status(), 200);
    assert_eq!(reqwest::get(format!("http://{addr}/online/assets/lobby.js")).await.unwrap().status(), 404);
}

// ------------------------------------------------------------ turn budgets

/// A room with both seats taken: (id, south token, north token).
async fn claimed_room(addr: SocketAddr) -> (String, String, String) {
    let (room, north) = seated_room(addr, json!({"ruleset": "tsoro:8", "side": "south"}), json!({})).await;
    let id = room["id"].as_str().unwrap().to_string();
    (id, room["token"].as_str().unwrap().to_string(), north["token"].as_str().unwrap().to_string())
}

/// Sends turn `ply` (the first legal turn of `game`) and waits for its broadcast (Ok) or
/// an error (Err).
async fn try_turn(ws: &mut Ws, game: &matombo_core::Game) -> Result<(), Value> {
    let ply = game.moves().len();
    let mv = game.position().turns().next().expect("a legal turn").0.to_string();
    send(ws, json!({"type": "turn", "ply": ply, "move": mv})).await;
    loop {
        let m = tokio::time::timeout(Duration::from_secs(10), ws.next()).await.expect("an answer in time");
        let Message::Text(t) = m.expect("open").expect("ok") else { continue };
        let v: Value = serde_json::from_str(&t).unwrap();
        if v["type"] == "error" {
            return Err(v);
        }
        if v["type"] == "turn" && v["ply"] == ply {
            return Ok(());
        }
    }
}

/// The number of turns the server holds for a room.
async fn ply_of(addr: SocketAddr, id: &str) -> u64 {
    let (_, v) = get(addr, &format!("/api/online/rooms/{id}")).await;
    v["ply"].as_u64().unwrap()
}

/// One seated game: its connections by side and the game as the clients see it.
struct Table {
    id: String,
    seats: [Vec<Ws>; 2],
    game: matombo_core::Game,
}

async fn table(addr: SocketAddr, per_seat: usize) -> Table {
    let (id, ts, tn) = claimed_room(addr).await;
    let mut seats: [Vec<Ws>; 2] = [Vec::new(), Vec::new()];
    for (side, token) in [&ts, &tn].into_iter().enumerate() {
        for _ in 0..per_seat {
            seats[side].push(connect(addr, &id, token).await);
        }
    }
    let (_, v) = get(addr, &format!("/api/online/rooms/{id}")).await;
    let game = matombo_core::Game::new(v["position"].as_str().unwrap().parse().unwrap());
    Table { id, seats, game }
}

impl Table {
    /// Plays the next turn from its `n`th connection of the side to move.
    async fn play(&mut self, n: usize) -> Result<(), Value> {
        let side = self.game.moves().len() % 2;
        let conns = &mut self.seats[side];
        let k = conns.len();
        try_turn(&mut conns[n % k], &self.game).await?;
        let t: matombo_core::Token = self.game.position().turns().next().unwrap().0.to_string().parse().unwrap();
        self.game.play(&t).unwrap();
        Ok(())
    }
}

#[tokio::test]
async fn many_connections_sharing_seat_links_share_one_room_budget() {
    let _one = SERIAL.lock().await;
    let limits = budgets(2.0, 1000.0);
    let addr = start(&temp_db("room-budget"), limits).await;
    // Four connections on each seat link, each well within its own rate.
    let mut t = table(addr, 4).await;
    let began = std::time::Instant::now();
    let (mut played, mut refused) = (0u32, None);
    for n in 0..20 {
        match t.play(n).await {
            Ok(()) => played += 1,
            Err(e) => {
                refused = Some(e);
                break;
            }
        }
    }
    let e = refused.expect("20 quick turns in one room were all accepted");
    assert_eq!(e["error"], "rate_limited", "{e}");
    assert!(e["message"].as_str().unwrap().contains("this game accepts at most 2 turns per second"), "{e}");
    // A burst of twice the rate, plus what refilled meanwhile.
    let bound = 4.0 + 2.0 * began.elapsed().as_secs_f64();
    assert!(played >= 4 && f64::from(played) <= bound + 1.0, "{played} turns accepted, bound {bound}");
    // The refused turn changed nothing; once the budget refills, it is played.
    assert_eq!(ply_of(addr, &t.id).await, u64::from(played));
    tokio::time::sleep(Duration::from_millis(700)).await;
    t.play(0).await.expect("the turn is accepted once the budget refills");
    assert_eq!(ply_of(addr, &t.id).await, u64::from(played) + 1);
}

#[tokio::test]
async fn one_address_has_one_turn_budget_across_rooms() {
    let _one = SERIAL.lock().await;
    let limits = budgets(1000.0, 2.0);
    let addr = start(&temp_db("addr-budget"), limits).await;
    let mut tables = Vec::new();
    for _ in 0..3 {
        tables.push(table(addr, 1).await);
    }
    let began = std::time::Instant::now();
    let (mut played, mut refused) = (0u32, None);
    'rounds: for _ in 0..10 {
        for t in tables.iter_mut() {
            match t.play(0).await {
                Ok(()) => played += 1,
                Err(e) => {
                    refused = Some(e);
                    break 'rounds;
                }
            }
        }
    }
    let e = refused.expect("30 quick turns from one address were all accepted");
    assert_eq!(e["error"], "rate_limited", "{e}");
    assert!(e["message"].as_str().unwrap().contains("one address may play at most 2 turns per second"), "{e}");
    let bound = 4.0 + 2.0 * began.elapsed().as_secs_f64();
    assert!(played >= 4 && f64::from(played) <= bound + 1.0, "{played} turns accepted, bound {bound}");
    let mut stored = 0;
    for t in &tables {
        stored += ply_of(addr, &t.id).await;
    }
    assert_eq!(stored, u64::from(played), "a refused turn changed a game");
}

// ------------------------------------------------------------ expiry

async fn status_of(addr: SocketAddr, id: &str) -> (u16, Value) {
    get(addr, &format!("/api/online/rooms/{id}")).await
}

async fn try_create(addr: SocketAddr) -> u16 {
    let r = reqwest::Client::new()
        .post(format!("http://{addr}/api/online/rooms"))
        .json(&json!({"ruleset": "tsoro:8", "side": "south"}))
        .send()
        .await
        .unwrap();
    r.status().as_u16()
}

/// The next message of type `ty` within `within`.
async fn next_of_type(ws: &mut Ws, ty: &str, within: Duration) -> Value {
    let end = tokio::time::Instant::now() + within;
    loop {
        let m = tokio::time::timeout_at(end, ws.next()).await.unwrap_or_else(|_| panic!("no {ty} message in time"));
        if let Message::Text(t) = m.expect("open").expect("ok") {
            let v: Value = serde_json::from_str(&t).unwrap();
            if v["type"] == ty {
                return v;
            }
        }
    }
}

#[tokio::test]
async fn an_unclaimed_room_expires_frees_its_quota_and_stays_closed_after_a_restart() {
    let _one = SERIAL.lock().await;
    let db = temp_db("unclaimed");
    let short = Limits { rooms_per_addr: 2, unclaimed_expiry: Duration::from_millis(600), ..Limits::default() };
    let (addr, stop, server) = start_stoppable(&db, short).await;
    let unclaimed = create(addr).await;
    let a = unclaimed["id"].as_str().unwrap().to_string();
    let mut ws = connect(addr, &a, unclaimed["token"].as_str().unwrap()).await;
    // A claimed room with a turn played is a game in progress: the unclaimed delay (which
    // also closes a claimed room with no turn, as 'unstarted') does not apply to it.
    let mut t = table(addr, 1).await;
    t.play(0).await.expect("a first turn");
    let b = t.id.clone();
    assert_eq!(try_create(addr).await, 429, "the quota of 2 rooms per address is full");
    // The creator, still connected, hears of the closing.
    let closed = next_of_type(&mut ws, "closed", Duration::from_secs(5)).await;
    assert_eq!(closed["reason"], "unclaimed", "{closed}");
    assert!(closed["message"].as_str().unwrap().contains("not taken within 0.6 seconds"), "{closed}");
    let (st, v) = status_of(addr, &a).await;
    assert_eq!(st, 410, "{v}");
    assert_eq!(v["error"], "closed");
    let r = reqwest::Client::new()
        .post(format!("http://{addr}/api/online/rooms/{a}/claim"))
        .json(&json!({"invite": unclaimed["invite"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 410, "a closed room cannot be joined");
    // The joined game was played just now: it stays. The freed slot takes a new room.
    assert_eq!(status_of(addr, &b).await.0, 200);
    assert_eq!(try_create(addr).await, 201, "the closed room still counts against the quota");
    let _ = stop.send(());
    server.await.unwrap().unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;

    // After a restart (with the default hour-long expiry now): the closed room is not
    // reloaded, and the quota counts the two rooms still in play from this address.
    let c = rusqlite::Connection::open(&db).unwrap();
    let (closed_at, reason): (Option<i64>, Option<String>) = c
        .query_row("SELECT closed, closed_reason FROM rooms WHERE id=?1", [&a], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap();
    assert!(closed_at.is_some());
    assert_eq!(reason.as_deref(), Some("unclaimed"));
    drop(c);
    let (addr, _stop, _server) = start_stoppable(&db, Limits { rooms_per_addr: 2, ..Limits::default() }).await;
    assert_eq!(status_of(addr, &a).await.0, 410);
    assert_eq!(status_of(addr, &b).await.0, 200);
    assert_eq!(try_create(addr).await, 429, "a restart reset the quota of the address");
}

#[tokio::test]
async fn an_idle_game_is_closed_as_abandoned_and_refuses_turns() {
    let _one = SERIAL.lock().await;
    let db = temp_db("abandoned");
    let limits = Limits { idle_expiry: Duration::from_secs(2), ..Limits::default() };
    let (addr, _stop, _server) = start_stoppable(&db, limits).await;
    let mut t = table(addr, 1).await;
    t.play(0).await.expect("a first turn");
    let closed = next_of_type(&mut t.seats[1][0], "closed", Duration::from_secs(10)).await;
    assert_eq!(closed["reason"], "abandoned", "{closed}");
    let e = t.play(0).await.expect_err("a turn in a closed game was accepted");
    assert_eq!(e["error"], "closed", "{e}");
    assert_eq!(status_of(addr, &t.id).await.0, 410);
    let c = rusqlite::Connection::open(&db).unwrap();
    let turns: i64 = c.query_row("SELECT COUNT(*) FROM turns WHERE room=?1", [&t.id], |r| r.get(0)).unwrap();
    assert_eq!(turns, 1, "the refused turn was stored");
}

#[tokio::test]
async fn a_database_of_the_earlier_schema_is_migrated_and_its_games_kept() {
    let _one = SERIAL.lock().await;
    let db = temp_db("migrate");
    let (id, ts) = {
        let (addr, stop, server) = start_stoppable(&db, Limits::default()).await;
        let (id, ts, _) = claimed_room(addr).await;
        let _ = stop.send(());
        server.await.unwrap().unwrap();
        (id, ts)
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    // Back to the schema before expiry existed (and before players: schema 2; before
    // teams: schema 3; before correspondence games: schema 4; before puzzle ratings).
    let c = rusqlite::Connection::open(&db).unwrap();
    c.execute_batch(
        "DROP TABLE puzzle_ratings; DROP TABLE puzzle_attempts;
         DROP TABLE teams; DROP TABLE team_members; DROP TABLE team_votes; DROP TABLE team_marks;
         DROP TABLE players; DROP TABLE ratings; DROP TABLE rating_changes; DROP TABLE transfer_codes;
         DROP INDEX rooms_south_player; DROP INDEX rooms_north_player;
         ALTER TABLE rooms DROP COLUMN south_player; ALTER TABLE rooms DROP COLUMN north_player;
         ALTER TABLE rooms DROP COLUMN rated; ALTER TABLE rooms DROP COLUMN listed;
         DROP INDEX rooms_live; DROP INDEX rooms_deadline;
         ALTER TABLE rooms DROP COLUMN days_per_turn; ALTER TABLE rooms DROP COLUMN deadline;
         ALTER TABLE rooms DROP COLUMN last_active; ALTER TABLE rooms DROP COLUMN closed;
         ALTER TABLE rooms DROP COLUMN closed_reason; ALTER TABLE rooms DROP COLUMN creator_addr;
         PRAGMA user_version = 0;",
    )
    .unwrap();
    drop(c);
    let (addr, _stop, _server) = start_stoppable(&db, Limits::default()).await;
    let (st, v) = status_of(addr, &id).await;
    assert_eq!(st, 200, "{v}");
    let mut ws = connect(addr, &id, &ts).await;
    let state = next_of_type(&mut ws, "state", Duration::from_secs(5)).await;
    assert_eq!(state["you"], "south");
    let c = rusqlite::Connection::open(&db).unwrap();
    let version: i64 = c.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
    assert_eq!(version as usize, matombo_web::online::store::sqlite::SCHEMA_VERSION);
    let active: Option<i64> = c.query_row("SELECT last_active FROM rooms WHERE id=?1", [&id], |r| r.get(0)).unwrap();
    assert!(active.is_some(), "last activity not filled in by the migration");
}

#[tokio::test]
async fn a_database_of_a_newer_schema_is_refused_unchanged() {
    let _one = SERIAL.lock().await;
    let db = temp_db("newer");
    drop(OnlineState::open(Some(&db)).unwrap());
    let c = rusqlite::Connection::open(&db).unwrap();
    c.execute_batch("PRAGMA user_version = 99").unwrap();
    drop(c);
    let e = OnlineState::open(Some(&db)).expect_err("a database of a newer schema was opened");
    assert!(e.to_string().contains("newer"), "{e}");
    let c = rusqlite::Connection::open(&db).unwrap();
    assert_eq!(c.query_row("PRAGMA user_version", [], |r| r.get::<_, i64>(0)).unwrap(), 99);
}

#[tokio::test]
async fn the_side_not_to_move_cannot_spend_the_room_budget() {
    let _one = SERIAL.lock().await;
    let limits = budgets(1.0, 1000.0);
    let addr = start(&temp_db("not-to-move"), limits).await;
    let mut t = table(addr, 1).await;
    // North, not to move, floods turns: each is refused as out of turn, none rate limited.
    for _ in 0..10 {
        let e = try_turn(&mut t.seats[1][0], &t.game).await.expect_err("north played out of turn");
        assert_eq!(e["error"], "not_your_turn", "{e}");
    }
    t.play(0).await.expect("south's turn was refused after north's flood");
}
