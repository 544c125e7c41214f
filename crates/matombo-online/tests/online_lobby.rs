//! The lobby with real WebSocket clients on loopback: players meet through a challenge or
//! quick pairing, play a rated game whose ratings change as Glicko-2 says, rematch with
//! colours swapped, chat (players apart from spectators, mutes), move an identity to
//! another device; a third client sees the lobby change live; the limits hold.

mod common;

use std::net::SocketAddr;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use matombo_core::Position;
use matombo_online::rating::{update, Rating};
use matombo_online::Limits;
use matombo_testkit::http::get;
use matombo_testkit::ws::{self, lobby, recv, recv_error, recv_type, room, send, Ws};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

async fn server(name: &str, limits: Limits) -> SocketAddr {
    common::start_server(&common::temp_db("lobby", name), limits).await
}

fn secret(c: char) -> String {
    std::iter::repeat_n(c, 40).collect()
}

async fn player(addr: SocketAddr, c: char, name: &str) -> (Ws, Value) {
    lobby(addr, json!({"type": "hello", "player": secret(c), "name": name})).await
}

/// Rudo (secret a…) and Tendai (secret b…) in the lobby, welcomed.
async fn rudo_and_tendai(addr: SocketAddr) -> (Ws, Ws) {
    (player(addr, 'a', "Rudo").await.0, player(addr, 'b', "Tendai").await.0)
}

fn first_turn(position: &str) -> String {
    let p: Position = position.parse().unwrap();
    p.turns().next().unwrap().0.to_string()
}

/// A and B meet through A's open challenge (A takes South); answers their matched messages.
async fn meet(a: &mut Ws, b: &mut Ws, ruleset: &str, rated: bool) -> (Value, Value) {
    send(a, json!({"type": "challenge", "ruleset": ruleset, "side": "south", "rated": rated})).await;
    let mine = recv_type(a, "challenge_added").await;
    let id = mine["challenge"]["id"].as_str().unwrap().to_string();
    let seen = recv_type(b, "challenge_added").await;
    assert_eq!(seen["challenge"]["id"], id.as_str());
    send(b, json!({"type": "accept", "id": id})).await;
    (recv_type(a, "matched").await, recv_type(b, "matched").await)
}

/// Each side plays two turns (a rated game counts from then on), North resigns: South
/// wins. Answers the room's `ratings` message (as South saw it) if the game was rated.
async fn south_wins(addr: SocketAddr, ma: &Value, mb: &Value, rated: bool) -> (Ws, Ws, Option<Value>) {
    let room_id = ma["room"].as_str().unwrap();
    let (mut s, st) = room(addr, room_id, ma["token"].as_str()).await;
    assert_eq!(st["you"], "south");
    let (mut n, _) = room(addr, room_id, mb["token"].as_str()).await;
    let mut position = st["position"].as_str().unwrap().to_string();
    for ply in 0..4 {
        let (me, other) = if ply % 2 == 0 { (&mut s, &mut n) } else { (&mut n, &mut s) };
        send(me, json!({"type": "turn", "ply": ply, "move": first_turn(&position)})).await;
        let t = recv_type(other, "turn").await;
        recv_type(me, "turn").await;
        position = t["position"].as_str().unwrap().to_string();
    }
    send(&mut n, json!({"type": "resign"})).await;
    let end = recv_type(&mut s, "end").await;
    assert_eq!(end["outcome"]["winner"], "south");
    let ratings = if rated { Some(recv_type(&mut s, "ratings").await) } else { None };
    (s, n, ratings)
}

