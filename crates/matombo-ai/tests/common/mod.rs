//! Helpers shared by the search tests.

use matombo_ai::random_turn;
use matombo_core::{Game, Position, Ruleset};
use rand::rngs::SmallRng;
use rand::SeedableRng;

/// Positions met in random games (every turn of each game), each with the game's history.
pub fn random_positions(ruleset: &str, games: usize, seed: u64) -> Vec<(Position, Vec<Position>)> {
    let r: Ruleset = ruleset.parse().unwrap();
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut out = Vec::new();
    for _ in 0..games {
        let mut game = Game::new(Position::start(r));
        while !game.is_over() && game.moves().len() < 300 {
            let pos = game.position().clone();
            out.push((pos.clone(), game.positions()[..game.positions().len() - 1].to_vec()));
            let t = random_turn(&pos, &mut rng).expect("a game not over has a turn");
            game.play(&t).unwrap();
        }
    }
    out
}
