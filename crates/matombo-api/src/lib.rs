//! # matombo-api
//!
//! The board's JSON API as pure functions: a request (the game as the client holds it:
//! start position, turns played, decisions of the turn in progress) goes in, the state of
//! the game comes out, replayed by `matombo-core`. The web server answers HTTP with these
//! functions (`POST /api/game`, `/api/ai`, `/api/record/*`), and the in-browser engine
//! (crate `matombo-wasm`) answers the board page with the very same code, compiled to
//! WebAssembly: no rule is written twice.
//!
//! ```
//! use matombo_api::{game, GameRequest};
//!
//! let req = GameRequest { start: "tsoro:8".into(), apply: vec!["sow B2".into()], ..GameRequest::default() };
//! let state = game(&req).unwrap();
//! assert_eq!(state.phase, "head"); // the lap ended on South's head B7
//! assert_eq!(state.legal, ["continue", "stop"]);
//! let bad = GameRequest { start: "tsoro:8".into(), apply: vec!["sow A1".into()], ..GameRequest::default() };
//! assert_eq!(game(&bad).unwrap_err().code, matombo_api::ErrorCode::Illegal);
//! ```
#![deny(missing_docs)]

use std::sync::atomic::AtomicBool;

use matombo_ai::clock::Instant;
use matombo_ai::{Level, Limits, MATE, MATE_BOUND};
use matombo_core::{
    Decision, Event, Game, GameKind, Hole, Outcome, Phase, Position, Record, Row, Ruleset, Side, Termination, Token,
    TurnBuilder,
};
use serde::{Deserialize, Serialize};

mod notation;
pub mod review;
pub use notation::{ruleset, setup, RulesetRequest, SetupAnswer, SetupRequest};
pub use review::{
    review, review_position, review_record, PositionScoreJson, ReviewAnswer, ReviewPositionRequest, ReviewRequest,
};

/// The machine-readable code of an error answer: one closed list for the JSON API, the
/// in-page engine and online play (HTTP and WebSocket), written in snake_case.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The request or message cannot be read (not JSON, or not of the expected shape).
    Malformed,
    /// A field is out of its bounds (length, range, count) or not one of its values.
    InvalidField,
    /// The request body or message is larger than accepted.
    TooLarge,
    /// The ruleset name cannot be read.
    BadRuleset,
    /// The position cannot be read.
    BadPosition,
    /// The turn (token) cannot be read.
    BadMove,
    /// A decision cannot be read.
    BadDecision,
    /// The request is well-formed but against the rules in its position.
    Illegal,
    /// The game is over: no more turns, resignations or searches.
    GameOver,
    /// No such game, route or file.
    NotFound,
    /// The route does not answer this method (e.g. `GET /api/game`).
    MethodNotAllowed,
    /// The online game was closed unfinished (unclaimed or abandoned).
    Closed,
    /// Online: the connection holds no seat of this game.
    NotAPlayer,
    /// Online: the other side is to move.
    NotYourTurn,
    /// Online: the turn was sent for a ply already played (the state follows).
    Stale,
    /// Online: the turn was sent for a ply not reached yet (the state follows).
    Ahead,
    /// Online: the second seat is not taken yet.
    Waiting,
    /// Online: the invitation is not this game's.
    BadInvite,
    /// Online: both seats are taken.
    SeatsTaken,
    /// Online: the seat token is not valid for this game (the connection watches).
    BadToken,
    /// Online: the first WebSocket message must be a hello.
    HelloFirst,
    /// Online: a hello was sent a second time.
    AlreadyHello,
    /// Too many requests, turns or messages from this client for now.
    RateLimited,
    /// Too many unfinished online games (on the server, or from this address).
    TooManyRooms,
    /// Too many WebSocket connections (on the server, or from this address).
    TooManyConnections,
    /// The server is busy; try again shortly.
    Busy,
    /// The request's `Origin` may not use the API.
    ForbiddenOrigin,
    /// A request that changes state must be sent as `Content-Type: application/json`.
    ContentType,
    /// The request took too long.
    Timeout,
    /// Online lobby: the action needs a player identity (a hello with `player`).
    NoIdentity,
    /// Online lobby: too many open challenges or pairing requests from this player.
    TooManyChallenges,
    /// Online lobby: a player cannot accept his own challenge.
    OwnChallenge,
    /// Online lobby: the transfer code is wrong, used or expired.
    BadCode,
    /// Online: a rematch is offered only once the game is over.
    NotOver,
    /// Online: a game is aborted only before its first turn.
    CannotAbort,
    /// The game could not be stored; nothing was changed.
    Storage,
    /// The server failed; never expected.
    Internal,
    /// The request's `Host` is not one of the server's names (DNS rebinding).
    UnknownHost,
}

