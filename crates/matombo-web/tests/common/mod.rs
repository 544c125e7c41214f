//! What the whole-server tests share: a fresh database path and the server `matombo
//! serve` runs (site, API, online play, the accept loop and its limits) on loopback.
#![allow(dead_code)] // Each test file uses what it needs.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use matombo_web::limits::ServerLimits;
use matombo_web::online::{Limits, OnlineState};

/// `online.sqlite3` in a fresh directory of its own for test file `file`, case `name`.
pub fn temp_db(file: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("matombo-{file}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir.join("online.sqlite3")
}

/// A whole server on `db` with online play under `online` and connections under `limits`;
/// runs until the test's runtime ends.
pub async fn start_server(db: &Path, online: Limits, limits: ServerLimits) -> SocketAddr {
    let state = OnlineState::open_with_limits(Some(db), online).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(matombo_web::limits::serve_until(listener, matombo_web::app(state), limits, std::future::pending()));
    addr
}

/// [`start_server`] with endgame tables (`matombo serve --egtb`), default limits.
pub async fn start_server_with_tables(db: &Path, egtb: matombo_web::egtb::Egtb) -> SocketAddr {
    let state = OnlineState::open_with_limits(Some(db), Limits::default()).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = matombo_web::app_with_tables(state, egtb);
    tokio::spawn(matombo_web::limits::serve_until(listener, app, ServerLimits::default(), std::future::pending()));
    addr
}
