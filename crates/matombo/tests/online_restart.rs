//! Games in progress survive `kill -9` of `matombo serve`: play some turns, kill the
//! server, start it again on the same database and finish the game with nothing lost.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use matombo_core::{Game, Position, Record};
use rand::{rngs::SmallRng, Rng, SeedableRng};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

type Ws = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Starts `matombo serve --port 0 --db <db>`; returns the child and `host:port`.
fn serve(db: &std::path::Path) -> (Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_matombo"))
        .args(["serve", "--port", "0", "--db"])
        .arg(db)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start matombo serve");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let host = line.trim().trim_start_matches("http://").trim_end_matches('/').to_string();
    assert!(host.starts_with("127.0.0.1:"), "first line is the address: {line:?}");
    (child, host)
}

fn http(host: &str, method: &str, path: &str, body: Option<Value>) -> (u16, String) {
    let mut s = std::net::TcpStream::connect(host).unwrap();
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut out = Vec::new();
    s.read_to_end(&mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    let status = head.split_whitespace().nth(1).unwrap().parse().unwrap();
    (status, body.to_string())
}

async fn connect(host: &str, id: &str, token: &str) -> (Ws, Value) {
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{host}/api/online/rooms/{id}/ws")).await.unwrap();
    ws.send(Message::text(json!({"type": "hello", "token": token}).to_string())).await.unwrap();
    loop {
        let v = recv(&mut ws).await;
        if v["type"] == "state" {
            return (ws, v);
        }
    }
}

async fn recv(ws: &mut Ws) -> Value {
    loop {
        let m = tokio::time::timeout(Duration::from_secs(10), ws.next()).await.expect("a message in time");
        if let Message::Text(t) = m.expect("open").expect("ok") {
            return serde_json::from_str(&t).unwrap();
        }
    }
}

/// Plays `mv` at `ply` and waits for the server's broadcast of it (retrying when the
/// per-connection turn rate limit answers).
async fn play(ws: &mut Ws, ply: usize, mv: &str) -> Value {
    loop {
        ws.send(Message::text(json!({"type": "turn", "ply": ply, "move": mv}).to_string())).await.unwrap();
        loop {
            let v = recv(ws).await;
            if v["type"] == "turn" && v["ply"] == ply {
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

fn pick(pos: &Position, rng: &mut SmallRng) -> String {
    let turns: Vec<_> = pos.turns().map(|(t, _)| t).collect();
    turns[rng.random_range(0..turns.len())].to_string()
}

#[tokio::test]
async fn a_game_survives_kill_9() {
    let dir = std::env::temp_dir().join(format!("matombo-restart-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let db = dir.join("online.sqlite3");
    let (mut server, host) = serve(&db);
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
    server.kill().unwrap();
    server.wait().unwrap();
    drop((south, north));

    let (mut server, host) = serve(&db);
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
    server.kill().unwrap();
    server.wait().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}
