//! Puzzle ratings of online identities over HTTP, on a real SQLite file and on PostgreSQL
//! when `MATOMBO_TEST_PG` names a server (under CI a missing one fails): an identity made
//! through the lobby's WebSocket, attempts rated by the server against the shipped set, one
//! counted per puzzle, concurrent attempts all counted, refusals that change nothing.

mod common;

use std::net::SocketAddr;

use matombo_online::puzzles::{self, PuzzleSet, IDENTITY_BURST};
use matombo_online::{routes, Limits, OnlineState};
use matombo_testkit::ws::lobby;
use serde_json::{json, Value};

const SHIPPED: &str = include_str!("../../matombo-web/assets/content/puzzles.jsonl");

/// Online play with the puzzle routes on a fresh store of each backend.
async fn servers(name: &str) -> Vec<(&'static str, SocketAddr)> {
    let dbs = common::backends("online_puzzles", name).await;
    let mut out = Vec::new();
    for (kind, db) in dbs {
        let state = OnlineState::connect(&db, Limits::default()).await.unwrap();
        let app = routes(state.clone()).merge(puzzles::routes(state, PuzzleSet::from_jsonl(SHIPPED)));
        let addr = common::serve_app(app).await;
        out.push((kind, addr));
    }
    out
}

/// An identity made by the lobby's hello: its secret.
async fn identity(addr: SocketAddr, c: char) -> String {
    let secret: String = std::iter::repeat_n(c, 40).collect();
    lobby(addr, json!({"type": "hello", "player": secret})).await;
    secret
}

/// The shipped puzzles' ids and ratings, in file order.
fn shipped() -> Vec<(String, f64)> {
    SHIPPED
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .map(|v| (v["id"].as_str().unwrap().to_string(), v["rating"].as_f64().unwrap()))
        .collect()
}

async fn rating(addr: SocketAddr, secret: &str) -> (u16, Value) {
    let r = reqwest::Client::new()
        .get(format!("http://{addr}/api/online/puzzles/rating"))
        .bearer_auth(secret)
        .send()
        .await
        .unwrap();
    (r.status().as_u16(), r.json().await.unwrap())
}

