//! Running `matombo serve` as an operator does, with the real process: trusted proxies and
//! metrics on their own listener. Restarts and backups are in operate_restart.rs, TLS in
//! operate_tls.rs. (The tests with a real nginx in front are behind_nginx.rs and
//! rolling_restart.rs.)

use futures_util::SinkExt;
use serde_json::json;
use tokio_tungstenite::tungstenite::Message;

mod common;
use common::net::{http, new_game, recv, request, tcp_from, Table};
use common::{free_port, matombo, temp_dir, Server};

#[tokio::test]
async fn a_bad_trusted_proxy_stops_the_start() {
    let dir = temp_dir("operate-badcidr");
    let out = matombo()
        .args(["serve", "--port", "0", "--trusted-proxy", "10.0.0.0/33", "--db"])
        .arg(dir.join("db"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("10.0.0.0/33") && err.contains("CIDR"), "{err}");
    assert!(!dir.join("db").exists(), "nothing opened before the arguments are checked");
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn forwarded_clients_have_their_own_limits_and_forgers_do_not() {
    let dir = temp_dir("operate-proxy");
    let server = Server::start(dir.join("online.sqlite3"), &["--trusted-proxy", "127.0.0.1/32"]);
    let host = server.host.clone();
    let create = |from: [u8; 4], forwarded: Vec<(&'static str, String)>| {
        let host = host.clone();
        async move {
            let io = tcp_from(from, &host).await;
            let extra: Vec<(&str, &str)> = forwarded.iter().map(|(k, v)| (*k, v.as_str())).collect();
            request(io, &host, "POST", "/api/online/rooms", &extra, Some(json!({"ruleset": "tsoro:6"}))).await.0
        }
    };
    // Thirty visitors through the proxy (127.0.0.1), one room each in quick succession:
    // every one accepted (one address's rate would allow 4).
    for i in 0..30u8 {
        let st = create([127, 0, 0, 1], vec![("X-Forwarded-For", format!("1.2.3.4, 198.51.100.{}", i + 1))]).await;
        assert_eq!(st, 201, "visitor {i}");
    }
    // RFC 7239 too.
    let st = create([127, 0, 0, 1], vec![("Forwarded", "for=\"[2001:db8::5]:4711\";proto=https".into())]).await;
    assert_eq!(st, 201);
    // One visitor alone still meets its own rate (bursts of 4).
    let mut statuses = Vec::new();
    for _ in 0..8 {
        statuses.push(create([127, 0, 0, 1], vec![("X-Forwarded-For", "203.0.113.7".into())]).await);
    }
    assert!(statuses.contains(&429), "one forwarded address is rate limited: {statuses:?}");
    // A direct client that is no proxy (127.0.0.2) forging the header: its own quota,
    // whatever address it names.
    let mut statuses = Vec::new();
    for i in 0..8u8 {
        statuses.push(create([127, 0, 0, 2], vec![("X-Forwarded-For", format!("192.0.2.{i}"))]).await);
    }
    assert!(statuses.contains(&429), "the forger is held to its own rate: {statuses:?}");
    // A malformed header from the proxy: the proxy's own address, never a 500.
    let st = create([127, 0, 0, 1], vec![("X-Forwarded-For", "not an address".into())]).await;
    assert!(st == 201 || st == 429, "{st}");
    // WebSockets: 70 visitors through the proxy, more than one address's 64.
    let (id, _) = new_game(&host).await;
    let mut sockets = Vec::new();
    for i in 0..70u8 {
        let io = tcp_from([127, 0, 0, 1], &host).await;
        let url = format!("ws://{host}/api/online/rooms/{id}/ws");
        let req = tokio_tungstenite::tungstenite::handshake::client::Request::builder()
            .uri(&url)
            .header("Host", &host)
            .header("X-Forwarded-For", format!("198.51.100.{}", i + 1))
            .header("Connection", "Upgrade")
            .header("Upgrade", "websocket")
            .header("Sec-WebSocket-Version", "13")
            .header("Sec-WebSocket-Key", tokio_tungstenite::tungstenite::handshake::client::generate_key())
            .body(())
            .unwrap();
        io.set_nodelay(true).unwrap();
        let (ws, _) = tokio_tungstenite::client_async(req, io).await.unwrap_or_else(|e| panic!("socket {i}: {e}"));
        sockets.push(ws);
    }
    drop(sockets);
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

async fn scrape(addr: &str) -> Vec<prometheus_parse::Sample> {
    let io = tcp_from([127, 0, 0, 1], addr).await;
    let (st, head, body) = request(io, addr, "GET", "/metrics", &[], None).await;
    assert_eq!(st, 200, "{head}");
    assert!(head.to_ascii_lowercase().contains("content-type: text/plain; version=0.0.4"), "{head}");
    let lines = body.lines().map(|l| Ok(l.to_string()));
    prometheus_parse::Scrape::parse(lines).expect("the Prometheus text format").samples
}

fn value(samples: &[prometheus_parse::Sample], name: &str, labels: &[(&str, &str)]) -> f64 {
    samples
        .iter()
        .filter(|s| s.metric == name && labels.iter().all(|(k, v)| s.labels.get(k) == Some(*v)))
        .map(|s| match &s.value {
            prometheus_parse::Value::Counter(v)
            | prometheus_parse::Value::Gauge(v)
            | prometheus_parse::Value::Untyped(v) => *v,
            prometheus_parse::Value::Histogram(h) => h.iter().map(|b| b.count).fold(0.0, f64::max),
            prometheus_parse::Value::Summary(_) => f64::NAN,
        })
        .sum()
}

#[tokio::test]
async fn metrics_move_with_a_game_and_stay_off_the_public_port() {
    let dir = temp_dir("operate-metrics");
    let maddr = format!("127.0.0.1:{}", free_port());
    let server = Server::start(dir.join("online.sqlite3"), &["--metrics", &maddr]);
    let host = server.host.clone();
    let (st, _) = http(&host, "GET", "/metrics", None).await;
    assert_eq!(st, 404, "never on the public port");
    let before = scrape(&maddr).await;
    for name in ["process_resident_memory_bytes", "process_open_fds", "process_cpu_seconds_total", "matombo_live_rooms"]
    {
        assert!(before.iter().any(|s| s.metric == name), "{name} is there");
    }
    let mut table = Table::open(&host).await;
    table.play(0..5).await;
    // A refusal: South plays at North's turn.
    let pos: matombo_core::Position = table.position.parse().unwrap();
    let mv = pos.turns().next().unwrap().0.to_string();
    table.south.send(Message::text(json!({"type": "turn", "ply": 5, "move": mv}).to_string())).await.unwrap();
    let refused = recv(&mut table.south).await;
    assert_eq!(refused["error"], "not_your_turn", "{refused}");
    let after = scrape(&maddr).await;
    let turns = |s: &[_]| value(s, "matombo_turns_stored_total", &[]);
    assert_eq!(turns(&after) - turns(&before), 5.0, "five turns stored");
    assert_eq!(value(&after, "matombo_turn_latency_seconds_count", &[]), 5.0);
    assert!(value(&after, "matombo_store_write_seconds_count", &[]) >= 7.0, "create, claim, turns");
    let created = [("route", "/api/online/rooms"), ("status", "201")];
    assert_eq!(
        value(&after, "matombo_http_requests_total", &created)
            - value(&before, "matombo_http_requests_total", &created),
        1.0
    );
    assert_eq!(value(&after, "matombo_http_requests_total", &[("route", "unmatched"), ("status", "404")]), 1.0);
    assert_eq!(value(&after, "matombo_websockets_open", &[("kind", "room")]), 2.0);
    assert_eq!(value(&after, "matombo_live_rooms", &[]), 1.0);
    assert_eq!(value(&after, "matombo_refusals_total", &[("code", "not_your_turn")]), 1.0, "refusals by code");
    assert_eq!(value(&after, "matombo_searches_running", &[]), 0.0);
    assert!(after.iter().any(|s| s.metric == "matombo_searches_queued"));
    drop(table);
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}
