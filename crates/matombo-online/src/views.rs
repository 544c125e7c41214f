//! The JSON a client sees of a room: state, clock, outcome, sowing events, links. Sides,
//! outcomes and events are the JSON API's own types (crate `matombo-api`), so that the
//! board page and online play read one format.

use matombo_api::{OutcomeJson, SideJson};
use matombo_core::{Outcome, Side};
use serde_json::{json, Value};

use super::room::Room;

/// A side as written on the wire: `"south"` or `"north"`.
pub(super) fn side_str(s: Side) -> &'static str {
    SideJson::from(s).as_str()
}

/// How a game ended (null while it goes on), as the JSON API writes it.
pub(super) fn outcome_json(o: Option<Outcome>) -> Value {
    json!(o.map(OutcomeJson::from))
}

pub(super) fn clock_json(room: &Room, now: u64) -> Value {
    match &room.clocks {
        None => Value::Null,
        Some(c) => {
            let to_move = room.to_move();
            let running = c.running_since.is_some() && !room.game.is_over();
            json!({
                "initial_ms": c.control.initial_ms,
                "increment_ms": c.control.increment_ms,
                "south_ms": c.left(Side::South, to_move, now),
                "north_ms": c.left(Side::North, to_move, now),
                "running": running.then(|| side_str(to_move)),
            })
        }
    }
}

/// The full state of a room as a client needs it to (re)start.
pub(super) fn state_json(room: &Room, you: Option<Side>, now: u64, positions: bool) -> Value {
    let mut v = json!({
        "type": "state",
        "room": room.id,
        "ruleset": room.ruleset().to_string(),
        "start": room.game.start().to_string(),
        "moves": room.game.moves().iter().map(|t| t.to_string()).collect::<Vec<_>>(),
        "ply": room.ply(),
        "position": room.game.position().to_string(),
        "to_move": side_str(room.to_move()),
        "you": you.map(side_str),
        "seats": {
            "south": {"taken": room.seats[0].claimed, "name": room.seats[0].name},
            "north": {"taken": room.seats[1].claimed, "name": room.seats[1].name},
        },
        "clock": clock_json(room, now),
        "outcome": outcome_json(room.game.outcome()),
        "created": room.created,
    });
    if positions {
        v["positions"] = room.game.positions().iter().map(|p| p.to_string()).collect::<Vec<_>>().into();
    }
    v
}

pub(super) fn links(id: &str, seat: Option<&str>, invite: Option<&str>) -> Value {
    json!({
        "watch": format!("/online/game/{id}"),
        "seat": seat.map(|t| format!("/online/game/{id}#seat={t}")),
        "invite": invite.map(|i| format!("/online/game/{id}#invite={i}")),
    })
}
