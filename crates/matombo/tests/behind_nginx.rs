//! `matombo serve --trusted-proxy 127.0.0.1/32` behind a real nginx serving
//! deploy/nginx.conf (its ports changed): thirty visitors from distinct loopback addresses
//! each create a room and open WebSockets through the proxy, all accepted, while one
//! address alone still meets its own limits, and a client forging `X-Forwarded-For`, through
//! the proxy or around it, is held to its own quota.
//!
//! nginx is Debian's package, installed by scripts/test.sh. Without it the test says so
//! and passes, except under CI (`CI` set), where it fails.

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

mod common;
use common::net::tcp_from;
use common::{nginx_binary, skip_unless_ci, start_nginx, temp_dir, Server};

/// POST /api/online/rooms from `from` to `host` with extra headers; status and body.
async fn create(from: [u8; 4], host: &str, extra: &str) -> (u16, Value) {
    let mut io = tcp_from(from, host).await;
    let body = json!({"ruleset": "tsoro:6"}).to_string();
    let req = format!(
        "POST /api/online/rooms HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n{extra}\r\n{body}",
        body.len()
    );
    io.write_all(req.as_bytes()).await.unwrap();
    let mut out = String::new();
    io.read_to_string(&mut out).await.unwrap();
    let status = out.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let body = out.split_once("\r\n\r\n").map(|x| x.1).unwrap_or("");
    // nginx answers in chunks when the length is not known in advance.
    let body = body.find('{').map(|i| &body[i..body.rfind('}').map_or(body.len(), |j| j + 1)]).unwrap_or("null");
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
}

#[tokio::test]
async fn thirty_visitors_through_nginx_each_have_their_own_limits() {
    let Some(nginx) = nginx_binary() else { return skip_unless_ci("nginx") };
    let dir = temp_dir("nginx");
    let server = Server::start(dir.join("online.sqlite3"), &["--trusted-proxy", "127.0.0.1/32"]);
    let direct = server.host.clone();
    let (_nginx, proxy) = start_nginx(&nginx, &dir, &direct);

    // Thirty visitors, 127.0.0.2 to 127.0.0.31, one room each in quick succession.
    let mut rooms = Vec::new();
    for i in 0..30u8 {
        let (st, room) = create([127, 0, 0, 2 + i], &proxy, "").await;
        assert_eq!(st, 201, "visitor 127.0.0.{}: {room}", 2 + i);
        rooms.push(room["id"].as_str().unwrap().to_string());
    }
    // Each opens three WebSockets to its room through the proxy: 90 in all, more than
    // the 64 one address may open.
    let mut sockets = Vec::new();
    for (i, id) in rooms.iter().enumerate() {
        for _ in 0..3 {
            let io = tcp_from([127, 0, 0, 2 + i as u8], &proxy).await;
            let url = format!("ws://{proxy}/api/online/rooms/{id}/ws");
            let (ws, resp) = tokio_tungstenite::client_async(url, io)
                .await
                .unwrap_or_else(|e| panic!("visitor {i}'s WebSocket through nginx: {e}"));
            assert_eq!(resp.status(), 101);
            sockets.push(ws);
        }
    }
    // One address alone still meets its own rate (two rooms a second, bursts of four).
    let mut statuses = Vec::new();
    for _ in 0..8 {
        statuses.push(create([127, 0, 0, 2], &proxy, "").await.0);
    }
    assert!(statuses.contains(&429), "127.0.0.2 alone is rate limited: {statuses:?}");
    // A visitor forging X-Forwarded-For through nginx: nginx appends the real address,
    // which is the one used.
    let mut statuses = Vec::new();
    for i in 0..8 {
        statuses.push(create([127, 0, 0, 40], &proxy, &format!("X-Forwarded-For: 198.51.100.{i}\r\n")).await.0);
    }
    assert!(statuses.contains(&429), "a forger through nginx is held to its own rate: {statuses:?}");
    // And around nginx, straight to the server from an untrusted address.
    let mut statuses = Vec::new();
    for i in 0..8 {
        statuses.push(create([127, 0, 0, 41], &direct, &format!("X-Forwarded-For: 198.51.100.{i}\r\n")).await.0);
    }
    assert!(statuses.contains(&429), "a direct forger is held to its own rate: {statuses:?}");
    drop(sockets);
    let _ = std::fs::remove_dir_all(&dir);
}