#[tokio::test]
async fn two_players_meet_in_the_lobby_and_a_rated_game_changes_both_ratings() {
    let addr = server("rated", common::fast()).await;
    let (mut watcher, w) = lobby(addr, json!({"type": "hello"})).await;
    assert_eq!(w["you"], Value::Null);
    let (mut a, wa) = player(addr, 'a', "Rudo").await;
    assert_eq!(wa["you"]["name"], "Rudo");
    assert_eq!(wa["you"]["ratings"], json!({}));
    let (mut b, _) = player(addr, 'b', "Tendai").await;

    send(&mut a, json!({"type": "challenge", "ruleset": "tsoro:8", "side": "south", "clock": {"initial_ms": 60000, "increment_ms": 1000}})).await;
    let seen = recv_type(&mut watcher, "challenge_added").await;
    let c = &seen["challenge"];
    assert_eq!(c["by"]["name"], "Rudo");
    assert_eq!(c["by"]["rating"], 1500.0);
    assert_eq!(c["by"]["provisional"], true);
    assert_eq!(c["rated"], true);
    assert_eq!(c["group"], "tsoro-small");
    let id = c["id"].as_str().unwrap().to_string();
    recv_type(&mut b, "challenge_added").await;
    send(&mut b, json!({"type": "accept", "id": id})).await;
    let ma = recv_type(&mut a, "matched").await;
    let mb = recv_type(&mut b, "matched").await;
    assert_eq!(ma["room"], mb["room"]);
    assert_eq!((ma["side"].as_str(), mb["side"].as_str()), (Some("south"), Some("north")));
    // The watcher sees the challenge go and the game come, live.
    let removed = recv_type(&mut watcher, "challenge_removed").await;
    assert_eq!((removed["id"].as_str(), removed["reason"].as_str()), (Some(id.as_str()), Some("accepted")));
    let added = recv_type(&mut watcher, "game_added").await;
    assert_eq!(added["game"]["id"], ma["room"]);
    assert_eq!(added["game"]["south"]["name"], "Rudo");

    let (_s, _n, ratings) = south_wins(addr, &ma, &mb, true).await;
    let ratings = ratings.unwrap();
    let start = Rating::default();
    let win = update(start, &[(start, 1.0)]);
    let loss = update(start, &[(start, 0.0)]);
    let r2 = |x: f64| (x * 100.0).round() / 100.0;
    assert_eq!(ratings["group"], "tsoro-small");
    assert_eq!(ratings["south"]["before"]["rating"], 1500.0);
    assert_eq!(ratings["south"]["after"]["rating"], r2(win.rating));
    assert_eq!(ratings["south"]["after"]["rd"], r2(win.rd));
    assert_eq!(ratings["north"]["after"]["rating"], r2(loss.rating));
    assert!(win.rating > 1500.0 && loss.rating < 1500.0);
    let gone = recv_type(&mut watcher, "game_removed").await;
    assert_eq!(gone["id"], ma["room"]);
    // The lobby tells each player his new rating.
    let you = recv_type(&mut a, "you").await;
    assert_eq!(you["player"]["ratings"]["tsoro-small"]["rating"], r2(win.rating));
    assert_eq!(you["player"]["ratings"]["tsoro-small"]["games"], 1);

    // Leaderboard and history.
    let (st, board) = get(addr, "/api/online/leaderboard/tsoro-small").await;
    assert_eq!(st, 200);
    assert_eq!(board["players"][0]["name"], "Rudo");
    assert_eq!(board["players"][0]["rank"], 1);
    assert_eq!(board["players"][1]["name"], "Tendai");
    assert_eq!(board["players"][1]["provisional"], true);
    let a_id = wa["you"]["id"].as_str().unwrap();
    let (st, hist) = get(addr, &format!("/api/online/players/{a_id}")).await;
    assert_eq!(st, 200, "{hist}");
    assert_eq!(hist["games"][0]["result"], "1-0");
    assert_eq!(hist["games"][0]["opponent"]["name"], "Tendai");
    assert_eq!(hist["games"][0]["after"]["rating"], r2(win.rating));
    assert_eq!(get(addr, "/api/online/leaderboard/nope").await.0, 404);
    assert_eq!(get(addr, "/api/online/players/nobody").await.0, 404);
    let (_, groups) = get(addr, "/api/online/groups").await;
    assert_eq!(groups.as_array().unwrap().len(), 4);
    // The secret is nowhere in what others can read.
    let body = format!("{board}{hist}");
    assert!(!body.contains(&secret('a')));
}

