//! Issue 37 item 2, rating farming: two identities of one address play rated lobby games
//! in which one side resigns, then rematch, over two lanes of play (a lobby connection per
//! identity in each: 4 connections). Every other game the loser resigns at once; the others
//! he resigns after two turns each (a farmer who knows the rule). Before the fix the farmer
//! made 117 rated games a second and led the leaderboard. The bound: no game with fewer
//! than two turns each is rated, at most 3 rated games a day for the pair, and no
//! provisional player (the farmer) is listed above an established one.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};

use matombo_core::Side;
use rand::rngs::SmallRng;
use rand::SeedableRng;
use serde_json::{json, Value};

use super::attacks::{Effect, Tally};
use super::honest::{join, position_of, random_turn};
use super::lobby_flood::{challenge_and_accept, code, identity, next_of, secret, send};
use super::net::{self, attacker, Ws};
use super::Scale;

/// The attack's address group (127.13.x.y).
const GROUP: u8 = 12;
const WAIT: Duration = Duration::from_secs(5);
/// The rating group of tsoro:8.
const GROUP_NAME: &str = "tsoro-small";

/// A seat of a room: its id, the side and the token.
struct Seat {
    room: String,
    side: Side,
    token: String,
}

fn side_of(v: &Value) -> Side {
    if v["side"] == "north" {
        Side::North
    } else {
        Side::South
    }
}

/// What the lanes found, shared.
#[derive(Default)]
struct Farm {
    /// Games with fewer than two turns each whose end changed the rated count.
    short_rated: u64,
    /// Games ended with two turns each.
    long_games: u64,
    /// Games ended at once.
    short_games: u64,
    /// The farmer's rated games at the start.
    rated_before: u64,
}

/// The farmer's rated games in the group (0 without a rating there).
async fn rated_games(src: IpAddr, server: SocketAddr, id: &str) -> Result<u64, String> {
    let a = net::request(src, server, "GET", &format!("/api/online/players/{id}"), &[], b"", WAIT).await;
    if a.status != 200 {
        return Err(format!("player {}", a.kind()));
    }
    let v: Value = serde_json::from_str(&a.body).map_err(|_| "bad player JSON".to_string())?;
    Ok(v["ratings"][GROUP_NAME]["games"].as_u64().unwrap_or(0))
}

/// Plays `plies` random legal turns in the room from its two seats' sockets.
async fn play(seats: &mut [(Side, Ws); 2], state: &Value, plies: u32, rng: &mut SmallRng) -> Result<(), String> {
    let (mut pos, mut ply, _) = position_of(state).ok_or("bad state")?;
    for _ in 0..plies {
        let mover = pos.side_to_move();
        let mv = random_turn(&pos, rng).ok_or("no legal turn")?;
        let (m, o) = if seats[0].0 == mover { (0, 1) } else { (1, 0) };
        loop {
            send(&mut seats[m].1, json!({"type": "turn", "ply": ply, "move": mv})).await?;
            let v = next_of(&mut seats[o].1, &["turn", "end"], WAIT).await;
            let v = match v {
                Ok(v) if v["type"] == "error" => return Err(format!("turn {}", code(&v))),
                Ok(v) => v,
                // Refused to the mover (its budget): the opponent hears nothing; again later.
                Err(_) => return Err("turn not delivered".into()),
            };
            if v["type"] == "turn" && v["ply"] == ply {
                let (p, _, over) = position_of(&v).ok_or("bad turn")?;
                if over {
                    return Ok(());
                }
                pos = p;
                ply += 1;
                break;
            }
        }
    }
    Ok(())
}

