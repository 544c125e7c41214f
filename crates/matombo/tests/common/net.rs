//! Async clients for the tests that pick the connection themselves: from a chosen loopback
//! address (the trusted-proxy tests), or over TLS; raw HTTP/1.1 on any stream, and a
//! room's WebSocket on it.

use std::net::SocketAddr;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::Message;

pub type Ws<S> = tokio_tungstenite::WebSocketStream<S>;

/// Connects to `host` from the loopback address `from`.
pub async fn tcp_from(from: [u8; 4], host: &str) -> TcpStream {
    let sock = tokio::net::TcpSocket::new_v4().unwrap();
    sock.bind(SocketAddr::from((from, 0))).unwrap();
    sock.connect(host.parse().unwrap()).await.unwrap()
}

/// One HTTP/1.1 request on `io` (closed after); the status, headers and body.
pub async fn request<S: AsyncRead + AsyncWrite + Unpin>(
    mut io: S,
    host: &str,
    method: &str,
    path: &str,
    extra: &[(&str, &str)],
    body: Option<Value>,
) -> (u16, String, String) {
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    let mut head = format!("{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n");
    if !body.is_empty() {
        head += &format!("Content-Type: application/json\r\nContent-Length: {}\r\n", body.len());
    }
    for (k, v) in extra {
        head += &format!("{k}: {v}\r\n");
    }
    head += "\r\n";
    io.write_all(head.as_bytes()).await.unwrap();
    io.write_all(body.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    let _ = io.read_to_end(&mut out).await;
    let text = String::from_utf8_lossy(&out).to_string();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    (status, head.to_string(), body.to_string())
}

/// A request from 127.0.0.1 with no extra headers: the status and the body.
pub async fn http(host: &str, method: &str, path: &str, body: Option<Value>) -> (u16, String) {
    let io = tcp_from([127, 0, 0, 1], host).await;
    let (st, _, body) = request(io, host, method, path, &[], body).await;
    (st, body)
}

pub async fn recv<S: AsyncRead + AsyncWrite + Unpin>(ws: &mut Ws<S>) -> Value {
    loop {
        let m = tokio::time::timeout(Duration::from_secs(10), ws.next()).await.expect("a message in time");
        if let Message::Text(t) = m.expect("open").expect("ok") {
            return serde_json::from_str(&t).unwrap();
        }
    }
}

/// Opens a room's WebSocket on `io` and says hello; answers the first state.
pub async fn join<S: AsyncRead + AsyncWrite + Unpin>(io: S, url: &str, token: Option<&str>) -> (Ws<S>, Value) {
    let (mut ws, _) = tokio_tungstenite::client_async(url, io).await.expect("WebSocket accepted");
    ws.send(Message::text(json!({"type": "hello", "token": token}).to_string())).await.unwrap();
    loop {
        let v = recv(&mut ws).await;
        if v["type"] == "state" {
            return (ws, v);
        }
    }
}

/// A game of tsoro:6 between two seats: (id, [south token, north token]).
pub async fn new_game(host: &str) -> (String, [String; 2]) {
    let (st, created) =
        http(host, "POST", "/api/online/rooms", Some(json!({"ruleset": "tsoro:6", "side": "south"}))).await;
    assert_eq!(st, 201, "{created}");
    let created: Value = serde_json::from_str(&created).unwrap();
    let id = created["id"].as_str().unwrap().to_string();
    let (st, claimed) =
        http(host, "POST", &format!("/api/online/rooms/{id}/claim"), Some(json!({"invite": created["invite"]}))).await;
    assert_eq!(st, 200, "{claimed}");
    let claimed: Value = serde_json::from_str(&claimed).unwrap();
    (id, [created["token"].as_str().unwrap().into(), claimed["token"].as_str().unwrap().into()])
}

/// Plays the first legal turn of the position at `ply` and waits for its broadcast.
pub async fn play_one<S: AsyncRead + AsyncWrite + Unpin>(ws: &mut Ws<S>, position: &str, ply: usize) -> Value {
    let pos: matombo_core::Position = position.parse().unwrap();
    let mv = pos.turns().next().expect("a legal turn").0.to_string();
    play(ws, ply, &mv).await
}

/// Plays `mv` at `ply` and waits for the server's broadcast of it (retrying when the
/// per-connection turn rate limit answers).
pub async fn play<S: AsyncRead + AsyncWrite + Unpin>(ws: &mut Ws<S>, ply: usize, mv: &str) -> Value {
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

/// Reads until the close frame; its code.
pub async fn close_code<S: AsyncRead + AsyncWrite + Unpin>(ws: &mut Ws<S>) -> Option<CloseCode> {
    loop {
        match tokio::time::timeout(Duration::from_secs(10), ws.next()).await.expect("closed in time") {
            Some(Ok(Message::Close(f))) => return f.map(|f| f.code),
            Some(Ok(_)) => continue,
            _ => return None,
        }
    }
}

/// A new game on `host` with both seats connected from 127.0.0.1.
pub struct Table {
    pub id: String,
    pub url: String,
    pub south: Ws<TcpStream>,
    pub north: Ws<TcpStream>,
    /// The position after the last turn played.
    pub position: String,
}

impl Table {
    pub async fn open(host: &str) -> Table {
        let (id, tokens) = new_game(host).await;
        let url = format!("ws://{host}/api/online/rooms/{id}/ws");
        let (south, s0) = join(tcp_from([127, 0, 0, 1], host).await, &url, Some(&tokens[0])).await;
        let (north, _) = join(tcp_from([127, 0, 0, 1], host).await, &url, Some(&tokens[1])).await;
        let position = s0["position"].as_str().unwrap().to_string();
        Table { id, url, south, north, position }
    }

    /// Plays the first legal turn at each ply of `plies` (South on even plies); the
    /// positions after each.
    pub async fn play(&mut self, plies: std::ops::Range<usize>) -> Vec<String> {
        let mut after = Vec::new();
        for ply in plies {
            let ws = if ply % 2 == 0 { &mut self.south } else { &mut self.north };
            self.position = play_one(ws, &self.position, ply).await["position"].as_str().unwrap().to_string();
            after.push(self.position.clone());
        }
        after
    }
}
