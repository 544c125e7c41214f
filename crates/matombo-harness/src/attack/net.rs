//! Loopback connections from a chosen source address (Linux routes all of 127.0.0.0/8 to
//! the loopback interface, so 127.0.1.1, 127.0.1.2, … are distinct clients to the server),
//! a minimal HTTP/1.1 client and WebSocket connections over them.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::WebSocketStream;

/// The honest client's address.
pub const HONEST: IpAddr = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 1));

/// Attacker address number `i` of attack `group` (0..=200): 127.`group + 1`.x.y, never the
/// honest client's.
pub fn attacker(group: u8, i: usize) -> IpAddr {
    let i = i % (250 * 250);
    IpAddr::V4(Ipv4Addr::new(127, group.saturating_add(1), 1 + (i / 250) as u8, 1 + (i % 250) as u8))
}

/// A TCP connection from `src` to `server`.
pub async fn connect(src: IpAddr, server: SocketAddr) -> std::io::Result<TcpStream> {
    let sock = TcpSocket::new_v4()?;
    sock.bind(SocketAddr::new(src, 0))?;
    let s = sock.connect(server).await?;
    let _ = s.set_nodelay(true);
    Ok(s)
}

/// What became of a request: the status, or how it failed.
#[derive(Debug)]
pub struct Answer {
    /// HTTP status, 0 when there was none.
    pub status: u16,
    /// The body (as text).
    pub body: String,
    /// Why there was no status: `connect`, `reset`, `timeout`, `bad answer`.
    pub failure: Option<&'static str>,
}

impl Answer {
    /// The outcome as a counter name: the status, or the failure.
    pub fn kind(&self) -> String {
        match self.failure {
            Some(f) => f.to_string(),
            None => self.status.to_string(),
        }
    }

    fn failed(f: &'static str) -> Answer {
        Answer { status: 0, body: String::new(), failure: Some(f) }
    }
}

/// One HTTP/1.1 request on a fresh connection from `src` (`Connection: close`), within
/// `timeout`. A JSON body is sent as `application/json` unless `headers` name a type.
pub async fn request(
    src: IpAddr,
    server: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
    timeout: Duration,
) -> Answer {
    let answer = async {
        let Ok(mut s) = connect(src, server).await else { return Answer::failed("connect") };
        let mut head = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
        // The server's own Host unless the attack names another (DNS rebinding).
        if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
            head.push_str(&format!("Host: {server}\r\n"));
        }
        if !body.is_empty() {
            if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("content-type")) {
                head.push_str("Content-Type: application/json\r\n");
            }
            head.push_str(&format!("Content-Length: {}\r\n", body.len()));
        }
        for (k, v) in headers {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        head.push_str("\r\n");
        // A server refusing a big body may answer and close before reading it all: the answer
        // is still read when the write fails.
        let wrote = s.write_all(head.as_bytes()).await.is_ok() && s.write_all(body).await.is_ok();
        let mut buf = Vec::new();
        let read = s.read_to_end(&mut buf).await;
        if buf.is_empty() {
            return Answer::failed(if wrote && read.is_ok() { "closed" } else { "reset" });
        }
        let text = String::from_utf8_lossy(&buf);
        let Some((head, body)) = text.split_once("\r\n\r\n") else { return Answer::failed("bad answer") };
        let Some(status) = head.split_whitespace().nth(1).and_then(|s| s.parse().ok()) else {
            return Answer::failed("bad answer");
        };
        let body = if head.to_ascii_lowercase().contains("transfer-encoding: chunked") {
            dechunk(body)
        } else {
            body.to_string()
        };
        Answer { status, body, failure: None }
    };
    tokio::time::timeout(timeout, answer).await.unwrap_or_else(|_| Answer::failed("timeout"))
}

/// The payload of a chunked body.
fn dechunk(mut s: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = s.split_once("\r\n") {
        let Ok(n) = usize::from_str_radix(size.trim(), 16) else { break };
        if n == 0 || rest.len() < n {
            break;
        }
        out.push_str(&rest[..n]);
        s = rest[n..].trim_start_matches("\r\n");
    }
    out
}

/// A WebSocket connection.
pub type Ws = WebSocketStream<TcpStream>;

/// A WebSocket connection from `src` to `path`, with an `Origin` header if given; the
/// error is the refusal's HTTP status (or 0).
pub async fn websocket(src: IpAddr, server: SocketAddr, path: &str, origin: Option<&str>) -> Result<Ws, u16> {
    let stream = connect(src, server).await.map_err(|_| 0u16)?;
    let mut req = format!("ws://{server}{path}").into_client_request().map_err(|_| 0u16)?;
    if let Some(o) = origin {
        req.headers_mut().insert("origin", o.parse().map_err(|_| 0u16)?);
    }
    match tokio_tungstenite::client_async(req, stream).await {
        Ok((ws, _)) => Ok(ws),
        Err(tokio_tungstenite::tungstenite::Error::Http(r)) => Err(r.status().as_u16()),
        Err(_) => Err(0),
    }
}