impl ErrorCode {
    /// Every code, in the documented order.
    pub const ALL: [ErrorCode; 38] = [
        ErrorCode::Malformed,
        ErrorCode::InvalidField,
        ErrorCode::TooLarge,
        ErrorCode::BadRuleset,
        ErrorCode::BadPosition,
        ErrorCode::BadMove,
        ErrorCode::BadDecision,
        ErrorCode::Illegal,
        ErrorCode::GameOver,
        ErrorCode::NotFound,
        ErrorCode::MethodNotAllowed,
        ErrorCode::Closed,
        ErrorCode::NotAPlayer,
        ErrorCode::NotYourTurn,
        ErrorCode::Stale,
        ErrorCode::Ahead,
        ErrorCode::Waiting,
        ErrorCode::BadInvite,
        ErrorCode::SeatsTaken,
        ErrorCode::BadToken,
        ErrorCode::HelloFirst,
        ErrorCode::AlreadyHello,
        ErrorCode::RateLimited,
        ErrorCode::TooManyRooms,
        ErrorCode::TooManyConnections,
        ErrorCode::Busy,
        ErrorCode::ForbiddenOrigin,
        ErrorCode::ContentType,
        ErrorCode::Timeout,
        ErrorCode::NoIdentity,
        ErrorCode::TooManyChallenges,
        ErrorCode::OwnChallenge,
        ErrorCode::BadCode,
        ErrorCode::NotOver,
        ErrorCode::CannotAbort,
        ErrorCode::Storage,
        ErrorCode::Internal,
        ErrorCode::UnknownHost,
    ];

    /// The code as written on the wire, e.g. `"bad_position"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::Malformed => "malformed",
            ErrorCode::InvalidField => "invalid_field",
            ErrorCode::TooLarge => "too_large",
            ErrorCode::BadRuleset => "bad_ruleset",
            ErrorCode::BadPosition => "bad_position",
            ErrorCode::BadMove => "bad_move",
            ErrorCode::BadDecision => "bad_decision",
            ErrorCode::Illegal => "illegal",
            ErrorCode::GameOver => "game_over",
            ErrorCode::NotFound => "not_found",
            ErrorCode::MethodNotAllowed => "method_not_allowed",
            ErrorCode::Closed => "closed",
            ErrorCode::NotAPlayer => "not_a_player",
            ErrorCode::NotYourTurn => "not_your_turn",
            ErrorCode::Stale => "stale",
            ErrorCode::Ahead => "ahead",
            ErrorCode::Waiting => "waiting",
            ErrorCode::BadInvite => "bad_invite",
            ErrorCode::SeatsTaken => "seats_taken",
            ErrorCode::BadToken => "bad_token",
            ErrorCode::HelloFirst => "hello_first",
            ErrorCode::AlreadyHello => "already_hello",
            ErrorCode::RateLimited => "rate_limited",
            ErrorCode::TooManyRooms => "too_many_rooms",
            ErrorCode::TooManyConnections => "too_many_connections",
            ErrorCode::Busy => "busy",
            ErrorCode::ForbiddenOrigin => "forbidden_origin",
            ErrorCode::ContentType => "content_type",
            ErrorCode::Timeout => "timeout",
            ErrorCode::NoIdentity => "no_identity",
            ErrorCode::TooManyChallenges => "too_many_challenges",
            ErrorCode::OwnChallenge => "own_challenge",
            ErrorCode::BadCode => "bad_code",
            ErrorCode::NotOver => "not_over",
            ErrorCode::CannotAbort => "cannot_abort",
            ErrorCode::Storage => "storage",
            ErrorCode::Internal => "internal",
            ErrorCode::UnknownHost => "unknown_host",
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The body of every error answer: `{"error": "<code>", "message": "<sentence>"}`, the
/// message cut to [`MAX_ERROR_CHARS`] characters.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ErrorBody {
    /// What went wrong, for programs.
    pub error: ErrorCode,
    /// What went wrong, in English, for people.
    pub message: String,
}

impl ErrorBody {
    /// The body of an error, its message cut.
    pub fn new(error: ErrorCode, message: &str) -> ErrorBody {
        ErrorBody { error, message: cut(message) }
    }
}

/// An error of the JSON API (and of the in-page engine): its code and a message for people.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ApiError {
    /// What went wrong, for programs.
    pub code: ErrorCode,
    /// What went wrong, in English.
    pub message: String,
}

impl ApiError {
    /// An error of this code.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ApiError {
        ApiError { code, message: message.into() }
    }

    /// A request that cannot be read.
    pub fn bad(message: impl Into<String>) -> ApiError {
        ApiError::new(ErrorCode::Malformed, message)
    }

    /// A request that is illegal in its position.
    pub fn illegal(message: impl Into<String>) -> ApiError {
        ApiError::new(ErrorCode::Illegal, message)
    }

    fn internal(message: impl Into<String>) -> ApiError {
        ApiError::new(ErrorCode::Internal, message)
    }

    /// The HTTP status the JSON API answers this error with: 400 for what cannot be read,
    /// 413 for a body too large, 422 for what is illegal in its position (or after the
    /// game's end), 500 for a failure.
    pub fn status(&self) -> u16 {
        match self.code {
            ErrorCode::TooLarge => 413,
            ErrorCode::Illegal | ErrorCode::GameOver => 422,
            ErrorCode::Internal | ErrorCode::Storage => 500,
            _ => 400,
        }
    }

    /// The answer's body, its message cut.
    pub fn body(&self) -> ErrorBody {
        ErrorBody::new(self.code, &self.message)
    }
}

