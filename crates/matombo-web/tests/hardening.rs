//! The server under hostile clients, on loopback with real sockets: idle and slow sockets,
//! connection caps, the request policy (content type, origin), the API's bounds and the
//! fairness of `/api/ai`.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use matombo_testkit::ws;
use matombo_web::limits::ServerLimits;
use matombo_web::online::Limits;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

mod common;

/// A whole server (site, API, online play) under `limits`, as `matombo serve` runs it.
async fn start(name: &str, limits: ServerLimits) -> SocketAddr {
    common::start_server(&common::temp_db("hardening", name), Limits::default(), limits).await
}

/// Whether the server closes `s` within `within` (reads until end of stream).
async fn closed_within(s: &mut TcpStream, within: Duration) -> bool {
    let mut buf = [0u8; 4096];
    let end = Instant::now() + within;
    loop {
        match tokio::time::timeout_at(end.into(), s.read(&mut buf)).await {
            Err(_) => return false,
            Ok(Ok(0)) | Ok(Err(_)) => return true,
            Ok(Ok(_)) => {}
        }
    }
}

async fn post(addr: SocketAddr, path: &str, body: &str, headers: &[(&str, &str)]) -> (u16, Value, Option<String>) {
    let mut req = reqwest::Client::new().post(format!("http://{addr}{path}")).body(body.to_string());
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let r = req.send().await.unwrap();
    let status = r.status().as_u16();
    let retry = r.headers().get("retry-after").map(|v| v.to_str().unwrap().to_string());
    let text = r.text().await.unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Value::String(text)), retry)
}

const JSON: (&str, &str) = ("content-type", "application/json");

#[tokio::test]
async fn an_idle_socket_is_closed_after_the_header_read_timeout() {
    let limits = ServerLimits { header_read: Duration::from_millis(500), ..ServerLimits::default() };
    let addr = start("idle", limits).await;
    // Nothing sent at all.
    let mut s = TcpStream::connect(addr).await.unwrap();
    assert!(closed_within(&mut s, Duration::from_secs(3)).await, "idle socket left open");
    // Headers trickled and never finished.
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n").await.unwrap();
    assert!(closed_within(&mut s, Duration::from_secs(3)).await, "slow headers left open");
    // A body that never arrives: the request timeout answers.
    let limits = ServerLimits { request: Duration::from_millis(500), ..ServerLimits::default() };
    let addr = start("slowbody", limits).await;
    let mut s = common::unfinished_post(addr).await;
    let answer = common::answer_within(&mut s, Duration::from_secs(3)).await;
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
}

#[tokio::test]
async fn connections_are_capped_per_address_and_pages_stay_served() {
    let limits =
        ServerLimits { connections_per_addr: 4, header_read: Duration::from_secs(5), ..ServerLimits::default() };
    let addr = start("cap", limits).await;
    let mut held = Vec::new();
    for _ in 0..4 {
        held.push(TcpStream::connect(addr).await.unwrap());
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    let mut fifth = TcpStream::connect(addr).await.unwrap();
    assert!(closed_within(&mut fifth, Duration::from_secs(1)).await, "the fifth connection was kept");
    drop(held);
    tokio::time::sleep(Duration::from_millis(100)).await;
    let r = reqwest::get(format!("http://{addr}/healthz")).await.unwrap();
    assert_eq!(r.status(), 200);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["status"], "ok");
}