#[tokio::test]
async fn rematch_swaps_colours_and_chat_keeps_players_and_spectators_apart() {
    let addr = server("rematch", common::fast()).await;
    let (mut a, mut b) = rudo_and_tendai(addr).await;
    let (ma, mb) = meet(&mut a, &mut b, "nsolo:8", false).await;
    let room_id = ma["room"].as_str().unwrap().to_string();
    let (mut spec, st) = room(addr, &room_id, None).await;
    assert_eq!(st["players"]["south"]["id"].as_str().map(str::len), Some(12));
    let (mut s, mut n, _) = south_wins(addr, &ma, &mb, false).await;

    // Chat: the players' line reaches both players, not the spectator.
    send(&mut s, json!({"type": "chat", "text": "good game <b>!</b>"})).await;
    let line = recv_type(&mut n, "chat").await;
    assert_eq!(line["text"], "good game <b>!</b>", "relayed as plain text, untouched");
    assert_eq!((line["channel"].as_str(), line["from"].as_str()), (Some("players"), Some("south")));
    assert_eq!(recv_type(&mut s, "chat").await["from"], "south");
    send(&mut spec, json!({"type": "chat", "text": "well played"})).await;
    let own = recv_type(&mut spec, "chat").await;
    assert_eq!(own["channel"], "spectators", "the spectator's first chat line is its own: {own}");
    let spectator = own["from"].as_str().unwrap().to_string();
    assert!(spectator.starts_with('w'));
    // Mute: North stops hearing South; North's own next line is the next it gets.
    send(&mut n, json!({"type": "mute", "from": "south"})).await;
    send(&mut n, json!({"type": "ping"})).await;
    recv_type(&mut n, "pong").await;
    send(&mut s, json!({"type": "chat", "text": "muted line"})).await;
    recv_type(&mut s, "chat").await;
    send(&mut n, json!({"type": "chat", "text": "north speaks"})).await;
    let next = recv_type(&mut n, "chat").await;
    assert_eq!(next["text"], "north speaks", "the muted line was not delivered");
    // Limits on chat: length and control characters.
    send(&mut s, json!({"type": "chat", "text": "x".repeat(301)})).await;
    assert_eq!(recv_error(&mut s).await["error"], "invalid_field");

    // Rematch: offered by North, accepted by South; colours swapped.
    send(&mut spec, json!({"type": "rematch"})).await;
    assert_eq!(recv_error(&mut spec).await["error"], "not_a_player");
    send(&mut n, json!({"type": "rematch"})).await;
    let offer = recv_type(&mut s, "rematch").await;
    assert_eq!(offer["offered_by"], "north");
    send(&mut s, json!({"type": "rematch"})).await;
    let rs = recv_type(&mut s, "rematch_ready").await;
    let rn = recv_type(&mut n, "rematch_ready").await;
    let rw = recv_type(&mut spec, "rematch_ready").await;
    assert_eq!(rs["room"], rn["room"]);
    assert_eq!(rw["token"], Value::Null);
    assert_eq!((rs["side"].as_str(), rn["side"].as_str()), (Some("north"), Some("south")));
    let new_room = rs["room"].as_str().unwrap();
    let (_, st_a) = room(addr, new_room, rs["token"].as_str()).await;
    assert_eq!(st_a["you"], "north");
    assert_eq!(st_a["seats"]["north"]["name"], "Rudo");
    assert_eq!(st_a["players"]["north"]["id"], st["players"]["south"]["id"]);
    assert_eq!(st_a["ruleset"], "nsolo:8");
    // Abort before the first turn closes it without a result.
    let (mut new_s, _) = room(addr, new_room, rn["token"].as_str()).await;
    send(&mut new_s, json!({"type": "abort"})).await;
    let closed = recv_type(&mut new_s, "closed").await;
    assert_eq!(closed["reason"], "aborted");
    assert_eq!(get(addr, &format!("/api/online/rooms/{new_room}")).await.0, 410);
}

