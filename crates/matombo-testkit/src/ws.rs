//! A WebSocket client of online play: JSON messages sent and awaited by their `type`.
//!
//! The functions take any socket of text messages ([`Ws`] from [`connect`], or one made
//! over a socket bound to another source address by [`open_from`]).

use std::fmt::{Debug, Display};
use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use futures_util::{Sink, SinkExt, Stream, StreamExt};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::{Error, Message};

/// A client socket as `connect_async` gives it.
pub type Ws = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// How long [`recv`] waits for a message before the test fails.
pub const WAIT: Duration = Duration::from_secs(15);

/// A socket to `ws://{host}{path}`.
pub async fn connect(host: impl Display, path: &str) -> Ws {
    tokio_tungstenite::connect_async(format!("ws://{host}{path}")).await.expect("WebSocket upgrade").0
}

/// A socket to `path` of `addr` from the source address `src` (another person to the
/// server's per-address bounds: Linux routes all of 127.0.0.0/8 to loopback); the
/// refusal's HTTP status if the upgrade is refused.
pub async fn open_from(src: IpAddr, addr: SocketAddr, path: &str) -> Result<Ws, u16> {
    let sock = tokio::net::TcpSocket::new_v4().unwrap();
    sock.bind(SocketAddr::new(src, 0)).unwrap();
    let stream = tokio_tungstenite::MaybeTlsStream::Plain(sock.connect(addr).await.unwrap());
    match tokio_tungstenite::client_async(format!("ws://{addr}{path}"), stream).await {
        Ok((ws, _)) => Ok(ws),
        Err(Error::Http(r)) => Err(r.status().as_u16()),
        Err(e) => panic!("{e}"),
    }
}

/// Sends `v` as one text message.
pub async fn send<W>(ws: &mut W, v: Value)
where
    W: Sink<Message> + Unpin,
    W::Error: Debug,
{
    ws.send(Message::text(v.to_string())).await.unwrap();
}

/// The next text message within `wait`, parsed; `None` if none came in time. Pings and
/// other frames are skipped; a closed socket fails the test.
pub async fn recv_within<W>(ws: &mut W, wait: Duration) -> Option<Value>
where
    W: Stream<Item = Result<Message, Error>> + Unpin,
{
    let end = tokio::time::Instant::now() + wait;
    loop {
        let m = tokio::time::timeout_at(end, ws.next()).await.ok()?;
        match m.expect("open").expect("ok") {
            Message::Text(t) => return Some(serde_json::from_str(&t).unwrap()),
            Message::Close(f) => panic!("closed: {f:?}"),
            _ => continue,
        }
    }
}

/// The next text message, parsed; none within [`WAIT`] fails the test.
pub async fn recv<W>(ws: &mut W) -> Value
where
    W: Stream<Item = Result<Message, Error>> + Unpin,
{
    recv_within(ws, WAIT).await.expect("a message in time")
}

/// The next message for which `wanted` holds, skipping the others.
pub async fn recv_first<W>(ws: &mut W, wanted: impl Fn(&Value) -> bool) -> Value
where
    W: Stream<Item = Result<Message, Error>> + Unpin,
{
    loop {
        let v = recv(ws).await;
        if wanted(&v) {
            return v;
        }
    }
}

/// The next message of type `ty`, skipping others (presence updates and the like); an
/// error meanwhile fails the test.
pub async fn recv_type<W>(ws: &mut W, ty: &str) -> Value
where
    W: Stream<Item = Result<Message, Error>> + Unpin,
{
    let v = recv_type_or_error(ws, ty).await;
    assert_ne!(v["type"], "error", "unexpected error while waiting for {ty}: {v}");
    v
}

/// The next message of type `ty` or the next error, whichever comes first.
pub async fn recv_type_or_error<W>(ws: &mut W, ty: &str) -> Value
where
    W: Stream<Item = Result<Message, Error>> + Unpin,
{
    recv_first(ws, |v| v["type"] == ty || v["type"] == "error").await
}

/// The next error, skipping other messages.
pub async fn recv_error<W>(ws: &mut W) -> Value
where
    W: Stream<Item = Result<Message, Error>> + Unpin,
{
    recv_first(ws, |v| v["type"] == "error").await
}

/// The next error; a turn meanwhile fails the test (a refused message must change
/// nothing).
pub async fn recv_refusal<W>(ws: &mut W) -> Value
where
    W: Stream<Item = Result<Message, Error>> + Unpin,
{
    let v = recv_first(ws, |v| v["type"] == "error" || v["type"] == "turn").await;
    assert_ne!(v["type"], "turn", "a refused message must change nothing: {v}");
    v
}

/// The broadcast of the turn of `ply`, skipping earlier turns and other messages; an
/// error meanwhile fails the test.
pub async fn recv_turn<W, P>(ws: &mut W, ply: P) -> Value
where
    W: Stream<Item = Result<Message, Error>> + Unpin,
    P: Copy,
    Value: PartialEq<P>,
{
    loop {
        let v = recv_type(ws, "turn").await;
        if v["ply"] == ply {
            return v;
        }
    }
}

/// A room's socket after `hello` (with the seat's or member's `token`, or as a
/// spectator): the socket and the room's `state`.
pub async fn room(host: impl Display, id: &str, token: Option<&str>) -> (Ws, Value) {
    let mut ws = connect(host, &format!("/api/online/rooms/{id}/ws")).await;
    let hello = match token {
        Some(t) => json!({"type": "hello", "token": t}),
        None => json!({"type": "hello"}),
    };
    send(&mut ws, hello).await;
    let state = recv_type(&mut ws, "state").await;
    (ws, state)
}

/// A lobby connection after `hello`: the socket and its `welcome`.
pub async fn lobby(host: impl Display, hello: Value) -> (Ws, Value) {
    let mut ws = connect(host, "/api/online/lobby/ws").await;
    send(&mut ws, hello).await;
    let welcome = recv_type(&mut ws, "welcome").await;
    (ws, welcome)
}

/// An upgrade to `ws://{host}{path}` with the request headers `extra` (an `Origin`,
/// another `Host`): the socket, or the client's error (a refusal is [`Error::Http`]).
pub async fn try_connect(host: impl Display, path: &str, extra: &[(&str, &str)]) -> Result<Ws, Error> {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    use tokio_tungstenite::tungstenite::http::{HeaderName, HeaderValue};
    let mut req = format!("ws://{host}{path}").into_client_request().unwrap();
    for (k, v) in extra {
        req.headers_mut().insert(HeaderName::from_bytes(k.as_bytes()).unwrap(), HeaderValue::from_str(v).unwrap());
    }
    tokio_tungstenite::connect_async(req).await.map(|(ws, _)| ws)
}
