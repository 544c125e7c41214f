//! One lobby and shared quotas across `matombo serve` nodes on one PostgreSQL database
//! (issue 35), as real processes: a challenge made on node A is listed on B and accepted
//! there, both players matched and the game played across the nodes; two accepts at once
//! on two nodes make one room; two seekers on two nodes are paired once; node A killed
//! with SIGKILL, its challenge leaves B's lobby within seconds; one address creating rooms
//! through two nodes gets one node's allowance; one seat claimed at once through two nodes.
//!
//! Each test has a database of its own on the throwaway PostgreSQL of `MATOMBO_TEST_PG`
//! (`eval "$(bash scripts/pg-cluster.sh start)"`); without it the tests say so and pass.

use std::time::{Duration, Instant};

use matombo_core::{Game, Position};
use matombo_testkit::ws::{self, recv, recv_error, recv_type, recv_within, send, Ws};
use serde_json::{json, Value};

mod common;
use common::{http_json as http, Server};

/// A database of the test's own on the throwaway server (no other test's rooms, lobby or
/// budgets in it).
async fn fresh_database() -> Option<String> {
    let url = common::database()?;
    let (client, conn) = tokio_postgres::connect(&url, tokio_postgres::NoTls).await.expect("connect");
    tokio::spawn(conn);
    let name = format!("lobby_{:016x}", rand::random::<u64>());
    client.batch_execute(&format!("CREATE DATABASE {name}")).await.expect("create database");
    let (base, _) = url.rsplit_once('/').expect("a URL with a database");
    Some(format!("{base}/{name}"))
}

/// A node: `matombo serve` on the database `url`, with the load test's limits unless
/// `public`.
fn node(url: &str, public: bool) -> Server {
    let limits: &[&str] = if public { &[] } else { &["--loadtest-limits", "100"] };
    Server::start(url, limits)
}

/// The next `matched` or `error`, skipping others.
async fn matched_or_error(ws: &mut Ws) -> Value {
    loop {
        let v = recv(ws).await;
        if v["type"] == "matched" || v["type"] == "error" {
            return v;
        }
    }
}

/// Nothing of type `ty` arrives for `wait`.
async fn none_of(ws: &mut Ws, ty: &str, wait: Duration) {
    let end = Instant::now() + wait;
    while let Some(v) = recv_within(ws, end.saturating_duration_since(Instant::now())).await {
        assert_ne!(v["type"], ty, "no {ty} expected: {v}");
    }
}

async fn lobby(host: &str, secret: Option<&str>, name: &str) -> (Ws, Value) {
    let hello = match secret {
        Some(s) => json!({"type": "hello", "player": s, "name": name}),
        None => json!({"type": "hello"}),
    };
    ws::lobby(host, hello).await
}

