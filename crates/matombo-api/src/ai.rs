//! The AI's turn (`POST /api/ai`) and the search speed the in-browser benchmark measures.

use std::sync::atomic::AtomicBool;

use matombo_ai::clock::Instant;
use matombo_ai::{Level, Limits};
use matombo_core::{Position, Ruleset};
use serde::{Deserialize, Serialize};

use crate::{replay, ApiError, ErrorCode};

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
