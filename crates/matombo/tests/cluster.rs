//! Several `matombo serve` nodes on one PostgreSQL database (issue 35), as real processes:
//! two players on different nodes play a whole rated game met through the lobby while a
//! spectator watches on a third; the node of one player is killed with SIGKILL mid-game
//! and the game ends on the others, with every acknowledged turn kept and the ratings
//! written once. And a race: one ply sent to two nodes at once; one turn wins, and both
//! connections get it.
//!
//! Needs a PostgreSQL database in `MATOMBO_TEST_PG` (scripts/test.sh starts one; by hand:
//! `eval "$(bash scripts/pg-cluster.sh start)"`); without it the tests say so and pass.

use std::time::Duration;

use matombo_core::{Game, Position, Record};
use matombo_testkit::ws::{self, recv, recv_type, room, send, Ws};
use rand::{rngs::SmallRng, Rng, SeedableRng};
use serde_json::{json, Value};

mod common;
use common::{database, http, Server};

/// A node: `matombo serve` with the load test's limits on the database `url`.
fn node(url: &str) -> Server {
    Server::start(url, &["--loadtest-limits", "100"])
}

/// The broadcast of the turn of `ply`, skipping anything else.
async fn turn_of(ws: &mut Ws, ply: usize) -> Value {
    loop {
        let v = recv(ws).await;
        if v["type"] == "turn" && v["ply"] == ply {
            return v;
        }
    }
}

async fn lobby(host: &str, secret: &str, name: &str) -> (Ws, Value) {
    ws::lobby(host, json!({"type": "hello", "player": secret, "name": name})).await
}

fn pick(pos: &Position, rng: &mut SmallRng) -> String {
    let turns: Vec<_> = pos.turns().map(|(t, _)| t).collect();
    turns[rng.random_range(0..turns.len())].to_string()
}

/// Plays `mv` at `ply` on `ws` and waits for its broadcast there.
async fn play(ws: &mut Ws, ply: usize, mv: &str) -> Value {
    loop {
        send(ws, json!({"type": "turn", "ply": ply, "move": mv})).await;
        loop {
            let v = recv(ws).await;
            if v["type"] == "turn" && v["ply"] == ply {
                assert_eq!(v["move"], mv, "{v}");
                return v;
            }
            if v["type"] == "error" {
                assert_eq!(v["error"], "rate_limited", "{v}");
                tokio::time::sleep(Duration::from_millis(250)).await;
                break;
            }
        }
    }
}

fn secret() -> String {
    let mut rng = SmallRng::from_os_rng();
    (0..40).map(|_| (b'a' + rng.random_range(0..26u8)) as char).collect()
}

