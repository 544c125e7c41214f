//! Errors of the JSON API, the in-page engine and online play: one closed list of codes,
//! one error type, one body.

use serde::{Deserialize, Serialize};

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
    /// Online, team games: only the captain may do this (captain mode's turns, passing the
    /// captaincy, removing a member).
    NotCaptain,
    /// Online, team games: the side has its most members (64).
    TeamFull,
    /// Online: the game has no teams (join, team chat, marks, votes, proposals).
    NotATeamGame,
    /// The game could not be stored; nothing was changed.
    Storage,
    /// The server failed; never expected.
    Internal,
    /// The request's `Host` is not one of the server's names (DNS rebinding).
    UnknownHost,
}

impl ErrorCode {
    /// Every code, in the documented order.
    pub const ALL: [ErrorCode; 41] = [
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
        ErrorCode::NotCaptain,
        ErrorCode::TeamFull,
        ErrorCode::NotATeamGame,
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
            ErrorCode::NotCaptain => "not_captain",
            ErrorCode::TeamFull => "team_full",
            ErrorCode::NotATeamGame => "not_a_team_game",
            ErrorCode::Storage => "storage",
            ErrorCode::Internal => "internal",
            ErrorCode::UnknownHost => "unknown_host",
        }
    }
}

impl ErrorCode {
    /// The HTTP status of this code, the one mapping of docs/api.md used by the board's
    /// API, the in-page engine and online play: 400 for what cannot be read (and the
    /// WebSocket's own refusals, which have no status of their own), 413 too large, 422
    /// illegal, 404, 405, 410 closed, 403 refused, 409 seats taken, 429 this client's
    /// share spent (the quota codes are 503 for the whole server: [`ApiError::server_full`]),
    /// 503 busy, 415, 408, 500 a failure.
    pub fn status(self) -> u16 {
        match self {
            ErrorCode::TooLarge => 413,
            ErrorCode::Illegal | ErrorCode::GameOver => 422,
            ErrorCode::NotFound => 404,
            ErrorCode::MethodNotAllowed => 405,
            ErrorCode::Closed => 410,
            ErrorCode::BadInvite | ErrorCode::ForbiddenOrigin | ErrorCode::NoIdentity | ErrorCode::BadCode => 403,
            ErrorCode::SeatsTaken | ErrorCode::TeamFull | ErrorCode::NotATeamGame => 409,
            ErrorCode::RateLimited
            | ErrorCode::TooManyRooms
            | ErrorCode::TooManyConnections
            | ErrorCode::TooManyChallenges => 429,
            ErrorCode::Busy => 503,
            ErrorCode::UnknownHost => 421,
            ErrorCode::ContentType => 415,
            ErrorCode::Timeout => 408,
            ErrorCode::Internal | ErrorCode::Storage => 500,
            ErrorCode::Malformed
            | ErrorCode::InvalidField
            | ErrorCode::BadRuleset
            | ErrorCode::BadPosition
            | ErrorCode::BadMove
            | ErrorCode::BadDecision
            | ErrorCode::NotAPlayer
            | ErrorCode::NotYourTurn
            | ErrorCode::Stale
            | ErrorCode::Ahead
            | ErrorCode::Waiting
            | ErrorCode::BadToken
            | ErrorCode::HelloFirst
            | ErrorCode::AlreadyHello
            | ErrorCode::OwnChallenge
            | ErrorCode::NotOver
            | ErrorCode::CannotAbort
            | ErrorCode::NotCaptain => 400,
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
    /// The refusal is the whole server's (full), not this client's share: a quota code
    /// (`too_many_rooms`, `too_many_connections`) then answers 503 instead of 429.
    pub server_wide: bool,
}

impl ApiError {
    /// An error of this code.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ApiError {
        ApiError { code, message: message.into(), server_wide: false }
    }

    /// A refusal because the whole server is full (see [`ApiError::server_wide`]).
    pub fn server_full(code: ErrorCode, message: impl Into<String>) -> ApiError {
        ApiError { server_wide: true, ..ApiError::new(code, message) }
    }

    /// A request that cannot be read.
    pub fn bad(message: impl Into<String>) -> ApiError {
        ApiError::new(ErrorCode::Malformed, message)
    }

    /// A request that is illegal in its position.
    pub fn illegal(message: impl Into<String>) -> ApiError {
        ApiError::new(ErrorCode::Illegal, message)
    }

    pub(crate) fn internal(message: impl Into<String>) -> ApiError {
        ApiError::new(ErrorCode::Internal, message)
    }

    /// The HTTP status this error is answered with: the code's
    /// ([`ErrorCode::status`]), 503 for a quota code refused for the whole server.
    pub fn status(&self) -> u16 {
        match self.code {
            ErrorCode::TooManyRooms | ErrorCode::TooManyConnections if self.server_wide => 503,
            c => c.status(),
        }
    }

    /// The answer's body, its message cut.
    pub fn body(&self) -> ErrorBody {
        ErrorBody::new(self.code, &self.message)
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