/// A side as the JSON written: `"south"` or `"north"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SideJson {
    /// The first player (rows `A` and `B`).
    South,
    /// The second player (rows `a` and `b`).
    North,
}

impl From<Side> for SideJson {
    fn from(s: Side) -> SideJson {
        match s {
            Side::South => SideJson::South,
            Side::North => SideJson::North,
        }
    }
}

impl From<SideJson> for Side {
    fn from(s: SideJson) -> Side {
        match s {
            SideJson::South => Side::South,
            SideJson::North => Side::North,
        }
    }
}

impl SideJson {
    /// The side as written, `"south"` or `"north"`.
    pub fn as_str(self) -> &'static str {
        match self {
            SideJson::South => "south",
            SideJson::North => "north",
        }
    }
}

/// Error answers are cut to this many characters: an answer never echoes a whole bad input.
pub const MAX_ERROR_CHARS: usize = 200;

/// `s` cut to [`MAX_ERROR_CHARS`] characters (with `…` when cut).
pub fn cut(s: &str) -> String {
    match s.char_indices().nth(MAX_ERROR_CHARS) {
        None => s.to_string(),
        Some((i, _)) => format!("{}…", &s[..i]),
    }
}

/// Reads a JSON request body with a clear message instead of serde's bare one.
pub fn parse_body<T: for<'de> Deserialize<'de>>(body: &[u8]) -> Result<T, ApiError> {
    serde_json::from_slice(body).map_err(|e| ApiError::bad(format!("malformed request body: {e}")))
}

/// A game as the client holds it.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameRequest {
    /// Start position, or a ruleset name meaning its start position.
    pub start: String,
    /// Turns played, as tokens (RULES.md §6.3).
    #[serde(default)]
    pub moves: Vec<String>,
    /// Decisions already taken in the turn in progress (RULES.md §6.4), except that bonus
    /// picks (`take <hole>`) may come in any order: the turn is recorded in canonical order
    /// once the bonus is complete.
    #[serde(default)]
    pub pending: Vec<String>,
    /// Decisions to take now (bonus picks in any order, as in `pending`); their events are
    /// reported for animation.
    #[serde(default)]
    pub apply: Vec<String>,
    /// A whole turn to play now (only at the start of a turn); events are reported.
    #[serde(default)]
    pub token: Option<String>,
    /// The side that resigned, if one did (`"S"` or `"N"`).
    #[serde(default)]
    pub resigned: Option<String>,
}

/// One thing that happened, for animation.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum EventJson {
    /// All `stones` lifted from `from` and sown along the mover's track, the last into `last`.
    Lap {
        /// Hole lifted.
        from: String,
        /// Stones sown.
        stones: u16,
        /// Hole of the last stone.
        last: String,
        /// The holes sown into, one per stone in order (the last is `last`).
        path: Vec<String>,
    },
    /// Stones captured from an opponent's hole.
    Capture {
        /// The hole.
        hole: String,
        /// Stones removed.
        stones: u16,
    },
}

impl From<Event> for EventJson {
    fn from(e: Event) -> EventJson {
        match e {
            Event::Lap { from, stones, last, .. } => EventJson::Lap {
                from: from.to_string(),
                stones,
                last: last.to_string(),
                path: e.path().iter().map(|h| h.to_string()).collect(),
            },
            Event::Capture { hole, stones } => EventJson::Capture { hole: hole.to_string(), stones },
        }
    }
}

/// The four rows of a board, each indexed by hole number - 1 (`rows.B[0]` is `B1`).
#[derive(Debug, Serialize)]
#[allow(non_snake_case)]
pub struct Rows {
    /// North's outer row.
    pub b: Vec<u16>,
    /// North's inner row.
    pub a: Vec<u16>,
    /// South's inner row.
    pub A: Vec<u16>,
    /// South's outer row.
    pub B: Vec<u16>,
}

impl Rows {
    /// The rows of a position.
    pub fn of(p: &Position) -> Rows {
        let n = p.ruleset().size() as u8;
        let row = |side, row| (1..=n).map(|k| p.count(Hole::new(side, row, k))).collect();
        Rows {
            b: row(Side::North, Row::Outer),
            a: row(Side::North, Row::Inner),
            A: row(Side::South, Row::Inner),
            B: row(Side::South, Row::Outer),
        }
    }
}

