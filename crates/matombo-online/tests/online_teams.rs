//! Team games (issue 42) with real WebSocket clients on loopback: a 4x8 Nsolo game of
//! 2 + 2 members in each mode, team chat and marks reaching their side only, a vote closed
//! by its time, the captain passing the captaincy and removing a member, a restart in the
//! middle of a vote; with PostgreSQL (`MATOMBO_TEST_PG`), members of one side on two nodes.

mod common;

use std::net::SocketAddr;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use matombo_core::Position;
use matombo_online::{routes, Db, Limits, OnlineState};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

type Ws = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

fn limits() -> Limits {
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

async fn post(addr: SocketAddr, path: &str, body: Value) -> (u16, Value) {
    let r = reqwest::Client::new().post(format!("http://{addr}{path}")).json(&body).send().await.unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap())
}

async fn get(addr: SocketAddr, path: &str) -> (u16, String) {
    let r = reqwest::get(format!("http://{addr}{path}")).await.unwrap();
    (r.status().as_u16(), r.text().await.unwrap())
}

async fn send(ws: &mut Ws, v: Value) {
    ws.send(Message::text(v.to_string())).await.unwrap();
}

async fn recv(ws: &mut Ws) -> Value {
    loop {
        let m = tokio::time::timeout(Duration::from_secs(10), ws.next()).await.expect("a message in time");
        match m.expect("open").expect("ok") {
            Message::Text(t) => return serde_json::from_str(&t).unwrap(),
            Message::Close(_) => panic!("closed"),
            _ => continue,
        }
    }
}

/// The next message of a type, skipping others (an error fails unless waited for).
async fn recv_type(ws: &mut Ws, ty: &str) -> Value {
    loop {
        let v = recv(ws).await;
        if v["type"] == ty {
            return v;
        }
        assert_ne!(v["type"], "error", "unexpected error while waiting for {ty}: {v}");
    }
}

/// The next error; a turn meanwhile fails (a refusal changes nothing).
async fn recv_error(ws: &mut Ws) -> Value {
    loop {
        let v = recv(ws).await;
        if v["type"] == "error" {
            return v;
        }
        assert_ne!(v["type"], "turn", "a refused message must change nothing: {v}");
    }
}