/// One lane: games between the farmer (`f`) and his victim (`v`), each from a lobby
/// connection of its own, the victim losing every game; rematches when the server makes
/// them, else a new challenge.
#[allow(clippy::too_many_arguments)]
async fn lane(
    server: SocketAddr,
    src: IpAddr,
    farmer: String,
    f: &mut Ws,
    v: &mut Ws,
    until: Instant,
    tally: &Tally,
    farm: &tokio::sync::Mutex<Farm>,
    seed: u64,
) {
    // Each lane's victim challenges on a side of its own (see `challenge_and_accept`).
    let side = if seed == 0 { "south" } else { "north" };
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut next: Option<[Seat; 2]> = None;
    let mut n = 0u64;
    while Instant::now() < until {
        // [farmer's seat, victim's seat]
        let seats = match next.take() {
            Some(s) => s,
            None => match challenge_and_accept(v, f, true, side).await {
                Ok((m, challenge)) => {
                    let room = m["room"].as_str().unwrap_or_default().to_string();
                    let fs = side_of(&m);
                    let mine =
                        Seat { room: room.clone(), side: fs, token: m["token"].as_str().unwrap_or_default().into() };
                    // The victim's `matched` (his own token) on his lobby connection.
                    let Some(mv) = matched(v, &challenge).await else {
                        tally.count("victim not matched");
                        continue;
                    };
                    tally.count("challenge accepted");
                    let theirs =
                        Seat { room, side: fs.opponent(), token: mv["token"].as_str().unwrap_or_default().into() };
                    [mine, theirs]
                }
                Err(e) => {
                    tally.count(e.clone());
                    if e.contains("closed") || e.contains("failed") {
                        return;
                    }
                    tokio::time::sleep(Duration::from_millis(200)).await;
                    continue;
                }
            },
        };
        n += 1;
        match game(server, src, &farmer, seats, n % 2 == 0, tally, farm, &mut rng).await {
            Ok(re) => next = re,
            Err(e) => tally.count(e),
        }
    }
}

/// The `matched` message of `challenge` on a lobby connection.
async fn matched(ws: &mut Ws, challenge: &str) -> Option<Value> {
    loop {
        let v = next_of(ws, &["matched"], WAIT).await.ok()?;
        if v["type"] == "error" {
            return None;
        }
        if v["challenge"] == challenge {
            return Some(v);
        }
    }
}

/// One game: joined, played (two turns each if `long`), resigned by the victim, checked,
/// and the rematch asked for (its seats, if made).
#[allow(clippy::too_many_arguments)]
async fn game(
    server: SocketAddr,
    src: IpAddr,
    farmer: &str,
    seats: [Seat; 2],
    long: bool,
    tally: &Tally,
    farm: &tokio::sync::Mutex<Farm>,
    rng: &mut SmallRng,
) -> Result<Option<[Seat; 2]>, String> {
    let room = seats[0].room.clone();
    let (fw, state) = join(src, server, &room, &seats[0].token).await?;
    let (vw, _) = join(src, server, &room, &seats[1].token).await?;
    let mut ws = [(seats[0].side, fw), (seats[1].side, vw)];
    if long {
        play(&mut ws, &state, 4, rng).await?;
    }
    {
        // One end at a time, so that a change of the rated count is this game's.
        let mut farm = farm.lock().await;
        let before = rated_games(src, server, farmer).await?;
        send(&mut ws[1].1, json!({"type": "resign"})).await?;
        let end = next_of(&mut ws[0].1, &["end"], WAIT).await?;
        if end["type"] == "error" {
            return Err(format!("resign {}", code(&end)));
        }
        let after = rated_games(src, server, farmer).await?;
        if long {
            farm.long_games += 1;
            tally.count("game resigned after two turns each");
        } else {
            farm.short_games += 1;
            tally.count("game resigned at once");
            if after > before {
                farm.short_rated += 1;
            }
        }
    }
    // Rematch: offered by the victim, accepted by the farmer.
    send(&mut ws[1].1, json!({"type": "rematch"})).await?;
    let offered = next_of(&mut ws[0].1, &["rematch"], WAIT).await?;
    if offered["type"] == "error" {
        return Err(format!("rematch offer {}", code(&offered)));
    }
    send(&mut ws[0].1, json!({"type": "rematch"})).await?;
    let mine = next_of(&mut ws[0].1, &["rematch_ready"], WAIT).await?;
    if mine["type"] == "error" {
        tally.count(format!("rematch {}", code(&mine)));
        return Ok(None);
    }
    let theirs = next_of(&mut ws[1].1, &["rematch_ready"], WAIT).await?;
    tally.count("rematch made");
    let seat = |v: &Value| Seat {
        room: v["room"].as_str().unwrap_or_default().to_string(),
        side: side_of(v),
        token: v["token"].as_str().unwrap_or_default().to_string(),
    };
    Ok(Some([seat(&mine), seat(&theirs)]))
}