/// The ruleset as the page needs it.
#[derive(Debug, Serialize)]
pub struct RulesetInfo {
    /// Canonical name, e.g. `tsoro:8,heads=1`.
    pub name: String,
    /// `tsoro` or `nsolo`.
    pub game: &'static str,
    /// Holes per row.
    pub n: usize,
    /// Heads per player (Tsoro; 0 for Nsolo).
    pub heads: u8,
    /// Bonus holes (Tsoro) or 0 (Nsolo, whose bonus is as many stones as captured).
    pub bonus: u8,
    /// Stones at the start.
    pub total_stones: u32,
    /// The heads of both players, e.g. `["B7", "B8", "b7", "b8"]`.
    pub head_holes: Vec<String>,
}

impl RulesetInfo {
    /// Describes a ruleset.
    pub fn of(r: Ruleset) -> RulesetInfo {
        let n = r.size();
        let mut head_holes = Vec::new();
        for side in Side::BOTH {
            for t in 0..n {
                if r.is_head_track(t) {
                    head_holes.push(Hole::from_track(side, t, n).to_string());
                }
            }
        }
        RulesetInfo {
            name: r.to_string(),
            game: r.kind().name(),
            n,
            heads: if r.kind() == GameKind::Tsoro { r.heads() } else { 0 },
            bonus: if r.kind() == GameKind::Tsoro { r.bonus() } else { 0 },
            total_stones: r.total_stones(),
            head_holes,
        }
    }
}

/// How the game ended.
#[derive(Debug, Serialize)]
pub struct OutcomeJson {
    /// `"south"`, `"north"` or null for a draw.
    pub winner: Option<SideJson>,
    /// `no_legal_move`, `repetition`, `resignation` or `time_forfeit`.
    pub termination: Termination,
    /// `1-0`, `0-1` or `1/2-1/2`.
    pub result: &'static str,
    /// In English, e.g. "South wins: North has no legal move".
    pub text: String,
}

impl From<Outcome> for OutcomeJson {
    fn from(o: Outcome) -> OutcomeJson {
        OutcomeJson {
            winner: o.winner.map(SideJson::from),
            termination: o.termination,
            result: o.result(),
            text: o.to_string(),
        }
    }
}

/// The state of a game after a request.
#[derive(Debug, Serialize)]
pub struct GameState {
    /// The ruleset.
    pub ruleset: RulesetInfo,
    /// The start position (canonical).
    pub start: String,
    /// Turns played, canonical tokens.
    pub moves: Vec<String>,
    /// Decisions taken in the turn in progress.
    pub pending: Vec<String>,
    /// The position at the start of the turn in progress (after the last complete turn).
    pub position: String,
    /// The board now, mid-turn included.
    pub rows: Rows,
    /// The player to decide now (the mover of the turn in progress).
    pub to_move: SideJson,
    /// The player to move in the start position: the movers of `moves` alternate from it.
    pub start_to_move: SideJson,
    /// `start`, `head`, `bonus` or `over`.
    pub phase: &'static str,
    /// In phase `head`: the head the lap ended on.
    pub head: Option<String>,
    /// In phase `bonus`: Tsoro, holes that may still be picked; Nsolo, stones still to take
    /// (the picks made so far counted).
    pub left: Option<u16>,
    /// In phase `bonus`: the holes picked so far, in the order picked (an Nsolo hole once
    /// per stone).
    pub picks: Vec<String>,
    /// The token so far of the turn in progress (e.g. `B2+xb3`), picks in canonical order.
    pub partial: Option<String>,
    /// Legal decisions now, e.g. `["sow B2", "sow B3"]`, `["continue", "stop"]`; in the
    /// bonus every hole that may be picked now, in any order, then `done` (Tsoro).
    pub legal: Vec<String>,
    /// The holes the player may click now (start holes or bonus picks).
    pub clickable: Vec<String>,
    /// Events of the decisions applied by this request, in order.
    pub events: Vec<EventJson>,
    /// Turns that were completed by this request.
    pub played: Vec<String>,
    /// Stones each side has lost so far: `{"south": 0, "north": 4}`.
    pub lost: Lost,
    /// Set when the game is over.
    pub outcome: Option<OutcomeJson>,
}

/// Stones lost by each side.
#[derive(Debug, Serialize)]
pub struct Lost {
    /// Lost by South.
    pub south: u32,
    /// Lost by North.
    pub north: u32,
}

fn parse_start(s: &str) -> Result<Position, ApiError> {
    s.parse::<Position>().map_err(|e| ApiError::new(ErrorCode::BadPosition, format!("bad start position {s:?}: {e}")))
}

fn parse_token(s: &str) -> Result<Token, ApiError> {
    s.parse::<Token>().map_err(|e| ApiError::new(ErrorCode::BadMove, format!("bad turn token {s:?}: {e}")))
}

fn parse_decision(s: &str) -> Result<Decision, ApiError> {
    s.parse::<Decision>().map_err(|e| ApiError::new(ErrorCode::BadDecision, e.to_string()))
}

fn parse_side(s: &str) -> Result<Side, ApiError> {
    match s {
        "S" | "South" | "south" => Ok(Side::South),
        "N" | "North" | "north" => Ok(Side::North),
        _ => Err(ApiError::new(ErrorCode::InvalidField, format!("side must be \"S\" or \"N\", not {s:?}"))),
    }
}

