//! Measures how far timed searches run past their budget on positions from random games.
//!
//! `cargo run --release -p matombo-ai --example timing -- nsolo:36 1000 30 10`
//! (ruleset, budget in ms, positions, minimum capture pending: only positions where the
//! side to move can capture at least that many stones at once are used).

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use matombo_ai::{greedy_turn, random_turn, Engine, Limits};
use matombo_core::{Game, Position};
use rand::rngs::SmallRng;
use rand::SeedableRng;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let ruleset = args.first().map_or("nsolo:36", |s| s.as_str()).parse().expect("ruleset");
    let ms: u64 = args.get(1).map_or(1000, |s| s.parse().expect("ms"));
    let count: usize = args.get(2).map_or(20, |s| s.parse().expect("count"));
    let min_capture: u32 = args.get(3).map_or(0, |s| s.parse().expect("capture"));
    let mut rng = SmallRng::seed_from_u64(11);
    let mut positions: Vec<Position> = Vec::new();
    while positions.len() < count {
        let mut game = Game::new(Position::start(ruleset));
        while !game.is_over() && game.moves().len() < 400 && positions.len() < count {
            let pos = game.position().clone();
            let greedy = greedy_turn(&pos, &mut rng).expect("turn");
            let captured = pos.stones(pos.side_to_move().opponent())
                - pos.play(&greedy).unwrap().stones(pos.side_to_move().opponent());
            if game.moves().len() > 10 && captured >= min_capture {
                positions.push(pos.clone());
            }
            let t = random_turn(&pos, &mut rng).expect("turn");
            game.play(&t).unwrap();
        }
    }
    let stop = AtomicBool::new(false);
    let mut worst = Duration::ZERO;
    let mut total = Duration::ZERO;
    let budget = Duration::from_millis(ms);
    for (i, pos) in positions.iter().enumerate() {
        let mut engine = Engine::new(i as u64);
        // Wall clock around the call, as a caller sees it.
        let t0 = std::time::Instant::now();
        let r = engine.search(pos, Limits { time: Some(budget), ..Limits::default() }, &stop).unwrap();
        let wall = t0.elapsed();
        assert!(pos.play(&r.best).is_ok());
        total += wall;
        worst = worst.max(wall);
        println!(
            "{:>3} depth {:>2} nodes {:>9} time {:>7.1} ms  {}",
            i,
            r.depth,
            r.nodes,
            wall.as_secs_f64() * 1e3,
            r.best
        );
    }
    println!(
        "{} positions, budget {ms} ms: mean {:.1} ms, worst {:.1} ms ({:+.1} ms over)",
        positions.len(),
        total.as_secs_f64() * 1e3 / positions.len() as f64,
        worst.as_secs_f64() * 1e3,
        (worst.as_secs_f64() - budget.as_secs_f64()) * 1e3
    );
}
