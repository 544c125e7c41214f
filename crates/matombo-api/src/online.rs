//! The online play's outbound wire format: every message a room's or the lobby's
//! WebSocket sends, and the bodies of the online HTTP answers, as types. The server
//! (crate `matombo-online`) builds these and nothing else; docs/api.md describes them.
//!
//! Messages are tagged by their `type` field (`{"type": "turn", …}`); an absent value is
//! written `null` (never left out) where the protocol always had the field.

mod lobby;
mod teams;

pub use lobby::*;
pub use teams::*;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::{ErrorBody, ErrorCode, OutcomeJson, SideJson};

/// Time control of a game: initial time per side and an increment added after each turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimeControl {
    /// Time per side at the start, in milliseconds.
    pub initial_ms: u64,
    /// Time added to the mover's clock after each of his turns, in milliseconds.
    pub increment_ms: u64,
}

/// The side a challenger wants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SideChoice {
    /// South.
    South,
    /// North.
    North,
    /// Drawn when the challenge is accepted.
    Random,
}

/// A room's clocks as the client sees them.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClockJson {
    /// The time control's initial time.
    pub initial_ms: u64,
    /// The time control's increment.
    pub increment_ms: u64,
    /// South's time left now.
    pub south_ms: u64,
    /// North's time left now.
    pub north_ms: u64,
    /// The side whose clock runs, or null.
    pub running: Option<SideJson>,
    /// A correspondence game's days per turn (its `initial_ms` is that many days, its
    /// increment 0), or null for a clock per side.
    pub days_per_turn: Option<u32>,
    /// A correspondence game's deadline for the side to move (Unix ms), or null (an
    /// ordinary clock, before both sides are held, after the end).
    pub deadline: Option<u64>,
}

/// A game's time control as chosen at its creation: a clock per side
/// (`{"initial_ms", "increment_ms"}`) or a correspondence game's `{"days_per_turn"}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum ControlJson {
    /// A clock per side.
    Clock(TimeControl),
    /// Days per turn.
    Days {
        /// Each turn within this many days of the previous one.
        days_per_turn: u32,
    },
}

/// One seat of a room.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SeatJson {
    /// Someone holds it.
    pub taken: bool,
    /// The name its holder gave (may be empty).
    pub name: String,
}

/// A pair of values by side: `{"south": …, "north": …}`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BySide<T> {
    /// South's.
    pub south: T,
    /// North's.
    pub north: T,
}

/// The links of a room: to watch, to a seat, to the invitation.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Links {
    /// `/online/game/{id}`.
    pub watch: String,
    /// `/online/game/{id}#seat=…`, or null.
    pub seat: Option<String>,
    /// `/online/game/{id}#invite=…`, or null.
    pub invite: Option<String>,
    /// A team game: `/online/game/{id}#join=…` with South's invitation (only when creating).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub join_south: Option<String>,
    /// A team game: `/online/game/{id}#join=…` with North's invitation (only when creating).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub join_north: Option<String>,
}

impl Links {
    /// The links of room `id`, with a seat token and an invitation if given.
    pub fn new(id: &str, seat: Option<&str>, invite: Option<&str>) -> Links {
        Links {
            watch: format!("/online/game/{id}"),
            seat: seat.map(|t| format!("/online/game/{id}#seat={t}")),
            invite: invite.map(|i| format!("/online/game/{id}#invite={i}")),
            join_south: None,
            join_north: None,
        }
    }

    /// The link that joins a team game's side with its invitation.
    pub fn join(id: &str, invite: &str) -> String {
        format!("/online/game/{id}#join={invite}")
    }

    /// The links of a team game's creator: his seat, and each side's invitation to join.
    pub fn team(id: &str, seat: &str, invites: &BySide<String>) -> Links {
        Links {
            join_south: Some(Links::join(id, &invites.south)),
            join_north: Some(Links::join(id, &invites.north)),
            ..Links::new(id, Some(seat), None)
        }
    }
}

