//! Correspondence games (days per turn) with real WebSocket clients on loopback, days
//! passing on the server's test clock ([`Clock::advance`]): the deadline moved by a turn,
//! the flag falling with nobody connected (stored, seen after a restart), the hour of grace
//! after a restart, never closed as abandoned, bad settings refused; with PostgreSQL
//! (`MATOMBO_TEST_PG`), the flag falling on the node that leads.

mod common;

use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use matombo_core::Position;
use matombo_online::{Clock, Db, Limits, OnlineState};
use matombo_testkit::http::{post, seated_room};
use matombo_testkit::pg;
use matombo_testkit::ws::{self, recv_type, send};
use serde_json::{json, Value};

const DAY: u64 = 24 * 3600 * 1000;
const HOUR: u64 = 3600 * 1000;

/// Limits whose idle and unclaimed expiries are a second of the test clock, so that the
/// sweep runs every quarter second and any game of the ordinary kind left alone closes.
fn limits(clock: &Clock) -> Limits {
    Limits {
        idle_expiry: Duration::from_secs(1),
        unclaimed_expiry: Duration::from_secs(1),
        clock: clock.clone(),
        ..Limits::default()
    }
}

async fn sqlite_node(db: &Path, limits: Limits) -> (SocketAddr, OnlineState) {
    let state = OnlineState::open_with_limits(Some(db), limits).unwrap();
    (common::serve(state.clone()).await, state)
}

async fn get(addr: SocketAddr, path: &str) -> (u16, Value) {
    let r = reqwest::get(format!("http://{addr}{path}")).await.unwrap();
    (r.status().as_u16(), r.json().await.unwrap_or(Value::Null))
}

async fn state(addr: SocketAddr, id: &str) -> Value {
    let (st, v) = get(addr, &format!("/api/online/rooms/{id}")).await;
    assert_eq!(st, 200, "{v}");
    v
}

fn first_turn(v: &Value) -> String {
    let pos: Position = v["position"].as_str().unwrap().parse().unwrap();
    pos.turns().next().unwrap().0.to_string()
}

/// A two-seat tsoro:8 game of `days` per turn, South (Rudo) creating, North (Tendai)
/// claiming: the id and South's token.
async fn corr_game(addr: SocketAddr, days: u32) -> (String, String) {
    let body = json!({"ruleset": "tsoro:8", "side": "south", "name": "Rudo", "clock": {"days_per_turn": days}});
    let (c, _) = seated_room(addr, body, json!({"name": "Tendai"})).await;
    let id = c["id"].as_str().unwrap().to_string();
    (id, c["token"].as_str().unwrap().to_string())
}

