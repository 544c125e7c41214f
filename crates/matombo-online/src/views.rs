//! What a client sees of a room: state, clock, outcome, links, as the wire types of
//! `matombo_api::online`, so that the board page and online play read one format.

use matombo_api::online::{BySide, ClockJson, Links, RoomState, RoomView, SeatJson};
use matombo_api::{OutcomeJson, SideJson};
use matombo_core::{Outcome, Side};

use super::room::Room;

/// A side as written on the wire: `"south"` or `"north"`.
pub(super) fn side_str(s: Side) -> &'static str {
    SideJson::from(s).as_str()
}

/// A side as its wire type.
pub(super) fn side_json(s: Side) -> SideJson {
    SideJson::from(s)
}

/// How a game ended (null while it goes on), as the JSON API writes it.
pub(super) fn outcome_json(o: Option<Outcome>) -> Option<OutcomeJson> {
    o.map(OutcomeJson::from)
}

pub(super) fn clock_json(room: &Room, now: u64) -> Option<ClockJson> {
    room.clocks.as_ref().map(|c| {
        let to_move = room.to_move();
        let running = c.running_since.is_some() && !room.game.is_over();
        ClockJson {
            initial_ms: c.control.initial_ms,
            increment_ms: c.control.increment_ms,
            south_ms: c.left(Side::South, to_move, now),
            north_ms: c.left(Side::North, to_move, now),
            running: running.then(|| side_json(to_move)),
            days_per_turn: c.days_per_turn,
            deadline: c.days_per_turn.and(c.deadline(to_move)).filter(|_| running),
        }
    })
}

/// The game, seats and clocks of a room.
pub(super) fn room_view(room: &Room, now: u64, positions: bool) -> RoomView {
    let seat = |i: usize| SeatJson { taken: room.seats[i].claimed, name: room.seats[i].name.clone() };
    RoomView {
        room: room.id.clone(),
        ruleset: room.ruleset().to_string(),
        start: room.game.start().to_string(),
        moves: room.game.moves().iter().map(|t| t.to_string()).collect(),
        ply: room.ply(),
        position: room.game.position().to_string(),
        to_move: side_json(room.to_move()),
        seats: BySide { south: seat(0), north: seat(1) },
        clock: clock_json(room, now),
        outcome: outcome_json(room.game.outcome()),
        created: room.created,
        positions: positions.then(|| room.game.positions().iter().map(|p| p.to_string()).collect()),
    }
}

/// The full state of a room as a client needs it to (re)start (without the lobby's
/// players, rated and group: [`super::handle::RoomHandle::state`] adds them).
pub(super) fn state_json(room: &Room, you: Option<Side>, now: u64, positions: bool) -> RoomState {
    RoomState {
        view: room_view(room, now, positions),
        you: you.map(side_json),
        players: None,
        rated: None,
        group: None,
        team: None,
    }
}

pub(super) fn links(id: &str, seat: Option<&str>, invite: Option<&str>) -> Links {
    Links::new(id, seat, invite)
}