/// Replays `start` and `moves` into a game.
pub fn replay(start: &str, moves: &[String]) -> Result<Game, ApiError> {
    let mut game = Game::new(parse_start(start)?);
    for (i, m) in moves.iter().enumerate() {
        let token = parse_token(m)?;
        game.play(&token).map_err(|e| ApiError::illegal(format!("move {} ({m}): {e}", i + 1)))?;
    }
    Ok(game)
}

/// A game and the turn in progress.
struct Live {
    game: Game,
    turn: TurnBuilder,
    pending: Vec<Decision>,
    events: Vec<EventJson>,
    played: Vec<String>,
}

impl Live {
    fn load(start: &str, moves: &[String], pending: &[String]) -> Result<Live, ApiError> {
        let game = replay(start, moves)?;
        let turn = game.position().build_turn();
        let mut live = Live { game, turn, pending: Vec::new(), events: Vec::new(), played: Vec::new() };
        for d in pending {
            live.decide(parse_decision(d)?, false)
                .map_err(|e| ApiError::illegal(format!("pending {d:?}: {}", e.message)))?;
        }
        Ok(live)
    }

    /// Applies one decision; a completed turn is added to the game.
    fn decide(&mut self, d: Decision, report: bool) -> Result<(), ApiError> {
        if let Some(o) = self.game.outcome() {
            return Err(ApiError::new(
                ErrorCode::GameOver,
                format!("the game is over ({o}); no more turns can be played"),
            ));
        }
        let mut events = Vec::new();
        self.turn
            .apply_with(d, &mut |e| events.push(EventJson::from(e)))
            .map_err(|e| ApiError::illegal(e.to_string()))?;
        if report {
            self.events.extend(events);
        }
        self.pending.push(d);
        if self.turn.is_complete() {
            let token = self.turn.token().expect("complete turn has a token");
            self.game.play(&token).map_err(|e| ApiError::illegal(e.to_string()))?;
            self.played.push(token.to_string());
            self.turn = self.game.position().build_turn();
            self.pending.clear();
        }
        Ok(())
    }

    fn state(self) -> GameState {
        let pos = self.game.position();
        let ruleset = pos.ruleset();
        let over = self.game.outcome();
        let (phase, head, left) = match (over, self.turn.phase()) {
            (Some(_), _) => ("over", None, None),
            (None, Phase::Start) => ("start", None, None),
            (None, Phase::Head(h)) => ("head", Some(h.to_string()), None),
            (None, Phase::Bonus { left }) => ("bonus", None, Some(left)),
            (None, Phase::Complete) => ("over", None, None),
        };
        let decisions = if over.is_some() { Vec::new() } else { self.turn.decisions() };
        let clickable = decisions
            .iter()
            .filter_map(|d| match d {
                Decision::Sow(h) | Decision::Take(h) => Some(h.to_string()),
                _ => None,
            })
            .collect();
        let board = self.turn.position();
        let lost_by = |side: Side| {
            let began = self.game.start().stones(side);
            began.saturating_sub(board.stones(side))
        };
        GameState {
            ruleset: RulesetInfo::of(ruleset),
            start: self.game.start().to_string(),
            moves: self.game.moves().iter().map(|t| t.to_string()).collect(),
            pending: self.pending.iter().map(|d| d.to_string()).collect(),
            position: pos.to_string(),
            rows: Rows::of(board),
            to_move: self.turn.mover().into(),
            start_to_move: self.game.start().side_to_move().into(),
            phase,
            head,
            left,
            picks: self.turn.picks().iter().map(|h| h.to_string()).collect(),
            partial: self.turn.partial_token().map(|t| t.to_string()),
            legal: decisions.iter().map(|d| d.to_string()).collect(),
            clickable,
            events: self.events,
            played: self.played,
            lost: Lost { south: lost_by(Side::South), north: lost_by(Side::North) },
            outcome: over.map(OutcomeJson::from),
        }
    }
}

/// Runs a game request (the body of `POST /api/game`).
pub fn game(req: &GameRequest) -> Result<GameState, ApiError> {
    let mut live = Live::load(&req.start, &req.moves, &req.pending)?;
    if let Some(t) = &req.token {
        if !live.pending.is_empty() {
            return Err(ApiError::bad("a whole turn (token) can only be played at the start of a turn"));
        }
        let token = parse_token(t)?;
        let decisions =
            live.game.position().resolve_for_builder(&token).map_err(|e| ApiError::illegal(e.to_string()))?;
        for d in decisions {
            live.decide(d, true)?;
        }
    }
    for d in &req.apply {
        live.decide(parse_decision(d)?, true)?;
    }
    if let Some(s) = &req.resigned {
        let side = parse_side(s)?;
        if !live.pending.is_empty() {
            return Err(ApiError::illegal("a player can resign only at the start of a turn"));
        }
        if side != live.game.position().side_to_move() {
            return Err(ApiError::illegal(format!("{side} can resign only on his own turn")));
        }
        live.game.resign(side).map_err(|e| ApiError::illegal(e.to_string()))?;
    }
    Ok(live.state())
}

