//! Games in progress survive `kill -9` of `matombo serve`: play some turns, kill the
//! server, start it again on the same database and finish the game with nothing lost.

use matombo_core::{Game, Position, Record};
use rand::{rngs::SmallRng, Rng, SeedableRng};
use serde_json::{json, Value};
use tokio::net::TcpStream;

mod common;
use common::net::{join, play, Ws};
use common::{http, temp_dir, Server};

/// A seat's WebSocket, hello said; the first state.
async fn connect(host: &str, id: &str, token: &str) -> (Ws<TcpStream>, Value) {
    let io = TcpStream::connect(host).await.unwrap();
    join(io, &format!("ws://{host}/api/online/rooms/{id}/ws"), Some(token)).await
}

fn pick(pos: &Position, rng: &mut SmallRng) -> String {
    let turns: Vec<_> = pos.turns().map(|(t, _)| t).collect();
    turns[rng.random_range(0..turns.len())].to_string()
}

#[tokio::test]
async fn a_game_survives_kill_9() {
    let dir = temp_dir("restart-test");
    let db = dir.join("online.sqlite3");
    let mut server = Server::start(&db, &[]);
    let host = server.host.clone();
    let (st, created) = http(&host, "POST", "/api/online/rooms", Some(json!({"ruleset": "tsoro:6", "side": "north"})));
    assert_eq!(st, 201, "{created}");
    let created: Value = serde_json::from_str(&created).unwrap();
    let id = created["id"].as_str().unwrap().to_string();
    let (st, claimed) =
        http(&host, "POST", &format!("/api/online/rooms/{id}/claim"), Some(json!({"invite": created["invite"]})));
    assert_eq!(st, 200, "{claimed}");
    let claimed: Value = serde_json::from_str(&claimed).unwrap();
    let tokens = [claimed["token"].as_str().unwrap().to_string(), created["token"].as_str().unwrap().to_string()];

    let (mut south, s0) = connect(&host, &id, &tokens[0]).await;
    let (mut north, _) = connect(&host, &id, &tokens[1]).await;
    let mut game = Game::new(s0["position"].as_str().unwrap().parse().unwrap());
    let mut rng = SmallRng::seed_from_u64(2024);
    for ply in 0..8 {
        let mv = pick(game.position(), &mut rng);
        play(if ply % 2 == 0 { &mut south } else { &mut north }, ply, &mv).await;
        game.play(&mv.parse().unwrap()).unwrap();
    }
    // The acknowledgement of turn 8 came after it was stored: kill -9 right now.
    server.kill();
    drop((south, north));

    let mut server = Server::start(&db, &[]);
    let host = server.host.clone();
    let (mut south, s1) = connect(&host, &id, &tokens[0]).await;
    let (mut north, n1) = connect(&host, &id, &tokens[1]).await;
    assert_eq!(s1["ply"], 8);
    assert_eq!(s1["position"], game.position().to_string());
    assert_eq!((s1["you"].as_str(), n1["you"].as_str()), (Some("south"), Some("north")));
    while !game.is_over() {
        let ply = game.moves().len();
        assert!(ply < 3000, "seeded random game ends");
        let mv = pick(game.position(), &mut rng);
        let v = play(if ply % 2 == 0 { &mut south } else { &mut north }, ply, &mv).await;
        game.play(&mv.parse().unwrap()).unwrap();
        assert_eq!(v["position"], game.position().to_string());
    }
    let (st, text) = http(&host, "GET", &format!("/api/online/rooms/{id}/record"), None);
    assert_eq!(st, 200);
    let record: Record = text.parse().unwrap();
    assert_eq!(record.game.moves(), game.moves());
    assert_eq!(record.result(), game.outcome().unwrap().result());
    server.kill();
    let _ = std::fs::remove_dir_all(&dir);
}
