//! Schema migrations: `tests/fixtures/online-v1.sqlite3` was written by the release
//! before players and ratings (`matombo serve` 0.1.0 of 2026-12-03, schema version 1),
//! through its HTTP API and WebSocket: a tsoro:8 game South resigned after three turns, an
//! nsolo:8 game in progress after two, and a tsoro:21 room whose invitation was never taken.
//! Today's code opens a copy of it, keeps its games and brings it to the current schema
//! (version 4: correspondence deadlines, public team games).

mod common;

use std::time::Duration;

use matombo_online::Limits;
use serde_json::Value;

const FINISHED: &str = "wyEz7hqazh";
const PLAYING: &str = "HYnQcVqjdW";
const UNCLAIMED: &str = "CNWrBCkmIk";

async fn get(addr: std::net::SocketAddr, path: &str) -> (u16, Value) {
    let r = reqwest::get(format!("http://{addr}{path}")).await.unwrap();
    (r.status().as_u16(), r.json().await.unwrap_or(Value::Null))
}

#[tokio::test]
async fn a_database_of_the_previous_release_keeps_its_games() {
    let db = common::temp_db("migration", "v1");
    std::fs::create_dir_all(db.parent().unwrap()).unwrap();
    std::fs::copy(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/online-v1.sqlite3"), &db).unwrap();
    // The game in progress must not fall to the idle rule however old the fixture is.
    let limits = Limits { idle_expiry: Duration::from_secs(100 * 365 * 24 * 3600), ..Limits::default() };
    let addr = common::start_server(&db, limits).await;

    let (st, archive) = get(addr, "/api/online/archive").await;
    assert_eq!(st, 200);
    let games = archive["games"].as_array().unwrap();
    assert_eq!(games.len(), 1, "{archive}");
    assert_eq!(games[0]["id"], FINISHED);
    assert_eq!(games[0]["turns"], 3);
    assert_eq!(games[0]["result"], "0-1", "South resigned");
    assert_eq!(games[0]["termination"], "resignation");

    let (st, done) = get(addr, &format!("/api/online/rooms/{FINISHED}")).await;
    assert_eq!(st, 200, "{done}");
    assert_eq!(done["moves"], serde_json::json!(["B1", "b1", "B2"]));
    assert_eq!(done["seats"]["south"]["name"], "Rudo");
    assert_eq!(done["rated"], false);

    let (st, playing) = get(addr, &format!("/api/online/rooms/{PLAYING}")).await;
    assert_eq!(st, 200, "{playing}");
    assert_eq!(playing["moves"], serde_json::json!(["B1xb1:2", "b2xB2"]));
    assert_eq!(playing["outcome"], Value::Null);
    assert_eq!(playing["players"], serde_json::json!({"south": null, "north": null}));

    // Made long ago and never joined: closed by the unclaimed rule at the start.
    let (st, closed) = get(addr, &format!("/api/online/rooms/{UNCLAIMED}")).await;
    assert_eq!(st, 410, "{closed}");
    assert_eq!(closed["error"], "closed");

    // Brought up to the current schema: players, ratings and teams are there.
    let c = rusqlite::Connection::open(&db).unwrap();
    let v: i64 = c.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
    assert_eq!(v, 4);
    // Correspondence games and public team games: none in the old database.
    let n: i64 = c
        .query_row("SELECT COUNT(*) FROM rooms WHERE days_per_turn IS NOT NULL OR deadline IS NOT NULL", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(n, 0);
    let n: i64 = c.query_row("SELECT COUNT(*) FROM teams WHERE listed", [], |r| r.get(0)).unwrap();
    assert_eq!(n, 0);
    assert_eq!(done["clock"]["initial_ms"], 300000, "{done}");
    assert_eq!(done["clock"]["days_per_turn"], Value::Null);
    assert_eq!(done["clock"]["deadline"], Value::Null);
    let (st, teams) = get(addr, "/api/online/teams").await;
    assert_eq!((st, teams), (200, serde_json::json!({"games": []})));
    let n: i64 = c.query_row("SELECT COUNT(*) FROM team_members", [], |r| r.get(0)).unwrap();
    assert_eq!(n, 0);
    let n: i64 = c.query_row("SELECT COUNT(*) FROM players", [], |r| r.get(0)).unwrap();
    assert_eq!(n, 0);
    let rated: i64 = c.query_row("SELECT COUNT(*) FROM rooms WHERE rated", [], |r| r.get(0)).unwrap();
    assert_eq!(rated, 0);
}