/// A lobby player bound to a room's seat: id, name, rating at the start (null if unknown).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SeatPlayer {
    /// The player's public id (null for a guest, in a listed game).
    pub id: Option<String>,
    /// The seat's name.
    pub name: String,
    /// The rating at the game's start, or null.
    pub rating: Option<f64>,
}

/// What every state of a room shows: the game, the seats, the clocks.
#[derive(Debug, Serialize)]
pub struct RoomView {
    /// The room's id.
    pub room: String,
    /// The ruleset's name.
    pub ruleset: String,
    /// The start position.
    pub start: String,
    /// The turns played, as tokens.
    pub moves: Vec<String>,
    /// The number of turns played.
    pub ply: u32,
    /// The position now.
    pub position: String,
    /// The side to move.
    pub to_move: SideJson,
    /// The seats.
    pub seats: BySide<SeatJson>,
    /// The clocks, or null when untimed.
    pub clock: Option<ClockJson>,
    /// How the game ended, or null.
    pub outcome: Option<OutcomeJson>,
    /// Unix ms.
    pub created: u64,
    /// Every position from the start (only when asked for).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub positions: Option<Vec<String>>,
}

/// A room's whole state (`state`): the view, the connection's side, and the room's
/// players, rated-ness and rating group where the server gives them.
#[derive(Debug, Serialize)]
pub struct RoomState {
    /// The game, seats and clocks.
    #[serde(flatten)]
    pub view: RoomView,
    /// The side of the connection this goes to, or null.
    pub you: Option<SideJson>,
    /// The lobby players bound to the seats (null for a seat without one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub players: Option<BySide<Option<SeatPlayer>>>,
    /// Whether the game is rated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rated: Option<bool>,
    /// The rating group of its ruleset.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// A team game's part (absent for a game of two people): its fields are written at
    /// the state's level (`teams`, and for a member `member`, `marks`, `votes`).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub team: Option<Box<TeamState>>,
}

/// What a team game adds to its state.
#[derive(Debug, Default, Serialize)]
pub struct TeamState {
    /// The teams.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub teams: Option<TeamsJson>,
    /// The member id of the connection this goes to (members only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub member: Option<String>,
    /// The marks of the connection's team, by member (members only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub marks: Option<BTreeMap<String, Vec<String>>>,
    /// The vote in progress on the connection's side's turn (vote mode, members only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub votes: Option<VotesJson>,
}

/// Who is connected to one side of a room.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SidePresence {
    /// How many connections hold the seat.
    pub online: usize,
    /// Their names.
    pub names: Vec<String>,
}

/// A rating before or after a game.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct RatingPoint {
    /// Rating.
    pub rating: f64,
    /// Rating deviation.
    pub rd: f64,
}

/// One side's rating change.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RatingChange {
    /// The player.
    pub id: String,
    /// Before the game.
    pub before: RatingPoint,
    /// After it.
    pub after: RatingPoint,
}

