//! A fixed number of seeded random playouts of one ruleset, for profiling (deterministic:
//! the same instructions every run, so callgrind's counts compare builds).
//! `cargo run --release -p matombo-core --example playouts -- tsoro:8,heads=0,bonus=0 20000`
use matombo_core::{random_playout, Position, Side};
use rand::rngs::SmallRng;
use rand::SeedableRng;

fn main() {
    let mut args = std::env::args().skip(1);
    let ruleset = args.next().unwrap_or_else(|| "tsoro:8,heads=0,bonus=0".to_string());
    let games: u64 = args.next().map_or(20_000, |n| n.parse().expect("a number of playouts"));
    let start = Position::start(ruleset.parse().expect("a ruleset"));
    let mut rng = SmallRng::seed_from_u64(1);
    let (mut turns, mut south) = (0u64, 0u64);
    let t = std::time::Instant::now();
    for _ in 0..games {
        // The cap of the comparison with Ludii.
        let p = random_playout(&start, &mut rng, 2500);
        turns += p.turns as u64;
        south += (p.winner == Some(Side::South)) as u64;
    }
    let s = t.elapsed().as_secs_f64();
    // Turns and wins tell two builds apart that do not play the same games.
    println!("{ruleset}: {games} playouts, {turns} turns, {south} won by South, {:.0} playouts/s", games as f64 / s);
}
