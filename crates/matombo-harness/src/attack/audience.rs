//! Issue 37 item 3, the audience: spectator sockets from many addresses crowd one room and
//! chat as fast as each socket may, while lobby sockets from a few addresses try to fill
//! the lobby. The bounds: the room admits at most its spectators (and each address its
//! share), the spectators' chat reaches a listener at the room's rate (not the senders'
//! sum), and a newcomer still gets into the lobby.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

use super::attacks::{Effect, Tally};
use super::honest::{next_json, open_room};
use super::net::{self, attacker, Ws};
use super::Scale;

/// The attack's address group (127.9.x.y).
const GROUP: u8 = 8;

/// The server's production bounds this attack checks (matombo_online::Limits::default()).
fn bounds() -> (u64, u64, f64, usize) {
    let l = matombo_online::Limits::default();
    (l.spectators_per_room as u64, l.spectators_per_addr as u64, l.room_spectators_chat_per_sec, l.lobby_per_addr)
}

/// A spectator's socket on room `id` from `src`: the state, or the refusal's code.
async fn watch(src: std::net::IpAddr, server: SocketAddr, id: &str) -> Result<Ws, String> {
    let mut ws = net::websocket(src, server, &format!("/api/online/rooms/{id}/ws"), None)
        .await
        .map_err(|s| format!("websocket {s}"))?;
    ws.send(Message::text(r#"{"type":"hello"}"#)).await.map_err(|_| "send failed".to_string())?;
    loop {
        let v = next_json(&mut ws).await?;
        match v["type"].as_str() {
            Some("state") => return Ok(ws),
            Some("error") => return Err(format!("refused {}", v["error"].as_str().unwrap_or("?"))),
            _ => {}
        }
    }
}

/// A lobby socket from `src`: welcomed, or the refusal.
async fn lobby(src: std::net::IpAddr, server: SocketAddr) -> Result<Ws, String> {
    let mut ws = net::websocket(src, server, "/api/online/lobby/ws", None).await.map_err(|s| format!("lobby {s}"))?;
    ws.send(Message::text(r#"{"type":"hello"}"#)).await.map_err(|_| "send failed".to_string())?;
    let v = next_json(&mut ws).await?;
    match v["type"].as_str() {
        Some("welcome") => Ok(ws),
        _ => Err(format!("lobby refused {}", v["error"].as_str().unwrap_or("?"))),
    }
}

/// Spectators crowd one room and chat; lobby sockets crowd the lobby; a listener counts
/// the chat lines it receives and a newcomer tries the lobby at the end.
pub async fn audience(server: SocketAddr, until: Instant, scale: Scale, tally: Arc<Tally>) -> Effect {
    let (per_room, per_addr, chat_rate, lobby_per_addr) = bounds();
    let (addresses, per_address, lobby_tries) = if scale == Scale::Short { (32, 16, 400) } else { (64, 32, 4_000) };
    let seats = match open_room(attacker(GROUP, 0), server, "tsoro:8").await {
        Ok(s) => s,
        Err(e) => return Effect { text: format!("could not open the room: {e}"), held: false },
    };
    // The listener watches from an address of its own before the crowd arrives.
    let mut listener = match watch(attacker(GROUP + 1, 0), server, &seats.id).await {
        Ok(ws) => ws,
        Err(e) => return Effect { text: format!("the listener could not watch: {e}"), held: false },
    };
    let admitted = Arc::new(AtomicU64::new(0));
    let most_from_one = Arc::new(AtomicU64::new(0));
    let mut crowd = Vec::new();
    for a in 0..addresses {
        let (tally, admitted, most_from_one, id) =
            (tally.clone(), admitted.clone(), most_from_one.clone(), seats.id.clone());
        crowd.push(tokio::spawn(async move {
            let src = attacker(GROUP, 1 + a);
            let mut mine = Vec::new();
            for _ in 0..per_address {
                if Instant::now() >= until {
                    break;
                }
                match watch(src, server, &id).await {
                    Ok(ws) => {
                        tally.count("spectator admitted");
                        admitted.fetch_add(1, Ordering::Relaxed);
                        mine.push(ws);
                    }
                    Err(e) => tally.count(e),
                }
            }
            most_from_one.fetch_max(mine.len() as u64, Ordering::Relaxed);
            // Every admitted socket chats once a second (its own rate) until the end.
            let mut tick = tokio::time::interval(Duration::from_secs(1));
            while Instant::now() < until {
                tick.tick().await;
                for ws in &mut mine {
                    let line = json!({"type": "chat", "text": "spam spam spam"}).to_string();
                    if ws.send(Message::text(line)).await.is_ok() {
                        tally.count("chat sent");
                    }
                    // Drain what came back without waiting.
                    while let Ok(Some(_)) = tokio::time::timeout(Duration::ZERO, ws.next()).await {}
                }
            }
        }));
    }
    // Lobby sockets from 16 addresses, as many as they can hold.
    let lobby_admitted = Arc::new(AtomicU64::new(0));
    let mut lobby_tasks = Vec::new();
    for a in 0..16usize {
        let (tally, lobby_admitted) = (tally.clone(), lobby_admitted.clone());
        lobby_tasks.push(tokio::spawn(async move {
            let mut held = Vec::new();
            for _ in 0..lobby_tries / 16 {
                if Instant::now() >= until {
                    break;
                }
                match lobby(attacker(GROUP + 2, a), server).await {
                    Ok(ws) => {
                        tally.count("lobby admitted");
                        lobby_admitted.fetch_add(1, Ordering::Relaxed);
                        held.push(ws);
                    }
                    Err(e) => tally.count(e),
                }
            }
            held
        }));
    }
    // The listener counts spectators' chat lines, per whole second of listening.
    let listen_from = Instant::now();
    let mut lines = 0u64;
    while Instant::now() < until {
        let wait = until.saturating_duration_since(Instant::now());
        match tokio::time::timeout(wait, listener.next()).await {
            Ok(Some(Ok(Message::Text(t)))) => {
                let v: Value = serde_json::from_str(&t).unwrap_or_default();
                if v["type"] == "chat" {
                    lines += 1;
                }
            }
            Ok(Some(Ok(_))) => {}
            _ => break,
        }
    }
    let listened = listen_from.elapsed().as_secs_f64().max(1.0);
    // A newcomer's lobby connection, while the crowd still holds its sockets.
    let newcomer = lobby(attacker(GROUP + 3, 0), server).await.is_ok();
    tally.count(if newcomer { "newcomer welcomed" } else { "newcomer refused" });
    for t in lobby_tasks {
        drop(t.await);
    }
    for t in crowd {
        t.abort();
    }
    let (admitted, most) = (admitted.load(Ordering::Relaxed), most_from_one.load(Ordering::Relaxed));
    let lobby_admitted = lobby_admitted.load(Ordering::Relaxed);
    let relayed = lines as f64 / listened;
    // The room's bucket: its rate, bursts of twice it at the start.
    let chat_bound = chat_rate + 2.0 * chat_rate / listened;
    let held = admitted < per_room // the listener holds one place
        && most <= per_addr
        && relayed <= chat_bound + 0.5
        && lobby_admitted <= 16 * lobby_per_addr as u64
        && newcomer;
    Effect {
        text: format!(
            "{admitted} of {} spectator sockets admitted (room cap {per_room}, at most {most} from one address, cap \
             {per_addr}); spectators' chat reached a listener at {relayed:.1} lines/s (room bound {chat_rate}/s); \
             {lobby_admitted} of {lobby_tries} lobby sockets from 16 addresses; a newcomer {} the lobby",
            addresses * per_address,
            if newcomer { "entered" } else { "was refused" }
        ),
        held,
    }
}