/// Everything `ws` receives for `d`; fails if one of `forbidden` types comes.
async fn nothing_of(ws: &mut Ws, forbidden: &[&str], d: Duration) {
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

async fn connect(addr: SocketAddr, id: &str, token: Option<&str>) -> (Ws, Value) {
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/api/online/rooms/{id}/ws")).await.unwrap();
    let hello = match token {
        Some(t) => json!({"type": "hello", "token": t}),
        None => json!({"type": "hello"}),
    };
    send(&mut ws, hello).await;
    let state = recv_type(&mut ws, "state").await;
    (ws, state)
}

/// A member: his token and id.
#[derive(Clone)]
struct M {
    token: String,
    id: String,
}

/// A 4x8 Nsolo team game made on `a`, joined on `b`: South (Rudo, Chipo), North
/// (Tendai, Farai); the room, the members and the invitations.
async fn team_game(a: SocketAddr, b: SocketAddr, teams: Value) -> (String, [M; 4], [String; 2]) {
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

/// The broadcast of turn `ply` (skipping earlier turns and other messages).
async fn recv_turn(ws: &mut Ws, ply: u64) -> Value {
    loop {
        let v = recv_type(ws, "turn").await;
        if v["ply"] == ply {
            return v;
        }
    }
}

/// A legal turn of the position in `v` (a state or turn message).
fn legal(v: &Value, k: usize) -> String {
    let pos: Position = v["position"].as_str().unwrap().parse().unwrap();
    let turns: Vec<String> = pos.turns().map(|(t, _)| t.to_string()).collect();
    turns[k % turns.len()].clone()
}

#[tokio::test]
async fn any_mode_rooms_members_and_refusals() {
    let db = common::temp_db("online_teams", "any");
    let addr = common::start_server(&db, limits()).await;
    // Bad settings change nothing.
    for (teams, code) in [
        (json!({"mode": "chaos"}), "invalid_field"),
        (json!({"mode": "any", "vote_ms": 5000}), "invalid_field"),
        (json!({"mode": "vote", "vote_ms": 1999}), "invalid_field"),
        (json!({"mode": "vote", "vote_ms": 86_400_001u64}), "invalid_field"),
        (json!({"mode": "vote", "extra": 1}), "malformed"),
    ] {
        let (st, e) = post(addr, "/api/online/rooms", json!({"ruleset": "nsolo:8", "teams": teams})).await;
        assert_eq!((st, e["error"].as_str().unwrap()), (400, code), "{e}");
    }
    let (id, [rudo, chipo, tendai, farai], invites) = team_game(addr, addr, json!({"mode": "any"})).await;
    // Joining: a wrong code, a look-alike name, a game without teams.
    let (st, e) = post(addr, &format!("/api/online/rooms/{id}/join"), json!({"invite": "nope", "name": "X"})).await;
    assert_eq!((st, e["error"].as_str().unwrap()), (403, "bad_invite"));
    let (_, created) = post(addr, "/api/online/rooms", json!({"ruleset": "nsolo:8", "teams": {"mode": "any"}})).await;
    let other = created["invites"]["north"].as_str().unwrap();
    let (st, e) = post(addr, &format!("/api/online/rooms/{id}/join"), json!({"invite": other, "name": "X"})).await;
    assert_eq!((st, e["error"].as_str().unwrap()), (403, "bad_invite"), "another game's code");
    let (st, plain) = post(addr, "/api/online/rooms", json!({"ruleset": "nsolo:8"})).await;
    assert_eq!(st, 201);
    assert!(plain.get("invites").is_none() && plain.get("member").is_none(), "{plain}");
    let pid = plain["id"].as_str().unwrap();
    let (st, e) = post(addr, &format!("/api/online/rooms/{pid}/join"), json!({"invite": "x", "name": "X"})).await;
    assert_eq!((st, e["error"].as_str().unwrap()), (409, "not_a_team_game"));
    // The state shows the rosters, never a token.
    let (st, body) = get(addr, &format!("/api/online/rooms/{id}")).await;
    assert_eq!(st, 200);
    for m in [&rudo, &chipo, &tendai, &farai] {
        assert!(!body.contains(&m.token), "a token in the public state");
    }
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["teams"]["mode"], "any");
    assert_eq!(v["teams"]["vote_ms"], Value::Null);
    let names = |side: &str| -> Vec<(String, bool)> {
        v["teams"][side]["members"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| (m["name"].as_str().unwrap().to_string(), m["captain"].as_bool().unwrap()))
            .collect()
    };
    assert_eq!(names("south"), [("Rudo".into(), true), ("Chipo".into(), false)]);
    assert_eq!(names("north"), [("Tendai".into(), true), ("Farai".into(), false)]);
    assert_eq!(v["seats"]["north"]["taken"], true);
    let (st, e) = post(addr, &format!("/api/online/rooms/{id}/join"), json!({"invite": null, "name": "Y"})).await;
    assert_eq!((st, e["error"].as_str().unwrap()), (400, "malformed"));
    let (st, e) =
        post(addr, &format!("/api/online/rooms/{id}/join"), json!({"invite": invites[0], "name": "rudo "})).await;
    assert_eq!((st, e["error"].as_str().unwrap()), (400, "invalid_field"), "a look-alike of a name on the rosters");
    let (st, e) =
        post(addr, &format!("/api/online/rooms/{id}/claim"), json!({"invite": "whatever", "name": "Z"})).await;
    assert_eq!((st, e["error"].as_str().unwrap()), (403, "bad_invite"), "no plain claim of a team game");

    // Four members play: any member's turn plays.
    let (mut r, s0) = connect(addr, &id, Some(&rudo.token)).await;
    assert_eq!(s0["member"], rudo.id.as_str());
    assert_eq!(s0["you"], "south");
    let (mut c, _) = connect(addr, &id, Some(&chipo.token)).await;
    let (mut t, _) = connect(addr, &id, Some(&tendai.token)).await;
    let (mut f, _) = connect(addr, &id, Some(&farai.token)).await;
    let (mut spectator, _) = connect(addr, &id, None).await;
    // The members connected travel in `presence` (coalesced), as ids.
    let mut ids = vec![rudo.id.clone(), chipo.id.clone(), tendai.id.clone(), farai.id.clone()];
    ids.sort();
    loop {
        let p = recv_type(&mut spectator, "presence").await;
        if p["members"] == json!(ids) {
            break;
        }
    }
    send(&mut spectator, json!({"type": "turn", "ply": 0, "move": legal(&s0, 0)})).await;
    assert_eq!(recv_error(&mut spectator).await["error"], "not_a_player");
    send(&mut t, json!({"type": "turn", "ply": 0, "move": legal(&s0, 0)})).await;
    assert_eq!(recv_error(&mut t).await["error"], "not_your_turn");
    // Each side's two members take turns about.
    let mut last = s0.clone();
    for ply in 0..8u64 {
        let pos: Position = last["position"].as_str().unwrap().parse().unwrap();
        let south = pos.side_to_move() == matombo_core::Side::South;
        let mover = match (south, ply % 4 < 2) {
            (true, true) => &mut r,
            (true, false) => &mut c,
            (false, true) => &mut t,
            (false, false) => &mut f,
        };
        send(mover, json!({"type": "turn", "ply": ply, "move": legal(&last, ply as usize)})).await;
        for ws in [&mut r, &mut c, &mut t, &mut f] {
            last = recv_turn(ws, ply).await;
        }
        if last["outcome"] != Value::Null {
            break;
        }
    }
    // A team game is unrated.
    let (_, body) = get(addr, &format!("/api/online/rooms/{id}")).await;
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["rated"], false);
    assert_eq!(v["teams"]["south"]["members"][0]["online"], true);
}

