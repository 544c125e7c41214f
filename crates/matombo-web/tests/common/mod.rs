//! What the whole-server tests share: a fresh database path and the server `matombo
//! serve` runs (site, API, online play, the accept loop and its limits) on loopback.
#![allow(dead_code)] // Each test file uses what it needs.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use axum::body::Body;
use axum::http::{HeaderMap, Request, StatusCode};
use http_body_util::BodyExt;
use matombo_core::{Game, Position};
use rand::{rngs::SmallRng, SeedableRng};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tower::ServiceExt;

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

/// The site's router with online play on a store of its own (per test file `file` and
/// thread), called in process: no socket, no accept loop.
pub fn app(file: &str) -> axum::Router {
    let dir =
        std::env::temp_dir().join(format!("matombo-{file}-{}-{:?}", std::process::id(), std::thread::current().id()));
    std::fs::create_dir_all(&dir).unwrap();
    let online = matombo_web::online::OnlineState::open(Some(&dir.join("online.sqlite"))).unwrap();
    matombo_web::app(online)
}

/// `GET uri` with the headers `extra` through [`app`]: the status, headers and body.
pub async fn get(file: &str, uri: &str, extra: &[(&str, &str)]) -> (StatusCode, HeaderMap, Vec<u8>) {
    let mut req = Request::builder().uri(uri);
    for (k, v) in extra {
        req = req.header(*k, *v);
    }
    let resp = app(file).oneshot(req.body(Body::empty()).unwrap()).await.unwrap();
    let (parts, body) = resp.into_parts();
    (parts.status, parts.headers, body.collect().await.unwrap().to_bytes().to_vec())
}

/// A connection that began `POST /api/game` and sent one byte of its 100-byte body.
pub async fn unfinished_post(addr: SocketAddr) -> TcpStream {
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(
        b"POST /api/game HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{",
    )
    .await
    .unwrap();
    s
}

/// What the server sends on `s` until it closes it or `within` passes.
pub async fn answer_within(s: &mut TcpStream, within: Duration) -> String {
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(within, s.read_to_end(&mut answer)).await;
    String::from_utf8_lossy(&answer).to_string()
}

/// A game of tsoro:6 of random turns (seeded) played to its end.
pub fn finished_game(seed: u64) -> Game {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut game = Game::new(Position::start("tsoro:6".parse().unwrap()));
    while !game.is_over() {
        assert!(game.moves().len() < 1000, "a random tsoro:6 game ends within 1000 turns");
        let mut turn = game.position().begin_turn();
        while !turn.is_complete() {
            assert!(turn.apply_random(&mut rng), "a game not over has a legal decision");
        }
        game.play(&turn.token().unwrap()).unwrap();
    }
    game
}
