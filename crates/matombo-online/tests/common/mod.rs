//! What the online tests share: a fresh database path and online play's routes served on
//! loopback (the site's pages, headers and accept loop are `matombo-web`'s tests).
#![allow(dead_code)] // Each test file uses what it needs.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use matombo_online::{routes, Limits, OnlineState};

/// `online.sqlite3` in a fresh directory of its own for test file `file`, case `name`.
pub fn temp_db(file: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("matombo-{file}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir.join("online.sqlite3")
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

/// Online play on `db` under `limits`; runs until the test's runtime ends.
pub async fn start_server(db: &Path, limits: Limits) -> SocketAddr {
    serve_until(db, limits, std::future::pending()).await.0
}
