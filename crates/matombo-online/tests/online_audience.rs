//! The bounded cost of a room's audience and of the lobby (issue 37 item 3), with real
//! WebSocket clients on loopback from addresses of their own (127.0.0.x): spectators per
//! room and per address, the spectators' chat paced per room, lobby connections per
//! address, connections kept for newcomers. Each refusal is the wire format's error.

mod common;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use matombo_online::Limits;
use matombo_testkit::http::seated_room;
use matombo_testkit::ws::{open_from, Ws};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

fn from(i: u8) -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(127, 0, 0, i))
}

async fn server(name: &str, limits: Limits) -> SocketAddr {
    common::start_server(&common::temp_db("online_audience", name), limits).await
}

async fn recv(ws: &mut Ws) -> Option<Value> {
    loop {
        let m = tokio::time::timeout(Duration::from_secs(10), ws.next()).await.expect("message in time");
        match m? {
            Ok(Message::Text(t)) => return Some(serde_json::from_str(&t).unwrap()),
            Ok(Message::Close(_)) | Err(_) => return None,
            Ok(_) => {}
        }
    }
}

/// A room with both seats taken; its id.
async fn room(addr: SocketAddr) -> String {
    let (created, _) = seated_room(addr, json!({"ruleset": "tsoro:8"}), json!({})).await;
    created["id"].as_str().unwrap().to_string()
}

