//! Running `matombo serve` as an operator does, with the real process: trusted proxies,
//! graceful restart on SIGTERM, metrics on their own listener, backups while games are
//! played, and TLS of its own. (The test with a real nginx in front is in scripts/test.sh.)

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::Message;

// ------------------------------------------------------------------ helpers

struct Server {
    child: Child,
    host: String,
    url: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("matombo-operate-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn matombo() -> Command {
    Command::new(env!("CARGO_BIN_EXE_matombo"))
}

/// Starts `matombo serve --port 0 --db DB ARGS…`; waits for its address.
fn serve(db: &Path, args: &[&str]) -> Server {
    let mut child = matombo()
        .args(["serve", "--port", "0", "--db"])
        .arg(db)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start matombo serve");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let url = line.trim().to_string();
    let host = url.split("://").nth(1).unwrap_or_default().trim_end_matches('/').to_string();
    assert!(host.starts_with("127.0.0.1:"), "first line is the address: {line:?}");
    Server { child, host, url }
}

/// A free loopback port (for the metrics listener).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// Connects to `host` from the loopback address `from`.
async fn tcp_from(from: [u8; 4], host: &str) -> tokio::net::TcpStream {
    let sock = tokio::net::TcpSocket::new_v4().unwrap();
    sock.bind(SocketAddr::from((from, 0))).unwrap();
    sock.connect(host.parse().unwrap()).await.unwrap()
}

/// One HTTP/1.1 request on `io` (closed after); the status, headers and body.
async fn request<S: AsyncRead + AsyncWrite + Unpin>(
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

async fn http(host: &str, method: &str, path: &str, body: Option<Value>) -> (u16, String) {
    let io = tcp_from([127, 0, 0, 1], host).await;
    let (st, _, body) = request(io, host, method, path, &[], body).await;
    (st, body)
}

type Ws<S> = tokio_tungstenite::WebSocketStream<S>;

async fn recv<S: AsyncRead + AsyncWrite + Unpin>(ws: &mut Ws<S>) -> Value {
    loop {
        let m = tokio::time::timeout(Duration::from_secs(10), ws.next()).await.expect("a message in time");
        if let Message::Text(t) = m.expect("open").expect("ok") {
            return serde_json::from_str(&t).unwrap();
        }
    }
}

/// Opens a room's WebSocket on `io` and says hello; answers the first state.
async fn join<S: AsyncRead + AsyncWrite + Unpin>(io: S, url: &str, token: Option<&str>) -> (Ws<S>, Value) {
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
async fn new_game(host: &str) -> (String, [String; 2]) {
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
async fn play_one<S: AsyncRead + AsyncWrite + Unpin>(ws: &mut Ws<S>, position: &str, ply: usize) -> Value {
    let pos: matombo_core::Position = position.parse().unwrap();
    let mv = pos.turns().next().expect("a legal turn").0.to_string();
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

fn sigterm(child: &Child) {
    // SAFETY: kill sends a signal to the child we started.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
}

fn sighup(child: &Child) {
    // SAFETY: as above.
    unsafe { libc::kill(child.id() as i32, libc::SIGHUP) };
}

fn wait_exit(child: &mut Child, within: Duration) -> std::process::ExitStatus {
    let t0 = Instant::now();
    loop {
        if let Some(st) = child.try_wait().unwrap() {
            return st;
        }
        assert!(t0.elapsed() < within, "the server did not exit within {within:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

// ------------------------------------------------------------------ trusted proxies

#[tokio::test]
async fn a_bad_trusted_proxy_stops_the_start() {
    let dir = temp_dir("badcidr");
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
    let dir = temp_dir("proxy");
    let server = serve(&dir.join("online.sqlite3"), &["--trusted-proxy", "127.0.0.1/32"]);
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

// ------------------------------------------------------------------ restart

#[tokio::test]
async fn sigterm_closes_every_websocket_with_1012_and_loses_nothing() {
    let dir = temp_dir("sigterm");
    let db = dir.join("online.sqlite3");
    let mut server = serve(&db, &[]);
    let host = server.host.clone();
    let (st, ready) = http(&host, "GET", "/readyz", None).await;
    assert_eq!(st, 200, "{ready}");
    let (id, tokens) = new_game(&host).await;
    let url = format!("ws://{host}/api/online/rooms/{id}/ws");
    let (mut south, s0) = join(tcp_from([127, 0, 0, 1], &host).await, &url, Some(&tokens[0])).await;
    let (mut north, _) = join(tcp_from([127, 0, 0, 1], &host).await, &url, Some(&tokens[1])).await;
    let (mut watcher, _) = join(tcp_from([127, 0, 0, 1], &host).await, &url, None).await;
    let (mut lobby, _) = tokio_tungstenite::client_async(
        format!("ws://{host}/api/online/lobby/ws"),
        tcp_from([127, 0, 0, 1], &host).await,
    )
    .await
    .unwrap();
    lobby.send(Message::text(json!({"type": "hello"}).to_string())).await.unwrap();
    let mut position = s0["position"].as_str().unwrap().to_string();
    let mut acknowledged = 0;
    for ply in 0..6 {
        let ws = if ply % 2 == 0 { &mut south } else { &mut north };
        let v = play_one(ws, &position, ply).await;
        position = v["position"].as_str().unwrap().to_string();
        acknowledged = ply + 1;
    }
    // A load balancer's probe, begun before the signal and ended during the drain.
    let mut probe = tcp_from([127, 0, 0, 1], &host).await;
    probe.write_all(b"GET /readyz HTTP/1.1\r\nHost: localhost\r\n").await.unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;
    let t0 = Instant::now();
    sigterm(&server.child);
    // Every socket, players, watcher and lobby, gets the close frame 1012.
    for (name, ws) in [("south", &mut south), ("north", &mut north), ("watcher", &mut watcher)] {
        assert_eq!(close_code(ws).await, Some(CloseCode::Restart), "{name}");
    }
    assert_eq!(close_code(&mut lobby).await, Some(CloseCode::Restart), "lobby");
    probe.write_all(b"Connection: close\r\n\r\n").await.unwrap();
    let mut answer = String::new();
    probe.read_to_string(&mut answer).await.unwrap();
    assert!(answer.starts_with("HTTP/1.1 503") && answer.contains("draining"), "{answer}");
    // The listener stopped accepting.
    assert!(tokio::net::TcpStream::connect(&host).await.is_err(), "no new connection while draining");
    let status = wait_exit(&mut server.child, Duration::from_secs(10));
    assert!(status.success(), "exit 0 after draining: {status:?}");
    assert!(t0.elapsed() < Duration::from_secs(10));
    // Checkpointed: the file alone holds the game.
    let wal = dir.join("online.sqlite3-wal");
    assert!(!wal.exists() || std::fs::metadata(&wal).unwrap().len() == 0, "the log was checkpointed");
    let server = serve(&db, &[]);
    let (st, room) = http(&server.host, "GET", &format!("/api/online/rooms/{id}"), None).await;
    assert_eq!(st, 200);
    let room: Value = serde_json::from_str(&room).unwrap();
    assert_eq!(room["ply"], acknowledged, "every acknowledged turn is there: {room}");
    assert_eq!(room["position"], position);
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Reads until the close frame; its code.
async fn close_code<S: AsyncRead + AsyncWrite + Unpin>(ws: &mut Ws<S>) -> Option<CloseCode> {
    loop {
        match tokio::time::timeout(Duration::from_secs(10), ws.next()).await.expect("closed in time") {
            Some(Ok(Message::Close(f))) => return f.map(|f| f.code),
            Some(Ok(_)) => continue,
            _ => return None,
        }
    }
}

#[tokio::test]
async fn a_second_sigterm_ends_at_once_and_the_store_stays_whole() {
    let dir = temp_dir("sigterm2");
    let db = dir.join("online.sqlite3");
    let mut server = serve(&db, &[]);
    let host = server.host.clone();
    let (id, tokens) = new_game(&host).await;
    let url = format!("ws://{host}/api/online/rooms/{id}/ws");
    let (mut south, s0) = join(tcp_from([127, 0, 0, 1], &host).await, &url, Some(&tokens[0])).await;
    let (mut north, _) = join(tcp_from([127, 0, 0, 1], &host).await, &url, Some(&tokens[1])).await;
    let mut position = s0["position"].as_str().unwrap().to_string();
    for ply in 0..4 {
        let ws = if ply % 2 == 0 { &mut south } else { &mut north };
        position = play_one(ws, &position, ply).await["position"].as_str().unwrap().to_string();
    }
    // Keep rooms being made while the signals come (writes in flight).
    let writer = {
        let host = host.clone();
        tokio::spawn(async move {
            let body = json!({"ruleset": "tsoro:6"}).to_string();
            for _ in 0..200 {
                let Ok(mut io) = tokio::net::TcpStream::connect(&host).await else { break };
                let req = format!(
                    "POST /api/online/rooms HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = io.write_all(req.as_bytes()).await;
                let mut out = Vec::new();
                let _ = tokio::time::timeout(Duration::from_secs(1), io.read_to_end(&mut out)).await;
            }
        })
    };
    tokio::time::sleep(Duration::from_millis(100)).await;
    // A request whose headers never end holds the drain (up to the header-read time):
    // the second signal ends it.
    let mut slow = tcp_from([127, 0, 0, 1], &host).await;
    slow.write_all(b"GET / HTTP/1.1\r\nHost: localhost\r\n").await.unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;
    sigterm(&server.child);
    tokio::time::sleep(Duration::from_millis(30)).await;
    sigterm(&server.child);
    let status = wait_exit(&mut server.child, Duration::from_secs(2));
    assert_eq!(status.code(), Some(1), "a second signal ends at once: {status:?}");
    writer.abort();
    let out = matombo().args(["db", "check", "--json", "--db"]).arg(&db).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["integrity_ok"], true);
    let server = serve(&db, &[]);
    let (_, room) = http(&server.host, "GET", &format!("/api/online/rooms/{id}"), None).await;
    let room: Value = serde_json::from_str(&room).unwrap();
    assert_eq!(room["ply"], 4, "{room}");
    assert_eq!(room["position"], position);
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

// ------------------------------------------------------------------ metrics

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
    let dir = temp_dir("metrics");
    let maddr = format!("127.0.0.1:{}", free_port());
    let server = serve(&dir.join("online.sqlite3"), &["--metrics", &maddr]);
    let host = server.host.clone();
    let (st, _) = http(&host, "GET", "/metrics", None).await;
    assert_eq!(st, 404, "never on the public port");
    let before = scrape(&maddr).await;
    for name in ["process_resident_memory_bytes", "process_open_fds", "process_cpu_seconds_total", "matombo_live_rooms"]
    {
        assert!(before.iter().any(|s| s.metric == name), "{name} is there");
    }
    let (id, tokens) = new_game(&host).await;
    let url = format!("ws://{host}/api/online/rooms/{id}/ws");
    let (mut south, s0) = join(tcp_from([127, 0, 0, 1], &host).await, &url, Some(&tokens[0])).await;
    let (mut north, _) = join(tcp_from([127, 0, 0, 1], &host).await, &url, Some(&tokens[1])).await;
    let mut position = s0["position"].as_str().unwrap().to_string();
    for ply in 0..5 {
        let ws = if ply % 2 == 0 { &mut south } else { &mut north };
        position = play_one(ws, &position, ply).await["position"].as_str().unwrap().to_string();
    }
    // A refusal: South plays at North's turn.
    let pos: matombo_core::Position = position.parse().unwrap();
    let mv = pos.turns().next().unwrap().0.to_string();
    south.send(Message::text(json!({"type": "turn", "ply": 5, "move": mv}).to_string())).await.unwrap();
    let refused = recv(&mut south).await;
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
    drop((south, north));
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

// ------------------------------------------------------------------ backups

#[tokio::test]
async fn a_backup_made_while_a_game_is_played_serves_the_game() {
    let dir = temp_dir("backup");
    let db = dir.join("online.sqlite3");
    let server = serve(&db, &[]);
    let host = server.host.clone();
    let (id, tokens) = new_game(&host).await;
    let url = format!("ws://{host}/api/online/rooms/{id}/ws");
    let (mut south, s0) = join(tcp_from([127, 0, 0, 1], &host).await, &url, Some(&tokens[0])).await;
    let (mut north, _) = join(tcp_from([127, 0, 0, 1], &host).await, &url, Some(&tokens[1])).await;
    let mut position = s0["position"].as_str().unwrap().to_string();
    let mut positions = vec![position.clone()];
    for ply in 0..3 {
        let ws = if ply % 2 == 0 { &mut south } else { &mut north };
        position = play_one(ws, &position, ply).await["position"].as_str().unwrap().to_string();
        positions.push(position.clone());
    }
    // The backup runs while the game goes on.
    let copy = dir.join("copy.sqlite3");
    let backup =
        matombo().args(["db", "backup", "--json", "--db"]).arg(&db).arg(&copy).stdout(Stdio::piped()).spawn().unwrap();
    for ply in 3..6 {
        let ws = if ply % 2 == 0 { &mut south } else { &mut north };
        position = play_one(ws, &position, ply).await["position"].as_str().unwrap().to_string();
        positions.push(position.clone());
    }
    let out = backup.wait_with_output().unwrap();
    assert!(out.status.success());
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["integrity_ok"], true, "{summary}");
    assert_eq!(summary["games_in_progress"], 1);
    drop((south, north));
    drop(server);
    // Restored by serving it: the game as it stood at one moment, at least its first 3 turns.
    let restored = serve(&copy, &[]);
    let (st, room) = http(&restored.host, "GET", &format!("/api/online/rooms/{id}"), None).await;
    assert_eq!(st, 200, "{room}");
    let room: Value = serde_json::from_str(&room).unwrap();
    let ply = room["ply"].as_u64().unwrap() as usize;
    assert!((3..=6).contains(&ply), "{room}");
    assert_eq!(room["position"], positions[ply], "a consistent copy");
    drop(restored);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn backups_to_bad_places_fail_clearly_and_change_nothing() {
    let dir = temp_dir("badbackup");
    let db = dir.join("online.sqlite3");
    // A store with something in it.
    let rt = tokio::runtime::Runtime::new().unwrap();
    {
        let mut server = serve(&db, &[]);
        rt.block_on(async {
            for _ in 0..3 {
                http(&server.host, "POST", "/api/online/rooms", Some(json!({"ruleset": "tsoro:6"}))).await;
            }
        });
        sigterm(&server.child);
        assert!(wait_exit(&mut server.child, Duration::from_secs(10)).success());
    }
    let before = std::fs::read(&db).unwrap();
    let run = |out: &Path, limit: Option<u64>| {
        let mut cmd = matombo();
        cmd.args(["db", "backup", "--db"]).arg(&db).arg(out);
        if let Some(bytes) = limit {
            use std::os::unix::process::CommandExt;
            // SAFETY: only async-signal-safe calls between fork and exec.
            unsafe {
                cmd.pre_exec(move || {
                    libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
                    let lim = libc::rlimit { rlim_cur: bytes, rlim_max: bytes };
                    libc::setrlimit(libc::RLIMIT_FSIZE, &lim);
                    Ok(())
                });
            }
        }
        let o = cmd.output().unwrap();
        (o.status.success(), String::from_utf8_lossy(&o.stderr).to_string())
    };
    // No such folder.
    let (ok, err) = run(&dir.join("nowhere/copy.sqlite3"), None);
    assert!(!ok && err.contains("does not exist"), "{err}");
    // A full disk (here: a file-size limit of 8 KiB).
    let (ok, err) = run(&dir.join("full.sqlite3"), Some(8 * 1024));
    assert!(!ok && err.contains("cannot write"), "{err}");
    assert!(!dir.join("full.sqlite3").exists());
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert!(!left.iter().any(|n| n.to_string_lossy().contains("partial")), "no half file left: {left:?}");
    // An existing target is not replaced without --force.
    std::fs::write(dir.join("taken"), b"keep").unwrap();
    let (ok, err) = run(&dir.join("taken"), None);
    assert!(!ok && err.contains("--force"), "{err}");
    assert_eq!(std::fs::read(dir.join("taken")).unwrap(), b"keep");
    // The store itself.
    let (ok, err) = run(&db, None);
    assert!(!ok, "{err}");
    assert_eq!(std::fs::read(&db).unwrap(), before, "the store is as it was");
    // And a check of something that is no store.
    let o = matombo().args(["db", "check", "--db"]).arg(dir.join("taken")).output().unwrap();
    assert!(!o.status.success());
    let _ = std::fs::remove_dir_all(&dir);
}

// ------------------------------------------------------------------ TLS

fn make_cert(dir: &Path, name: &str) -> (PathBuf, PathBuf, Vec<u8>) {
    let key = rcgen::KeyPair::generate().unwrap();
    let params = rcgen::CertificateParams::new(vec!["localhost".to_string(), "127.0.0.1".to_string()]).unwrap();
    let cert = params.self_signed(&key).unwrap();
    let (c, k) = (dir.join(format!("{name}.crt")), dir.join(format!("{name}.key")));
    std::fs::write(&c, cert.pem()).unwrap();
    std::fs::write(&k, key.serialize_pem()).unwrap();
    (c, k, cert.der().to_vec())
}

/// A TLS connection that trusts `roots` (DER); answers the stream and the certificate the
/// server showed.
async fn tls_connect(host: &str, roots: &[&[u8]]) -> (tokio_rustls::client::TlsStream<tokio::net::TcpStream>, Vec<u8>) {
    use tokio_rustls::rustls;
    let mut store = rustls::RootCertStore::empty();
    for r in roots {
        store.add(rustls::pki_types::CertificateDer::from(r.to_vec())).unwrap();
    }
    let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(store)
        .with_no_client_auth();
    let connector = tokio_rustls::TlsConnector::from(std::sync::Arc::new(config));
    let io = tcp_from([127, 0, 0, 1], host).await;
    let name = rustls::pki_types::ServerName::try_from("localhost").unwrap();
    let tls = connector.connect(name, io).await.expect("TLS handshake");
    let shown = tls.get_ref().1.peer_certificates().unwrap()[0].to_vec();
    (tls, shown)
}

#[tokio::test]
async fn tls_serves_https_and_wss_and_reloads_on_sighup() {
    let dir = temp_dir("tls");
    let (c1, k1, der1) = make_cert(&dir, "one");
    let (c2, k2, der2) = make_cert(&dir, "two");
    // A mismatched pair stops the start with a clear message.
    let out = matombo()
        .args(["serve", "--port", "0", "--tls-cert"])
        .arg(&c1)
        .arg("--tls-key")
        .arg(&k2)
        .arg("--db")
        .arg(dir.join("db"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("do not make a pair"), "{err}");
    // So does a missing file.
    let out = matombo()
        .args(["serve", "--port", "0", "--tls-cert", "/nonexistent.crt", "--tls-key"])
        .arg(&k1)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read the certificate"));

    // Served from a copy of the files that the test renews.
    let (cert, key) = (dir.join("site.crt"), dir.join("site.key"));
    std::fs::copy(&c1, &cert).unwrap();
    std::fs::copy(&k1, &key).unwrap();
    let args = ["--tls-cert", cert.to_str().unwrap(), "--tls-key", key.to_str().unwrap(), "--hsts"];
    let server = serve(&dir.join("online.sqlite3"), &args);
    assert!(server.url.starts_with("https://127.0.0.1:"), "{}", server.url);
    let host = server.host.clone();
    let (tls, shown) = tls_connect(&host, &[&der1, &der2]).await;
    assert_eq!(shown, der1);
    let (st, head, body) = request(tls, "localhost", "GET", "/", &[], None).await;
    assert_eq!(st, 200);
    assert!(body.contains("<html"), "the catalogue page");
    assert!(head.to_ascii_lowercase().contains("strict-transport-security: max-age="), "--hsts over HTTPS: {head}");
    // Plain HTTP on the TLS port is no request.
    let io = tcp_from([127, 0, 0, 1], &host).await;
    let (st, _, _) = request(io, &host, "GET", "/", &[], None).await;
    assert_ne!(st, 200);
    // Over HTTPS the origin check wants the https:// page of this site.
    let room = Some(json!({"ruleset": "tsoro:6"}));
    let (tls, _) = tls_connect(&host, &[&der1]).await;
    let (st, _, _) =
        request(tls, "localhost", "POST", "/api/online/rooms", &[("Origin", "http://localhost")], room.clone()).await;
    assert_eq!(st, 403, "an http:// page may not post to the https:// site");
    let (tls, _) = tls_connect(&host, &[&der1]).await;
    let (st, _, _) =
        request(tls, "localhost", "POST", "/api/online/rooms", &[("Origin", "https://localhost")], room).await;
    assert_eq!(st, 201);
    // A game over wss://.
    let (tls, _) = tls_connect(&host, &[&der1]).await;
    let (st, _, created) = request(
        tls,
        "localhost",
        "POST",
        "/api/online/rooms",
        &[],
        Some(json!({"ruleset": "tsoro:6", "side": "south"})),
    )
    .await;
    assert_eq!(st, 201, "{created}");
    let created: Value = serde_json::from_str(&created).unwrap();
    let (id, invite) = (created["id"].as_str().unwrap(), created["invite"].as_str().unwrap());
    let (tls, _) = tls_connect(&host, &[&der1]).await;
    let (st, _, claimed) = request(
        tls,
        "localhost",
        "POST",
        &format!("/api/online/rooms/{id}/claim"),
        &[],
        Some(json!({"invite": invite})),
    )
    .await;
    assert_eq!(st, 200, "{claimed}");
    let claimed: Value = serde_json::from_str(&claimed).unwrap();
    let url = format!("wss://localhost/api/online/rooms/{id}/ws");
    let (mut south, s0) = join(tls_connect(&host, &[&der1]).await.0, &url, created["token"].as_str()).await;
    let (mut north, _) = join(tls_connect(&host, &[&der1]).await.0, &url, claimed["token"].as_str()).await;
    let v = play_one(&mut south, s0["position"].as_str().unwrap(), 0).await;
    play_one(&mut north, v["position"].as_str().unwrap(), 1).await;
    // Renewed: the new pair is read at SIGHUP and shown to new connections, while the
    // open WebSockets go on.
    std::fs::copy(&c2, &cert).unwrap();
    std::fs::copy(&k2, &key).unwrap();
    sighup(&server.child);
    let t0 = Instant::now();
    loop {
        let (_, shown) = tls_connect(&host, &[&der1, &der2]).await;
        if shown == der2 {
            break;
        }
        assert!(t0.elapsed() < Duration::from_secs(5), "the new certificate is served after SIGHUP");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    south.send(Message::text(json!({"type": "sync"}).to_string())).await.unwrap();
    let state = loop {
        let v = recv(&mut south).await;
        if v["type"] == "state" {
            break v;
        }
    };
    assert_eq!(state["ply"], 2, "the open socket goes on");
    // A bad pair at SIGHUP keeps the old one.
    std::fs::write(&key, b"garbage").unwrap();
    sighup(&server.child);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (_, shown) = tls_connect(&host, &[&der1, &der2]).await;
    assert_eq!(shown, der2);
    assert!(server.child.id() > 0);
    drop((south, north));
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}
