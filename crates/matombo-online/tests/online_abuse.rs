//! Issue 37 with real WebSocket clients on loopback and real SQLite files: rooms made by
//! the lobby count against the quotas of the addresses and identities involved (a refused
//! accept leaves the challenge open), a lobby game nobody began expires like an unclaimed
//! room, a rated game counts only once each side made two turns and at most three times a
//! day for the same pair, and provisional players come after established ones.

mod common;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;

use matombo_core::Position;
use matombo_online::Limits;
use matombo_testkit::http::{get, post};
use matombo_testkit::ws::{self, open_from, recv_type_or_error, room, send, Ws};
use serde_json::{json, Value};

/// [`common::fast`], rooms too.
fn fast() -> Limits {
    Limits { rooms_per_sec: 10_000.0, ..common::fast() }
}

async fn server(name: &str, limits: Limits) -> SocketAddr {
    common::start_server(&common::temp_db("abuse", name), limits).await
}

async fn player(addr: SocketAddr, c: char) -> (Ws, Value) {
    player_from(IpAddr::V4(Ipv4Addr::LOCALHOST), addr, c).await
}

/// The lobby identity of secret `c`×40 (named `P{c}`) from `src`, welcomed.
async fn player_from(src: IpAddr, addr: SocketAddr, c: char) -> (Ws, Value) {
    let mut ws = open_from(src, addr, "/api/online/lobby/ws").await.expect("upgrade");
    let secret: String = std::iter::repeat_n(c, 40).collect();
    send(&mut ws, json!({"type": "hello", "player": secret, "name": format!("P{c}")})).await;
    let w = recv_type_or_error(&mut ws, "welcome").await;
    assert_eq!(w["type"], "welcome", "{w}");
    (ws, w)
}

/// A posts a link-only challenge (South), B accepts it: B's answer to the accept (the
/// `matched` message, or an error) and A's `matched` if it came.
async fn challenge_accepted(a: &mut Ws, b: &mut Ws, rated: bool) -> (Value, Option<Value>, String) {
    send(a, json!({"type": "challenge", "ruleset": "tsoro:8", "side": "south", "rated": rated, "open": false})).await;
    let added = recv_type_or_error(a, "challenge_added").await;
    let id = added["challenge"]["id"].as_str().unwrap().to_string();
    send(b, json!({"type": "accept", "id": id})).await;
    let got = recv_type_or_error(b, "matched").await;
    if got["type"] == "error" {
        return (got, None, id);
    }
    (got, Some(recv_type_or_error(a, "matched").await), id)
}

/// Plays `plies` turns of the room (South first), then `loser` resigns; answers the end.
async fn play_and_resign(addr: SocketAddr, south: &Value, north: &Value, plies: u32, loser: &str) -> Value {
    let id = south["room"].as_str().unwrap();
    let (mut s, st) = room(addr, id, Some(south["token"].as_str().unwrap())).await;
    let (mut n, _) = room(addr, id, Some(north["token"].as_str().unwrap())).await;
    let mut position = st["position"].as_str().unwrap().to_string();
    for ply in 0..plies {
        let (me, other) = if ply % 2 == 0 { (&mut s, &mut n) } else { (&mut n, &mut s) };
        let p: Position = position.parse().unwrap();
        let token = p.turns().next().unwrap().0.to_string();
        send(me, json!({"type": "turn", "ply": ply, "move": token})).await;
        let t = recv_type_or_error(other, "turn").await;
        assert_eq!(t["type"], "turn", "{t}");
        recv_type_or_error(me, "turn").await;
        position = t["position"].as_str().unwrap().to_string();
    }
    let (quitter, other) = if loser == "north" { (&mut n, &mut s) } else { (&mut s, &mut n) };
    send(quitter, json!({"type": "resign"})).await;
    let end = recv_type_or_error(other, "end").await;
    assert_eq!(end["type"], "end", "{end}");
    end
}

/// Rated games in a player's record (its rating's `games`, 0 without one).
async fn rated_games(addr: SocketAddr, id: &str) -> u64 {
    let (st, p) = get(addr, &format!("/api/online/players/{id}")).await;
    assert_eq!(st, 200, "{p}");
    p["ratings"]["tsoro-small"]["games"].as_u64().unwrap_or(0)
}