/// Asks the AI for a turn.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AiRequest {
    /// Start position or ruleset name.
    pub start: String,
    /// Turns played.
    #[serde(default)]
    pub moves: Vec<String>,
    /// `beginner`, `easy`, `medium`, `hard` or `max` (default `medium`).
    #[serde(default)]
    pub level: Option<String>,
    /// Seed of the AI's random choices (default: random).
    #[serde(default)]
    pub seed: Option<u64>,
}

/// The AI's choice.
#[derive(Debug, Serialize)]
pub struct AiAnswer {
    /// The turn, as a token.
    pub token: String,
    /// The same turn as decisions, in order.
    pub decisions: Vec<String>,
    /// Score from the mover's point of view.
    pub score: i32,
    /// Depth reached.
    pub depth: u32,
    /// Nodes searched.
    pub nodes: u64,
    /// Milliseconds spent.
    pub ms: u64,
}

/// An AI request made ready to search: the position, the game's earlier positions and the
/// level. Replaying is done here, once, so that a server can do it before queueing.
pub struct AiJob {
    /// The position to move in.
    pub position: Position,
    /// The positions before it (oldest first), for Nsolo's repetition draws.
    pub history: Vec<Position>,
    /// The level to play at.
    pub level: Level,
    /// The seed of the level's random choices.
    pub seed: u64,
}

impl AiRequest {
    /// Checks the request and replays its game; `seed` is used when the request has none.
    pub fn prepare(&self, seed: u64) -> Result<AiJob, ApiError> {
        let level: Level = match &self.level {
            Some(l) => l.parse().map_err(|e: matombo_ai::ParseLevelError| ApiError::bad(e.to_string()))?,
            None => Level::Medium,
        };
        let game = replay(&self.start, &self.moves)?;
        if let Some(o) = game.outcome() {
            return Err(ApiError::new(ErrorCode::GameOver, format!("the game is over ({o})")));
        }
        let all = game.positions();
        let (position, history) = all.split_last().expect("a game has a position");
        Ok(AiJob { position: position.clone(), history: history.to_vec(), level, seed: self.seed.unwrap_or(seed) })
    }
}

impl AiJob {
    /// Plays the level's turn; `stop` set from elsewhere ends the search early (natively;
    /// in the browser a search is stopped by ending its worker).
    pub fn run(&self, stop: &AtomicBool) -> Result<AiAnswer, ApiError> {
        self.run_with(matombo_ai::Engine::new(self.seed), stop)
    }

    /// [`AiJob::run`] on `engine` (e.g. one probing endgame tables; seeded with `self.seed`).
    pub fn run_with(&self, mut engine: matombo_ai::Engine, stop: &AtomicBool) -> Result<AiAnswer, ApiError> {
        // play_level mixes random turns into the low levels, as a gentle opponent should.
        let r = engine
            .play_level(&self.position, self.level, stop, &self.history)
            .ok_or_else(|| ApiError::illegal("the side to move has no legal turn"))?;
        let decisions = self
            .position
            .resolve_for_builder(&r.best)
            .map_err(|e| ApiError::internal(format!("the AI chose an illegal turn: {e}")))?;
        Ok(AiAnswer {
            token: r.best.to_string(),
            decisions: decisions.iter().map(|d| d.to_string()).collect(),
            score: r.score,
            depth: r.depth,
            nodes: r.nodes,
            ms: r.elapsed.as_millis() as u64,
        })
    }
}

/// Asks for an analysis: the best lines of a position, deepening until a limit.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnalyseRequest {
    /// Start position or ruleset name.
    pub start: String,
    /// Turns played.
    #[serde(default)]
    pub moves: Vec<String>,
    /// How many best turns to show (default 3, at most 8).
    #[serde(default)]
    pub lines: Option<usize>,
    /// Deepest depth in turns (default: the search's deepest).
    #[serde(default)]
    pub depth: Option<u32>,
    /// Time budget in milliseconds (default 10,000; the last depth started is finished).
    #[serde(default)]
    pub time_ms: Option<u64>,
    /// Node budget (default: none).
    #[serde(default)]
    pub nodes: Option<u64>,
}

/// One line of an analysis.
#[derive(Clone, Debug, Serialize)]
pub struct Line {
    /// The first turn, as a token.
    pub token: String,
    /// Score in hundredths of a stone from the point of view of the side to move.
    pub score: i32,
    /// The same score from South's point of view.
    pub south: i32,
    /// A proven result: turns to the end, positive if the side to move wins.
    pub mate: Option<i32>,
    /// The principal variation, first turn first.
    pub pv: Vec<String>,
}

