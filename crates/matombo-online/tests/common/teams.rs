//! What the team-game tests share (online_teams.rs, online_team_votes.rs): their limits,
//! a 2 + 2 game made on one node and joined on another, legal turns, silence checked.

use std::net::SocketAddr;
use std::time::Duration;

use futures_util::StreamExt;
use matombo_core::Position;
use matombo_online::{Db, Limits, OnlineState};
use matombo_testkit::http::post;
use matombo_testkit::ws::Ws;
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

pub fn limits() -> Limits {
    Limits {
        turns_per_sec: 1000.0,
        room_turns_per_sec: 1000.0,
        addr_turns_per_sec: 1000.0,
        messages_per_sec: 1000.0,
        chat_per_sec: 1000.0,
        room_players_chat_per_sec: 1000.0,
        ..Limits::default()
    }
}

/// Everything `ws` receives for `d`; fails if one of `forbidden` types comes.
pub async fn nothing_of(ws: &mut Ws, forbidden: &[&str], d: Duration) {
    let end = tokio::time::Instant::now() + d;
    while let Ok(m) = tokio::time::timeout_at(end, ws.next()).await {
        if let Some(Ok(Message::Text(t))) = m {
            let v: Value = serde_json::from_str(&t).unwrap();
            let ty = v["type"].as_str().unwrap_or("");
            assert!(!forbidden.contains(&ty), "received {v}");
            assert!(!(ty == "chat" && v["channel"] == "team"), "received {v}");
        }
    }
}

/// A member: his token and id.
#[derive(Clone)]
pub struct M {
    pub token: String,
    pub id: String,
}

/// A 4x8 Nsolo team game made on `a`, joined on `b`: South (Rudo, Chipo), North
/// (Tendai, Farai); the room, the members and the invitations.
pub async fn team_game(a: SocketAddr, b: SocketAddr, teams: Value) -> (String, [M; 4], [String; 2]) {
    let (st, c) =
        post(a, "/api/online/rooms", json!({"ruleset": "nsolo:8", "side": "south", "name": "Rudo", "teams": teams}))
            .await;
    assert_eq!(st, 201, "{c}");
    assert!(c.get("invite").is_none(), "a team game has no plain invitation: {c}");
    let id = c["id"].as_str().unwrap().to_string();
    let (si, ni) = (c["invites"]["south"].as_str().unwrap(), c["invites"]["north"].as_str().unwrap());
    assert_eq!(c["links"]["join_south"], format!("/online/game/{id}#join={si}"));
    assert_eq!(c["links"]["join_north"], format!("/online/game/{id}#join={ni}"));
    let rudo = M { token: c["token"].as_str().unwrap().into(), id: c["member"].as_str().unwrap().into() };
    let join = |invite: String, name: &'static str, side: &'static str| {
        let id = id.clone();
        async move {
            let (st, j) =
                post(b, &format!("/api/online/rooms/{id}/join"), json!({"invite": invite, "name": name})).await;
            assert_eq!(st, 201, "{j}");
            assert_eq!(j["side"], side);
            assert_eq!(j["id"], id);
            M { token: j["token"].as_str().unwrap().into(), id: j["member"].as_str().unwrap().into() }
        }
    };
    let chipo = join(si.to_string(), "Chipo", "south").await;
    let tendai = join(ni.to_string(), "Tendai", "north").await;
    let farai = join(ni.to_string(), "Farai", "north").await;
    (id, [rudo, chipo, tendai, farai], [si.to_string(), ni.to_string()])
}

/// A legal turn of the position in `v` (a state or turn message).
pub fn legal(v: &Value, k: usize) -> String {
    let pos: Position = v["position"].as_str().unwrap().parse().unwrap();
    let turns: Vec<String> = pos.turns().map(|(t, _)| t.to_string()).collect();
    turns[k % turns.len()].clone()
}

/// Online play on the PostgreSQL database `url`, as one node of a cluster.
pub async fn pg_node(url: &str) -> SocketAddr {
    let state = OnlineState::connect(&Db::Postgres(url.to_string()), limits()).await.unwrap();
    super::serve(state).await
}