#[tokio::test]
async fn lobby_rooms_count_against_the_address_and_identity_quotas() {
    let limits = Limits { rooms_per_addr: 3, ..fast() };
    let addr = server("quota", limits).await;
    let (mut a, mut b) = (player(addr, 'a').await.0, player(addr, 'b').await.0);
    let mut made = Vec::new();
    for _ in 0..3 {
        let (mb, ma, _) = challenge_accepted(&mut a, &mut b, false).await;
        assert_eq!(mb["type"], "matched", "{mb}");
        made.push((ma.unwrap(), mb));
    }
    // The fourth: both identities (and their address) are at the quota of unfinished games.
    let (refused, _, challenge) = challenge_accepted(&mut a, &mut b, false).await;
    assert_eq!(refused["error"], "too_many_rooms", "{refused}");
    assert!(refused["message"].as_str().unwrap().contains("at most 3 unfinished games"), "{refused}");
    // Refused, nothing changed: the challenge is still open (its creator can cancel it) ...
    send(&mut a, json!({"type": "cancel", "id": challenge})).await;
    let gone = recv_type_or_error(&mut a, "challenge_removed").await;
    assert_eq!(gone["reason"], "cancelled", "{gone}");
    // ... and a third identity on the same address is held to the address's quota too.
    let (mut c, _) = player(addr, 'c').await;
    let (mut d, _) = player(addr, 'd').await;
    let (refused, _, _) = challenge_accepted(&mut c, &mut d, false).await;
    assert_eq!(refused["error"], "too_many_rooms", "{refused}");
    assert!(refused["message"].as_str().unwrap().contains("per address"), "{refused}");
    // A finished game gives its slot back: the next accept makes a room.
    let (ma, mb) = &made[0];
    play_and_resign(addr, ma, mb, 1, "north").await;
    let (ok, _, _) = challenge_accepted(&mut c, &mut d, false).await;
    assert_eq!(ok["type"], "matched", "{ok}");
}