#[tokio::test]
async fn a_side_takes_64_members_and_a_finished_game_none() {
    let db = common::temp_db("online_teams", "full");
    let addr = common::start_server(&db, limits()).await;
    let (st, c) = post(
        addr,
        "/api/online/rooms",
        json!({"ruleset": "nsolo:8", "side": "south", "name": "Rudo", "teams": {"mode": "captain"}}),
    )
    .await;
    assert_eq!(st, 201);
    let id = c["id"].as_str().unwrap();
    let north = c["invites"]["north"].as_str().unwrap();
    let join = format!("/api/online/rooms/{id}/join");
    for _ in 0..64 {
        let (st, j) = post(addr, &join, json!({"invite": north})).await;
        assert_eq!(st, 201, "{j}");
    }
    let (st, e) = post(addr, &join, json!({"invite": north, "name": "Late"})).await;
    assert_eq!((st, e["error"].as_str().unwrap()), (409, "team_full"));
    let (_, body) = get(addr, &format!("/api/online/rooms/{id}")).await;
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["teams"]["north"]["members"].as_array().unwrap().len(), 64, "a refused join changed nothing");
    // The captain resigns: no one joins a finished game.
    let (mut r, _) = connect(addr, id, c["token"].as_str()).await;
    send(&mut r, json!({"type": "resign"})).await;
    recv_type(&mut r, "end").await;
    let south = c["invites"]["south"].as_str().unwrap();
    let (st, e) = post(addr, &join, json!({"invite": south, "name": "Chipo"})).await;
    assert_eq!((st, e["error"].as_str().unwrap()), (410, "closed"));
}