/// Waits (a few sweeps) until the room's state satisfies `done`.
async fn until(addr: SocketAddr, id: &str, done: impl Fn(&Value) -> bool) -> Value {
    for _ in 0..100 {
        let v = state(addr, id).await;
        if done(&v) {
            return v;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("room {id} never reached the state awaited: {}", state(addr, id).await);
}

fn deadline(v: &Value) -> u64 {
    v["clock"]["deadline"].as_u64().unwrap_or_else(|| panic!("a deadline: {v}"))
}

#[tokio::test]
async fn bad_days_per_turn_create_nothing() {
    let db = common::temp_db("online_corr", "bad");
    let clock = Clock::default();
    let (addr, st) = sqlite_node(&db, limits(&clock)).await;
    for clock in [
        json!({"days_per_turn": 0}),
        json!({"days_per_turn": 15}),
        json!({"days_per_turn": 2.5}),
        json!({"days_per_turn": "3"}),
        json!({"days_per_turn": -1}),
        json!({"days_per_turn": 3, "initial_ms": 60000, "increment_ms": 0}),
        json!({"initial_ms": 60000}),
    ] {
        for teams in [Value::Null, json!({"mode": "any"})] {
            let mut body = json!({"ruleset": "tsoro:8", "clock": clock});
            if !teams.is_null() {
                body["teams"] = teams;
            }
            let (status, v) = post(addr, "/api/online/rooms", body).await;
            assert_eq!((status, v["error"].as_str()), (400, Some("invalid_field")), "{clock}: {v}");
        }
    }
    assert_eq!(st.open_rooms(), 0, "nothing created");
    // The bounds themselves are fine.
    for days in [1, 14] {
        let (status, v) =
            post(addr, "/api/online/rooms", json!({"ruleset": "tsoro:8", "clock": {"days_per_turn": days}})).await;
        assert_eq!(status, 201, "{v}");
    }
}

#[tokio::test]
async fn the_flag_falls_with_nobody_connected_and_never_as_abandoned() {
    let db = common::temp_db("online_corr", "flag");
    let clock = Clock::default();
    let (addr, _state) = sqlite_node(&db, limits(&clock)).await;
    // An invitation nobody takes stays open for as many days as a turn has.
    let (st, open) =
        post(addr, "/api/online/rooms", json!({"ruleset": "tsoro:8", "side": "north", "clock": {"days_per_turn": 2}}))
            .await;
    assert_eq!(st, 201, "{open}");
    let unclaimed = open["id"].as_str().unwrap().to_string();
    let (st, plain) = post(addr, "/api/online/rooms", json!({"ruleset": "tsoro:8"})).await;
    assert_eq!(st, 201, "{plain}");

    let (id, south) = corr_game(addr, 3).await;
    let s0 = state(addr, &id).await;
    let c = &s0["clock"];
    assert_eq!(c["days_per_turn"], 3, "{s0}");
    assert_eq!(c["initial_ms"], 3 * DAY);
    assert_eq!(c["increment_ms"], 0);
    assert_eq!(c["running"], "south");
    let d0 = deadline(&s0);
    let now = clock.now();
    assert!(d0 > now + 3 * DAY - 60_000 && d0 <= now + 3 * DAY, "{d0} vs {now}");
    assert!(c["south_ms"].as_u64().unwrap() <= 3 * DAY && c["south_ms"].as_u64().unwrap() > 3 * DAY - 60_000);
    assert_eq!(c["north_ms"], 3 * DAY);

    // A day later South plays: North's deadline is three days from the turn.
    clock.advance(DAY);
    let (mut ws, s) = ws::room(addr, &id, Some(&south)).await;
    assert!(s["clock"]["south_ms"].as_u64().unwrap() <= 2 * DAY);
    send(&mut ws, json!({"type": "turn", "ply": 0, "move": first_turn(&s)})).await;
    let t = recv_type(&mut ws, "turn").await;
    let d1 = t["clock"]["deadline"].as_u64().unwrap();
    assert!(d1 >= d0 + DAY - 60_000 && d1 <= clock.now() + 3 * DAY, "{t}");
    assert_eq!(t["clock"]["running"], "north");
    assert_eq!(t["clock"]["south_ms"], 3 * DAY, "the next turn has the whole span again");
    drop(ws);
    // Past the idle and unclaimed expiries (a second each): the ordinary room is closed,
    // the correspondence invitation is not.
    tokio::time::sleep(Duration::from_millis(1000)).await;
    let (st, v) = get(addr, &format!("/api/online/rooms/{}", plain["id"].as_str().unwrap())).await;
    assert_eq!((st, v["error"].as_str()), (410, Some("closed")), "{v}");
    assert_eq!(state(addr, &unclaimed).await["outcome"], Value::Null);

    // Two more days (and many idle expiries) pass with nobody connected: still on. The
    // invitation of two days has expired.
    clock.advance(2 * DAY + HOUR);
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let s = state(addr, &id).await;
    assert_eq!(s["outcome"], Value::Null, "{s}");
    assert_eq!(deadline(&s), d1);
    let (st, v) = get(addr, &format!("/api/online/rooms/{unclaimed}")).await;
    assert_eq!((st, v["error"].as_str()), (410, Some("closed")), "{v}");

    // Past the deadline the sweep ends it: North, to move, loses on time.
    clock.advance(DAY);
    let end = until(addr, &id, |v| !v["outcome"].is_null()).await;
    assert_eq!(end["outcome"]["winner"], "south", "{end}");
    assert_eq!(end["outcome"]["termination"], "time_forfeit");
    assert_eq!(end["clock"]["deadline"], Value::Null);
    assert_eq!(end["clock"]["running"], Value::Null);
    assert_eq!(end["rated"], false);

    // Stored: another server on the same file sees the end, and the archive lists it.
    let (addr2, _s2) = sqlite_node(&db, limits(&clock)).await;
    let again = state(addr2, &id).await;
    assert_eq!(again["outcome"], end["outcome"]);
    assert_eq!(again["clock"]["days_per_turn"], 3);
    let (_, archive) = get(addr2, "/api/online/archive").await;
    assert_eq!(archive["games"][0]["id"], id.as_str(), "{archive}");
    assert_eq!(archive["games"][0]["termination"], "time_forfeit");
    let record = reqwest::get(format!("http://{addr2}/api/online/rooms/{id}/record")).await.unwrap();
    assert!(record.text().await.unwrap().contains("[TimeControl \"1/259200\"]"));
}

#[tokio::test]
async fn a_deadline_passed_while_stopped_gets_an_hour_after_the_restart() {
    let db = common::temp_db("online_corr", "grace");
    let first = Clock::default();
    let (addr, _state) = sqlite_node(&db, limits(&first)).await;
    let (id, _) = corr_game(addr, 1).await;
    let d0 = deadline(&state(addr, &id).await);

    // The next server starts two days later (its own clock): one more hour from its start.
    let later = Clock::default();
    later.advance(2 * DAY);
    let (addr2, _s2) = sqlite_node(&db, limits(&later)).await;
    let start = later.now();
    let s = state(addr2, &id).await;
    assert_eq!(s["outcome"], Value::Null, "{s}");
    let d = deadline(&s);
    assert!(d > d0 + DAY && d >= start + HOUR - 5_000 && d <= start + HOUR, "{d} vs start {start}");
    let left = s["clock"]["south_ms"].as_u64().unwrap();
    assert!(left <= HOUR && left > HOUR - 60_000, "{s}");
    // Half an hour on: still on. Past the hour: South, to move, loses.
    later.advance(HOUR / 2);
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert_eq!(state(addr2, &id).await["outcome"], Value::Null);
    later.advance(HOUR / 2 + 1000);
    let end = until(addr2, &id, |v| !v["outcome"].is_null()).await;
    assert_eq!(end["outcome"]["winner"], "north", "{end}");
    assert_eq!(end["outcome"]["termination"], "time_forfeit");
}

#[tokio::test]
async fn on_postgres_the_leader_ends_a_game_past_its_deadline() {
    let Some(base) = pg::url() else { return };
    let url = pg::fresh(&base, "corr").await;
    let clock = Clock::default();
    let a_state = OnlineState::connect(&Db::Postgres(url.clone()), limits(&clock)).await.unwrap();
    let a = common::serve(a_state.clone()).await;
    let (id, _) = corr_game(a, 2).await;
    let d0 = deadline(&state(a, &id).await);
    // A second node reads the same deadline from the store.
    let b = common::serve(OnlineState::connect(&Db::Postgres(url), limits(&clock)).await.unwrap()).await;
    assert_eq!(deadline(&state(b, &id).await), d0);
    clock.advance(DAY);
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(state(b, &id).await["outcome"], Value::Null, "not closed as abandoned");
    clock.advance(DAY + 1000);
    let end = until(b, &id, |v| !v["outcome"].is_null()).await;
    assert_eq!(end["outcome"]["winner"], "north", "{end}");
    assert_eq!(end["outcome"]["termination"], "time_forfeit");
    let end_a = until(a, &id, |v| !v["outcome"].is_null()).await;
    assert_eq!(end_a["outcome"], end["outcome"]);
}

/// The list of public team games.
async fn listed(addr: SocketAddr) -> Vec<Value> {
    let (st, v) = get(addr, "/api/online/teams").await;
    assert_eq!(st, 200, "{v}");
    v["games"].as_array().unwrap().clone()
}

#[tokio::test]
async fn public_team_games_are_listed_until_they_finish() {
    let db = common::temp_db("online_corr", "public");
    let clock = Clock::default();
    // The usual expiries: the games stay open while the test joins them.
    let (addr, _state) = sqlite_node(&db, Limits { clock: clock.clone(), ..Limits::default() }).await;
    let create = |body: Value| async move {
        let (st, c) = post(addr, "/api/online/rooms", body).await;
        assert_eq!(st, 201, "{c}");
        c
    };
    let private = create(json!({"ruleset": "nsolo:8", "teams": {"mode": "any"}})).await;
    assert_eq!(listed(addr).await, Vec::<Value>::new(), "a private game is never listed");
    let (st, v) =
        post(addr, "/api/online/rooms", json!({"ruleset": "nsolo:8", "teams": {"mode": "any", "public": 1}})).await;
    assert_eq!((st, v["error"].as_str()), (400, Some("malformed")), "{v}");
    let older = create(json!({
        "ruleset": "nsolo:8", "side": "south", "name": "Rudo",
        "clock": {"initial_ms": 600000, "increment_ms": 5000},
        "teams": {"mode": "vote", "vote_ms": 20000, "public": true}
    }))
    .await;
    clock.advance(1000);
    let newer = create(json!({
        "ruleset": "tsoro:8", "side": "north", "name": "Chipo",
        "clock": {"days_per_turn": 2}, "teams": {"mode": "captain", "public": true}
    }))
    .await;
    let games = listed(addr).await;
    assert_eq!(games.len(), 2, "{games:?}");
    let (n, o) = (&games[0], &games[1]);
    assert_eq!(n["id"], newer["id"], "newest first");
    assert_eq!(o["id"], older["id"]);
    assert_eq!(
        o,
        &json!({
            "id": older["id"], "ruleset": "nsolo:8", "mode": "vote", "vote_ms": 20000,
            "clock": {"initial_ms": 600000, "increment_ms": 5000},
            "created_ms": o["created_ms"], "creator": "Rudo",
            "south": {"members": 1, "join": older["links"]["join_south"]},
            "north": {"members": 0, "join": older["links"]["join_north"]},
        })
    );
    assert_eq!(n["clock"], json!({"days_per_turn": 2}));
    assert_eq!(n["vote_ms"], Value::Null);
    assert_eq!(n["creator"], "Chipo");
    assert_eq!(n["north"]["members"], 1);
    assert!(n["created_ms"].as_u64() > o["created_ms"].as_u64());
    assert!(!games.iter().any(|g| g["id"] == private["id"]));

    // The correspondence team game: no deadline until South has a member; the listed link
    // joins it, and then South's two days run.
    let id = newer["id"].as_str().unwrap();
    let s = state(addr, id).await;
    assert_eq!((s["clock"]["days_per_turn"].as_u64(), &s["clock"]["deadline"]), (Some(2), &Value::Null));
    let link = n["south"]["join"].as_str().unwrap();
    let invite = link.rsplit_once("#join=").unwrap().1;
    assert_eq!(link, format!("/online/game/{id}#join={invite}"));
    let (st, j) =
        post(addr, &format!("/api/online/rooms/{id}/join"), json!({"invite": invite, "name": "Tendai"})).await;
    assert_eq!(st, 201, "{j}");
    assert_eq!(j["side"], "south");
    let s = state(addr, id).await;
    let d = deadline(&s);
    assert!(d > clock.now() + 2 * DAY - 60_000 && d <= clock.now() + 2 * DAY, "{s}");
    assert_eq!(s["rated"], false);
    assert_eq!(listed(addr).await[0]["south"]["members"], 1);

    // A side of 64 members has no link.
    let older_id = older["id"].as_str().unwrap();
    let north_invite = older["invites"]["north"].as_str().unwrap();
    for i in 0..64 {
        let body = json!({"invite": north_invite, "name": format!("Player {i:02}")});
        let (st, j) = post(addr, &format!("/api/online/rooms/{older_id}/join"), body).await;
        assert_eq!(st, 201, "{j}");
    }
    let o = listed(addr).await.into_iter().find(|g| g["id"] == older["id"]).unwrap();
    assert_eq!(o["north"], json!({"members": 64, "join": null}));

    // A finished game leaves the list: the newer game's South member resigns.
    let (mut ws, _) = ws::room(addr, id, Some(j["token"].as_str().unwrap())).await;
    send(&mut ws, json!({"type": "resign"})).await;
    recv_type(&mut ws, "end").await;
    let games = listed(addr).await;
    assert_eq!(games.len(), 1, "{games:?}");
    assert_eq!(games[0]["id"], older["id"]);
}