#[tokio::test]
async fn quick_pairing_pairs_two_waiting_players() {
    let addr = server("pairing", common::fast()).await;
    let (mut a, mut b) = rudo_and_tendai(addr).await;
    send(&mut a, json!({"type": "seek", "ruleset": "tsoro:21"})).await;
    assert_eq!(recv_type(&mut a, "seeking").await["seek"]["ruleset"], "tsoro:21");
    send(&mut a, json!({"type": "seek", "ruleset": "tsoro:21"})).await;
    assert_eq!(recv_error(&mut a).await["error"], "too_many_challenges");
    // Another ruleset does not pair.
    send(&mut b, json!({"type": "seek", "ruleset": "tsoro:20"})).await;
    recv_type(&mut b, "seeking").await;
    send(&mut b, json!({"type": "unseek"})).await;
    assert_eq!(recv_type(&mut b, "seeking").await["seek"], Value::Null);
    send(&mut b, json!({"type": "seek", "ruleset": "tsoro:21"})).await;
    let ma = recv_type(&mut a, "matched").await;
    let mb = recv_type(&mut b, "matched").await;
    assert_eq!(ma["room"], mb["room"]);
    assert_ne!(ma["side"], mb["side"]);
}

#[tokio::test]
async fn a_challenge_goes_when_its_creator_leaves() {
    let addr = server("leave", common::fast()).await;
    let (mut watcher, _) = lobby(addr, json!({"type": "hello"})).await;
    let (mut a, _) = player(addr, 'a', "Rudo").await;
    send(&mut a, json!({"type": "challenge", "ruleset": "tsoro:8"})).await;
    let id = recv_type(&mut watcher, "challenge_added").await["challenge"]["id"].clone();
    // A late-comer sees it in the welcome.
    let (_late, w) = lobby(addr, json!({"type": "hello"})).await;
    assert_eq!(w["challenges"][0]["id"], id);
    a.close(None).await.unwrap();
    let gone = recv_type(&mut watcher, "challenge_removed").await;
    assert_eq!((gone["id"].clone(), gone["reason"].as_str()), (id, Some("left")));
}

#[tokio::test]
async fn an_identity_moves_to_another_device_with_its_rating() {
    let addr = server("transfer", common::fast()).await;
    let (mut a, wa) = player(addr, 'a', "Rudo").await;
    let (mut b, _) = player(addr, 'b', "Tendai").await;
    let (ma, mb) = meet(&mut a, &mut b, "tsoro:21", true).await;
    south_wins(addr, &ma, &mb, true).await;
    let rating = recv_type(&mut a, "you").await["player"]["ratings"]["tsoro-21"].clone();
    send(&mut a, json!({"type": "transfer_code"})).await;
    let code = recv_type(&mut a, "transfer_code").await["code"].as_str().unwrap().to_string();
    assert_eq!(code.len(), 8);
    // A wrong code, and a code with a secret already in use, change nothing.
    let mut ws = ws::connect(addr, "/api/online/lobby/ws").await;
    send(&mut ws, json!({"type": "hello", "player": secret('d'), "transfer": "ZZZZZZZZ"})).await;
    assert_eq!(recv_error(&mut ws).await["error"], "bad_code");
    let (_d, wd) = lobby(addr, json!({"type": "hello", "player": secret('d'), "transfer": code})).await;
    assert_eq!(wd["you"]["id"], wa["you"]["id"]);
    assert_eq!(wd["you"]["ratings"]["tsoro-21"], rating);
    // Used once.
    let mut ws = ws::connect(addr, "/api/online/lobby/ws").await;
    send(&mut ws, json!({"type": "hello", "player": secret('e'), "transfer": code})).await;
    assert_eq!(recv_error(&mut ws).await["error"], "bad_code");
    // The old device's secret no longer names the player (a new identity, which may not
    // take a look-alike of Rudo's name).
    let (_old, wo) = player(addr, 'a', "Farai").await;
    assert_ne!(wo["you"]["id"], wa["you"]["id"]);
}

#[tokio::test]
async fn a_wrong_room_says_no_such_game() {
    let addr = server("nosuch", common::fast()).await;
    let mut ws = ws::connect(addr, "/api/online/rooms/nosuchgame/ws").await;
    let m = recv(&mut ws).await;
    assert_eq!(m["error"], "not_found", "{m}");
    match tokio::time::timeout(Duration::from_secs(5), ws.next()).await.unwrap() {
        Some(Ok(Message::Close(Some(f)))) => assert_eq!(u16::from(f.code), 4404),
        other => panic!("expected a close frame, got {other:?}"),
    }
    assert_eq!(get(addr, "/api/online/rooms/nosuchgame").await.0, 404);
}

