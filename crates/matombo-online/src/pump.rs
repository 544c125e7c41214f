//! One WebSocket pump for rooms and the lobby: the frame rate limit, the server's ping and
//! the idle close, the drain on shutdown, and the fan-out of the room's or lobby's
//! broadcasts, around a [`Session`] that handles the client's messages.

use std::future::Future;
use std::time::Instant;

use axum::extract::ws::{Message, Utf8Bytes, WebSocket};
use matombo_api::online::{to_text, RoomMsg, WireError};
use matombo_api::ErrorCode;

use super::budget::Bucket;
use super::OnlineState;

/// What the fan-out gives a connection next.
pub(crate) enum Feed {
    /// A message to send.
    Send(Utf8Bytes),
    /// Nothing for this connection (another audience, a muted sender).
    Skip,
    /// The source is gone: close.
    End,
}

/// A connection's own part: its messages and its fan-out.
pub(crate) trait Session {
    /// Handles one client text message (within the rate); answers the direct replies.
    fn message(&mut self, text: &str) -> impl Future<Output = Vec<Message>> + Send;
    /// Waits for the next broadcast or message meant for this connection.
    fn feed(&mut self) -> impl Future<Output = Feed> + Send;
}

/// An `error` message: the error body of every answer (`error`, `message`) with the ply.
/// Rooms and the lobby write it alike.
pub(crate) fn error_msg(code: ErrorCode, message: &str, ply: Option<u32>) -> Message {
    crate::metrics::refusal(code);
    Message::Text(to_text(&RoomMsg::Error(WireError::new(code, message, ply))).into())
}

/// Runs a connection after its hello until either side closes, the server drains, or the
/// client is silent past `ws_idle` (the server pings every third of it; a browser answers
/// by itself, so a live page is never idle).
pub(crate) async fn pump<S: Session + Send>(s: &OnlineState, socket: &mut WebSocket, session: &mut S) {
    let limits = &s.inner.limits;
    let mut messages = Bucket::new(limits.messages_per_sec);
    let idle = limits.ws_idle;
    let mut ping = tokio::time::interval(idle / 3);
    ping.tick().await;
    let mut last_heard = Instant::now();
    let mut limited = 0u32;
    loop {
        tokio::select! {
            incoming = socket.recv() => {
                last_heard = Instant::now();
                // Every frame counts against the rate, whatever its kind.
                let within = messages.take();
                if !within {
                    limited += 1;
                    // Warned once per burst; a client that keeps on is cut off.
                    if limited > 4 * limits.messages_per_sec as u32 {
                        break;
                    }
                }
                let text = match incoming {
                    Some(Ok(Message::Text(t))) if within => t,
                    Some(Ok(Message::Binary(_))) if within => {
                        if socket.send(error_msg(ErrorCode::Malformed, "send JSON text messages", None)).await.is_err() {
                            break;
                        }
                        continue;
                    }
                    Some(Ok(Message::Close(_))) | None | Some(Err(_)) => break,
                    Some(Ok(Message::Text(_) | Message::Binary(_))) => {
                        if limited == 1
                            && socket.send(error_msg(ErrorCode::RateLimited, "too many messages; slow down", None)).await.is_err()
                        {
                            break;
                        }
                        continue;
                    }
                    Some(Ok(_)) => continue,
                };
                limited = 0;
                let mut failed = false;
                for m in session.message(&text).await {
                    if socket.send(m).await.is_err() {
                        failed = true;
                        break;
                    }
                }
                if failed {
                    break;
                }
            }
            _ = s.drained() => {
                let _ = socket.send(super::restart_frame()).await;
                break;
            }
            _ = ping.tick() => {
                if last_heard.elapsed() >= idle {
                    tracing::debug!("idle connection closed");
                    break;
                }
                if socket.send(Message::Ping(Default::default())).await.is_err() {
                    break;
                }
            }
            f = session.feed() => match f {
                Feed::Send(text) => {
                    if socket.send(Message::Text(text)).await.is_err() {
                        break;
                    }
                }
                Feed::Skip => {}
                Feed::End => break,
            },
        }
    }
}
