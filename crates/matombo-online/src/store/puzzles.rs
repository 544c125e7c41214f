//! Puzzle ratings of online identities (issue 36): each identity's Glicko-2 rating for
//! puzzles, moved by its first attempt at each puzzle. The server rates: the puzzle's
//! rating comes from the shipped set, never from the client.

use crate::rating::{update, Rating};

/// The deviation a puzzle is rated with: its shipped rating is an estimate (the page starts
/// each puzzle at the same deviation).
pub const PUZZLE_RD: f64 = 200.0;

/// An identity's puzzle rating as stored.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PuzzleRating {
    /// Glicko-2 rating, deviation and volatility.
    pub rating: Rating,
    /// Puzzles attempted (each counted once).
    pub attempts: u32,
    /// Of those, solved.
    pub solved: u32,
    /// The last counted attempt (Unix ms).
    pub last_attempt: Option<u64>,
}

/// An attempt to rate.
#[derive(Clone, Debug)]
pub struct PuzzleAttempt {
    /// The identity's id.
    pub player: String,
    /// The puzzle's id.
    pub puzzle: String,
    /// The puzzle's rating in the shipped set.
    pub puzzle_rating: f64,
    /// Whether it was solved.
    pub solved: bool,
    /// Unix ms.
    pub at: u64,
}

/// What an attempt did: the identity's first attempt at the puzzle counts, later ones change
/// nothing and answer the counted one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AttemptOutcome {
    /// Whether this attempt was the one that counted.
    pub counted: bool,
    /// The counted attempt's result.
    pub solved: bool,
    /// The rating before the counted attempt.
    pub before: Rating,
    /// The rating after it.
    pub after: Rating,
    /// The identity's puzzle rating now.
    pub now: PuzzleRating,
}

/// The rating after one attempt: a rating period with the puzzle as the opponent.
pub fn rated(player: Rating, puzzle_rating: f64, solved: bool) -> Rating {
    let puzzle = Rating { rating: puzzle_rating, rd: PUZZLE_RD, vol: 0.06 };
    update(player, &[(puzzle, if solved { 1.0 } else { 0.0 })])
}

/// The stored rating after a counted attempt.
pub(crate) fn next(before: PuzzleRating, a: &PuzzleAttempt) -> PuzzleRating {
    PuzzleRating {
        rating: rated(before.rating, a.puzzle_rating, a.solved),
        attempts: before.attempts + 1,
        solved: before.solved + u32::from(a.solved),
        last_attempt: Some(a.at),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_solve_raises_and_a_miss_lowers() {
        let r = Rating::default();
        assert!(rated(r, 1200.0, true).rating > 1500.0);
        assert!(rated(r, 1200.0, false).rating < 1500.0);
        // Missing an easy puzzle costs more than missing a hard one.
        assert!(rated(r, 900.0, false).rating < rated(r, 2000.0, false).rating);
    }
}