#[tokio::test]
async fn lobby_limits_hold_and_refusals_change_nothing() {
    let addr = server("limits", Limits { lobby_actions_per_sec: 10_000.0, ..Limits::default() }).await;
    let (mut watcher, _) = lobby(addr, json!({"type": "hello"})).await;
    // Without an identity: watch only.
    send(&mut watcher, json!({"type": "challenge", "ruleset": "tsoro:8"})).await;
    assert_eq!(recv_error(&mut watcher).await["error"], "no_identity");
    let (mut a, _) = player(addr, 'a', "Rudo").await;
    for bad in [
        json!({"type": "challenge", "ruleset": "chess:8"}),
        json!({"type": "challenge", "ruleset": "tsoro:8", "clock": {"initial_ms": 1, "increment_ms": 0}}),
        json!({"type": "challenge", "ruleset": "tsoro:8", "colour": "red"}),
        json!({"type": "accept", "id": "nosuchchallenge"}),
        json!({"type": "cancel", "id": "nosuchchallenge"}),
        json!({"type": "name", "name": "a\u{7}b"}),
        json!({"type": "hello", "player": secret('a')}),
        json!({"type": "transfer"}),
        json!([1, 2]),
    ] {
        send(&mut a, bad.clone()).await;
        let e = recv_error(&mut a).await;
        assert!(e["message"].as_str().is_some_and(|m| !m.is_empty()), "{bad} → {e}");
    }
    a.send(Message::text("{\"type\":")).await.unwrap();
    assert_eq!(recv_error(&mut a).await["error"], "malformed");
    // Three open challenges at most; accepting one's own is refused.
    for _ in 0..3 {
        send(&mut a, json!({"type": "challenge", "ruleset": "tsoro:8"})).await;
        recv_type(&mut a, "challenge_added").await;
    }
    send(&mut a, json!({"type": "challenge", "ruleset": "tsoro:8"})).await;
    assert_eq!(recv_error(&mut a).await["error"], "too_many_challenges");
    let (_, w) = lobby(addr, json!({"type": "hello"})).await;
    let list = w["challenges"].as_array().unwrap();
    assert_eq!(list.len(), 3, "only the three accepted challenges: {w}");
    assert!(list[0]["link"].as_str().unwrap().ends_with(list[0]["id"].as_str().unwrap()));
    send(&mut a, json!({"type": "accept", "id": list[0]["id"]})).await;
    assert_eq!(recv_error(&mut a).await["error"], "own_challenge");
    // Another player cannot cancel it.
    let (mut b, _) = player(addr, 'b', "Tendai").await;
    send(&mut b, json!({"type": "cancel", "id": list[0]["id"]})).await;
    assert_eq!(recv_error(&mut b).await["error"], "not_found");
    let (_, w) = lobby(addr, json!({"type": "hello"})).await;
    assert_eq!(w["challenges"].as_array().unwrap().len(), 3);
    // Link-only challenges are not listed.
    send(&mut b, json!({"type": "challenge", "ruleset": "nsolo:8", "open": false})).await;
    let mine = recv_type(&mut b, "challenge_added").await;
    assert!(mine["challenge"]["link"].as_str().unwrap().starts_with("/online/?challenge="));
    // Its link's page can read it, though no list has it.
    let (st, one) = get(addr, &format!("/api/online/challenges/{}", mine["challenge"]["id"].as_str().unwrap())).await;
    assert_eq!(st, 200);
    assert_eq!((one["ruleset"].as_str(), one["open"].as_bool()), (Some("nsolo:8"), Some(false)));
    assert_eq!(get(addr, "/api/online/challenges/nosuch").await.0, 404);
    let (_, w) = lobby(addr, json!({"type": "hello"})).await;
    assert_eq!(w["challenges"].as_array().unwrap().len(), 3);
}