#[tokio::test]
async fn at_the_total_cap_the_oldest_idle_connection_makes_way() {
    let limits = ServerLimits { max_connections: 6, header_read: Duration::from_secs(20), ..ServerLimits::default() };
    let addr = start("evict", limits).await;
    // The oldest connection is busy: a request whose body is still coming.
    let mut busy = common::unfinished_post(addr).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    // Then five that never send a byte: the cap is full.
    let mut idle = Vec::new();
    for _ in 0..5 {
        idle.push(TcpStream::connect(addr).await.unwrap());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // A new client is served; the oldest idle socket was closed for it, not the busy one.
    let r = reqwest::get(format!("http://{addr}/healthz")).await.unwrap();
    assert_eq!(r.status(), 200);
    assert!(closed_within(&mut idle[0], Duration::from_secs(1)).await, "the oldest idle socket was kept");
    for s in &mut idle[1..] {
        assert!(!closed_within(s, Duration::from_millis(50)).await, "a younger idle socket was closed");
    }
    assert!(!closed_within(&mut busy, Duration::from_millis(200)).await, "the busy connection was closed");
}

#[tokio::test]
async fn state_changes_need_json_and_an_allowed_origin() {
    let limits = ServerLimits { allowed_origins: vec!["https://friend.example".into()], ..ServerLimits::default() };
    let addr = start("origin", limits).await;
    let body = r#"{"start":"tsoro:8"}"#;
    let (st, _, _) = post(addr, "/api/game", body, &[("content-type", "text/plain")]).await;
    assert_eq!(st, 415);
    let (st, _, _) = post(addr, "/api/game", body, &[JSON, ("origin", "https://evil.example")]).await;
    assert_eq!(st, 403);
    let own = format!("http://{addr}");
    let (st, _, _) = post(addr, "/api/game", body, &[JSON, ("origin", own.as_str())]).await;
    assert_eq!(st, 200);
    let (st, _, _) = post(addr, "/api/game", body, &[JSON, ("origin", "https://friend.example")]).await;
    assert_eq!(st, 200);
    let (st, _, _) = post(addr, "/api/game", body, &[JSON]).await;
    assert_eq!(st, 200, "a client without Origin (not a browser) is served");
    let (st, _, _) =
        post(addr, "/api/online/rooms", r#"{"ruleset":"tsoro:8"}"#, &[("content-type", "text/plain")]).await;
    assert_eq!(st, 415);
    // The WebSocket: a foreign page's upgrade is refused.
    let (_, room, _) = post(addr, "/api/online/rooms", r#"{"ruleset":"tsoro:8"}"#, &[JSON]).await;
    let id = room["id"].as_str().unwrap();
    let path = format!("/api/online/rooms/{id}/ws");
    let foreign = ws::try_connect(addr, &path, &[("origin", "https://evil.example")]).await;
    assert!(foreign.is_err(), "a foreign origin opened the WebSocket");
    assert!(ws::try_connect(addr, &path, &[("origin", own.as_str())]).await.is_ok());
}

/// Issue 37 item 4, DNS rebinding: a request (a WebSocket upgrade too) whose `Host` is not
/// one of the server's names is refused 421 with the API's error shape and changes nothing;
/// the loopback names, the bound address and `--public-host` names are answered.
#[tokio::test]
async fn only_the_servers_own_host_names_are_answered() {
    let allowed =
        matombo_web::hosts::AllowedHosts::of([127, 0, 0, 1].into(), &["mancala.example".to_string()]).unwrap();
    let addr = start("hosts", ServerLimits { allowed_hosts: allowed, ..ServerLimits::default() }).await;
    let raw = |host: &str, origin: &str| {
        let body = r#"{"ruleset":"tsoro:8"}"#;
        format!(
            "POST /api/online/rooms HTTP/1.1\r\nHost: {host}\r\nOrigin: {origin}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
    };
    let send = |req: String| async move {
        let mut s = TcpStream::connect(addr).await.unwrap();
        s.write_all(req.as_bytes()).await.unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).await.unwrap();
        let status: u16 = out[9..12].parse().unwrap();
        let body = out.split("\r\n\r\n").nth(1).unwrap_or("").to_string();
        (status, body)
    };
    let (st, body) = send(raw("rebind.example", "http://rebind.example")).await;
    assert_eq!(st, 421, "{body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["error"], "unknown_host");
    assert!(v["message"].as_str().unwrap().contains("--public-host"));
    let (st, _) = send(raw(&format!("rebind.example:{}", addr.port()), "http://rebind.example")).await;
    assert_eq!(st, 421);
    let (st, _) = send("GET / HTTP/1.1\r\nHost: rebind.example\r\nConnection: close\r\n\r\n".to_string()).await;
    assert_eq!(st, 421, "pages too: a rebound page must not read the site either");
    let (st, _) = send("GET / HTTP/1.0\r\n\r\n".to_string()).await;
    assert_eq!(st, 421, "no Host at all");
    for (host, origin) in [
        (format!("127.0.0.1:{}", addr.port()), format!("http://127.0.0.1:{}", addr.port())),
        (format!("localhost:{}", addr.port()), format!("http://localhost:{}", addr.port())),
        ("mancala.example".to_string(), "https://mancala.example".to_string()),
    ] {
        let (st, body) = send(raw(&host, &origin)).await;
        assert_eq!(st, 201, "{host}: {body}");
    }
    // The WebSocket upgrade with a foreign Host is refused before any upgrade.
    let (_, room, _) = post(addr, "/api/online/rooms", r#"{"ruleset":"tsoro:8"}"#, &[JSON]).await;
    let id = room["id"].as_str().unwrap();
    let path = format!("/api/online/rooms/{id}/ws");
    match ws::try_connect(addr, &path, &[("host", "rebind.example")]).await {
        Err(tokio_tungstenite::tungstenite::Error::Http(r)) => assert_eq!(r.status().as_u16(), 421),
        other => panic!("a rebound WebSocket was not refused 421: {:?}", other.map(|_| ())),
    }
    assert!(ws::try_connect(format!("localhost:{}", addr.port()), &path, &[]).await.is_ok());
}

#[tokio::test]
async fn requests_are_bounded_and_errors_are_short() {
    let addr = start("bounds", ServerLimits::default()).await;
    let moves: Vec<String> = (0..matombo_web::api::MAX_PLIES + 1).map(|_| "A1".to_string()).collect();
    let body = json!({"start": "tsoro:8", "moves": moves}).to_string();
    let (st, v, _) = post(addr, "/api/game", &body, &[JSON]).await;
    assert_eq!(st, 400, "{v}");
    assert!(v["message"].as_str().unwrap().contains("turns"), "{v}");
    let body = json!({"start": "x".repeat(100_000)}).to_string();
    let (st, v, _) = post(addr, "/api/game", &body, &[JSON]).await;
    assert_eq!(st, 400);
    assert!(v["message"].as_str().unwrap().chars().count() <= matombo_web::limits::MAX_ERROR_CHARS + 1, "{v}");
    let body = json!({"start": "tsoro:8", "moves": ["x".repeat(200_000)]}).to_string();
    let (st, _, _) = post(addr, "/api/game", &body, &[JSON]).await;
    assert_eq!(st, 413, "a body over the limit");
    let tags: String = (0..100).map(|i| format!("[T{i} \"v\"]\n")).collect();
    let (st, v, _) = post(addr, "/api/record/import", &json!({"text": tags}).to_string(), &[JSON]).await;
    assert_eq!(st, 400, "{v}");
    let many: serde_json::Map<String, Value> = (0..100).map(|i| (format!("T{i}"), json!("v"))).collect();
    let body = json!({"start": "tsoro:8", "tags": many}).to_string();
    let (st, v, _) = post(addr, "/api/record/export", &body, &[JSON]).await;
    assert_eq!(st, 400, "{v}");
}

async fn health(addr: SocketAddr) -> Value {
    reqwest::get(format!("http://{addr}/healthz")).await.unwrap().json().await.unwrap()
}

#[tokio::test]
async fn one_search_per_address_and_a_hung_up_search_is_stopped() {
    let addr = start("ai", ServerLimits::default()).await;
    let body = json!({"start": "nsolo:36", "level": "max"}).to_string();
    let first = tokio::spawn(async move { post(addr, "/api/ai", &body, &[JSON]).await });
    // Wait until it runs, then a second one from the same address is refused.
    let t = Instant::now();
    while health(addr).await["searches_running"] != 1 {
        assert!(t.elapsed() < Duration::from_secs(5), "the search never started");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let body = json!({"start": "nsolo:36", "level": "max"}).to_string();
    let (st, _, retry) = post(addr, "/api/ai", &body, &[JSON]).await;
    assert_eq!(st, 429);
    assert_eq!(retry.as_deref(), Some("1"));
    let (st, v, _) = first.await.unwrap();
    assert_eq!(st, 200, "{v}");

    // A client that hangs up: its search stops long before its level's time.
    let mut s = TcpStream::connect(addr).await.unwrap();
    let req = format!(
        "POST /api/ai HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).await.unwrap();
    let t = Instant::now();
    while health(addr).await["searches_running"] != 1 {
        assert!(t.elapsed() < Duration::from_secs(5), "the search never started");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    drop(s);
    let hung_up = Instant::now();
    while health(addr).await["searches_running"] != 0 {
        assert!(hung_up.elapsed() < Duration::from_millis(1500), "the abandoned search ran on");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
