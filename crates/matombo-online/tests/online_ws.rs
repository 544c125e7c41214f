//! Online play with real WebSocket clients on loopback: a full game, strangers and wrong
//! tokens, duplicated turns, reconnection, malformed and oversized messages, the archive.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};

use futures_util::SinkExt;
use matombo_core::{Game, Position, Record};
use matombo_online::Limits;
use matombo_testkit::http::{get_text, post, seated_room};
use matombo_testkit::ws::{self, recv, recv_refusal, recv_turn, recv_type, send, Ws};
use rand::{rngs::SmallRng, Rng, SeedableRng};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

mod common;

fn temp_db() -> PathBuf {
    static N: AtomicU32 = AtomicU32::new(0);
    let dir = std::env::temp_dir().join(format!(
        "matombo-online-test-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    dir.join("sub").join("online.sqlite3")
}

/// A room with both seats taken: (id, south token, north token).
async fn room(addr: SocketAddr, ruleset: &str, clock: Option<Value>) -> (String, String, String) {
    let mut body = json!({"ruleset": ruleset, "side": "south", "name": "Rudo"});
    if let Some(c) = clock {
        body["clock"] = c;
    }
    let (created, claimed) = seated_room(addr, body, json!({"name": "Tendai"})).await;
    let id = created["id"].as_str().unwrap().to_string();
    let invite = created["invite"].as_str().unwrap();
    assert_eq!(created["links"]["watch"], format!("/online/game/{id}"));
    assert!(!created["links"]["watch"].as_str().unwrap().contains(invite));
    assert_eq!(claimed["side"], "north");
    (id, created["token"].as_str().unwrap().to_string(), claimed["token"].as_str().unwrap().to_string())
}

fn pick(pos: &Position, rng: &mut SmallRng) -> String {
    let turns: Vec<_> = pos.turns().map(|(t, _)| t).collect();
    turns[rng.random_range(0..turns.len())].to_string()
}

/// Plays a random legal turn of `game` from `mover` and waits for its echo there.
async fn play_random(mover: &mut Ws, game: &mut Game, rng: &mut SmallRng) {
    let ply = game.moves().len();
    let mv = pick(game.position(), rng);
    send(mover, json!({"type": "turn", "ply": ply, "move": mv})).await;
    recv_turn(mover, ply).await;
    game.play(&mv.parse().unwrap()).unwrap();
}

#[tokio::test]
async fn two_clients_play_a_full_game_and_it_is_archived() {
    let db = temp_db();
    let addr = common::start_server(&db, common::fast()).await;
    let (id, ts, tn) = room(addr, "tsoro:6", None).await;
    let [(mut south, s0), (mut north, n0)] = common::connect_all([addr; 2], &id, [&ts, &tn]).await;
    let (mut watcher, w0) = ws::room(addr, &id, None).await;
    assert_eq!(s0["you"], "south");
    assert_eq!(n0["you"], "north");
    assert_eq!(w0["you"], Value::Null);
    let mut game = Game::new(s0["position"].as_str().unwrap().parse().unwrap());
    let mut rng = SmallRng::seed_from_u64(7);
    while !game.is_over() && game.moves().len() < 3000 {
        let ply = game.moves().len();
        let mv = pick(game.position(), &mut rng);
        let (mover, other) = if ply % 2 == 0 { (&mut south, &mut north) } else { (&mut north, &mut south) };
        send(mover, json!({"type": "turn", "ply": ply, "move": mv})).await;
        let seen = recv_turn(other, ply).await;
        let echo = recv_turn(mover, ply).await;
        let watched = recv_turn(&mut watcher, ply).await;
        game.play(&mv.parse().unwrap()).unwrap();
        for v in [&seen, &echo, &watched] {
            assert_eq!(v["ply"], ply);
            assert_eq!(v["position"], game.position().to_string());
        }
        assert_eq!(seen["outcome"].is_null(), !game.is_over());
    }
    assert!(game.is_over(), "seeded random game ends");
    // The archive lists it, the record replays to the same game.
    let (st, list) = get_text(addr, "/api/online/archive").await;
    assert_eq!(st, 200);
    let list: Value = serde_json::from_str(&list).unwrap();
    let entry = list["games"].as_array().unwrap().iter().find(|g| g["id"] == id.as_str()).expect("archived");
    assert_eq!(entry["turns"], game.moves().len());
    assert_eq!(entry["result"], game.outcome().unwrap().result());
    let (st, text) = get_text(addr, &format!("/api/online/rooms/{id}/record")).await;
    assert_eq!(st, 200);
    let rec: Record = text.parse().unwrap();
    assert_eq!(rec.game.moves(), game.moves());
    assert_eq!(rec.tag("South"), Some("Rudo"));
    assert_eq!(rec.tag("North"), Some("Tendai"));
    // Nothing secret in the public state.
    let (_, public) = get_text(addr, &format!("/api/online/rooms/{id}?positions=1")).await;
    assert!(!public.contains(&ts) && !public.contains(&tn));
    let public: Value = serde_json::from_str(&public).unwrap();
    assert_eq!(public["positions"].as_array().unwrap().len(), game.moves().len() + 1);
}

#[tokio::test]
async fn only_the_holder_of_the_side_to_move_can_play() {
    let addr = common::start_server(&temp_db(), common::fast()).await;
    let (id, ts, tn) = room(addr, "tsoro:8", None).await;
    let [(mut south, _), (mut north, _)] = common::connect_all([addr; 2], &id, [&ts, &tn]).await;
    // A spectator, a wrong token and a token of another length cannot move.
    let (mut watcher, _) = ws::room(addr, &id, None).await;
    send(&mut watcher, json!({"type": "turn", "ply": 0, "move": "B2="})).await;
    assert_eq!(recv_refusal(&mut watcher).await["error"], "not_a_player");
    let mut wrong = ts.clone();
    wrong.replace_range(0..1, if wrong.starts_with('A') { "B" } else { "A" });
    let mut stranger = ws::connect(addr, &format!("/api/online/rooms/{id}/ws")).await;
    send(&mut stranger, json!({"type": "hello", "token": wrong})).await;
    assert_eq!(recv_refusal(&mut stranger).await["error"], "bad_token");
    assert_eq!(recv_type(&mut stranger, "state").await["you"], Value::Null);
    send(&mut stranger, json!({"type": "turn", "ply": 0, "move": "B2="})).await;
    assert_eq!(recv_refusal(&mut stranger).await["error"], "not_a_player");
    // North may not play South's turn; an illegal turn and garbage are refused.
    send(&mut north, json!({"type": "turn", "ply": 0, "move": "B2="})).await;
    assert_eq!(recv_refusal(&mut north).await["error"], "not_your_turn");
    send(&mut south, json!({"type": "turn", "ply": 0, "move": "A1"})).await;
    assert_eq!(recv_refusal(&mut south).await["error"], "illegal");
    send(&mut south, json!({"type": "turn", "ply": 0, "move": "??"})).await;
    assert_eq!(recv_refusal(&mut south).await["error"], "bad_move");
    south.send(Message::text("{not json")).await.unwrap();
    assert_eq!(recv_refusal(&mut south).await["error"], "malformed");
    south.send(Message::text(" ".repeat(5000))).await.unwrap();
    assert_eq!(recv_refusal(&mut south).await["error"], "too_large");
    south.send(Message::binary(vec![0u8, 1, 2])).await.unwrap();
    assert_eq!(recv_refusal(&mut south).await["error"], "malformed");
    // Nothing changed: South's turn at ply 0 is still accepted.
    send(&mut south, json!({"type": "turn", "ply": 0, "move": "B2="})).await;
    recv_turn(&mut north, 0).await;
    // The invitation cannot be used a second time, nor a wrong one.
    let (st, v) = post(addr, &format!("/api/online/rooms/{id}/claim"), json!({"invite": "nope"})).await;
    assert_eq!((st, v["error"].as_str()), (403, Some("bad_invite")));
}

#[tokio::test]
async fn a_duplicated_turn_is_applied_once() {
    let addr = common::start_server(&temp_db(), common::fast()).await;
    let (id, ts, tn) = room(addr, "tsoro:8", None).await;
    let [(mut south, _), (mut north, _)] = common::connect_all([addr; 2], &id, [&ts, &tn]).await;
    let turn = json!({"type": "turn", "ply": 0, "move": "B2="});
    send(&mut south, turn.clone()).await;
    send(&mut south, turn.clone()).await;
    // The broadcast of the turn and the acknowledgement of the duplicate, in either order.
    let mut got = Vec::new();
    while got.len() < 2 {
        let v = recv(&mut south).await;
        if v["type"] == "turn" || v["type"] == "ack" {
            assert_eq!(v["ply"], 0);
            got.push(v["type"].as_str().unwrap().to_string());
        }
    }
    got.sort();
    assert_eq!(got, ["ack", "turn"]);
    recv_turn(&mut north, 0).await;
    send(&mut north, json!({"type": "sync"})).await;
    let state = recv_type(&mut north, "state").await;
    assert_eq!(state["ply"], 1);
    assert_eq!(state["moves"], json!(["B2="]));
    // A stale ply with another turn is refused and the client gets the state back.
    send(&mut south, json!({"type": "turn", "ply": 0, "move": "B3"})).await;
    assert_eq!(recv_refusal(&mut south).await["error"], "stale");
    assert_eq!(recv_type(&mut south, "state").await["ply"], 1);
}

#[tokio::test]
async fn a_client_that_reconnects_continues() {
    let addr = common::start_server(&temp_db(), common::fast()).await;
    let (id, ts, tn) = room(addr, "nsolo:8", None).await;
    let [(mut south, s0), (mut north, _)] = common::connect_all([addr; 2], &id, [&ts, &tn]).await;
    let mut game = Game::new(s0["position"].as_str().unwrap().parse().unwrap());
    let mut rng = SmallRng::seed_from_u64(3);
    for ply in 0..6 {
        play_random(if ply % 2 == 0 { &mut south } else { &mut north }, &mut game, &mut rng).await;
        if ply == 2 {
            // North drops out while South plays on.
            north.close(None).await.unwrap();
        }
        if ply == 2 {
            let (n, state) = ws::room(addr, &id, Some(&tn)).await;
            north = n;
            assert_eq!(state["ply"], 3);
            assert_eq!(state["position"], game.position().to_string());
        }
    }
    // A team mate with the same seat link sees the same state and may play.
    let (mut mate, state) = ws::room(addr, &id, Some(&ts)).await;
    assert_eq!(state["you"], "south");
    assert_eq!(state["moves"].as_array().unwrap().len(), 6);
    let mv = pick(game.position(), &mut rng);
    send(&mut mate, json!({"type": "turn", "ply": 6, "move": mv})).await;
    assert_eq!(recv_turn(&mut south, 6).await["move"], mv);
    // Presence counts both connected holders of South's seat.
    send(&mut north, json!({"type": "sync"})).await;
    let (_, public) = get_text(addr, &format!("/api/online/rooms/{id}")).await;
    let public: Value = serde_json::from_str(&public).unwrap();
    assert_eq!(public["presence"]["south"]["online"], 2);
}

#[tokio::test]
async fn the_flag_falls_on_the_server_and_resignation_ends() {
    let addr = common::start_server(&temp_db(), common::fast()).await;
    let (id, ts, tn) = room(addr, "tsoro:8", Some(json!({"initial_ms": 1000, "increment_ms": 0}))).await;
    let (mut south, s0) = ws::room(addr, &id, Some(&ts)).await;
    assert_eq!(s0["clock"]["running"], "south");
    let (_north, _) = ws::room(addr, &id, Some(&tn)).await;
    // Nobody moves: the server ends the game when South's second runs out.
    let end = recv_type(&mut south, "end").await;
    assert_eq!(end["outcome"]["termination"], "time_forfeit");
    assert_eq!(end["outcome"]["winner"], "north");
    send(&mut south, json!({"type": "turn", "ply": 0, "move": "B2="})).await;
    assert_eq!(recv_refusal(&mut south).await["error"], "game_over");

    let (id, ts, _) = room(addr, "tsoro:8", None).await;
    let (mut south, _) = ws::room(addr, &id, Some(&ts)).await;
    let (mut watcher, _) = ws::room(addr, &id, None).await;
    send(&mut watcher, json!({"type": "resign"})).await;
    assert_eq!(recv_refusal(&mut watcher).await["error"], "not_a_player");
    send(&mut south, json!({"type": "resign"})).await;
    let end = recv_type(&mut watcher, "end").await;
    assert_eq!(end["outcome"]["result"], "0-1");
}

#[tokio::test]
async fn limits_refuse_with_clear_errors() {
    let limits = Limits { rooms_per_addr: 2, connections_per_addr: 3, ..Limits::default() };
    let addr = common::start_server(&temp_db(), limits).await;
    let (id, ts, tn) = room(addr, "tsoro:8", None).await;
    let (_, _) = post(addr, "/api/online/rooms", json!({"ruleset": "tsoro"})).await;
    let (st, v) = post(addr, "/api/online/rooms", json!({"ruleset": "tsoro"})).await;
    assert_eq!((st, v["error"].as_str()), (429, Some("too_many_rooms")));
    let (st, v) = post(addr, "/api/online/rooms", json!({"ruleset": "chess"})).await;
    assert_eq!((st, v["error"].as_str()), (400, Some("bad_ruleset")));
    // Turns per second: the default allows a burst of 10, then refuses.
    let (mut south, _) = ws::room(addr, &id, Some(&ts)).await;
    let (_north, _) = ws::room(addr, &id, Some(&tn)).await;
    let mut codes = Vec::new();
    for _ in 0..20 {
        send(&mut south, json!({"type": "turn", "ply": 5, "move": "B2="})).await;
        codes.push(recv_refusal(&mut south).await["error"].as_str().unwrap().to_string());
    }
    assert!(codes[..10].iter().all(|c| c == "ahead"), "{codes:?}");
    assert!(codes.iter().any(|c| c == "rate_limited"), "{codes:?}");
    // Connections per address.
    let (_w, _) = ws::room(addr, &id, None).await;
    let r = tokio_tungstenite::connect_async(format!("ws://{addr}/api/online/rooms/{id}/ws")).await;
    assert!(r.is_err(), "a fourth connection from one address is refused");
    // Unknown rooms.
    let (st, _) = get_text(addr, "/api/online/rooms/nosuchroom").await;
    assert_eq!(st, 404);
}

#[tokio::test]
async fn games_in_progress_survive_a_restart_of_the_state() {
    let db = temp_db();
    let addr = common::start_server(&db, common::fast()).await;
    let (id, ts, tn) = room(addr, "tsoro:8", Some(json!({"initial_ms": 600_000, "increment_ms": 1000}))).await;
    let [(mut south, s0), (mut north, _)] = common::connect_all([addr; 2], &id, [&ts, &tn]).await;
    let mut game = Game::new(s0["position"].as_str().unwrap().parse().unwrap());
    let mut rng = SmallRng::seed_from_u64(11);
    for ply in 0..4 {
        play_random(if ply % 2 == 0 { &mut south } else { &mut north }, &mut game, &mut rng).await;
    }
    // A second server on the same database file sees the game as it stands.
    let addr2 = common::start_server(&db, common::fast()).await;
    let (mut south2, state) = ws::room(addr2, &id, Some(&ts)).await;
    assert_eq!(state["position"], game.position().to_string());
    assert_eq!(state["you"], "south");
    assert_eq!(state["clock"]["increment_ms"], 1000);
    let mv = pick(game.position(), &mut rng);
    send(&mut south2, json!({"type": "turn", "ply": 4, "move": mv})).await;
    assert_eq!(recv_turn(&mut south2, 4).await["move"], mv);
}
