//! # matombo-ai
//!
//! The computer opponent for Tsoro and Nsolo, on top of `matombo-core`.
//!
//! (First cut: a greedy player that takes the turn capturing most, ties broken by the
//! seeded random generator. The search replaces it behind the same API.)
#![deny(missing_docs)]

use std::fmt;
use std::str::FromStr;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use matombo_core::{Position, Token};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// Playing strength, from a child's opponent to the strongest search.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Level {
    /// Weakest.
    Beginner,
    /// Weak.
    Easy,
    /// Medium.
    Medium,
    /// Strong.
    Hard,
    /// Strongest.
    Max,
}

impl Level {
    /// Every level, weakest first.
    pub const ALL: [Level; 5] = [Level::Beginner, Level::Easy, Level::Medium, Level::Hard, Level::Max];

    /// The lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            Level::Beginner => "beginner",
            Level::Easy => "easy",
            Level::Medium => "medium",
            Level::Hard => "hard",
            Level::Max => "max",
        }
    }

    /// The search limits of this level.
    pub fn limits(self) -> Limits {
        let ms = match self {
            Level::Beginner => 10,
            Level::Easy => 50,
            Level::Medium => 200,
            Level::Hard => 1000,
            Level::Max => 3000,
        };
        Limits { time: Some(Duration::from_millis(ms)), depth: None, nodes: None }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A level name that is not one of the five.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown level {0:?} (expected beginner, easy, medium, hard or max)")]
pub struct ParseLevelError(pub String);

impl FromStr for Level {
    type Err = ParseLevelError;

    fn from_str(s: &str) -> Result<Level, ParseLevelError> {
        Level::ALL.into_iter().find(|l| l.name() == s).ok_or_else(|| ParseLevelError(s.to_string()))
    }
}

/// Limits on one search; the first reached ends it. All `None` means a default budget.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Wall-clock budget.
    pub time: Option<Duration>,
    /// Depth in turns.
    pub depth: Option<u32>,
    /// Nodes searched.
    pub nodes: Option<u64>,
}

/// What a search found.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult {
    /// The turn to play.
    pub best: Token,
    /// Score from the mover's point of view (stones; larger is better).
    pub score: i32,
    /// Principal variation, `best` first.
    pub pv: Vec<Token>,
    /// Depth reached.
    pub depth: u32,
    /// Nodes searched.
    pub nodes: u64,
    /// Time taken.
    pub elapsed: Duration,
}

/// A searcher with its own random generator (reproducible from a seed).
pub struct Engine {
    rng: SmallRng,
}

impl Engine {
    /// A new engine seeded with `seed`.
    pub fn new(seed: u64) -> Engine {
        Engine { rng: SmallRng::seed_from_u64(seed) }
    }

    /// Searches `pos` within `limits`; `stop` set from another thread ends the search
    /// early. `None` if the side to move has no legal turn.
    pub fn search(&mut self, pos: &Position, limits: Limits, stop: &AtomicBool) -> Option<SearchResult> {
        let _ = (limits, stop);
        let started = Instant::now();
        let mover = pos.side_to_move();
        let mut best: Option<(i32, u32, Token)> = None;
        let mut nodes = 0u64;
        for (token, after) in pos.turns().take(100_000) {
            nodes += 1;
            let score = pos.stones(mover.opponent()) as i32 - after.stones(mover.opponent()) as i32;
            let tie: u32 = self.rng.random();
            if best.as_ref().is_none_or(|(s, t, _)| (score, tie) > (*s, *t)) {
                best = Some((score, tie, token));
            }
        }
        let (score, _, best) = best?;
        Some(SearchResult { pv: vec![best.clone()], best, score, depth: 1, nodes, elapsed: started.elapsed() })
    }
}

/// Convenience: the turn `level` plays in `pos`, or `None` without a legal turn.
pub fn best_turn(pos: &Position, level: Level, seed: u64) -> Option<Token> {
    Engine::new(seed).search(pos, level.limits(), &AtomicBool::new(false)).map(|r| r.best)
}