/// A spectator of `id` from `src`: its socket after the state, or the error message.
async fn watch(src: IpAddr, addr: SocketAddr, id: &str) -> Result<Ws, Value> {
    let mut ws = open_from(src, addr, &format!("/api/online/rooms/{id}/ws")).await.expect("upgrade");
    ws.send(Message::text(r#"{"type":"hello","name":"w"}"#)).await.unwrap();
    loop {
        let v = recv(&mut ws).await.expect("an answer");
        match v["type"].as_str() {
            Some("state") => return Ok(ws),
            Some("error") => {
                // The refusal closes the socket.
                assert!(recv(&mut ws).await.is_none(), "closed after the refusal");
                return Err(v);
            }
            _ => {}
        }
    }
}

fn limits() -> Limits {
    Limits { spectators_per_room: 3, spectators_per_addr: 2, messages_per_sec: 1000.0, ..Limits::default() }
}

#[tokio::test]
async fn a_room_takes_so_many_spectators_and_each_address_its_share() {
    let addr = server("places", limits()).await;
    let id = room(addr).await;
    let a1 = watch(from(1), addr, &id).await.unwrap();
    let _a2 = watch(from(1), addr, &id).await.unwrap();
    let e = watch(from(1), addr, &id).await.expect_err("a third from one address is refused");
    assert_eq!(e["error"], "too_many_connections", "{e}");
    assert_eq!(e["message"], "at most 2 spectators of one game per address");
    assert_eq!(e["ply"], Value::Null);
    let _b1 = watch(from(2), addr, &id).await.unwrap();
    let e = watch(from(3), addr, &id).await.expect_err("the room is full");
    assert_eq!(e["error"], "too_many_connections", "{e}");
    assert!(e["message"].as_str().unwrap().contains("3 spectators"), "{e}");
    // A place is given back when its spectator leaves.
    drop(a1);
    let mut ok = false;
    for _ in 0..50 {
        if watch(from(3), addr, &id).await.is_ok() {
            ok = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(ok, "a place freed is taken again");
}

#[tokio::test]
async fn the_spectators_chat_is_paced_per_room_not_per_socket() {
    let l = Limits { room_spectators_chat_per_sec: 1.0, spectators_per_addr: 10, spectators_per_room: 10, ..limits() };
    let addr = server("chat", l).await;
    let id = room(addr).await;
    let mut listener = watch(from(1), addr, &id).await.unwrap();
    let mut talkers = Vec::new();
    for i in 0..4u8 {
        talkers.push(watch(from(10 + i), addr, &id).await.unwrap());
    }
    // Four sockets, each within its own rate (one line), against a room bucket of two.
    let mut refused = Vec::new();
    for (i, ws) in talkers.iter_mut().enumerate() {
        ws.send(Message::text(json!({"type": "chat", "text": format!("line {i}")}).to_string())).await.unwrap();
        let deadline = tokio::time::Instant::now() + Duration::from_millis(300);
        while let Ok(Some(Ok(Message::Text(t)))) = tokio::time::timeout_at(deadline, ws.next()).await {
            let v: Value = serde_json::from_str(&t).unwrap();
            if v["type"] == "error" {
                refused.push(v);
                break;
            }
        }
    }
    assert_eq!(refused.len(), 2, "a room bucket of two lines: {refused:?}");
    for e in &refused {
        assert_eq!(e["error"], "rate_limited");
        assert!(e["message"].as_str().unwrap().contains("spectators of this game"), "{e}");
    }
    let mut lines = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_millis(500);
    while let Ok(Some(Ok(m))) = tokio::time::timeout_at(deadline, listener.next()).await {
        if let Message::Text(t) = m {
            let v: Value = serde_json::from_str(&t).unwrap();
            if v["type"] == "chat" {
                assert_eq!(v["channel"], "spectators");
                lines.push(v["text"].as_str().unwrap().to_string());
            }
        }
    }
    assert_eq!(lines, ["line 0", "line 1"], "only the lines within the room's rate are relayed");
}

#[tokio::test]
async fn lobby_connections_per_address_and_slots_kept_for_newcomers() {
    let l = Limits {
        lobby_per_addr: 2,
        max_connections: 8,
        newcomer_slots: 4,
        spectators_per_addr: 100,
        spectators_per_room: 100,
        ..limits()
    };
    let addr = server("lobby", l).await;
    let _l1 = open_from(from(1), addr, "/api/online/lobby/ws").await.unwrap();
    let _l2 = open_from(from(1), addr, "/api/online/lobby/ws").await.unwrap();
    assert_eq!(open_from(from(1), addr, "/api/online/lobby/ws").await.err(), Some(429), "a third lobby socket");
    let r = reqwest::get(format!("http://{addr}/api/online/lobby/ws")).await.unwrap();
    assert_eq!(r.status(), 400, "no upgrade");
    // Address 2 holds 4 connections (NEWCOMER_CONNECTIONS): past 8 - 4, it may not take more...
    let id = room(addr).await;
    let mut held = Vec::new();
    for _ in 0..4 {
        held.push(watch(from(2), addr, &id).await.unwrap());
    }
    let r = open_from(from(2), addr, &format!("/api/online/rooms/{id}/ws")).await.err();
    assert_eq!(r, Some(503), "the last slots are kept for newcomers");
    // ...while a newcomer still gets in, to the lobby and to the room.
    let mut n = open_from(from(3), addr, "/api/online/lobby/ws").await.expect("a newcomer's lobby socket");
    n.send(Message::text(r#"{"type":"hello"}"#)).await.unwrap();
    assert_eq!(recv(&mut n).await.unwrap()["type"], "welcome");
    watch(from(4), addr, &id).await.expect("a newcomer's spectator socket");
}

#[tokio::test]
async fn refusals_answer_the_one_error_body() {
    let l = Limits { lobby_per_addr: 1, ..limits() };
    let addr = server("body", l).await;
    let _l1 = open_from(from(1), addr, "/api/online/lobby/ws").await.unwrap();
    // The HTTP refusal of an upgrade carries the same body as every error.
    let sock = tokio::net::TcpSocket::new_v4().unwrap();
    sock.bind(SocketAddr::new(from(1), 0)).unwrap();
    let mut s = sock.connect(addr).await.unwrap();
    let req = format!(
        "GET /api/online/lobby/ws HTTP/1.1\r\nHost: {addr}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\
         Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
    );
    tokio::io::AsyncWriteExt::write_all(&mut s, req.as_bytes()).await.unwrap();
    let mut buf = vec![0u8; 4096];
    let n = tokio::time::timeout(Duration::from_secs(5), tokio::io::AsyncReadExt::read(&mut s, &mut buf))
        .await
        .unwrap()
        .unwrap();
    let answer = String::from_utf8_lossy(&buf[..n]).to_string();
    assert!(answer.starts_with("HTTP/1.1 429"), "{answer}");
    let body: Value = serde_json::from_str(answer.split("\r\n\r\n").nth(1).unwrap()).unwrap();
    assert_eq!(body, json!({"error": "too_many_connections", "message": "at most 1 lobby connections per address"}));
}