/// An analysis so far.
#[derive(Clone, Debug, Serialize)]
pub struct Analysis {
    /// The side to move.
    pub to_move: SideJson,
    /// Depth of the lines, in turns.
    pub depth: u32,
    /// The best lines, best first.
    pub lines: Vec<Line>,
    /// Nodes searched so far.
    pub nodes: u64,
    /// Milliseconds so far.
    pub ms: u64,
    /// True when no more depth can change the lines (proven, or the depth limit).
    pub done: bool,
}

/// The default time budget of an analysis.
pub const ANALYSE_DEFAULT_MS: u64 = 10_000;
/// The most lines an analysis shows.
pub const ANALYSE_MAX_LINES: usize = 8;

/// Analyses a position depth by depth, calling `on_depth` after each completed depth
/// with the lines so far (the page draws them as they deepen). Ends at the first limit
/// reached, when `stop` is set, or when every line is a proven result.
pub fn analyse(
    req: &AnalyseRequest,
    stop: &AtomicBool,
    on_depth: &mut dyn FnMut(&Analysis),
) -> Result<Analysis, ApiError> {
    let game = replay(&req.start, &req.moves)?;
    if let Some(o) = game.outcome() {
        return Err(ApiError::new(ErrorCode::GameOver, format!("the game is over ({o})")));
    }
    let pos = game.position();
    let k = req.lines.unwrap_or(3).clamp(1, ANALYSE_MAX_LINES);
    let budget = std::time::Duration::from_millis(req.time_ms.unwrap_or(ANALYSE_DEFAULT_MS));
    let max_depth = req.depth.unwrap_or(matombo_ai::MAX_DEPTH).clamp(1, matombo_ai::MAX_DEPTH);
    let started = Instant::now();
    let mut engine = matombo_ai::Engine::new(1);
    let mover = pos.side_to_move();
    // Lines of one search at one depth; `nodes` is the whole search's count, once.
    let analysis = |found: &[matombo_ai::SearchResult]| {
        let lines: Vec<Line> = found
            .iter()
            .map(|r| Line {
                token: r.best.to_string(),
                score: r.score,
                south: if mover == Side::South { r.score } else { -r.score },
                mate: mate_in(r.score),
                pv: r.pv.iter().map(|t| t.to_string()).collect(),
            })
            .collect();
        let proven = lines.iter().all(|l| l.mate.is_some());
        let depth = found[0].depth;
        Analysis {
            to_move: mover.into(),
            depth,
            done: proven || depth == max_depth,
            lines,
            nodes: found[0].nodes,
            ms: started.elapsed().as_millis() as u64,
        }
    };
    // One search ranks the k best turns; it does not start a depth past half the budget.
    let limits = Limits { depth: Some(max_depth), nodes: req.nodes, time: Some(budget) };
    let options = matombo_ai::SearchOptions { lines: k, ..Default::default() };
    let mut last: Option<Analysis> = None;
    let found = engine.search_lines(pos, limits, stop, &[], options, &mut |found| {
        let a = analysis(found);
        on_depth(&a);
        last = Some(a);
    });
    if found.is_empty() {
        return Err(ApiError::illegal("the side to move has no legal turn"));
    }
    // Stopped before depth 1 ended: the turns in search order, at depth 0.
    let mut a = match last {
        Some(mut a) => {
            a.nodes = found[0].nodes;
            a.ms = started.elapsed().as_millis() as u64;
            a
        }
        None => analysis(&found),
    };
    a.done = true;
    Ok(a)
}

/// A score beyond [`MATE_BOUND`] as turns to the end (positive: the side to move wins).
pub fn mate_in(score: i32) -> Option<i32> {
    if score > MATE_BOUND {
        Some(MATE - score)
    } else if score < -MATE_BOUND {
        Some(-(MATE + score))
    } else {
        None
    }
}

/// Speed of the search from a ruleset's start position for a time budget, as `matombo
/// bench` measures it natively (the in-browser benchmark runs this one).
#[derive(Debug, Serialize)]
pub struct SearchSpeed {
    /// The ruleset.
    pub ruleset: String,
    /// Nodes searched.
    pub nodes: u64,
    /// Depth reached.
    pub depth: u32,
    /// Milliseconds spent.
    pub ms: f64,
    /// Nodes per second.
    pub nodes_per_s: f64,
}

/// Searches the start position of `ruleset` for `ms` milliseconds (seed 1), as `matombo
/// bench` does.
pub fn search_speed(ruleset: &str, ms: u64) -> Result<SearchSpeed, ApiError> {
    let r: Ruleset =
        ruleset.parse().map_err(|e| ApiError::new(ErrorCode::BadRuleset, format!("bad ruleset {ruleset:?}: {e}")))?;
    let start = Position::start(r);
    let t0 = Instant::now();
    let limits = Limits { time: Some(std::time::Duration::from_millis(ms)), depth: None, nodes: None };
    let res = matombo_ai::Engine::new(1)
        .search(&start, limits, &AtomicBool::new(false))
        .ok_or_else(|| ApiError::illegal("no legal turn at the start"))?;
    let secs = t0.elapsed().as_secs_f64();
    Ok(SearchSpeed {
        ruleset: r.to_string(),
        nodes: res.nodes,
        depth: res.depth,
        ms: secs * 1000.0,
        nodes_per_s: res.nodes as f64 / secs,
    })
}

