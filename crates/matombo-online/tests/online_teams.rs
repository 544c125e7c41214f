//! Team games (issue 42) with real WebSocket clients on loopback: a 4x8 Nsolo game of
//! 2 + 2 members, rooms and their refusals, a side's limit of members, team chat and marks
//! reaching their side only. Captains and votes are online_team_votes.rs.

mod common;

use std::time::Duration;

use common::connect_all;
use common::teams::{legal, limits, nothing_of, team_game};
use matombo_core::Position;
use matombo_testkit::http::{get_text, post};
use matombo_testkit::ws::{self, recv_refusal, recv_turn, recv_type, send};
use serde_json::{json, Value};

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
    let (st, body) = get_text(addr, &format!("/api/online/rooms/{id}")).await;
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
    let [(mut r, s0), (mut c, _), (mut t, _), (mut f, _)] =
        connect_all([addr; 4], &id, [&rudo.token, &chipo.token, &tendai.token, &farai.token]).await;
    assert_eq!(s0["member"], rudo.id.as_str());
    assert_eq!(s0["you"], "south");
    let (mut spectator, _) = ws::room(addr, &id, None).await;
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
    assert_eq!(recv_refusal(&mut spectator).await["error"], "not_a_player");
    send(&mut t, json!({"type": "turn", "ply": 0, "move": legal(&s0, 0)})).await;
    assert_eq!(recv_refusal(&mut t).await["error"], "not_your_turn");
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
    let (_, body) = get_text(addr, &format!("/api/online/rooms/{id}")).await;
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
    let (_, body) = get_text(addr, &format!("/api/online/rooms/{id}")).await;
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["teams"]["north"]["members"].as_array().unwrap().len(), 64, "a refused join changed nothing");
    // The captain resigns: no one joins a finished game.
    let (mut r, _) = ws::room(addr, id, c["token"].as_str()).await;
    send(&mut r, json!({"type": "resign"})).await;
    recv_type(&mut r, "end").await;
    let south = c["invites"]["south"].as_str().unwrap();
    let (st, e) = post(addr, &join, json!({"invite": south, "name": "Chipo"})).await;
    assert_eq!((st, e["error"].as_str().unwrap()), (410, "closed"));
}

#[tokio::test]
async fn team_chat_and_marks_reach_their_side_only() {
    let db = common::temp_db("online_teams", "chat");
    let addr = common::start_server(&db, limits()).await;
    let (id, [rudo, chipo, tendai, farai], _) = team_game(addr, addr, json!({"mode": "any"})).await;
    let [(mut r, _), (mut c, _), (mut t, _), (mut f, _)] =
        connect_all([addr; 4], &id, [&rudo.token, &chipo.token, &tendai.token, &farai.token]).await;
    let (mut w, _) = ws::room(addr, &id, None).await;
    // Bad marks and chat change nothing.
    send(&mut r, json!({"type": "mark", "holes": ["B9"]})).await;
    assert_eq!(recv_refusal(&mut r).await["error"], "invalid_field");
    send(&mut r, json!({"type": "mark", "holes": vec!["B1"; 17]})).await;
    assert_eq!(recv_refusal(&mut r).await["error"], "invalid_field");
    send(&mut r, json!({"type": "chat", "text": "x", "channel": "north"})).await;
    assert_eq!(recv_refusal(&mut r).await["error"], "invalid_field");
    send(&mut w, json!({"type": "chat", "text": "let me in", "channel": "team"})).await;
    assert_eq!(recv_refusal(&mut w).await["error"], "not_a_player");
    send(&mut w, json!({"type": "mark", "holes": ["B2"]})).await;
    assert_eq!(recv_refusal(&mut w).await["error"], "not_a_player");
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
    let (_, sc) = ws::room(addr, &id, Some(&chipo.token)).await;
    assert_eq!(sc["marks"][&rudo.id], json!(["B2", "a5"]));
    let (_, sn) = ws::room(addr, &id, Some(&farai.token)).await;
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
    let (mut p, _) = ws::room(addr, plain["id"].as_str().unwrap(), plain["token"].as_str()).await;
    send(&mut p, json!({"type": "chat", "text": "hi", "channel": "team"})).await;
    assert_eq!(recv_refusal(&mut p).await["error"], "not_a_team_game");
    send(&mut p, json!({"type": "mark", "holes": []})).await;
    assert_eq!(recv_refusal(&mut p).await["error"], "not_a_team_game");
}
