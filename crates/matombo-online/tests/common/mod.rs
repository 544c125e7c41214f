//! What the online tests share: a fresh database path and online play's routes served on
//! loopback (the site's pages, headers and accept loop are `matombo-web`'s tests).
#![allow(dead_code)] // Each test file uses what it needs.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use std::sync::atomic::{AtomicU32, Ordering};

use matombo_online::store::Db;
use matombo_online::{routes, Limits, OnlineState};
use matombo_testkit::pg;
use matombo_testkit::ws::{self, Ws};
use serde_json::Value;

pub mod teams;

/// `online.sqlite3` in a fresh directory of its own for test file `file`, case `name`.
pub fn temp_db(file: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("matombo-{file}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir.join("online.sqlite3")
}

/// A fresh store of each backend for case `name` of test file `file`: SQLite always,
/// PostgreSQL when `MATOMBO_TEST_PG` names a server (under CI a missing one fails).
pub async fn backends(file: &str, name: &str) -> Vec<(&'static str, Db)> {
    static N: AtomicU32 = AtomicU32::new(0);
    let mut out = vec![("sqlite", Db::Sqlite(temp_db(file, &format!("{name}-{}", N.fetch_add(1, Ordering::Relaxed)))))];
    if let Some(base) = pg::url() {
        out.push(("postgres", Db::Postgres(pg::fresh(&base, name).await)));
    }
    out
}

/// Limits no test meets unless it lowers one: turns, messages, lobby actions, chat.
pub fn fast() -> Limits {
    Limits {
        turns_per_sec: 10_000.0,
        room_turns_per_sec: 10_000.0,
        addr_turns_per_sec: 10_000.0,
        messages_per_sec: 10_000.0,
        lobby_actions_per_sec: 10_000.0,
        chat_per_sec: 10_000.0,
        ..Limits::default()
    }
}

/// Online play on `db` under `limits`, until `stop` completes; the address and the task.
pub async fn serve_until(
    db: &Path,
    limits: Limits,
    stop: impl std::future::Future<Output = ()> + Send + 'static,
) -> (SocketAddr, tokio::task::JoinHandle<std::io::Result<()>>) {
    let state = OnlineState::open_with_limits(Some(db), limits).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = routes(state).into_make_service_with_connect_info::<SocketAddr>();
    let task = tokio::spawn(async move { axum::serve(listener, app).with_graceful_shutdown(stop).await });
    (addr, task)
}

/// `app` (online play's routes and perhaps others) on loopback; runs until the test's
/// runtime ends.
pub async fn serve_app(app: axum::Router) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = app.into_make_service_with_connect_info::<SocketAddr>();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    addr
}

/// Online play's routes on `state`, on loopback; runs until the test's runtime ends.
pub async fn serve(state: OnlineState) -> SocketAddr {
    serve_app(routes(state)).await
}

/// Online play on `db` under `limits`; runs until the test's runtime ends.
pub async fn start_server(db: &Path, limits: Limits) -> SocketAddr {
    serve_until(db, limits, std::future::pending()).await.0
}

/// The holders of `tokens` connected to room `id`, each through its node of `nodes`: their
/// sockets and the states they got, in order.
pub async fn connect_all<const N: usize>(nodes: [SocketAddr; N], id: &str, tokens: [&str; N]) -> [(Ws, Value); N] {
    let mut out = Vec::new();
    for (addr, token) in nodes.into_iter().zip(tokens) {
        out.push(ws::room(addr, id, Some(token)).await);
    }
    out.try_into().unwrap_or_else(|_| unreachable!())
}