/// Asks for a game record.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExportRequest {
    /// Start position or ruleset name.
    pub start: String,
    /// Turns played.
    #[serde(default)]
    pub moves: Vec<String>,
    /// The side that resigned, if any.
    #[serde(default)]
    pub resigned: Option<String>,
    /// Extra tags, e.g. `{"South": "Ann", "North": "matombo (easy)"}`.
    #[serde(default)]
    pub tags: std::collections::BTreeMap<String, String>,
}

/// Writes the record of a game (the body of `POST /api/record/export`).
pub fn export(req: &ExportRequest) -> Result<ExportAnswer, ApiError> {
    let game = review::replay_ended(&req.start, &req.moves, req.resigned.as_deref())?;
    let mut record = Record::new(game);
    check_tag_names(&req.tags)?;
    // All at once: setting tags one by one is quadratic in their number.
    record.set_tags(req.tags.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    Ok(ExportAnswer { record: record.to_string() })
}

fn check_tag_names(tags: &std::collections::BTreeMap<String, String>) -> Result<(), ApiError> {
    for k in tags.keys() {
        if k.is_empty() || !k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(ApiError::bad(format!("tag name {k:?} must be letters, digits or _")));
        }
    }
    Ok(())
}

/// A written record.
#[derive(Debug, Serialize)]
pub struct ExportAnswer {
    /// The record text (RULES.md §6.5).
    pub record: String,
}

/// Reads a record.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImportRequest {
    /// The record text.
    pub text: String,
}

/// The game of a record: its state, its tags, and who resigned.
#[derive(Debug, Serialize)]
pub struct ImportAnswer {
    /// The game's state after its last turn.
    #[serde(flatten)]
    pub state: GameState,
    /// The record's tags, in order.
    pub tags: Vec<(String, String)>,
    /// The side that resigned, if the game ended so.
    pub resigned: Option<SideJson>,
}

/// Reads a record (the body of `POST /api/record/import`).
pub fn import(req: &ImportRequest) -> Result<ImportAnswer, ApiError> {
    let record: Record = req.text.parse().map_err(|e: matombo_core::RecordError| ApiError::bad(e.to_string()))?;
    let moves: Vec<String> = record.game.moves().iter().map(|t| t.to_string()).collect();
    let resigned = match record.game.outcome() {
        Some(Outcome { winner: Some(w), termination: Termination::Resignation }) => Some(w.opponent()),
        _ => None,
    };
    let state = game(&GameRequest {
        start: record.game.start().to_string(),
        moves,
        resigned: resigned.map(|s| s.letter().to_string()),
        ..GameRequest::default()
    })?;
    let resigned = resigned.map(SideJson::from);
    Ok(ImportAnswer { state, tags: record.tags.clone(), resigned })
}

/// One game in the catalogue, with its variant choices.
#[derive(Debug, Serialize)]
pub struct GameInfo {
    /// `tsoro` or `nsolo`.
    pub game: &'static str,
    /// Standard size.
    pub default_size: u8,
    /// Sizes offered, the traditional ones first.
    pub sizes: Vec<u8>,
    /// How many of `sizes` are traditional.
    pub traditional: usize,
    /// Head counts offered (Tsoro), default first.
    pub heads: Vec<u8>,
    /// Bonus hole counts offered (Tsoro), default first.
    pub bonus: Vec<u8>,
}

/// The games and their variants, traditional sizes first.
pub fn games() -> Vec<GameInfo> {
    let list = |kind: GameKind, trad: &[u8]| {
        let (lo, hi) = kind.size_range();
        let mut sizes = trad.to_vec();
        sizes.extend((lo..=hi).filter(|n| !trad.contains(n)));
        sizes
    };
    vec![
        GameInfo {
            game: "tsoro",
            default_size: GameKind::Tsoro.default_size(),
            sizes: list(GameKind::Tsoro, &TSORO_TRADITIONAL),
            traditional: TSORO_TRADITIONAL.len(),
            heads: vec![2, 1, 0],
            bonus: vec![2, 0, 1, 3],
        },
        GameInfo {
            game: "nsolo",
            default_size: GameKind::Nsolo.default_size(),
            sizes: list(GameKind::Nsolo, &NSOLO_TRADITIONAL),
            traditional: NSOLO_TRADITIONAL.len(),
            heads: vec![],
            bonus: vec![],
        },
    ]
}

/// Tsoro's full board and the smaller ones RULES.md §3.1 names, full board first.
pub const TSORO_TRADITIONAL: [u8; 6] = [21, 6, 8, 12, 15, 18];
/// Nsolo's standard board and the village match board (RULES.md §4.1).
pub const NSOLO_TRADITIONAL: [u8; 2] = [8, 36];