/// The probe of issue 37: one address, 10 identities, each pair accepting the other's
/// link-only challenges until refused. The address's quota (20 unfinished games, the
/// production value) bounds them all together; every refusal leaves the challenge open
/// (withdrawn by its maker); another address still creates a room and meets in the lobby.
#[tokio::test]
async fn an_accept_flood_from_one_address_with_ten_identities_stops_at_its_quota() {
    let limits = fast();
    let quota = Limits::default().rooms_per_addr;
    assert_eq!(limits.rooms_per_addr, quota);
    let addr = server("flood", limits).await;
    let mut ids = Vec::new();
    for c in '0'..='9' {
        ids.push(player(addr, c).await.0);
    }
    let (mut made, mut refused) = (std::collections::HashSet::new(), 0);
    for round in 0..2 * quota {
        for pair in ids.chunks_mut(2) {
            let [a, b] = pair else { unreachable!("ten identities, in pairs") };
            let (x, y) = if round % 2 == 0 { (a, b) } else { (b, a) };
            let (got, _, challenge) = challenge_accepted(x, y, false).await;
            if got["type"] == "matched" {
                assert!(made.insert(got["room"].as_str().unwrap().to_string()), "{got}");
                continue;
            }
            assert_eq!(got["error"], "too_many_rooms", "{got}");
            refused += 1;
            // Refused, the challenge is still there: its maker withdraws it.
            send(x, json!({"type": "cancel", "id": challenge})).await;
            assert_eq!(recv_type_or_error(x, "challenge_removed").await["reason"], "cancelled");
        }
    }
    assert_eq!(made.len(), quota, "rooms made from one address, whatever its identities");
    assert_eq!(refused, 10 * quota - quota);
    // Another address is not held to it: a room by POST, a meeting in the lobby.
    let other = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2));
    let client = reqwest::Client::builder().local_address(other).build().unwrap();
    let r = client
        .post(format!("http://{addr}/api/online/rooms"))
        .json(&json!({"ruleset": "tsoro:8", "side": "south"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 201);
    let (mut h1, _) = player_from(other, addr, 'h').await;
    let (mut h2, _) = player_from(other, addr, 'k').await;
    let (ok, _, _) = challenge_accepted(&mut h1, &mut h2, false).await;
    assert_eq!(ok["type"], "matched", "{ok}");
}

/// A rematch is a room like any other: refused at the quota (nothing made, the offer
/// kept), made once a game ends and frees a slot.
#[tokio::test]
async fn a_rematch_counts_against_the_quota_and_waits_when_refused() {
    let limits = Limits { rooms_per_addr: 2, ..fast() };
    let addr = server("rematch-quota", limits).await;
    let (mut a, mut b) = (player(addr, 'a').await.0, player(addr, 'b').await.0);
    let (g1b, g1a, _) = challenge_accepted(&mut a, &mut b, false).await;
    let g1a = g1a.unwrap();
    let (g2b, g2a, _) = challenge_accepted(&mut a, &mut b, false).await;
    // Game 1 ends (North resigns at once): one slot free, taken by game 3.
    let id1 = g1a["room"].as_str().unwrap();
    let (mut s1, _) = room(addr, id1, Some(g1a["token"].as_str().unwrap())).await;
    let (mut n1, _) = room(addr, id1, Some(g1b["token"].as_str().unwrap())).await;
    send(&mut n1, json!({"type": "resign"})).await;
    assert_eq!(recv_type_or_error(&mut s1, "end").await["type"], "end");
    let (g3, _, _) = challenge_accepted(&mut a, &mut b, false).await;
    assert_eq!(g3["type"], "matched", "{g3}");
    // The rematch of game 1: offered, then refused at the quota when accepted.
    send(&mut n1, json!({"type": "rematch"})).await;
    assert_eq!(recv_type_or_error(&mut s1, "rematch").await["offered_by"], "north");
    send(&mut s1, json!({"type": "rematch"})).await;
    let e = recv_type_or_error(&mut s1, "rematch_ready").await;
    assert_eq!(e["error"], "too_many_rooms", "{e}");
    // Game 2 ends: the offer still stands and is accepted now.
    play_and_resign(addr, &g2a.unwrap(), &g2b, 0, "south").await;
    send(&mut s1, json!({"type": "rematch"})).await;
    let ready = recv_type_or_error(&mut s1, "rematch_ready").await;
    assert_eq!(ready["type"], "rematch_ready", "{ready}");
    assert_eq!(ready["side"], "north", "colours swapped: {ready}");
    assert_eq!(recv_type_or_error(&mut n1, "rematch_ready").await["side"], "south");
}

#[tokio::test]
async fn a_lobby_game_nobody_began_expires_like_an_unclaimed_room() {
    let limits = Limits { unclaimed_expiry: Duration::from_millis(300), rooms_per_addr: 1, ..fast() };
    let addr = server("unstarted", limits).await;
    let (mut a, mut b) = (player(addr, 'a').await.0, player(addr, 'b').await.0);
    let (mb, ma, _) = challenge_accepted(&mut a, &mut b, false).await;
    let ma = ma.unwrap();
    let id = ma["room"].as_str().unwrap();
    let (mut s, _) = room(addr, id, Some(ma["token"].as_str().unwrap())).await;
    let closed = recv_type_or_error(&mut s, "closed").await;
    assert_eq!(closed["reason"], "unstarted", "{closed}");
    assert!(closed["message"].as_str().unwrap().contains("no turn was played"), "{closed}");
    let _ = mb;
    // Its quota is free again.
    let (ok, _, _) = challenge_accepted(&mut a, &mut b, false).await;
    assert_eq!(ok["type"], "matched", "{ok}");
}

#[tokio::test]
async fn rated_only_after_two_turns_each_and_three_times_a_day_per_pair() {
    let addr = server("farming", fast()).await;
    let (mut a, wa) = player(addr, 'a').await;
    let (mut b, wb) = player(addr, 'b').await;
    assert_eq!(wa["rated_rules"], json!({"min_turns_each": 2, "per_pair_per_day": 3}));
    let (ida, idb) = (wa["you"]["id"].as_str().unwrap(), wb["you"]["id"].as_str().unwrap());
    // A resignation after one turn (and after three plies): the result stands, unrated.
    for plies in [1, 3] {
        let (mb, ma, _) = challenge_accepted(&mut a, &mut b, true).await;
        let end = play_and_resign(addr, &ma.unwrap(), &mb, plies, "north").await;
        assert_eq!(end["outcome"]["winner"], "south");
    }
    assert_eq!((rated_games(addr, ida).await, rated_games(addr, idb).await), (0, 0));
    // Two turns each: rated, three times; the fourth game of the day between them is not.
    for k in 1..=4u64 {
        let (mb, ma, _) = challenge_accepted(&mut a, &mut b, true).await;
        play_and_resign(addr, &ma.unwrap(), &mb, 4, "south").await;
        // The rating is written with the end, before anyone hears of it.
        assert_eq!(rated_games(addr, ida).await, k.min(3), "game {k}");
        assert_eq!(rated_games(addr, idb).await, k.min(3), "game {k}");
    }
    // A third player against A is a new pair: rated.
    let (mut c, wc) = player(addr, 'c').await;
    let (mc, ma, _) = challenge_accepted(&mut a, &mut c, true).await;
    play_and_resign(addr, &ma.unwrap(), &mc, 4, "north").await;
    assert_eq!(rated_games(addr, ida).await, 4);
    assert_eq!(rated_games(addr, wc["you"]["id"].as_str().unwrap()).await, 1);
}

/// Issue 42, names that cannot deceive: bidi controls and invisible format characters are
/// refused (`invalid_field`, nothing made), names and chat lines are stored in NFC, and a
/// second person cannot take a name that looks like one already in the room or the lobby.
#[tokio::test]
async fn names_and_chat_lines_cannot_deceive() {
    let addr = server("names", fast()).await;
    for bad in ["\u{202e}iadneT", "Ten\u{200b}dai", "x\u{301}\u{302}\u{303}\u{304}\u{305}"] {
        let (st, v) = post(addr, "/api/online/rooms", json!({"ruleset": "tsoro:8", "name": bad})).await;
        assert_eq!((st, v["error"].as_str()), (400, Some("invalid_field")), "{bad:?}: {v}");
    }
    let (st, made) =
        post(addr, "/api/online/rooms", json!({"ruleset": "tsoro:8", "side": "south", "name": "Te\u{301}ndai"})).await;
    assert_eq!(st, 201, "{made}");
    let id = made["id"].as_str().unwrap();
    let (_, state) = get(addr, &format!("/api/online/rooms/{id}")).await;
    assert_eq!(state["seats"]["south"]["name"], "T\u{e9}ndai", "stored in NFC: {state}");
    // The other seat: a look-alike (Cyrillic е, other case) is refused and the seat stays free.
    let claim = |name: &str| json!({"invite": made["invite"], "name": name});
    let (st, v) = post(addr, &format!("/api/online/rooms/{id}/claim"), claim("t\u{e9}nd\u{430}i")).await;
    assert_eq!((st, v["error"].as_str()), (400, Some("invalid_field")), "{v}");
    assert!(v["message"].as_str().unwrap().contains("looks like"), "{v}");
    let (st, joined) = post(addr, &format!("/api/online/rooms/{id}/claim"), claim("Rudo")).await;
    assert_eq!(st, 200, "{joined}");
    // Chat: a hidden override is refused, a decomposed line goes out composed.
    let (mut s, _) = room(addr, id, Some(made["token"].as_str().unwrap())).await;
    send(&mut s, json!({"type": "chat", "text": "gg\u{202e}"})).await;
    let e = recv_type_or_error(&mut s, "error").await;
    assert_eq!(e["error"], "invalid_field", "{e}");
    send(&mut s, json!({"type": "chat", "text": "cafe\u{301}"})).await;
    let c = recv_type_or_error(&mut s, "chat").await;
    assert_eq!(c["text"], "caf\u{e9}", "{c}");
    // The north seat holder cannot connect under South's name either.
    let mut ws = ws::connect(addr, &format!("/api/online/rooms/{id}/ws")).await;
    send(&mut ws, json!({"type": "hello", "token": joined["token"], "name": "T\u{c9}NDAI"})).await;
    let e = recv_type_or_error(&mut ws, "error").await;
    assert_eq!(e["error"], "invalid_field", "{e}");

    // The lobby: a second identity cannot take a look-alike of the first one's name.
    let mut ws = ws::connect(addr, "/api/online/lobby/ws").await;
    send(&mut ws, json!({"type": "hello", "player": "a".repeat(40), "name": "Chipo"})).await;
    assert_eq!(recv_type_or_error(&mut ws, "welcome").await["you"]["name"], "Chipo");
    let mut other = ws::connect(addr, "/api/online/lobby/ws").await;
    send(&mut other, json!({"type": "hello", "player": "b".repeat(40), "name": "Ch\u{456}po"})).await;
    let e = recv_type_or_error(&mut other, "welcome").await;
    assert_eq!(e["error"], "invalid_field", "{e}");
    let (mut b, wb) = player(addr, 'b').await;
    assert_eq!(wb["you"]["name"], "Pb");
    send(&mut b, json!({"type": "name", "name": "chipo"})).await;
    let e = recv_type_or_error(&mut b, "you").await;
    assert_eq!(e["error"], "invalid_field", "{e}");
    send(&mut b, json!({"type": "name", "name": "\u{2067}Chipo"})).await;
    assert_eq!(recv_type_or_error(&mut b, "you").await["error"], "invalid_field");
    // Her own name, in another case: hers to take.
    send(&mut ws, json!({"type": "name", "name": "CHIPO"})).await;
    assert_eq!(recv_type_or_error(&mut ws, "you").await["player"]["name"], "CHIPO");
}