#[tokio::test]
async fn a_player_cannot_act_in_a_game_not_his() {
    let addr = server("not-his", common::fast()).await;
    let (mut a, mut b) = rudo_and_tendai(addr).await;
    let (m1, _) = meet(&mut a, &mut b, "tsoro:8", false).await;
    let (mut c, _) = player(addr, 'c', "Chipo").await;
    let (mut d, _) = player(addr, 'd', "Dumi").await;
    let (m2, _) = meet(&mut c, &mut d, "tsoro:8", false).await;
    // C's seat token of room 2 in room 1: a spectator there.
    let mut ws = ws::connect(addr, &format!("/api/online/rooms/{}/ws", m1["room"].as_str().unwrap())).await;
    send(&mut ws, json!({"type": "hello", "token": m2["token"]})).await;
    assert_eq!(recv_error(&mut ws).await["error"], "bad_token");
    let st = recv_type(&mut ws, "state").await;
    assert_eq!(st["you"], Value::Null);
    let (mut south, _) = room(addr, m1["room"].as_str().unwrap(), m1["token"].as_str()).await;
    send(&mut ws, json!({"type": "turn", "ply": 0, "move": first_turn(st["position"].as_str().unwrap())})).await;
    assert_eq!(recv_error(&mut ws).await["error"], "not_a_player");
    send(&mut ws, json!({"type": "rematch"})).await;
    assert_eq!(recv_error(&mut ws).await["error"], "not_a_player");
    send(&mut ws, json!({"type": "abort"})).await;
    assert_eq!(recv_error(&mut ws).await["error"], "not_a_player");
    // Its chat goes to the spectators, never to the players.
    send(&mut ws, json!({"type": "chat", "text": "hi"})).await;
    assert_eq!(recv_type(&mut ws, "chat").await["channel"], "spectators");
    send(&mut south, json!({"type": "chat", "text": "players only"})).await;
    assert_eq!(recv_type(&mut south, "chat").await["text"], "players only");
    // The game did not move.
    let (_, state) = get(addr, &format!("/api/online/rooms/{}", m1["room"].as_str().unwrap())).await;
    assert_eq!(state["ply"], 0);
}

#[tokio::test]
async fn hostile_lobby_messages_get_an_error_and_change_nothing() {
    use rand::{rngs::SmallRng, Rng, SeedableRng};
    let addr = server("hostile", common::fast()).await;
    let (mut a, _) = player(addr, 'a', "Rudo").await;
    let mut rng = SmallRng::seed_from_u64(26);
    let junk = |rng: &mut SmallRng, n: usize| -> String {
        (0..n).map(|_| char::from_u32(rng.random_range(0..0x3000)).unwrap_or('\u{7}')).collect()
    };
    for i in 0..300 {
        let msg = match i % 6 {
            0 => {
                let n = rng.random_range(0..60);
                junk(&mut rng, n)
            }
            1 => json!({"type": "challenge", "ruleset": junk(&mut rng, 12)}).to_string(),
            2 => {
                let ty = if i % 4 == 2 { "accept" } else { "cancel" };
                json!({"type": ty, "id": format!("{}/", junk(&mut rng, 8))}).to_string()
            }
            3 => json!({"type": "name", "name": format!("{}\u{1}", junk(&mut rng, 5))}).to_string(),
            4 => {
                let ms = rng.random_range(0..999);
                json!({"type": "seek", "ruleset": "tsoro:8", "clock": {"initial_ms": ms, "increment_ms": 0}})
                    .to_string()
            }
            _ => json!({"type": junk(&mut rng, 6), "ruleset": "tsoro:8"}).to_string(),
        };
        a.send(Message::text(msg.clone())).await.unwrap();
        let e = recv_error(&mut a).await;
        assert!(e["error"].is_string(), "{msg:?} → {e}");
    }
    // Nothing was created: no challenge listed, no seek, the name unchanged.
    let (_, w) = lobby(addr, json!({"type": "hello", "player": secret('a')})).await;
    assert_eq!(w["challenges"], json!([]));
    assert_eq!(w["you"]["name"], "Rudo");
    let (mut b, _) = player(addr, 'b', "Tendai").await;
    send(&mut b, json!({"type": "seek", "ruleset": "tsoro:8"})).await;
    recv_type(&mut b, "seeking").await;
    send(&mut b, json!({"type": "ping"})).await;
    let next = recv(&mut b).await;
    assert_eq!(next["type"], "pong", "nobody else was waiting: {next}");
}

