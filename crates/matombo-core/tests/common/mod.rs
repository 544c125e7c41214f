//! Helpers shared by the integration tests: reaching varied positions by seeded random play.
#![allow(dead_code)]

use matombo_core::{Position, Ruleset};
use rand::rngs::SmallRng;
use rand::SeedableRng;

/// A spread of rulesets covering every game and option.
pub const RULESETS: [&str; 12] = [
    "tsoro:6",
    "tsoro:8",
    "tsoro:8,heads=1",
    "tsoro:8,heads=0,bonus=0",
    "tsoro:8,bonus=1",
    "tsoro:8,bonus=3",
    "tsoro:12,heads=1,bonus=3",
    "tsoro:21",
    "nsolo:8",
    "nsolo:9",
    "nsolo:12",
    "nsolo:36",
];

/// The position after `turns` uniformly random turns from the start of `ruleset`
/// (fewer if the game ends first).
pub fn random_position(ruleset: &str, seed: u64, turns: u32) -> Position {
    let r: Ruleset = ruleset.parse().unwrap();
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut pos = Position::start(r);
    for _ in 0..turns {
        let mut turn = pos.begin_turn();
        if !turn.apply_random(&mut rng) {
            break;
        }
        while !turn.is_complete() {
            assert!(turn.apply_random(&mut rng));
        }
        pos = turn.into_position().unwrap();
    }
    pos
}