/// A player's rated games, all groups together, as a node reports them.
fn rated_games(host: &str, id: &str) -> u64 {
    let (st, body) = http(host, "GET", &format!("/api/online/players/{id}"), None);
    assert_eq!(st, 200, "{body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    // The player's fields with the page of games (`{"id", "ratings", "games", …}`).
    let ratings = v["ratings"].as_object().unwrap_or_else(|| panic!("ratings in {v}"));
    let rated = v["games"].as_array().unwrap().iter().filter(|g| g["rated"] == true && g["after"].is_object());
    assert_eq!(rated.count(), 1, "one rating change in the history: {v}");
    ratings.values().map(|r| r["games"].as_u64().unwrap()).sum()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rated_game_across_nodes_survives_the_kill_of_one() {
    let Some(url) = database() else { return };
    let a = node(&url);
    let mut b = node(&url);
    let c = node(&url);

    // The two players meet through the lobby (of node A) in a rated challenge.
    let (mut la, wa) = lobby(&a.host, &secret(), "Rudo").await;
    let (mut lb, wb) = lobby(&a.host, &secret(), "Tendai").await;
    let (pa, pb) = (wa["you"]["id"].as_str().unwrap().to_string(), wb["you"]["id"].as_str().unwrap().to_string());
    send(&mut la, json!({"type": "challenge", "ruleset": "tsoro:6", "side": "south", "rated": true})).await;
    let mine = recv_type(&mut la, "challenge_added").await;
    send(&mut lb, json!({"type": "accept", "id": mine["challenge"]["id"]})).await;
    let (ma, mb) = (recv_type(&mut la, "matched").await, recv_type(&mut lb, "matched").await);
    let id = ma["room"].as_str().unwrap().to_string();

    // South plays on node A, North on node B, a spectator watches on node C.
    let (mut south, st) = room(&a.host, &id, ma["token"].as_str()).await;
    assert_eq!(st["you"], "south");
    assert_eq!(st["rated"], true);
    let (mut north, nt) = room(&b.host, &id, mb["token"].as_str()).await;
    assert_eq!(nt["you"], "north");
    let (mut watcher, _) = room(&c.host, &id, None).await;

    let mut game = Game::new(st["position"].as_str().unwrap().parse().unwrap());
    let mut rng = SmallRng::seed_from_u64(35);
    for ply in 0..10 {
        let mv = pick(game.position(), &mut rng);
        let (me, other) = if ply % 2 == 0 { (&mut south, &mut north) } else { (&mut north, &mut south) };
        play(me, ply, &mv).await;
        game.play(&mv.parse().unwrap()).unwrap();
        // The other player and the spectator, on other nodes, hear of it through the bus.
        for ws in [other, &mut watcher] {
            let t = turn_of(ws, ply).await;
            assert_eq!(t["position"], game.position().to_string());
        }
        if game.is_over() {
            break;
        }
    }
    assert!(!game.is_over(), "the seeded game lasts past the kill");

    // North's node dies; North reconnects to node C and the game goes on there.
    b.kill();
    drop(north);
    let (mut north, n1) = room(&c.host, &id, mb["token"].as_str()).await;
    assert_eq!(n1["ply"], game.moves().len(), "every acknowledged turn kept");
    assert_eq!(n1["position"], game.position().to_string());
    while !game.is_over() {
        let ply = game.moves().len();
        assert!(ply < 3000, "seeded random game ends");
        let mv = pick(game.position(), &mut rng);
        let (me, other) = if ply % 2 == 0 { (&mut south, &mut north) } else { (&mut north, &mut south) };
        play(me, ply, &mv).await;
        game.play(&mv.parse().unwrap()).unwrap();
        assert_eq!(turn_of(other, ply).await["position"], game.position().to_string());
        assert_eq!(turn_of(&mut watcher, ply).await["position"], game.position().to_string());
    }

    // Both nodes left read the whole game back; the ratings changed once.
    for host in [&a.host, &c.host] {
        let (st, text) = http(host, "GET", &format!("/api/online/rooms/{id}/record"), None);
        assert_eq!(st, 200, "{text}");
        let record: Record = text.parse().unwrap();
        assert_eq!(record.game.moves(), game.moves());
        assert_eq!(record.result(), game.outcome().unwrap().result());
    }
    // The rating write is the end's own transaction; reading it back needs no wait.
    for p in [&pa, &pb] {
        assert_eq!(rated_games(&a.host, p), 1, "player {p}: one rated game");
        assert_eq!(rated_games(&c.host, p), 1, "player {p}: one rated game");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_ply_sent_to_two_nodes_at_once_one_turn_wins() {
    let Some(url) = database() else { return };
    let a = node(&url);
    let b = node(&url);
    for round in 0..3 {
        let (st, created) =
            http(&a.host, "POST", "/api/online/rooms", Some(json!({"ruleset": "tsoro:6", "side": "south"})));
        assert_eq!(st, 201, "{created}");
        let created: Value = serde_json::from_str(&created).unwrap();
        let id = created["id"].as_str().unwrap().to_string();
        let (st, claimed) =
            http(&b.host, "POST", &format!("/api/online/rooms/{id}/claim"), Some(json!({"invite": created["invite"]})));
        assert_eq!(st, 200, "{claimed}");
        let token = created["token"].as_str().unwrap();
        // South's seat link open on both nodes (two tabs behind a load balancer).
        let (mut on_a, s0) = room(&a.host, &id, Some(token)).await;
        let (mut on_b, _) = room(&b.host, &id, Some(token)).await;
        let pos: Position = s0["position"].as_str().unwrap().parse().unwrap();
        let turns: Vec<String> = pos.turns().map(|(t, _)| t.to_string()).collect();
        assert!(turns.len() >= 2, "two different turns to race");
        let (ta, tb) = (turns[round % turns.len()].clone(), turns[(round + 1) % turns.len()].clone());
        let (ra, rb) = tokio::join!(
            send(&mut on_a, json!({"type": "turn", "ply": 0, "move": ta})),
            send(&mut on_b, json!({"type": "turn", "ply": 0, "move": tb}))
        );
        let ((), ()) = (ra, rb);
        // Each connection learns turn 0, the same one: the winner's.
        let (wa, wb) = (turn_of(&mut on_a, 0).await, turn_of(&mut on_b, 0).await);
        assert_eq!(wa["move"], wb["move"], "both see the winner's turn");
        assert!(wa["move"] == ta.as_str() || wa["move"] == tb.as_str());
        // The store agrees, and play goes on from the winner's turn on either node.
        let (_, text) = http(&b.host, "GET", &format!("/api/online/rooms/{id}/record"), None);
        let record: Record = text.parse().unwrap();
        assert_eq!(record.game.moves().len(), 1);
        assert_eq!(record.game.moves()[0].to_string(), wa["move"].as_str().unwrap());
    }
}
