//! Lobby mode: players meet through the lobby's WebSocket (posting or accepting open
//! challenges), then play in the room they were matched to.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

use futures_util::{SinkExt, StreamExt};
use matombo_core::Side;
use rand::{rngs::SmallRng, Rng, SeedableRng};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

use super::room::{client, Ws};
use super::Shared;

/// One lobby player with its own identity: meets an opponent through the lobby (posts a
/// challenge, or accepts one of those listed), plays the game in its room, and meets
/// again until the run ends.
pub(super) async fn lobby_player(shared: Arc<Shared>, index: u64, challenger: bool) {
    // A fresh identity per player and run (the secret is never derived from the seed).
    let secret = format!("{:032x}", rand::rngs::StdRng::from_os_rng().random::<u128>());
    let name = format!("{}{index}", if challenger { "c" } else { "a" });
    let mut rng = SmallRng::seed_from_u64(shared.config.seed ^ (index << 21) ^ u64::from(challenger));
    let mut game = 0u64;
    while Instant::now() < shared.stop_at {
        // Both players of a pair meet in the lobby of one node (each node has its own).
        let url = format!("ws://{}/api/online/lobby/ws", shared.host(index));
        let Ok((mut ws, _)) = tokio_tungstenite::connect_async(url).await else {
            shared.live.error("lobby connect");
            return;
        };
        shared.live.connected.fetch_add(1, Ordering::Relaxed);
        let met = meet(&shared, &mut ws, &secret, &name, challenger, &mut rng).await;
        shared.live.connected.fetch_sub(1, Ordering::Relaxed);
        // As the page does: the lobby is left for the room.
        let _ = ws.close(None).await;
        let Ok(Some((room, side, token))) = met else { return };
        // The two players of a room share the turns' send times, whoever reaches it first.
        let sent = shared.sent_by_room.lock().expect("rooms lock").entry(room.clone()).or_default().clone();
        let seed = shared.config.seed ^ (index << 21) ^ (game << 1) ^ u64::from(challenger);
        let played =
            client(shared.clone(), index + u64::from(!challenger), room.clone(), token, side, sent, seed, true).await;
        shared.sent_by_room.lock().expect("rooms lock").remove(&room);
        if played.is_err() {
            // Counted by the client already.
            return;
        }
        game += 1;
    }
}

/// In the lobby until matched: the room, this player's side and seat token; `None` when
/// the run ended first.
async fn meet(
    shared: &Shared,
    ws: &mut Ws,
    secret: &str,
    name: &str,
    challenger: bool,
    rng: &mut SmallRng,
) -> Result<Option<(String, Side, String)>, ()> {
    let hello = json!({"type": "hello", "player": secret, "name": name});
    ws.send(Message::text(hello.to_string())).await.map_err(|_| shared.live.error("lobby closed"))?;
    if challenger {
        let c = json!({"type": "challenge", "ruleset": shared.config.ruleset.to_string(), "side": "random"});
        ws.send(Message::text(c.to_string())).await.map_err(|_| shared.live.error("lobby closed"))?;
    }
    // Open challenges listed to this player, and the accept in flight.
    let mut listed: Vec<String> = Vec::new();
    let mut accepting: Option<Instant> = None;
    let stop = tokio::time::sleep_until(shared.stop_at.into());
    tokio::pin!(stop);
    loop {
        let m = tokio::select! {
            _ = &mut stop => return Ok(None),
            m = ws.next() => m,
        };
        let text = match m {
            Some(Ok(Message::Text(t))) => t,
            Some(Ok(Message::Close(_))) | None | Some(Err(_)) => {
                shared.live.error("lobby closed");
                return Err(());
            }
            Some(Ok(_)) => continue,
        };
        let Ok(v) = serde_json::from_str::<Value>(&text) else {
            shared.live.error("bad JSON");
            continue;
        };
        match v["type"].as_str() {
            Some("welcome") => {
                listed = v["challenges"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|c| c["id"].as_str().map(String::from))
                    .collect();
            }
            Some("challenge_added") => listed.extend(v["challenge"]["id"].as_str().map(String::from)),
            Some("challenge_removed") => listed.retain(|id| v["id"] != id.as_str()),
            Some("matched") => {
                let room = v["room"].as_str().unwrap_or_default().to_string();
                let side = if v["side"] == "north" { Side::North } else { Side::South };
                let token = v["token"].as_str().unwrap_or_default().to_string();
                if let Some(t0) = accepting {
                    shared.live.matched.fetch_add(1, Ordering::Relaxed);
                    shared.join_event(&room, |j| j.accepted = Some(t0));
                }
                return Ok(Some((room, side, token)));
            }
            Some("error") => {
                let code = v["error"].as_str().unwrap_or("error");
                if accepting.is_some() && code == "not_found" {
                    // Another player took it first.
                    shared.live.accepts_lost.fetch_add(1, Ordering::Relaxed);
                    accepting = None;
                } else {
                    shared.live.error(code);
                }
            }
            _ => {}
        }
        if !challenger && accepting.is_none() && !listed.is_empty() {
            let id = listed.swap_remove(rng.random_range(0..listed.len()));
            accepting = Some(Instant::now());
            let a = json!({"type": "accept", "id": id});
            ws.send(Message::text(a.to_string())).await.map_err(|_| shared.live.error("lobby closed"))?;
        }
    }
}
