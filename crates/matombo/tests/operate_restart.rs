//! Restarting `matombo serve` as an operator does, with the real process: graceful restart
//! on SIGTERM (sockets closed with 1012, nothing lost), a second SIGTERM that ends at once,
//! and backups made while games are played.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use futures_util::SinkExt;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::Message;

mod common;
use common::net::{close_code, http, join, tcp_from, Table};
use common::{matombo, temp_dir, Server};

/// The room `id` as a server started anew on the store `db` reads it.
async fn room_in(db: &Path, id: &str) -> Value {
    let server = Server::start(db, &[]);
    let (st, room) = http(&server.host, "GET", &format!("/api/online/rooms/{id}"), None).await;
    assert_eq!(st, 200, "{room}");
    serde_json::from_str(&room).unwrap()
}

#[tokio::test]
async fn sigterm_closes_every_websocket_with_1012_and_loses_nothing() {
    let dir = temp_dir("operate-sigterm");
    let db = dir.join("online.sqlite3");
    let mut server = Server::start(&db, &[]);
    let host = server.host.clone();
    let (st, ready) = http(&host, "GET", "/readyz", None).await;
    assert_eq!(st, 200, "{ready}");
    let mut table = Table::open(&host).await;
    let (mut watcher, _) = join(tcp_from([127, 0, 0, 1], &host).await, &table.url, None).await;
    let (mut lobby, _) = tokio_tungstenite::client_async(
        format!("ws://{host}/api/online/lobby/ws"),
        tcp_from([127, 0, 0, 1], &host).await,
    )
    .await
    .unwrap();
    lobby.send(Message::text(json!({"type": "hello"}).to_string())).await.unwrap();
    let acknowledged = table.play(0..6).await.len();
    // A load balancer's probe, begun before the signal and ended during the drain.
    let mut probe = tcp_from([127, 0, 0, 1], &host).await;
    probe.write_all(b"GET /readyz HTTP/1.1\r\nHost: localhost\r\n").await.unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;
    let t0 = Instant::now();
    server.signal(libc::SIGTERM);
    // Every socket, players, watcher and lobby, gets the close frame 1012.
    for (name, ws) in [("south", &mut table.south), ("north", &mut table.north), ("watcher", &mut watcher)] {
        assert_eq!(close_code(ws).await, Some(CloseCode::Restart), "{name}");
    }
    assert_eq!(close_code(&mut lobby).await, Some(CloseCode::Restart), "lobby");
    probe.write_all(b"Connection: close\r\n\r\n").await.unwrap();
    let mut answer = String::new();
    probe.read_to_string(&mut answer).await.unwrap();
    assert!(answer.starts_with("HTTP/1.1 503") && answer.contains("draining"), "{answer}");
    // The listener stopped accepting.
    assert!(tokio::net::TcpStream::connect(&host).await.is_err(), "no new connection while draining");
    let status = server.wait_exit(Duration::from_secs(10));
    assert!(status.success(), "exit 0 after draining: {status:?}");
    assert!(t0.elapsed() < Duration::from_secs(10));
    // Checkpointed: the file alone holds the game.
    let wal = dir.join("online.sqlite3-wal");
    assert!(!wal.exists() || std::fs::metadata(&wal).unwrap().len() == 0, "the log was checkpointed");
    let room = room_in(&db, &table.id).await;
    assert_eq!(room["ply"], acknowledged, "every acknowledged turn is there: {room}");
    assert_eq!(room["position"], table.position);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_second_sigterm_ends_at_once_and_the_store_stays_whole() {
    let dir = temp_dir("operate-sigterm2");
    let db = dir.join("online.sqlite3");
    let mut server = Server::start(&db, &[]);
    let host = server.host.clone();
    let mut table = Table::open(&host).await;
    table.play(0..4).await;
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
    server.signal(libc::SIGTERM);
    tokio::time::sleep(Duration::from_millis(30)).await;
    server.signal(libc::SIGTERM);
    let status = server.wait_exit(Duration::from_secs(2));
    assert_eq!(status.code(), Some(1), "a second signal ends at once: {status:?}");
    writer.abort();
    let out = matombo().args(["db", "check", "--json", "--db"]).arg(&db).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["integrity_ok"], true);
    let room = room_in(&db, &table.id).await;
    assert_eq!(room["ply"], 4, "{room}");
    assert_eq!(room["position"], table.position);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_backup_made_while_a_game_is_played_serves_the_game() {
    let dir = temp_dir("operate-backup");
    let db = dir.join("online.sqlite3");
    let server = Server::start(&db, &[]);
    let host = server.host.clone();
    let mut table = Table::open(&host).await;
    let mut positions = vec![table.position.clone()];
    positions.extend(table.play(0..3).await);
    // The backup runs while the game goes on.
    let copy = dir.join("copy.sqlite3");
    let backup =
        matombo().args(["db", "backup", "--json", "--db"]).arg(&db).arg(&copy).stdout(Stdio::piped()).spawn().unwrap();
    positions.extend(table.play(3..6).await);
    let out = backup.wait_with_output().unwrap();
    assert!(out.status.success());
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["integrity_ok"], true, "{summary}");
    assert_eq!(summary["games_in_progress"], 1);
    let table_id = table.id.clone();
    drop(table);
    drop(server);
    // Restored by serving it: the game as it stood at one moment, at least its first 3 turns.
    let room = room_in(&copy, &table_id).await;
    let ply = room["ply"].as_u64().unwrap() as usize;
    assert!((3..=6).contains(&ply), "{room}");
    assert_eq!(room["position"], positions[ply], "a consistent copy");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn backups_to_bad_places_fail_clearly_and_change_nothing() {
    let dir = temp_dir("operate-badbackup");
    let db = dir.join("online.sqlite3");
    // A store with something in it.
    let rt = tokio::runtime::Runtime::new().unwrap();
    {
        let mut server = Server::start(&db, &[]);
        rt.block_on(async {
            for _ in 0..3 {
                http(&server.host, "POST", "/api/online/rooms", Some(json!({"ruleset": "tsoro:6"}))).await;
            }
        });
        server.signal(libc::SIGTERM);
        assert!(server.wait_exit(Duration::from_secs(10)).success());
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