#[tokio::test]
async fn captain_mode_proposals_captaincy_and_removal() {
    let db = common::temp_db("online_teams", "captain");
    let addr = common::start_server(&db, limits()).await;
    let (id, [rudo, chipo, tendai, farai], _) = team_game(addr, addr, json!({"mode": "captain"})).await;
    let (mut r, s0) = connect(addr, &id, Some(&rudo.token)).await;
    let (mut c, _) = connect(addr, &id, Some(&chipo.token)).await;
    let (mut t, _) = connect(addr, &id, Some(&tendai.token)).await;
    let (mut f, _) = connect(addr, &id, Some(&farai.token)).await;
    // Chipo is no captain: his turn is refused; his proposal reaches his team only.
    let first = legal(&s0, 1);
    send(&mut c, json!({"type": "turn", "ply": 0, "move": first})).await;
    let e = recv_error(&mut c).await;
    assert_eq!((e["error"].as_str().unwrap(), e["ply"].as_u64()), ("not_captain", Some(0)));
    send(&mut c, json!({"type": "propose", "move": "zz"})).await;
    assert_eq!(recv_error(&mut c).await["error"], "bad_move");
    send(&mut c, json!({"type": "propose", "move": first})).await;
    for ws in [&mut r, &mut c] {
        let p = recv_type(ws, "proposal").await;
        assert_eq!((p["move"].as_str().unwrap(), p["member"].as_str().unwrap()), (first.as_str(), chipo.id.as_str()));
        assert_eq!(p["name"], "Chipo");
        assert_eq!(p["ply"], 0);
    }
    // North may not propose for South's turn, nor vote in captain mode.
    send(&mut f, json!({"type": "propose", "move": first})).await;
    assert_eq!(recv_error(&mut f).await["error"], "not_your_turn");
    send(&mut f, json!({"type": "vote", "ply": 0, "move": first})).await;
    assert_eq!(recv_error(&mut f).await["error"], "invalid_field");
    // The captain plays it.
    send(&mut r, json!({"type": "turn", "ply": 0, "move": first})).await;
    let mut t0 = Value::Null;
    for ws in [&mut r, &mut c, &mut t, &mut f] {
        t0 = recv_turn(ws, 0).await;
        assert_eq!(t0["move"], first.as_str());
    }
    // Captain's acts: only the captain, only on his side.
    send(&mut f, json!({"type": "remove", "member": tendai.id})).await;
    assert_eq!(recv_error(&mut f).await["error"], "not_captain");
    send(&mut t, json!({"type": "remove", "member": rudo.id})).await;
    assert_eq!(recv_error(&mut t).await["error"], "invalid_field");
    send(&mut t, json!({"type": "captain", "member": tendai.id})).await;
    assert_eq!(recv_error(&mut t).await["error"], "invalid_field");
    // Tendai passes the captaincy to Farai: everyone sees it; Tendai plays no more.
    send(&mut t, json!({"type": "captain", "member": farai.id})).await;
    for ws in [&mut r, &mut t, &mut f] {
        loop {
            let v = recv_type(ws, "teams").await;
            let north = v["teams"]["north"]["members"].as_array().unwrap().clone();
            let cap: Vec<bool> = north.iter().map(|m| m["captain"].as_bool().unwrap()).collect();
            if cap == [false, true] {
                break;
            }
        }
    }
    let mv = legal(&t0, 0);
    send(&mut t, json!({"type": "turn", "ply": 1, "move": mv})).await;
    assert_eq!(recv_error(&mut t).await["error"], "not_captain");
    send(&mut f, json!({"type": "turn", "ply": 1, "move": mv})).await;
    for ws in [&mut r, &mut c, &mut t, &mut f] {
        recv_turn(ws, 1).await;
    }
    // Farai removes Tendai: his token is refused from then on, on this connection and any
    // new one; he only watches.
    send(&mut f, json!({"type": "remove", "member": tendai.id})).await;
    loop {
        let v = recv_type(&mut r, "teams").await;
        if v["teams"]["north"]["members"].as_array().unwrap().len() == 1 {
            break;
        }
    }
    send(&mut t, json!({"type": "chat", "text": "still here?", "channel": "team"})).await;
    assert_eq!(recv_error(&mut t).await["error"], "bad_token");
    assert_eq!(recv_error(&mut t).await["error"], "not_a_player");
    let (mut t2, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/api/online/rooms/{id}/ws")).await.unwrap();
    send(&mut t2, json!({"type": "hello", "token": tendai.token})).await;
    assert_eq!(recv_error(&mut t2).await["error"], "bad_token");
    let st = recv_type(&mut t2, "state").await;
    assert_eq!(st["you"], Value::Null);
    assert!(st.get("member").is_none());
    send(&mut t2, json!({"type": "turn", "ply": 2, "move": "B1"})).await;
    assert_eq!(recv_error(&mut t2).await["error"], "not_a_player");
}

#[tokio::test]
async fn team_chat_and_marks_reach_their_side_only() {
    let db = common::temp_db("online_teams", "chat");
    let addr = common::start_server(&db, limits()).await;
    let (id, [rudo, chipo, tendai, farai], _) = team_game(addr, addr, json!({"mode": "any"})).await;
    let (mut r, _) = connect(addr, &id, Some(&rudo.token)).await;
    let (mut c, _) = connect(addr, &id, Some(&chipo.token)).await;
    let (mut t, _) = connect(addr, &id, Some(&tendai.token)).await;
    let (mut f, _) = connect(addr, &id, Some(&farai.token)).await;
    let (mut w, _) = connect(addr, &id, None).await;
    // Bad marks and chat change nothing.
    send(&mut r, json!({"type": "mark", "holes": ["B9"]})).await;
    assert_eq!(recv_error(&mut r).await["error"], "invalid_field");
    send(&mut r, json!({"type": "mark", "holes": vec!["B1"; 17]})).await;
    assert_eq!(recv_error(&mut r).await["error"], "invalid_field");
    send(&mut r, json!({"type": "chat", "text": "x", "channel": "north"})).await;
    assert_eq!(recv_error(&mut r).await["error"], "invalid_field");
    send(&mut w, json!({"type": "chat", "text": "let me in", "channel": "team"})).await;
    assert_eq!(recv_error(&mut w).await["error"], "not_a_player");
    send(&mut w, json!({"type": "mark", "holes": ["B2"]})).await;
    assert_eq!(recv_error(&mut w).await["error"], "not_a_player");
    // South talks and marks for South.
    send(&mut r, json!({"type": "chat", "text": "take b3 next", "channel": "team"})).await;
    send(&mut r, json!({"type": "mark", "holes": ["B2", "a5"]})).await;
    for ws in [&mut r, &mut c] {
        let m = recv_type(ws, "chat").await;
        assert_eq!((m["channel"].as_str().unwrap(), m["text"].as_str().unwrap()), ("team", "take b3 next"));
        assert_eq!((m["from"].as_str().unwrap(), m["name"].as_str().unwrap()), (rudo.id.as_str(), "Rudo"));
        let m = recv_type(ws, "marks").await;
        assert_eq!(m["member"], rudo.id.as_str());
        assert_eq!(m["holes"], json!(["B2", "a5"]));
    }
    // The players' channel still reaches both sides.
    send(&mut t, json!({"type": "chat", "text": "good luck"})).await;
    assert_eq!(recv_type(&mut r, "chat").await["channel"], "players");
    // A reconnecting South member sees his team's marks; a North one does not.
    let (_, sc) = connect(addr, &id, Some(&chipo.token)).await;
    assert_eq!(sc["marks"][&rudo.id], json!(["B2", "a5"]));
    let (_, sn) = connect(addr, &id, Some(&farai.token)).await;
    assert_eq!(sn["marks"], json!({}));
    // An empty list clears.
    send(&mut r, json!({"type": "mark", "holes": []})).await;
    assert_eq!(recv_type(&mut c, "marks").await["holes"], json!([]));
    // North and the spectator received nothing of South's, over a few seconds.
    let quiet = Duration::from_secs(2);
    let forbidden = ["marks", "proposal", "votes"];
    tokio::join!(nothing_of(&mut t, &forbidden, quiet), nothing_of(&mut f, &forbidden, quiet), async {
        nothing_of(&mut w, &forbidden, quiet).await
    });
    // No team channel in a game without teams.
    let (_, plain) = post(addr, "/api/online/rooms", json!({"ruleset": "nsolo:8", "side": "south"})).await;
    let (mut p, _) = connect(addr, plain["id"].as_str().unwrap(), plain["token"].as_str()).await;
    send(&mut p, json!({"type": "chat", "text": "hi", "channel": "team"})).await;
    assert_eq!(recv_error(&mut p).await["error"], "not_a_team_game");
    send(&mut p, json!({"type": "mark", "holes": []})).await;
    assert_eq!(recv_error(&mut p).await["error"], "not_a_team_game");
}

#[tokio::test]
async fn vote_mode_votes_tally_and_close() {
    let db = common::temp_db("online_teams", "vote");
    let addr = common::start_server(&db, limits()).await;
    let (id, [rudo, chipo, tendai, farai], invites) =
        team_game(addr, addr, json!({"mode": "vote", "vote_ms": 2000})).await;
    let (mut r, s0) = connect(addr, &id, Some(&rudo.token)).await;
    assert_eq!(s0["teams"]["vote_ms"], 2000);
    let (mut c, _) = connect(addr, &id, Some(&chipo.token)).await;
    let (mut t, _) = connect(addr, &id, Some(&tendai.token)).await;
    let (mut f, _) = connect(addr, &id, Some(&farai.token)).await;
    // Refused votes count for nothing.
    send(&mut t, json!({"type": "vote", "ply": 0, "move": legal(&s0, 0)})).await;
    assert_eq!(recv_error(&mut t).await["error"], "not_your_turn");
    send(&mut r, json!({"type": "vote", "ply": 0, "move": "zz"})).await;
    assert_eq!(recv_error(&mut r).await["error"], "bad_move");
    send(&mut r, json!({"type": "vote", "ply": 0, "move": "b1"})).await;
    assert_eq!(recv_error(&mut r).await["error"], "illegal");
    send(&mut r, json!({"type": "vote", "ply": 1, "move": legal(&s0, 0)})).await;
    assert_eq!(recv_error(&mut r).await["error"], "ahead");
    let resync = recv_type(&mut r, "state").await;
    assert_eq!((resync["member"].as_str(), resync["teams"]["mode"].as_str()), (Some(rudo.id.as_str()), Some("vote")));
    send(&mut c, json!({"type": "resign"})).await;
    assert_eq!(recv_error(&mut c).await["error"], "not_captain", "only the captain resigns in vote mode");
    // Rudo votes (a new vote replaces his old one); the tally goes to South only.
    let (a, b) = (legal(&s0, 0), legal(&s0, 1));
    send(&mut r, json!({"type": "vote", "ply": 0, "move": b})).await;
    let v = recv_type(&mut c, "votes").await;
    assert_eq!((v["voted"].as_u64(), v["members"].as_u64(), v["ply"].as_u64()), (Some(1), Some(2), Some(0)));
    let closes = v["closes_at"].as_u64().unwrap();
    send(&mut r, json!({"type": "turn", "ply": 0, "move": a})).await;
    let v = recv_type(&mut c, "votes").await;
    assert_eq!(v["tally"], json!({ a.clone(): 1 }));
    assert_eq!(v["closes_at"].as_u64(), Some(closes), "the closing time runs from the first vote");
    // Chipo votes too: every connected member voted, so the turn is played at once.
    send(&mut c, json!({"type": "vote", "ply": 0, "move": a})).await;
    let t0 = recv_type(&mut t, "turn").await;
    assert_eq!(t0["move"], a.as_str());
    // North: Tendai votes, Farai does not; the vote closes after vote_ms.
    let n = legal(&t0, 2);
    let started = std::time::Instant::now();
    send(&mut t, json!({"type": "vote", "ply": 1, "move": n})).await;
    let v = recv_type(&mut f, "votes").await;
    assert_eq!(v["tally"], json!({ n.clone(): 1 }));
    let t1 = recv_turn(&mut r, 1).await;
    assert_eq!((t1["move"].as_str().unwrap(), t1["ply"].as_u64()), (n.as_str(), Some(1)));
    let waited = started.elapsed();
    assert!(waited >= Duration::from_millis(1800) && waited < Duration::from_secs(6), "{waited:?}");
    // South never saw North's tally.
    nothing_of(&mut r, &["votes"], Duration::from_millis(300)).await;
    // A tie goes to the turn voted for first. A third South member, not connected, does
    // not hold the vote up.
    let (st, j) =
        post(addr, &format!("/api/online/rooms/{id}/join"), json!({"invite": invites[0], "name": "Nyasha"})).await;
    assert_eq!(st, 201, "{j}");
    let (x, y) = (legal(&t1, 0), legal(&t1, 1));
    assert_ne!(x, y);
    send(&mut c, json!({"type": "vote", "ply": 2, "move": x})).await;
    send(&mut r, json!({"type": "vote", "ply": 2, "move": y})).await;
    loop {
        let v = recv_type(&mut c, "votes").await;
        if v["ply"] == 2 && v["voted"] == 2 {
            assert_eq!(v["members"], 3);
            assert_eq!(v["tally"], json!({ x.clone(): 1, y.clone(): 1 }));
            break;
        }
    }
    let t2 = recv_turn(&mut f, 2).await;
    assert_eq!(t2["move"], x.as_str(), "the tie goes to the turn voted for first");
    // North: Tendai votes; Farai, who has not voted, leaves: Tendai's vote decides at once.
    let m = legal(&t2, 1);
    send(&mut t, json!({"type": "vote", "ply": 3, "move": m})).await;
    recv_type(&mut t, "votes").await;
    let left = std::time::Instant::now();
    drop(f);
    assert_eq!(recv_turn(&mut r, 3).await["move"], m.as_str());
    assert!(left.elapsed() < Duration::from_millis(1500), "{:?}", left.elapsed());
}

#[tokio::test]
async fn a_restart_in_the_middle_of_a_vote_keeps_its_tally() {
    let db = common::temp_db("online_teams", "restart");
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let (addr, task) = common::serve_until(&db, limits(), async move {
        let _ = stop_rx.await;
    })
    .await;
    let (id, [rudo, chipo, _, _], _) = team_game(addr, addr, json!({"mode": "vote", "vote_ms": 600_000})).await;
    let (mut r, s0) = connect(addr, &id, Some(&rudo.token)).await;
    let (mut c, _) = connect(addr, &id, Some(&chipo.token)).await;
    let (mv, other) = (legal(&s0, 3), legal(&s0, 4));
    assert_ne!(mv, other);
    send(&mut r, json!({"type": "vote", "ply": 0, "move": mv})).await;
    let v = recv_type(&mut c, "votes").await;
    let closes = v["closes_at"].as_u64().unwrap();
    // Marks are kept too.
    send(&mut c, json!({"type": "mark", "holes": ["A3"]})).await;
    recv_type(&mut r, "marks").await;
    drop((r, c));
    let _ = stop_tx.send(());
    let _ = tokio::time::timeout(Duration::from_secs(10), task).await;
    // The same file, a new server.
    let addr = common::start_server(&db, limits()).await;
    let (mut c, s) = connect(addr, &id, Some(&chipo.token)).await;
    assert_eq!(s["votes"]["tally"], json!({ mv.clone(): 1 }), "{s}");
    assert_eq!(s["votes"]["closes_at"].as_u64(), Some(closes));
    assert_eq!(s["marks"][&chipo.id], json!(["A3"]));
    let south: Vec<bool> =
        s["teams"]["south"]["members"].as_array().unwrap().iter().map(|m| m["captain"].as_bool().unwrap()).collect();
    assert_eq!(south, [true, false]);
    // Chipo, the only one connected, votes: the vote closes with Rudo's vote counted.
    send(&mut c, json!({"type": "vote", "ply": 0, "move": other})).await;
    let t = recv_type(&mut c, "turn").await;
    assert_eq!(t["move"], mv.as_str(), "a tie goes to the turn voted for first (Rudo's, before the restart)");
}

/// Online play on the PostgreSQL database `url`, as one node of a cluster.
async fn pg_node(url: &str) -> SocketAddr {
    let state = OnlineState::connect(&Db::Postgres(url.to_string()), limits()).await.unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = routes(state).into_make_service_with_connect_info::<SocketAddr>();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    addr
}

#[tokio::test]
async fn on_postgres_members_of_one_side_on_two_nodes_share_their_team_only() {
    let Ok(base) = std::env::var("MATOMBO_TEST_PG") else {
        assert!(std::env::var("CI").is_err(), "MATOMBO_TEST_PG is not set");
        return;
    };
    let (client, conn) = tokio_postgres::connect(&base, tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(conn);
    let name = format!("t_teams_{}", std::process::id());
    client.batch_execute(&format!("CREATE DATABASE {name}")).await.unwrap();
    let url = format!("{}/{name}", base.rsplit_once('/').unwrap().0);
    let (a, b) = (pg_node(&url).await, pg_node(&url).await);
    let (id, [rudo, chipo, tendai, farai], _) = team_game(a, b, json!({"mode": "captain"})).await;
    let (mut r, s0) = connect(a, &id, Some(&rudo.token)).await;
    let (mut c, _) = connect(b, &id, Some(&chipo.token)).await;
    let (mut t, _) = connect(b, &id, Some(&tendai.token)).await;
    let (mut f, _) = connect(a, &id, Some(&farai.token)).await;
    send(&mut r, json!({"type": "chat", "text": "from node a", "channel": "team"})).await;
    assert_eq!(recv_type(&mut c, "chat").await["text"], "from node a");
    send(&mut c, json!({"type": "mark", "holes": ["B4"]})).await;
    assert_eq!(recv_type(&mut r, "marks").await["holes"], json!(["B4"]));
    send(&mut c, json!({"type": "propose", "move": legal(&s0, 0)})).await;
    assert_eq!(recv_type(&mut r, "proposal").await["member"], chipo.id.as_str());
    // The captain on node a plays; node b's members see it.
    send(&mut r, json!({"type": "turn", "ply": 0, "move": legal(&s0, 0)})).await;
    recv_type(&mut t, "turn").await;
    let forbidden = ["marks", "proposal", "votes"];
    let quiet = Duration::from_secs(2);
    tokio::join!(nothing_of(&mut t, &forbidden, quiet), nothing_of(&mut f, &forbidden, quiet));
    // A member removed on node a is refused on node b.
    send(&mut r, json!({"type": "remove", "member": chipo.id})).await;
    loop {
        let v = recv_type(&mut t, "teams").await;
        if v["teams"]["south"]["members"].as_array().unwrap().len() == 1 {
            break;
        }
    }
    let (mut c2, _) = tokio_tungstenite::connect_async(format!("ws://{b}/api/online/rooms/{id}/ws")).await.unwrap();
    send(&mut c2, json!({"type": "hello", "token": chipo.token})).await;
    assert_eq!(recv_error(&mut c2).await["error"], "bad_token");
    drop((c, c2, t, f, r));

    // Vote mode across the nodes: the tally and who is connected are shared, and a vote
    // closes once (by all connected members, or by its time on whichever node is first).
    let (id, [rudo, chipo, tendai, farai], _) = team_game(a, b, json!({"mode": "vote", "vote_ms": 2000})).await;
    let (mut r, s0) = connect(a, &id, Some(&rudo.token)).await;
    let (mut c, _) = connect(b, &id, Some(&chipo.token)).await;
    let (mut t, _) = connect(b, &id, Some(&tendai.token)).await;
    let (mut f, _) = connect(a, &id, Some(&farai.token)).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (x, y) = (legal(&s0, 0), legal(&s0, 1));
    send(&mut r, json!({"type": "vote", "ply": 0, "move": y})).await;
    assert_eq!(recv_type(&mut c, "votes").await["tally"], json!({ y.clone(): 1 }));
    send(&mut c, json!({"type": "vote", "ply": 0, "move": x})).await;
    for ws in [&mut r, &mut c, &mut t, &mut f] {
        assert_eq!(recv_turn(ws, 0).await["move"], y.as_str(), "a tie goes to the turn voted for first");
    }
    let (st, body) = get(a, &format!("/api/online/rooms/{id}")).await;
    assert_eq!(st, 200);
    let v: Value = serde_json::from_str(&body).unwrap();
    let n = legal(&v, 0);
    send(&mut t, json!({"type": "vote", "ply": 1, "move": n})).await;
    for ws in [&mut r, &mut c, &mut t, &mut f] {
        assert_eq!(recv_turn(ws, 1).await["move"], n.as_str(), "closed by its time");
    }
    let (_, body) = get(b, &format!("/api/online/rooms/{id}")).await;
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["ply"], 2, "one turn for the vote, whichever node closed it");
    nothing_of(&mut r, &["turn"], Duration::from_millis(500)).await;
}