async fn attempt(addr: SocketAddr, secret: Option<&str>, puzzle: &str, body: Value) -> (u16, Value) {
    let mut rq = reqwest::Client::new().post(format!("http://{addr}/api/online/puzzles/{puzzle}/attempt")).json(&body);
    if let Some(s) = secret {
        rq = rq.bearer_auth(s);
    }
    let r = rq.send().await.unwrap();
    (r.status().as_u16(), r.json().await.unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_rates_each_puzzle_once() {
    let set = shipped();
    for (kind, addr) in servers("once").await {
        let me = identity(addr, 'a').await;
        let (st, start) = rating(addr, &me).await;
        assert_eq!(st, 200, "{kind}: {start}");
        assert_eq!((start["rating"].as_f64(), start["attempts"].as_u64()), (Some(1500.0), Some(0)), "{kind}");
        assert!(start["last_attempt"].is_null() && start["provisional"] == true, "{kind}");
        let (id, r) = &set[0];
        let (st, up) = attempt(addr, Some(&me), id, json!({"solved": true})).await;
        assert_eq!(st, 200, "{kind}: {up}");
        assert_eq!((up["counted"].as_bool(), up["puzzle_rating"].as_f64()), (Some(true), Some(*r)), "{kind}");
        assert!(up["after"].as_f64() > up["before"].as_f64(), "{kind}: {up}");
        assert_eq!(up["rating"]["rating"], up["after"], "{kind}");
        // Failing it afterwards changes nothing: the first attempt counted.
        let (st, again) = attempt(addr, Some(&me), id, json!({"solved": false})).await;
        assert_eq!(st, 200, "{kind}");
        assert_eq!((again["counted"].as_bool(), again["solved"].as_bool()), (Some(false), Some(true)), "{kind}");
        assert_eq!(again["rating"], up["rating"], "{kind}");
        let (_, down) = attempt(addr, Some(&me), &set[1].0, json!({"solved": false})).await;
        assert!(down["after"].as_f64() < down["before"].as_f64(), "{kind}: {down}");
        assert_eq!(down["before"], up["after"], "{kind}");
        let (_, now) = rating(addr, &me).await;
        assert_eq!(now, down["rating"], "{kind}");
        assert_eq!((now["attempts"].as_u64(), now["solved"].as_u64()), (Some(2), Some(1)), "{kind}");
        // Another identity starts afresh.
        let other = identity(addr, 'b').await;
        assert_eq!(rating(addr, &other).await.1, start, "{kind}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_attempts_on_different_puzzles_are_all_counted() {
    let set = shipped();
    for (kind, addr) in servers("concurrent").await {
        let me = identity(addr, 'c').await;
        let n = 24;
        let tasks: Vec<_> = set[..n]
            .iter()
            .enumerate()
            .map(|(i, (id, _))| {
                let (me, id) = (me.clone(), id.clone());
                tokio::spawn(async move { attempt(addr, Some(&me), &id, json!({"solved": i % 3 != 0})).await })
            })
            .collect();
        for t in tasks {
            let (st, v) = t.await.unwrap();
            assert_eq!((st, v["counted"].as_bool()), (200, Some(true)), "{kind}: {v}");
        }
        let (_, now) = rating(addr, &me).await;
        assert_eq!((now["attempts"].as_u64(), now["solved"].as_u64()), (Some(n as u64), Some(16)), "{kind}: {now}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_are_refused_and_change_nothing() {
    let set = shipped();
    for (kind, addr) in servers("bad").await {
        let me = identity(addr, 'd').await;
        let (_, start) = rating(addr, &me).await;
        let id = &set[2].0;
        let cases = [
            (None, id.as_str(), json!({"solved": true}), 403, "no_identity"),
            (Some("Z".repeat(40)), id.as_str(), json!({"solved": true}), 403, "no_identity"),
            (Some("short".into()), id.as_str(), json!({"solved": true}), 403, "no_identity"),
            (Some(me.clone()), "nosuchpuzzle", json!({"solved": true}), 404, "not_found"),
            (Some(me.clone()), id.as_str(), json!({"solved": "yes"}), 400, "malformed"),
            // The client never sends a rating.
            (Some(me.clone()), id.as_str(), json!({"solved": true, "rating": 3000}), 400, "malformed"),
        ];
        for (secret, puzzle, body, status, code) in cases {
            let (st, v) = attempt(addr, secret.as_deref(), puzzle, body.clone()).await;
            assert_eq!((st, v["error"].as_str()), (status, Some(code)), "{kind}: {body} → {v}");
        }
        let r = reqwest::get(format!("http://{addr}/api/online/puzzles/rating")).await.unwrap();
        assert_eq!(r.status().as_u16(), 403, "{kind}: no secret");
        let r = reqwest::Client::new().post(format!("http://{addr}/api/online/puzzles/rating")).send().await.unwrap();
        assert_eq!(r.status().as_u16(), 405, "{kind}");
        assert_eq!(rating(addr, &me).await.1, start, "{kind}: nothing changed");
        // The identity's budget: past it, refused (429) and not counted.
        let mut refused = None;
        for (i, (p, _)) in set.iter().enumerate().take(IDENTITY_BURST as usize + 10) {
            let (st, v) = attempt(addr, Some(&me), p, json!({"solved": true})).await;
            if st == 429 {
                assert_eq!(v["error"], "rate_limited", "{kind}");
                refused = Some(i);
                break;
            }
        }
        let refused = refused.unwrap_or_else(|| panic!("{kind}: no attempt refused"));
        // Five requests above took from it too (two reads, three refusals after the secret);
        // a token or two may have refilled meanwhile.
        let burst = IDENTITY_BURST as usize;
        assert!((burst..=burst + 2).contains(&(refused + 5)), "{kind}: refused after {refused}");
        // A read waits for a token to refill.
        tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
        let (st, now) = rating(addr, &me).await;
        assert_eq!(st, 200, "{kind}: {now}");
        assert_eq!(now["attempts"].as_u64(), Some(refused as u64), "{kind}: the refused attempt did not count");
    }
}
