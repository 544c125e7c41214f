//! Online play under hostile clients, with real WebSocket clients and a real SQLite file:
//! every frame kind counted by the rate limit, silent connections closed, errors cut
//! short, a corrupt stored room skipped at start, an unwritable database refused at start,
//! the checkpoint thread stopping with the store, the online files under one path.

use std::net::SocketAddr;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use matombo_web::limits::ServerLimits;
use matombo_web::online::{Limits, OnlineState};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

/// The tests of this file count threads of the process: one at a time.
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

fn temp_db(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("matombo-online-hardening-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir.join("online.sqlite3")
}

async fn start(db: &std::path::Path, limits: Limits) -> SocketAddr {
    let online = OnlineState::open_with_limits(Some(db), limits).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = matombo_web::app(online);
    tokio::spawn(matombo_web::limits::serve_until(listener, app, ServerLimits::default(), std::future::pending()));
    addr
}

async fn create(addr: SocketAddr) -> Value {
    let r = reqwest::Client::new()
        .post(format!("http://{addr}/api/online/rooms"))
        .json(&json!({"ruleset": "tsoro:8", "side": "south"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    r.json().await.unwrap()
}

type Ws = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn connect(addr: SocketAddr, id: &str, token: &str) -> Ws {
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/api/online/rooms/{id}/ws")).await.unwrap();
    ws.send(Message::text(json!({"type": "hello", "token": token}).to_string())).await.unwrap();
    ws
}

/// Reads until the server closes; the text messages received meanwhile.
async fn until_closed(ws: &mut Ws, within: Duration) -> Option<Vec<Value>> {
    let mut got = Vec::new();
    let end = tokio::time::Instant::now() + within;
    loop {
        match tokio::time::timeout_at(end, ws.next()).await {
            Err(_) => return None,
            Ok(None) | Ok(Some(Err(_))) | Ok(Some(Ok(Message::Close(_)))) => return Some(got),
            Ok(Some(Ok(Message::Text(t)))) => got.push(serde_json::from_str(&t).unwrap()),
            Ok(Some(Ok(_))) => {}
        }
    }
}

#[tokio::test]
async fn binary_frames_and_pings_count_against_the_rate_limit() {
    let _one = SERIAL.lock().await;
    let addr = start(&temp_db("rate"), Limits::default()).await;
    for flood in [Message::Binary(vec![0u8; 16].into()), Message::Ping(vec![1u8; 8].into())] {
        let room = create(addr).await;
        let mut ws = connect(addr, room["id"].as_str().unwrap(), room["token"].as_str().unwrap()).await;
        for _ in 0..400 {
            if ws.send(flood.clone()).await.is_err() {
                break;
            }
        }
        assert!(until_closed(&mut ws, Duration::from_secs(5)).await.is_some(), "a flood of {flood:?} was not cut off");
    }
}

#[tokio::test]
async fn a_silent_connection_is_closed_and_errors_are_cut() {
    let _one = SERIAL.lock().await;
    let limits = Limits { ws_idle: Duration::from_millis(600), ..Limits::default() };
    let addr = start(&temp_db("idle"), limits).await;
    let room = create(addr).await;
    let mut ws = connect(addr, room["id"].as_str().unwrap(), room["token"].as_str().unwrap()).await;
    // A bad message of 30 kB gets an error of bounded length.
    ws.send(Message::text(format!("{{\"type\":\"{}\"}}", "x".repeat(30_000)))).await.unwrap();
    // Not reading means not answering the server's pings: the connection goes silent.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let got = until_closed(&mut ws, Duration::from_secs(3)).await.expect("a silent connection left open");
    let error = got.iter().find(|m| m["type"] == "error").expect("an error answer");
    assert!(error["message"].as_str().unwrap().chars().count() <= matombo_web::limits::MAX_ERROR_CHARS + 1);
}

#[tokio::test]
async fn a_corrupt_room_is_skipped_at_start_and_the_others_are_served() {
    let _one = SERIAL.lock().await;
    let db = temp_db("corrupt");
    let (good, bad) = {
        let state = OnlineState::open(Some(&db)).unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let server = tokio::spawn(matombo_web::limits::serve_until(
            listener,
            matombo_web::app(state),
            ServerLimits::default(),
            async move {
                let _ = stop_rx.await;
            },
        ));
        let good = create(addr).await["id"].as_str().unwrap().to_string();
        let bad = create(addr).await["id"].as_str().unwrap().to_string();
        let _ = stop_tx.send(());
        server.await.unwrap().unwrap();
        (good, bad)
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    let c = rusqlite::Connection::open(&db).unwrap();
    c.execute("UPDATE rooms SET start='not a position' WHERE id=?1", [&bad]).unwrap();
    drop(c);
    let addr = start(&db, Limits::default()).await;
    let r = reqwest::get(format!("http://{addr}/api/online/rooms/{good}")).await.unwrap();
    assert_eq!(r.status(), 200);
    let r = reqwest::get(format!("http://{addr}/api/online/rooms/{bad}")).await.unwrap();
    assert_ne!(r.status(), 200);
}

#[cfg(unix)]
#[tokio::test]
async fn an_unwritable_database_is_refused_at_start() {
    use std::os::unix::fs::PermissionsExt;
    let _one = SERIAL.lock().await;
    let db = temp_db("readonly");
    drop(OnlineState::open(Some(&db)).unwrap());
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o444)).unwrap();
    // Root writes anyway: then there is nothing to test.
    if std::fs::OpenOptions::new().append(true).open(&db).is_ok() {
        return;
    }
    let e = OnlineState::open(Some(&db)).expect_err("a read-only database was accepted");
    assert!(e.to_string().contains("not writable"), "{e}");
}

#[cfg(target_os = "linux")]
fn checkpoint_threads() -> usize {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
        .filter(|n| n.trim() == "online-checkpoi" || n.trim() == "online-checkpoint")
        .count()
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn the_checkpoint_thread_stops_with_the_store() {
    let _one = SERIAL.lock().await;
    // Stores of the tests before may still be winding down: wait for none, then one.
    let wait_for = |n: usize| async move {
        let t = std::time::Instant::now();
        while checkpoint_threads() != n {
            assert!(t.elapsed() < Duration::from_secs(3), "checkpoint threads: {} not {n}", checkpoint_threads());
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    wait_for(0).await;
    let state = OnlineState::open(Some(&temp_db("checkpoint"))).unwrap();
    wait_for(1).await;
    drop(state);
    wait_for(0).await;
}

#[tokio::test]
async fn online_files_are_served_under_one_path() {
    let _one = SERIAL.lock().await;
    let addr = start(&temp_db("assets"), Limits::default()).await;
    let page = reqwest::get(format!("http://{addr}/online/")).await.unwrap().text().await.unwrap();
    assert!(page.contains("/static/online/lobby.js"), "{page}");
    assert_eq!(reqwest::get(format!("http://{addr}/static/online/lobby.js")).await.unwrap().status(), 200);
    assert_eq!(reqwest::get(format!("http://{addr}/online/assets/lobby.js")).await.unwrap().status(), 404);
}
