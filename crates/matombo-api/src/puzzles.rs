//! The wire types of online identities' puzzle ratings (`/api/online/puzzles/…`,
//! docs/api.md): the server rates each attempt, the client only says whether it solved.

use serde::{Deserialize, Serialize};

/// An identity's puzzle rating (`GET /api/online/puzzles/rating`, and in every attempt's
/// answer).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PuzzleRatingJson {
    /// Glicko-2 rating (1500 at the start), two decimals.
    pub rating: f64,
    /// Rating deviation.
    pub rd: f64,
    /// Glicko-2 volatility.
    pub volatility: f64,
    /// Puzzles attempted (each counted once).
    pub attempts: u32,
    /// Of those, solved.
    pub solved: u32,
    /// The last counted attempt (Unix ms), none before the first.
    pub last_attempt: Option<u64>,
    /// The rating is not established yet.
    pub provisional: bool,
}

/// `POST /api/online/puzzles/{id}/attempt`: whether the puzzle was solved.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AttemptRequest {
    /// Solved (every solver turn right), or failed.
    pub solved: bool,
}

/// The answer to an attempt: the identity's first attempt at a puzzle counts; a later one
/// changes nothing and answers the counted one (`counted: false`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AttemptAnswer {
    /// The puzzle's id.
    pub puzzle: String,
    /// Whether this attempt was the one that counted.
    pub counted: bool,
    /// The counted attempt's result.
    pub solved: bool,
    /// The puzzle's rating the attempt was rated against (the shipped set's).
    pub puzzle_rating: f64,
    /// The identity's rating before the counted attempt.
    pub before: f64,
    /// Its rating after it.
    pub after: f64,
    /// The identity's puzzle rating now.
    pub rating: PuzzleRatingJson,
}