fn secret() -> String {
    (0..40).map(|_| (b'a' + rand::random_range(0..26u8)) as char).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_challenge_made_on_one_node_is_accepted_on_another() {
    let Some(url) = fresh_database().await else { return };
    let a = node(&url, false);
    let b = node(&url, false);
    let (mut maker, _) = lobby(&a.host, Some(&secret()), "Rudo").await;
    let (mut taker, _) = lobby(&b.host, Some(&secret()), "Tendai").await;
    let (mut watcher_a, _) = lobby(&a.host, None, "").await;
    let (mut watcher_b, _) = lobby(&b.host, None, "").await;

    send(&mut maker, json!({"type": "challenge", "ruleset": "tsoro:6", "side": "south"})).await;
    let made = recv_type(&mut maker, "challenge_added").await;
    let id = made["challenge"]["id"].as_str().unwrap().to_string();
    // Listed on the other node's sockets, and its page answers there.
    assert_eq!(recv_type(&mut taker, "challenge_added").await["challenge"], made["challenge"]);
    assert_eq!(recv_type(&mut watcher_b, "challenge_added").await["challenge"]["id"], id.as_str());
    let (st, page) = http(&b.host, "GET", &format!("/api/online/challenges/{id}"), None);
    assert_eq!((st, &page["id"]), (200, &json!(id)));
    // A newcomer on B sees it in the welcome.
    let (_, w) = lobby(&b.host, None, "").await;
    assert_eq!(w["challenges"].as_array().unwrap().len(), 1, "{w}");

    send(&mut taker, json!({"type": "accept", "id": id})).await;
    let (mm, mt) = (recv_type(&mut maker, "matched").await, recv_type(&mut taker, "matched").await);
    assert_eq!(mm["room"], mt["room"]);
    assert_eq!((mm["side"].as_str(), mt["side"].as_str()), (Some("south"), Some("north")));
    assert_eq!(mm["challenge"], id.as_str());
    for w in [&mut watcher_a, &mut watcher_b] {
        let gone = recv_type(w, "challenge_removed").await;
        assert_eq!((gone["id"].as_str(), gone["reason"].as_str()), (Some(id.as_str()), Some("accepted")));
        assert_eq!(recv_type(w, "game_added").await["game"]["id"], mm["room"]);
    }
    let (st, _) = http(&a.host, "GET", &format!("/api/online/challenges/{id}"), None);
    assert_eq!(st, 404, "taken: gone on the maker's node too");

    // South plays on A, North on B, through the seat links the lobby gave.
    let rid = mm["room"].as_str().unwrap();
    let (mut south, s0) = ws::room(&a.host, rid, Some(mm["token"].as_str().unwrap())).await;
    let (mut north, _) = ws::room(&b.host, rid, Some(mt["token"].as_str().unwrap())).await;
    assert_eq!(s0["you"], "south");
    let mut game = Game::new(s0["position"].as_str().unwrap().parse::<Position>().unwrap());
    for ply in 0..6 {
        if game.is_over() {
            break;
        }
        let mv = game.position().turns().next().unwrap().0.to_string();
        let (me, other) = if ply % 2 == 0 { (&mut south, &mut north) } else { (&mut north, &mut south) };
        send(me, json!({"type": "turn", "ply": ply, "move": mv})).await;
        game.play(&mv.parse().unwrap()).unwrap();
        for ws in [me, other] {
            let t = recv_type(ws, "turn").await;
            assert_eq!(
                (t["ply"].as_u64(), t["position"].as_str()),
                (Some(ply as u64), Some(&*game.position().to_string()))
            );
        }
    }
    send(&mut south, json!({"type": "resign"})).await;
    assert_eq!(recv_type(&mut north, "end").await["outcome"]["winner"], "north");
    // The listed game leaves both nodes' lobbies.
    for w in [&mut watcher_a, &mut watcher_b] {
        assert_eq!(recv_type(w, "game_removed").await["id"], rid);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_accepts_at_once_on_two_nodes_make_one_room() {
    let Some(url) = fresh_database().await else { return };
    let a = node(&url, false);
    let b = node(&url, false);
    let (mut maker, _) = lobby(&a.host, Some(&secret()), "Rudo").await;
    let (mut on_a, _) = lobby(&a.host, Some(&secret()), "Tendai").await;
    let (mut on_b, _) = lobby(&b.host, Some(&secret()), "Chipo").await;
    for _round in 0..3 {
        send(&mut maker, json!({"type": "challenge", "ruleset": "tsoro:6"})).await;
        let id = recv_type(&mut maker, "challenge_added").await["challenge"]["id"].clone();
        recv_type(&mut on_a, "challenge_added").await;
        recv_type(&mut on_b, "challenge_added").await;
        let accept = json!({"type": "accept", "id": id});
        tokio::join!(send(&mut on_a, accept.clone()), send(&mut on_b, accept.clone()));
        let (ra, rb) = tokio::join!(matched_or_error(&mut on_a), matched_or_error(&mut on_b));
        let (won, lost) = if ra["type"] == "matched" { (ra, rb) } else { (rb, ra) };
        assert_eq!(won["type"], "matched", "one accept wins: {won}");
        assert_eq!((lost["type"].as_str(), lost["error"].as_str()), (Some("error"), Some("not_found")), "{lost}");
        // The maker is matched once, into the winner's room.
        let m = recv_type(&mut maker, "matched").await;
        assert_eq!(m["room"], won["room"]);
        none_of(&mut maker, "matched", Duration::from_millis(500)).await;
        // Resigned, so that the next round starts from no game.
        let (mut ws, _) = ws::room(&a.host, m["room"].as_str().unwrap(), Some(m["token"].as_str().unwrap())).await;
        send(&mut ws, json!({"type": "resign"})).await;
        recv_type(&mut ws, "end").await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_seekers_on_two_nodes_are_paired_once() {
    let Some(url) = fresh_database().await else { return };
    let a = node(&url, false);
    let b = node(&url, false);
    let q_secret = secret();
    let (mut p, _) = lobby(&a.host, Some(&secret()), "Rudo").await;
    let (mut q, _) = lobby(&b.host, Some(&q_secret), "Tendai").await;
    let t0 = Instant::now();
    send(&mut p, json!({"type": "seek", "ruleset": "nsolo:8"})).await;
    assert_eq!(recv_type(&mut p, "seeking").await["seek"]["ruleset"], "nsolo:8");
    send(&mut q, json!({"type": "seek", "ruleset": "nsolo:8"})).await;
    let (mp, mq) = (recv_type(&mut p, "matched").await, recv_type(&mut q, "matched").await);
    eprintln!("paired across nodes in {:?}", t0.elapsed());
    assert_eq!(mp["room"], mq["room"]);
    assert_ne!(mp["side"], mq["side"]);
    assert_eq!(mp["challenge"], Value::Null);
    // Paired once: the seeks are gone, so a new seek waits alone.
    send(&mut p, json!({"type": "seek", "ruleset": "nsolo:8"})).await;
    none_of(&mut p, "matched", Duration::from_millis(1500)).await;
    // One seek per player across nodes: the same player seeking on A too is refused.
    let (mut q_on_a, _) = lobby(&a.host, Some(&q_secret), "Tendai").await;
    send(&mut q, json!({"type": "seek", "ruleset": "nsolo:9"})).await;
    recv_type(&mut q, "seeking").await;
    send(&mut q_on_a, json!({"type": "seek", "ruleset": "nsolo:10"})).await;
    let refused = recv_error(&mut q_on_a).await;
    assert_eq!(refused["error"], "too_many_challenges", "{refused}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_nodes_challenges_leave_the_other_lobbies() {
    let Some(url) = fresh_database().await else { return };
    let mut a = node(&url, false);
    // A leads (started first); B must take over and sweep A's rows.
    tokio::time::sleep(Duration::from_millis(700)).await;
    let b = node(&url, false);
    let (mut maker, _) = lobby(&a.host, Some(&secret()), "Rudo").await;
    let (mut watcher, _) = lobby(&b.host, None, "").await;
    send(&mut maker, json!({"type": "challenge", "ruleset": "tsoro:6"})).await;
    let id = recv_type(&mut maker, "challenge_added").await["challenge"]["id"].clone();
    assert_eq!(recv_type(&mut watcher, "challenge_added").await["challenge"]["id"], id);
    let t0 = Instant::now();
    a.kill();
    let gone = recv_type(&mut watcher, "challenge_removed").await;
    let took = t0.elapsed();
    eprintln!("the killed node's challenge left the other lobby in {took:?}");
    assert_eq!((&gone["id"], gone["reason"].as_str()), (&id, Some("left")));
    assert!(took < Duration::from_secs(5), "within the bound: {took:?}");
    let (st, _) = http(&b.host, "GET", &format!("/api/online/challenges/{}", id.as_str().unwrap()), None);
    assert_eq!(st, 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_address_through_two_nodes_gets_one_nodes_allowance() {
    let Some(url) = fresh_database().await else { return };
    // The public limits: 2 creations a second (bursts of 4), 20 unfinished rooms.
    let a = node(&url, true);
    let b = node(&url, true);
    let create = |host: &str| http(host, "POST", "/api/online/rooms", Some(json!({"ruleset": "tsoro:6"})));
    let t0 = Instant::now();
    let made = (0..12).filter(|i| create(if i % 2 == 0 { &a.host } else { &b.host }).0 == 201).count();
    let refill = (t0.elapsed().as_secs_f64() * 2.0).ceil() as usize;
    eprintln!("a burst of 12 through two nodes: {made} created in {:?}", t0.elapsed());
    assert!(made >= 4 && made <= 4 + refill, "one node's burst, not two: {made}");
    // Then up to the quota of unfinished rooms, never past it.
    let mut total = made;
    let mut i = 0;
    loop {
        let (st, body) = create(if i % 2 == 0 { &a.host } else { &b.host });
        i += 1;
        match st {
            201 => total += 1,
            429 if body["error"] == "rate_limited" => tokio::time::sleep(Duration::from_millis(250)).await,
            429 if body["error"] == "too_many_rooms" => break,
            _ => panic!("{st} {body}"),
        }
        assert!(total <= 20, "past the quota of one address");
    }
    assert_eq!(total, 20, "the quota of one address across both nodes");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_seat_claimed_at_once_through_two_nodes_goes_to_one() {
    let Some(url) = fresh_database().await else { return };
    let a = node(&url, false);
    let b = node(&url, false);
    for _ in 0..4 {
        let (st, created) = create_on(&a.host);
        assert_eq!(st, 201, "{created}");
        let id = created["id"].as_str().unwrap().to_string();
        let path = format!("/api/online/rooms/{id}/claim");
        let body = json!({"invite": created["invite"], "name": "Chipo"});
        let (ha, hb) = (a.host.clone(), b.host.clone());
        let (pa, pb, ba, bb) = (path.clone(), path, body.clone(), body);
        let ta = std::thread::spawn(move || http(&ha, "POST", &pa, Some(ba)));
        let tb = std::thread::spawn(move || http(&hb, "POST", &pb, Some(bb)));
        let (ra, rb) = (ta.join().unwrap(), tb.join().unwrap());
        let wins = [&ra, &rb].iter().filter(|r| r.0 == 200).count();
        assert_eq!(wins, 1, "one claim wins: {ra:?} {rb:?}");
        let lost = if ra.0 == 200 { &rb } else { &ra };
        assert!(lost.0 >= 400, "the other is refused: {lost:?}");
        // The seat's token is the winner's, on both nodes.
        let won = if ra.0 == 200 { &ra.1 } else { &rb.1 };
        let (_, st) = ws::room(&b.host, &id, Some(won["token"].as_str().unwrap())).await;
        assert_eq!(st["you"], "north");
    }
}

fn create_on(host: &str) -> (u16, Value) {
    http(host, "POST", "/api/online/rooms", Some(json!({"ruleset": "tsoro:6", "side": "south"})))
}