/// Everything a room's WebSocket sends.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum RoomMsg {
    /// The whole game: after `hello`, on `sync`, when the client is out of step.
    State(RoomState),
    /// The second seat was taken: the state without `you`.
    Seats(RoomView),
    /// A turn checked and stored.
    Turn {
        /// The ply it was played at.
        ply: u32,
        /// Its token.
        #[serde(rename = "move")]
        token: String,
        /// Its mover.
        side: SideJson,
        /// The position after it.
        position: String,
        /// The clocks after it.
        clock: Option<ClockJson>,
        /// How the game ended, or null.
        outcome: Option<OutcomeJson>,
    },
    /// The game ended by resignation or time.
    End {
        /// Turns played.
        ply: u32,
        /// How it ended.
        outcome: Option<OutcomeJson>,
        /// The clocks at the end.
        clock: Option<ClockJson>,
    },
    /// Who is connected.
    Presence {
        /// South's connections.
        south: SidePresence,
        /// North's connections.
        north: SidePresence,
        /// Connections holding no seat.
        spectators: usize,
        /// A team game's members connected now (their ids; absent for a game of two).
        #[serde(skip_serializing_if = "Option::is_none")]
        members: Option<Vec<String>>,
    },
    /// That turn was already applied.
    Ack {
        /// Its ply.
        ply: u32,
        /// Always true.
        duplicate: bool,
    },
    /// A refusal: nothing changed.
    Error(WireError),
    /// The answer to `ping`.
    Pong,
    /// A chat line.
    Chat {
        /// `players`, `spectators` or `team`.
        channel: &'static str,
        /// `south`, `north` or `w<n>`; on the `team` channel, the sender's member id.
        from: String,
        /// The sender's name.
        name: String,
        /// The line, plain text.
        text: String,
        /// Unix ms.
        at: u64,
    },
    /// The game was closed unfinished.
    Closed {
        /// `unclaimed`, `unstarted`, `abandoned` or `aborted`.
        reason: &'static str,
        /// The side that aborted (only for `aborted`).
        #[serde(skip_serializing_if = "Option::is_none")]
        by: Option<SideJson>,
        /// Why, for people.
        message: String,
    },
    /// A rematch is offered.
    Rematch {
        /// By this side.
        offered_by: SideJson,
    },
    /// The rematch is made.
    RematchReady {
        /// The new room.
        room: String,
        /// The receiver's new side (null for spectators).
        side: Option<SideJson>,
        /// The receiver's new seat token (null for spectators).
        token: Option<String>,
        /// The new room's links.
        links: Links,
    },
    /// A team game's rosters changed (a member joined, left, came or went, or the
    /// captaincy passed).
    Teams {
        /// The teams now.
        teams: TeamsJson,
    },
    /// A member proposes a turn to his team (captain mode; to that side's members only).
    Proposal {
        /// The ply it is for.
        ply: u32,
        /// The proposed turn.
        #[serde(rename = "move")]
        token: String,
        /// The member who proposes it.
        member: String,
        /// His name.
        name: String,
    },
    /// A member's marks on the board (to his side's members only); empty: cleared.
    Marks {
        /// The member.
        member: String,
        /// The holes marked.
        holes: Vec<String>,
    },
    /// A vote's tally (vote mode; to the voting side's members only).
    Votes(VotesJson),
    /// A rated game's rating changes.
    Ratings {
        /// The rating group.
        group: String,
        /// South's change.
        #[serde(skip_serializing_if = "Option::is_none")]
        south: Option<RatingChange>,
        /// North's change.
        #[serde(skip_serializing_if = "Option::is_none")]
        north: Option<RatingChange>,
    },
}

/// The `error` message's fields: the error body with the ply it concerns (or null).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WireError {
    /// What went wrong, for programs.
    pub error: ErrorCode,
    /// What went wrong, for people (cut).
    pub message: String,
    /// The ply the refusal concerns, or null.
    pub ply: Option<u32>,
}

impl WireError {
    /// An error message of this code, its message cut.
    pub fn new(code: ErrorCode, message: &str, ply: Option<u32>) -> WireError {
        let body = ErrorBody::new(code, message);
        WireError { error: body.error, message: body.message, ply }
    }
}

/// A message as the text of one WebSocket frame.
pub fn to_text<T: Serialize>(m: &T) -> String {
    // Serializing these types cannot fail: no map has non-string keys.
    serde_json::to_string(m).unwrap_or_else(|e| {
        format!(r#"{{"type":"error","error":"internal","message":"{}","ply":null}}"#, e.to_string().replace('"', "'"))
    })
}

/// `POST /api/online/rooms`'s answer (`201`) and a claim's.
#[derive(Debug, Serialize)]
pub struct SeatAnswer {
    /// The room.
    pub id: String,
    /// The seat's side.
    pub side: SideJson,
    /// The seat's token.
    pub token: String,
    /// The invitation (only when creating a game of two people).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub invite: Option<String>,
    /// Each side's invitation to join its team (only when creating a team game).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub invites: Option<BySide<String>>,
    /// The member id (team games: the creator's, or the joining member's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub member: Option<String>,
    /// The room's links.
    pub links: Links,
}

/// `GET /api/online/rooms/{id}`: the public state with presence.
#[derive(Debug, Serialize)]
pub struct PublicState {
    /// The state (with `type`, as the WebSocket sends it).
    #[serde(flatten)]
    pub state: RoomState,
    /// `type: "state"`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Who is connected (a `presence` message).
    pub presence: RoomMsg,
}

/// A page of a list answer: `{"<items>": […], "limit", "offset"}` with extra fields.
#[derive(Debug, Serialize)]
pub struct Page<T> {
    /// The items, under the name the route gives them.
    #[serde(flatten)]
    pub items: T,
    /// The page's size.
    pub limit: u32,
    /// Its first item.
    pub offset: u32,
}

/// A rating group (`GET /api/online/groups`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GroupJson {
    /// Its name.
    pub group: &'static str,
    /// `tsoro` or `nsolo`.
    pub game: &'static str,
    /// The smallest board size in it.
    pub min: usize,
    /// The largest.
    pub max: usize,
}

