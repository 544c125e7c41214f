//! Behaviour of the search on many random positions: legal answers, limits, stopping,
//! forced wins, reproducibility.

mod common;

use common::random_positions;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use matombo_ai::{best_turn, greedy_turn, random_turn, Engine, Level, Limits, MATE_BOUND};
use matombo_core::Position;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

const RULESETS: [&str; 7] =
    ["tsoro:6", "tsoro:8", "tsoro:8,heads=1,bonus=3", "tsoro:12,heads=0,bonus=0", "tsoro:21", "nsolo:8", "nsolo:36"];

#[test]
fn never_an_illegal_turn() {
    let stop = AtomicBool::new(false);
    let mut checked = 0;
    for (i, name) in RULESETS.iter().enumerate() {
        let positions = random_positions(name, 3, i as u64);
        let mut engine = Engine::new(7);
        let mut rng = SmallRng::seed_from_u64(99);
        // Every position for small boards; a sample on the big ones (slower nodes).
        let step = if name.ends_with(":36") || name.ends_with(":21") { 7 } else { 1 };
        for (pos, history) in positions.iter().step_by(step) {
            let limits = Limits { nodes: Some(rng.random_range(1..400)), ..Limits::default() };
            let r = engine.search_with(pos, limits, &stop, history, &[], &mut |_| {});
            let r = r.unwrap_or_else(|| panic!("no answer in {pos} which has a legal turn"));
            assert!(pos.play(&r.best).is_ok(), "{name}: illegal {} in {pos}", r.best);
            // The principal variation is a line of legal turns.
            let mut p = pos.clone();
            for t in &r.pv {
                p = p.play(t).unwrap_or_else(|e| panic!("pv {:?} in {pos}: {e}", r.pv));
            }
            for t in [greedy_turn(pos, &mut rng).unwrap(), random_turn(pos, &mut rng).unwrap()] {
                assert!(pos.play(&t).is_ok());
            }
            checked += 1;
        }
    }
    assert!(checked > 1000, "only {checked} positions");
}

#[test]
fn no_turn_no_answer() {
    // South has no stones: no legal turn.
    let pos: Position = "tsoro:8 2*8/0*8/0*8/0*8 S".parse().unwrap();
    assert!(Engine::new(1).search(&pos, Limits::default(), &AtomicBool::new(false)).is_none());
    assert!(best_turn(&pos, Level::Beginner, 1).is_none());
}

#[test]
fn finds_immediate_wins() {
    // Wherever some turn leaves the opponent without stones, a depth-1 search must win.
    let stop = AtomicBool::new(false);
    let mut found = 0;
    for name in ["tsoro:6", "tsoro:8", "nsolo:8"] {
        for (pos, _) in random_positions(name, 40, 5) {
            let opp = pos.side_to_move().opponent();
            if pos.count_turns() > 5000 || !pos.turns().any(|(_, q)| q.stones(opp) == 0) {
                continue;
            }
            let r = Engine::new(1).search(&pos, Limits { depth: Some(2), ..Limits::default() }, &stop).unwrap();
            assert!(r.score > MATE_BOUND, "{pos}: {} scores {}", r.best, r.score);
            assert!(!pos.play(&r.best).unwrap().has_legal_turn(), "{pos}: {}", r.best);
            found += 1;
        }
    }
    assert!(found >= 10, "only {found} positions with a win in one");
}

#[test]
fn depth_limited_search_is_reproducible() {
    let stop = AtomicBool::new(false);
    for name in ["tsoro:8", "nsolo:8"] {
        let pos = Position::start(name.parse().unwrap());
        let limits = Limits { depth: Some(4), ..Limits::default() };
        let a = Engine::new(3).search(&pos, limits, &stop).unwrap();
        let b = Engine::new(3).search(&pos, limits, &stop).unwrap();
        assert_eq!(a.depth, 4);
        assert!(a.nodes > 100, "{} nodes", a.nodes);
        assert_eq!((a.best, a.score, a.pv, a.nodes), (b.best, b.score, b.pv, b.nodes));
    }
}

#[test]
fn node_limit_and_stop_flag_end_the_search() {
    let pos = Position::start("nsolo:36".parse().unwrap());
    let r = Engine::new(1).search(&pos, Limits { nodes: Some(500), ..Limits::default() }, &AtomicBool::new(false));
    let r = r.unwrap();
    // The limit is checked every 16 nodes.
    assert!(r.nodes < 500 + 16, "{} nodes", r.nodes);
    assert!(pos.play(&r.best).is_ok());
    // A stop raised before the search starts still gives a legal turn.
    let stop = AtomicBool::new(true);
    let r = Engine::new(1).search(&pos, Limits { depth: Some(50), ..Limits::default() }, &stop).unwrap();
    assert!(pos.play(&r.best).is_ok());
    assert!(r.nodes < 1000, "{} nodes after stop", r.nodes);
}

#[test]
fn stop_from_another_thread() {
    let pos = Position::start("tsoro:21".parse().unwrap());
    let stop = AtomicBool::new(false);
    std::thread::scope(|s| {
        let h = s.spawn(|| Engine::new(1).search(&pos, Limits { depth: Some(60), ..Limits::default() }, &stop));
        std::thread::sleep(Duration::from_millis(100));
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        let r = h.join().unwrap().unwrap();
        assert!(r.depth < 60);
        assert!(pos.play(&r.best).is_ok());
    });
}

#[test]
fn multipv_ranks_distinct_turns() {
    let pos = Position::start("tsoro:8".parse().unwrap());
    let rs =
        Engine::new(1).search_multipv(&pos, Limits { depth: Some(3), ..Limits::default() }, &AtomicBool::new(false), 3);
    assert_eq!(rs.len(), 3);
    assert!(rs[0].score >= rs[1].score && rs[1].score >= rs[2].score);
    assert!(rs[0].best != rs[1].best && rs[1].best != rs[2].best && rs[0].best != rs[2].best);
}

#[test]
fn levels_parse_and_answer() {
    let pos = Position::start("nsolo:8".parse().unwrap());
    for l in Level::ALL {
        assert_eq!(l.name().parse::<Level>().unwrap(), l);
        assert_eq!(l.to_string(), l.name());
        if l <= Level::Medium {
            assert!(pos.play(&best_turn(&pos, l, 1).unwrap()).is_ok());
        }
    }
    assert!("grandmaster".parse::<Level>().is_err());
}
