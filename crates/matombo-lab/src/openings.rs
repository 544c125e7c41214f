//! Openings for matches and tuning: a few random turns from the start position, and
//! balanced ones, which a search judges close to even.

use std::sync::atomic::AtomicBool;

use matombo_ai::{random_turn, Engine, Limits, MATE_BOUND};
use matombo_core::{Game, Position, Ruleset};
use rand::rngs::SmallRng;
use rand::SeedableRng;

/// `turns` uniformly random turns from the start of `ruleset`; `None` if they end the game.
pub fn random_opening(ruleset: Ruleset, turns: u32, seed: u64) -> Option<Position> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut game = Game::new(Position::start(ruleset));
    for _ in 0..turns {
        if game.is_over() {
            return None;
        }
        let t = random_turn(game.position(), &mut rng).expect("a game not over has a turn");
        game.play(&t).expect("random turns are legal");
    }
    (!game.is_over()).then(|| game.position().clone())
}

/// An opening: `turns` random turns from the start, never a finished game; `seed_of`
/// gives the random seed of each attempt (the start position itself after 1000 failures).
pub fn opening(ruleset: Ruleset, turns: u32, seed_of: impl Fn(u64) -> u64) -> Position {
    (0..1000u64)
        .find_map(|attempt| random_opening(ruleset, turns, seed_of(attempt)))
        .unwrap_or_else(|| Position::start(ruleset))
}

/// Random openings tried for one balanced opening before giving up.
pub const BALANCE_TRIES: u64 = 200;

/// The score of `pos` for the side to move by a search of `nodes` nodes: the one
/// `matombo analyse POS --nodes N` reports (same seed, fresh engine).
pub fn balance_score(pos: &Position, nodes: u64) -> Option<i32> {
    let limits = Limits { nodes: Some(nodes), ..Limits::default() };
    Engine::new(1).search(pos, limits, &AtomicBool::new(false)).map(|r| r.score)
}

/// No balanced opening was found in [`BALANCE_TRIES`] attempts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoBalancedOpening {
    /// The ruleset.
    pub ruleset: Ruleset,
    /// Random turns of each opening.
    pub turns: u32,
    /// The tolerance, in hundredths of a stone.
    pub within: u32,
    /// The node budget of each search.
    pub nodes: u64,
}

impl std::fmt::Display for NoBalancedOpening {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let NoBalancedOpening { ruleset, turns, within, nodes } = self;
        write!(
            f,
            "no opening of {turns} random turns on {ruleset} scored within ±{within} in {BALANCE_TRIES} tries \
             ({nodes} nodes each)"
        )
    }
}

impl std::error::Error for NoBalancedOpening {}

/// A balanced opening: the first random opening (attempts by `seed_of`) whose search
/// score ([`balance_score`]) is within ±`within` and not a proven result. An opening
/// already decided splits its pair 1-1 whoever plays it, and tells nothing about the
/// engines.
pub fn balanced_opening(
    ruleset: Ruleset,
    turns: u32,
    within: u32,
    nodes: u64,
    seed_of: impl Fn(u64) -> u64,
) -> Result<Position, NoBalancedOpening> {
    for attempt in 0..BALANCE_TRIES {
        let Some(pos) = random_opening(ruleset, turns, seed_of(attempt)) else { continue };
        let Some(score) = balance_score(&pos, nodes) else { continue };
        if score.unsigned_abs() <= within && score.abs() <= MATE_BOUND {
            return Ok(pos);
        }
    }
    Err(NoBalancedOpening { ruleset, turns, within, nodes })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openings_are_seeded_and_never_finished() {
        let r: Ruleset = "tsoro:8".parse().unwrap();
        let a = random_opening(r, 4, 7).unwrap();
        assert_eq!(random_opening(r, 4, 7), Some(a.clone()));
        assert_ne!(a, Position::start(r));
        assert_eq!(Position::start(r), random_opening(r, 0, 7).unwrap());
        for seed in 0..20 {
            let p = opening(r, 6, |attempt| seed * 1000 + attempt);
            assert!(p.has_legal_turn());
        }
    }

    #[test]
    fn balanced_openings_score_within_the_tolerance() {
        let r: Ruleset = "nsolo:8".parse().unwrap();
        let p = balanced_opening(r, 4, 300, 2000, |a| a).unwrap();
        let score = balance_score(&p, 2000).unwrap();
        assert!(score.abs() <= 300, "{score}");
        let e = NoBalancedOpening { ruleset: r, turns: 4, within: 0, nodes: 10 };
        assert_eq!(
            e.to_string(),
            "no opening of 4 random turns on nsolo:8 scored within ±0 in 200 tries (10 nodes each)"
        );
    }
}