/// One row of a leaderboard.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LeaderRow {
    /// 1 for the best.
    pub rank: usize,
    /// The player.
    pub id: String,
    /// His name.
    pub name: String,
    /// Rating.
    pub rating: f64,
    /// Deviation.
    pub rd: f64,
    /// Rated games.
    pub games: u32,
    /// Not established yet.
    pub provisional: bool,
}

/// `GET /api/online/leaderboard/{group}`'s list.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Leaderboard {
    /// The group.
    pub group: &'static str,
    /// Best rating first.
    pub players: Vec<LeaderRow>,
}

/// The other player of a finished game.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Opponent {
    /// His id, or null.
    pub id: Option<String>,
    /// His name.
    pub name: String,
}

/// One finished game of a player.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HistoryJson {
    /// The room.
    pub room: String,
    /// The ruleset.
    pub ruleset: String,
    /// Its rating group (`other` when unknown).
    pub group: &'static str,
    /// The player's side.
    pub side: SideJson,
    /// The other player.
    pub opponent: Opponent,
    /// `1-0`, `0-1` or `1/2-1/2`.
    pub result: &'static str,
    /// How it ended.
    pub termination: Option<String>,
    /// Rated.
    pub rated: bool,
    /// The rating before, or null.
    pub before: Option<RatingPoint>,
    /// The rating after, or null.
    pub after: Option<RatingPoint>,
    /// Unix ms.
    pub finished: u64,
}

/// `GET /api/online/players/{id}`: the player and a page of his games.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlayerPage {
    /// The player.
    #[serde(flatten)]
    pub player: PlayerJson,
    /// His finished games, newest first.
    pub games: Vec<HistoryJson>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_keep_their_shape() {
        let e = RoomMsg::Error(WireError::new(ErrorCode::RateLimited, "slow down", None));
        assert_eq!(to_text(&e), r#"{"type":"error","error":"rate_limited","message":"slow down","ply":null}"#);
        assert_eq!(to_text(&RoomMsg::Pong), r#"{"type":"pong"}"#);
        assert_eq!(to_text(&LobbyOut::Pong), r#"{"type":"pong"}"#);
        let t = RoomMsg::Turn {
            ply: 0,
            token: "B2".into(),
            side: SideJson::South,
            position: "p".into(),
            clock: None,
            outcome: None,
        };
        assert_eq!(
            to_text(&t),
            r#"{"type":"turn","ply":0,"move":"B2","side":"south","position":"p","clock":null,"outcome":null}"#
        );
        let c = RoomMsg::Closed { reason: "aborted", by: None, message: "m".into() };
        assert_eq!(to_text(&c), r#"{"type":"closed","reason":"aborted","message":"m"}"#);
        let r = LobbyOut::ChallengeRemoved { id: "x".into(), reason: "left" };
        assert_eq!(to_text(&r), r#"{"type":"challenge_removed","id":"x","reason":"left"}"#);
        let r = RoomMsg::RematchReady { room: "r".into(), side: None, token: None, links: Links::new("r", None, None) };
        assert_eq!(
            to_text(&r),
            r#"{"type":"rematch_ready","room":"r","side":null,"token":null,"links":{"watch":"/online/game/r","seat":null,"invite":null}}"#
        );
    }
}