#[tokio::test]
async fn rates_of_challenges_chat_and_new_identities_are_bounded() {
    let addr = server(
        "rates",
        Limits { players_per_addr_hour: 3, messages_per_sec: 10_000.0, turns_per_sec: 10_000.0, ..Limits::default() },
    )
    .await;
    let (mut a, mut b) = rudo_and_tendai(addr).await;
    // One challenge or seek a second per connection.
    send(&mut a, json!({"type": "challenge", "ruleset": "tsoro:8"})).await;
    recv_type(&mut a, "challenge_added").await;
    send(&mut a, json!({"type": "challenge", "ruleset": "tsoro:9"})).await;
    assert_eq!(recv_error(&mut a).await["error"], "rate_limited");
    // Chat: two lines at once, then one a second.
    let id = recv_type(&mut b, "challenge_added").await["challenge"]["id"].clone();
    send(&mut b, json!({"type": "accept", "id": id})).await;
    let m = recv_type(&mut b, "matched").await;
    let (mut ws, _) = room(addr, m["room"].as_str().unwrap(), m["token"].as_str()).await;
    for _ in 0..2 {
        send(&mut ws, json!({"type": "chat", "text": "hello"})).await;
        recv_type(&mut ws, "chat").await;
    }
    send(&mut ws, json!({"type": "chat", "text": "hello"})).await;
    assert_eq!(recv_error(&mut ws).await["error"], "rate_limited");
    // Three identities an hour from this address (two made above).
    player(addr, 'c', "Chipo").await;
    let mut ws = ws::connect(addr, "/api/online/lobby/ws").await;
    send(&mut ws, json!({"type": "hello", "player": secret('d')})).await;
    assert_eq!(recv_error(&mut ws).await["error"], "rate_limited");
    // A known player still comes in.
    let (_, w) = player(addr, 'a', "Rudo").await;
    assert_eq!(w["you"]["name"], "Rudo");
}

/// A server on `db` that stops when the sender is dropped or sent to.
async fn start_stoppable(
    db: &std::path::Path,
) -> (SocketAddr, tokio::sync::oneshot::Sender<()>, tokio::task::JoinHandle<std::io::Result<()>>) {
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let (addr, server) = common::serve_until(db, common::fast(), async move {
        let _ = stop_rx.await;
    })
    .await;
    (addr, stop_tx, server)
}

#[tokio::test]
async fn a_rated_lobby_game_survives_a_restart_listed_and_rated() {
    let db = common::temp_db("lobby", "restart");
    let (ma, mb) = {
        let (addr, stop, server) = start_stoppable(&db).await;
        let (mut a, mut b) = rudo_and_tendai(addr).await;
        let m = meet(&mut a, &mut b, "nsolo:20", true).await;
        drop((a, b));
        let _ = stop.send(());
        server.await.unwrap().unwrap();
        m
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    let (addr, _stop, _server) = start_stoppable(&db).await;
    let (_w, welcome) = lobby(addr, json!({"type": "hello"})).await;
    assert_eq!(welcome["games"][0]["id"], ma["room"], "{welcome}");
    assert_eq!(welcome["games"][0]["group"], "nsolo-large");
    let (_, st) = room(addr, ma["room"].as_str().unwrap(), None).await;
    assert_eq!(st["rated"], true);
    assert_eq!(st["players"]["south"]["name"], "Rudo");
    let (_s, _n, ratings) = south_wins(addr, &ma, &mb, true).await;
    let ratings = ratings.unwrap();
    assert_eq!(ratings["group"], "nsolo-large");
    assert!(ratings["south"]["after"]["rating"].as_f64().unwrap() > 1500.0);
}
