//! Team games (issue 42) with real WebSocket clients on loopback, how a side decides: the
//! captain's proposals, passing the captaincy and removing a member, votes tallied and
//! closed by their time, a restart in the middle of a vote; with PostgreSQL
//! (`MATOMBO_TEST_PG`), members of one side on two nodes.

mod common;

use std::time::Duration;

use common::connect_all;
use common::teams::{legal, limits, nothing_of, pg_node, team_game};
use matombo_testkit::http::{get_text, post};
use matombo_testkit::pg;
use matombo_testkit::ws::{self, recv_refusal, recv_turn, recv_type, send};
use serde_json::{json, Value};

#[tokio::test]
async fn captain_mode_proposals_captaincy_and_removal() {
    let db = common::temp_db("online_teams", "captain");
    let addr = common::start_server(&db, limits()).await;
    let (id, [rudo, chipo, tendai, farai], _) = team_game(addr, addr, json!({"mode": "captain"})).await;
    let [(mut r, s0), (mut c, _), (mut t, _), (mut f, _)] =
        connect_all([addr; 4], &id, [&rudo.token, &chipo.token, &tendai.token, &farai.token]).await;
    // Chipo is no captain: his turn is refused; his proposal reaches his team only.
    let first = legal(&s0, 1);
    send(&mut c, json!({"type": "turn", "ply": 0, "move": first})).await;
    let e = recv_refusal(&mut c).await;
    assert_eq!((e["error"].as_str().unwrap(), e["ply"].as_u64()), ("not_captain", Some(0)));
    send(&mut c, json!({"type": "propose", "move": "zz"})).await;
    assert_eq!(recv_refusal(&mut c).await["error"], "bad_move");
    send(&mut c, json!({"type": "propose", "move": first})).await;
    for ws in [&mut r, &mut c] {
        let p = recv_type(ws, "proposal").await;
        assert_eq!((p["move"].as_str().unwrap(), p["member"].as_str().unwrap()), (first.as_str(), chipo.id.as_str()));
        assert_eq!(p["name"], "Chipo");
        assert_eq!(p["ply"], 0);
    }
    // North may not propose for South's turn, nor vote in captain mode.
    send(&mut f, json!({"type": "propose", "move": first})).await;
    assert_eq!(recv_refusal(&mut f).await["error"], "not_your_turn");
    send(&mut f, json!({"type": "vote", "ply": 0, "move": first})).await;
    assert_eq!(recv_refusal(&mut f).await["error"], "invalid_field");
    // The captain plays it.
    send(&mut r, json!({"type": "turn", "ply": 0, "move": first})).await;
    let mut t0 = Value::Null;
    for ws in [&mut r, &mut c, &mut t, &mut f] {
        t0 = recv_turn(ws, 0).await;
        assert_eq!(t0["move"], first.as_str());
    }
    // Captain's acts: only the captain, only on his side.
    send(&mut f, json!({"type": "remove", "member": tendai.id})).await;
    assert_eq!(recv_refusal(&mut f).await["error"], "not_captain");
    send(&mut t, json!({"type": "remove", "member": rudo.id})).await;
    assert_eq!(recv_refusal(&mut t).await["error"], "invalid_field");
    send(&mut t, json!({"type": "captain", "member": tendai.id})).await;
    assert_eq!(recv_refusal(&mut t).await["error"], "invalid_field");
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
    assert_eq!(recv_refusal(&mut t).await["error"], "not_captain");
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
    assert_eq!(recv_refusal(&mut t).await["error"], "bad_token");
    assert_eq!(recv_refusal(&mut t).await["error"], "not_a_player");
    let (mut t2, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/api/online/rooms/{id}/ws")).await.unwrap();
    send(&mut t2, json!({"type": "hello", "token": tendai.token})).await;
    assert_eq!(recv_refusal(&mut t2).await["error"], "bad_token");
    let st = recv_type(&mut t2, "state").await;
    assert_eq!(st["you"], Value::Null);
    assert!(st.get("member").is_none());
    send(&mut t2, json!({"type": "turn", "ply": 2, "move": "B1"})).await;
    assert_eq!(recv_refusal(&mut t2).await["error"], "not_a_player");
}

#[tokio::test]
async fn vote_mode_votes_tally_and_close() {
    let db = common::temp_db("online_teams", "vote");
    let addr = common::start_server(&db, limits()).await;
    let (id, [rudo, chipo, tendai, farai], invites) =
        team_game(addr, addr, json!({"mode": "vote", "vote_ms": 2000})).await;
    let [(mut r, s0), (mut c, _), (mut t, _), (mut f, _)] =
        connect_all([addr; 4], &id, [&rudo.token, &chipo.token, &tendai.token, &farai.token]).await;
    assert_eq!(s0["teams"]["vote_ms"], 2000);
    // Refused votes count for nothing.
    send(&mut t, json!({"type": "vote", "ply": 0, "move": legal(&s0, 0)})).await;
    assert_eq!(recv_refusal(&mut t).await["error"], "not_your_turn");
    send(&mut r, json!({"type": "vote", "ply": 0, "move": "zz"})).await;
    assert_eq!(recv_refusal(&mut r).await["error"], "bad_move");
    send(&mut r, json!({"type": "vote", "ply": 0, "move": "b1"})).await;
    assert_eq!(recv_refusal(&mut r).await["error"], "illegal");
    send(&mut r, json!({"type": "vote", "ply": 1, "move": legal(&s0, 0)})).await;
    assert_eq!(recv_refusal(&mut r).await["error"], "ahead");
    let resync = recv_type(&mut r, "state").await;
    assert_eq!((resync["member"].as_str(), resync["teams"]["mode"].as_str()), (Some(rudo.id.as_str()), Some("vote")));
    send(&mut c, json!({"type": "resign"})).await;
    assert_eq!(recv_refusal(&mut c).await["error"], "not_captain", "only the captain resigns in vote mode");
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
    let [(mut r, s0), (mut c, _)] = connect_all([addr; 2], &id, [&rudo.token, &chipo.token]).await;
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
    let (mut c, s) = ws::room(addr, &id, Some(&chipo.token)).await;
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

#[tokio::test]
async fn on_postgres_members_of_one_side_on_two_nodes_share_their_team_only() {
    let Some(base) = pg::url() else { return };
    let url = pg::fresh(&base, "teams").await;
    let (a, b) = (pg_node(&url).await, pg_node(&url).await);
    let (id, [rudo, chipo, tendai, farai], _) = team_game(a, b, json!({"mode": "captain"})).await;
    let [(mut r, s0), (mut c, _), (mut t, _), (mut f, _)] =
        connect_all([a, b, b, a], &id, [&rudo.token, &chipo.token, &tendai.token, &farai.token]).await;
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
    assert_eq!(recv_refusal(&mut c2).await["error"], "bad_token");
    drop((c, c2, t, f, r));

    // Vote mode across the nodes: the tally and who is connected are shared, and a vote
    // closes once (by all connected members, or by its time on whichever node is first).
    let (id, [rudo, chipo, tendai, farai], _) = team_game(a, b, json!({"mode": "vote", "vote_ms": 2000})).await;
    let [(mut r, s0), (mut c, _), (mut t, _), (mut f, _)] =
        connect_all([a, b, b, a], &id, [&rudo.token, &chipo.token, &tendai.token, &farai.token]).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (x, y) = (legal(&s0, 0), legal(&s0, 1));
    send(&mut r, json!({"type": "vote", "ply": 0, "move": y})).await;
    assert_eq!(recv_type(&mut c, "votes").await["tally"], json!({ y.clone(): 1 }));
    send(&mut c, json!({"type": "vote", "ply": 0, "move": x})).await;
    for ws in [&mut r, &mut c, &mut t, &mut f] {
        assert_eq!(recv_turn(ws, 0).await["move"], y.as_str(), "a tie goes to the turn voted for first");
    }
    let (st, body) = get_text(a, &format!("/api/online/rooms/{id}")).await;
    assert_eq!(st, 200);
    let v: Value = serde_json::from_str(&body).unwrap();
    let n = legal(&v, 0);
    send(&mut t, json!({"type": "vote", "ply": 1, "move": n})).await;
    for ws in [&mut r, &mut c, &mut t, &mut f] {
        assert_eq!(recv_turn(ws, 1).await["move"], n.as_str(), "closed by its time");
    }
    let (_, body) = get_text(b, &format!("/api/online/rooms/{id}")).await;
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["ply"], 2, "one turn for the vote, whichever node closed it");
    nothing_of(&mut r, &["turn"], Duration::from_millis(500)).await;
}
