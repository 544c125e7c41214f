//! Issue 37 item 4, DNS rebinding: a page on a domain its owner points at the server's
//! address sends the server requests whose `Host` is that domain (and whose `Origin`
//! matches it). `serve` must answer none of them (421 `unknown_host`), WebSocket upgrades
//! included.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;

use tokio_tungstenite::tungstenite::client::IntoClientRequest as _;

use super::attacks::{Effect, Tally};
use super::net::{self, attacker};
use super::Scale;

const HOST: &str = "rebind.example";
const ORIGIN: &str = "http://rebind.example";

/// Rooms posted, pages read and sockets opened under a foreign `Host`, in a loop.
pub async fn dns_rebinding(server: SocketAddr, until: Instant, scale: Scale, tally: Arc<Tally>) -> Effect {
    let n = if scale == Scale::Short { 2 } else { 8 };
    let tasks: Vec<_> = (0..n)
        .map(|i| {
            let tally = tally.clone();
            tokio::spawn(async move {
                let src = attacker(7, i);
                let body = br#"{"ruleset":"tsoro:8"}"#;
                let headers = [("Host", HOST), ("Origin", ORIGIN)];
                while Instant::now() < until {
                    let left = until.saturating_duration_since(Instant::now()).max(std::time::Duration::from_secs(1));
                    let a = net::request(src, server, "POST", "/api/online/rooms", &headers, body, left).await;
                    tally.count(format!("post /api/online/rooms, foreign host: {}", a.kind()));
                    let a = net::request(src, server, "GET", "/", &headers, b"", left).await;
                    tally.count(format!("get /, foreign host: {}", a.kind()));
                    tally.count(format!("websocket, foreign host: {}", upgrade(src, server).await));
                }
            })
        })
        .collect();
    for t in tasks {
        let _ = t.await;
    }
    let through: u64 = tally
        .take()
        .iter()
        .filter(|(k, _)| k.ends_with(": 200") || k.ends_with(": 201") || k.ends_with(": 101"))
        .map(|(_, n)| n)
        .sum();
    Effect { text: format!("{through} requests under a foreign Host answered"), held: through == 0 }
}

/// A lobby WebSocket upgrade under the foreign `Host`: its status (101 if opened).
async fn upgrade(src: std::net::IpAddr, server: SocketAddr) -> String {
    let Ok(stream) = net::connect(src, server).await else { return "connect".into() };
    let Ok(mut req) = format!("ws://{server}/api/online/lobby/ws").into_client_request() else { return "bad".into() };
    req.headers_mut().insert("host", HOST.parse().expect("a header value"));
    req.headers_mut().insert("origin", ORIGIN.parse().expect("a header value"));
    match tokio_tungstenite::client_async(req, stream).await {
        Ok(_) => "101".into(),
        Err(tokio_tungstenite::tungstenite::Error::Http(r)) => r.status().as_u16().to_string(),
        Err(_) => "failed".into(),
    }
}
