//! Prints how long uniformly random games last, per ruleset (for tuning and for the README).
//! `cargo run --release -p matombo-core --example playout_stats`
use matombo_core::{random_playout, Position};
use rand::rngs::SmallRng;
use rand::SeedableRng;

fn main() {
    for name in ["tsoro:8", "tsoro:21", "nsolo:8", "nsolo:36"] {
        let start = Position::start(name.parse().unwrap());
        let mut rng = SmallRng::seed_from_u64(1);
        let games = 2000;
        let (mut turns, mut unfinished, mut draws, mut max) = (0u64, 0, 0, 0);
        let t = std::time::Instant::now();
        for _ in 0..games {
            let p = random_playout(&start, &mut rng, 5000);
            turns += p.turns as u64;
            max = max.max(p.turns);
            unfinished += p.unfinished as u32;
            draws += (p.winner.is_none() && !p.unfinished) as u32;
        }
        let s = t.elapsed().as_secs_f64();
        println!(
            "{name:<9} {:>8.0} playouts/s  {:>6.1} turns/game (max {max})  unfinished {unfinished}  draws {draws}  {:>5.0} ns/turn",
            games as f64 / s,
            turns as f64 / games as f64,
            s * 1e9 / turns as f64
        );
    }
}