/// The farm; see the module.
pub async fn rating_farm(server: SocketAddr, until: Instant, scale: Scale, tally: Arc<Tally>) -> Effect {
    let _ = scale; // one size: the server's budgets set the pace, not the attacker's
    let src = attacker(GROUP, 0);
    let mut conns = Vec::new();
    for lane in 0..2 {
        let f = identity(src, server, &secret("ratingfarmer"), "Farmer").await;
        let v = identity(src, server, &secret("ratingvictim"), "Victim").await;
        match (f, v) {
            (Ok(f), Ok(v)) => conns.push((lane, f, v)),
            (Err(e), _) | (_, Err(e)) => return Effect { text: format!("the farm could not start: {e}"), held: false },
        }
    }
    let farmer = conns[0].1 .1.clone();
    let farm = Arc::new(tokio::sync::Mutex::new(Farm {
        rated_before: rated_games(src, server, &farmer).await.unwrap_or(0),
        ..Farm::default()
    }));
    let tasks: Vec<_> = conns
        .into_iter()
        .map(|(lane_no, (mut f, fid), (mut v, _))| {
            let (tally, farm) = (tally.clone(), farm.clone());
            tokio::spawn(async move {
                lane(server, src, fid, &mut f, &mut v, until, &tally, &farm, lane_no).await;
            })
        })
        .collect();
    for t in tasks {
        let _ = t.await;
    }
    let farm = farm.lock().await;
    let rated = rated_games(src, server, &farmer).await.unwrap_or(u64::MAX);
    let per_day = matombo_online::rating::RATED_PER_PAIR_PER_DAY as u64;
    // Rated games this run: at most the long ones, and the pair's daily number in all.
    let new_rated = rated.saturating_sub(farm.rated_before);
    let board = leaderboard(server).await;
    let (board_text, board_ok) = match &board {
        Ok(rows) => judge_board(rows, &farmer),
        Err(e) => (format!("leaderboard {e}"), false),
    };
    let held = farm.short_rated == 0 && new_rated <= farm.long_games && rated <= per_day && board_ok;
    Effect {
        text: format!(
            "{} games resigned at once ({} rated), {} after two turns each; the farmer has {rated} rated games \
             (at most {per_day} a day for the pair); {board_text}",
            farm.short_games, farm.short_rated, farm.long_games
        ),
        held,
    }
}

/// The group's leaderboard rows: (id, provisional).
async fn leaderboard(server: SocketAddr) -> Result<Vec<(String, bool)>, String> {
    let path = format!("/api/online/leaderboard/{GROUP_NAME}?limit=200");
    let a = net::request(attacker(GROUP, 1), server, "GET", &path, &[], b"", WAIT).await;
    if a.status != 200 {
        return Err(a.kind());
    }
    let v: Value = serde_json::from_str(&a.body).map_err(|_| "bad JSON".to_string())?;
    Ok(v["players"]
        .as_array()
        .map(|rows| {
            rows.iter()
                .map(|r| (r["id"].as_str().unwrap_or_default().to_string(), r["provisional"].as_bool().unwrap_or(true)))
                .collect()
        })
        .unwrap_or_default())
}

/// The farmer's place, and whether every established player comes before every
/// provisional one.
fn judge_board(rows: &[(String, bool)], farmer: &str) -> (String, bool) {
    let first_provisional = rows.iter().position(|r| r.1).unwrap_or(rows.len());
    let ordered = rows[first_provisional..].iter().all(|r| r.1);
    let established = rows.iter().filter(|r| !r.1).count();
    let place = match rows.iter().position(|r| r.0 == farmer) {
        Some(i) => format!(
            "the farmer is {} of {} on the leaderboard ({}, {established} established)",
            i + 1,
            rows.len(),
            if rows[i].1 { "provisional" } else { "established" }
        ),
        None => format!("the farmer is not on the leaderboard ({} players, {established} established)", rows.len()),
    };
    (place, ordered)
}

#[cfg(test)]
mod tests {
    use super::judge_board;

    #[test]
    fn provisional_players_must_follow_established_ones() {
        let row = |id: &str, p: bool| (id.to_string(), p);
        assert!(judge_board(&[row("a", false), row("f", true), row("b", true)], "f").1);
        assert!(!judge_board(&[row("f", true), row("a", false)], "f").1);
        assert!(judge_board(&[], "f").0.contains("not on the leaderboard"));
    }
}
