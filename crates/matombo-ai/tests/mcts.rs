//! Behaviour of the Monte-Carlo tree search: legal answers on many random positions,
//! limits, stopping, reproducibility, forced wins.

mod common;

use common::random_positions;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use matombo_ai::{Limits, Mcts, MctsConfig, SearchResult, MATE_BOUND};
use matombo_core::Position;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

fn nodes(n: u64) -> Limits {
    Limits { nodes: Some(n), ..Limits::default() }
}

/// The answer is a legal turn and its principal variation a line of legal turns.
fn check_legal(pos: &Position, r: &SearchResult) {
    assert!(pos.play(&r.best).is_ok(), "illegal {} in {pos}", r.best);
    assert_eq!(r.pv.first(), Some(&r.best));
    let mut p = pos.clone();
    for t in &r.pv {
        p = p.play(t).unwrap_or_else(|e| panic!("pv {:?} in {pos}: {e}", r.pv));
    }
}

#[test]
fn never_an_illegal_turn() {
    let stop = AtomicBool::new(false);
    let mut checked = 0;
    for (i, name) in ["tsoro:8", "tsoro:8,heads=1,bonus=3", "tsoro:21", "nsolo:8", "nsolo:36"].iter().enumerate() {
        let positions = random_positions(name, 3, i as u64);
        let mut rng = SmallRng::seed_from_u64(99);
        // Every position on small boards; a sample on the big ones (slower iterations).
        let step = if name.ends_with(":36") || name.ends_with(":21") { 9 } else { 1 };
        // Short playouts for half the searches, so that both leaf scorings are covered.
        for (k, (pos, history)) in positions.iter().step_by(step).enumerate() {
            let config = MctsConfig { playout_turns: if k % 2 == 0 { 0 } else { 6 }, ..MctsConfig::default() };
            let mut mcts = Mcts::with_config(k as u64, config);
            let n = rng.random_range(1..150);
            let r = mcts.search_with(pos, nodes(n), &stop, history);
            let r = r.unwrap_or_else(|| panic!("no answer in {pos} which has a legal turn"));
            check_legal(pos, &r);
            assert!(r.nodes <= n, "{} iterations for a limit of {n}", r.nodes);
            checked += 1;
        }
    }
    assert!(checked > 400, "only {checked} positions");
}

#[test]
fn no_turn_no_answer() {
    // South has no stones: no legal turn.
    let pos: Position = "tsoro:8 2*8/0*8/0*8/0*8 S".parse().unwrap();
    assert!(!pos.has_legal_turn());
    assert!(Mcts::new(1).search(&pos, nodes(100), &AtomicBool::new(false)).is_none());
}

#[test]
fn reproducible_from_a_seed() {
    let stop = AtomicBool::new(false);
    for name in ["tsoro:8", "nsolo:8"] {
        for (pos, history) in random_positions(name, 1, 3).iter().step_by(5).take(8) {
            let config = MctsConfig { playout_turns: 4, ..MctsConfig::default() };
            let a = Mcts::with_config(11, config).search_with(pos, nodes(300), &stop, history).unwrap();
            let b = Mcts::with_config(11, config).search_with(pos, nodes(300), &stop, history).unwrap();
            assert_eq!(
                (&a.best, a.score, &a.pv, a.nodes, a.depth),
                (&b.best, b.score, &b.pv, b.nodes, b.depth),
                "{pos}"
            );
        }
    }
}

#[test]
fn stop_flag_ends_the_search() {
    let pos = Position::start("nsolo:36".parse().unwrap());
    // Set before the search: it returns at once, with a legal turn.
    let r = Mcts::new(1).search(
        &pos,
        Limits { time: Some(Duration::from_secs(600)), ..Limits::default() },
        &AtomicBool::new(true),
    );
    let r = r.unwrap();
    check_legal(&pos, &r);
    assert!(r.nodes <= 1);
    // Set from another thread during a search with no other limit that would end it soon.
    let stop = AtomicBool::new(false);
    let r = std::thread::scope(|s| {
        s.spawn(|| {
            std::thread::sleep(Duration::from_millis(50));
            stop.store(true, Ordering::Relaxed);
        });
        Mcts::new(2).search(&pos, Limits { time: Some(Duration::from_secs(600)), ..Limits::default() }, &stop)
    });
    check_legal(&pos, &r.unwrap());
}

/// Positions where some turns win at once (the opponent is left without a legal turn)
/// and others do not.
fn immediate_wins(pos: &Position) -> (usize, usize) {
    let (mut wins, mut others) = (0, 0);
    for (_, q) in pos.turns() {
        if q.has_legal_turn() {
            others += 1;
        } else {
            wins += 1;
        }
    }
    (wins, others)
}

#[test]
fn plays_the_winning_capture() {
    // Nsolo 4x8: North's last stone is in a2. Sowing B8 (A8, A7) ends in the empty A7,
    // which faces a2: capture, and North has nothing left. B1 and B4 capture nothing.
    let pos: Position = "nsolo:8 0*8/0*6,1,0/0*8/2,0*2,2,0*3,2 S".parse().unwrap();
    assert_eq!(immediate_wins(&pos), (1, 2), "the constructed position is not what it claims");
    let r = Mcts::new(1).search(&pos, nodes(200), &AtomicBool::new(false)).unwrap();
    assert!(!pos.play(&r.best).unwrap().has_legal_turn(), "{} does not win in {pos}", r.best);
    assert!(r.score > MATE_BOUND, "a forced win scores as one: {}", r.score);
}

#[test]
fn finds_immediate_wins_in_random_positions() {
    let stop = AtomicBool::new(false);
    let mut found = 0;
    for name in ["tsoro:6", "tsoro:8", "nsolo:8"] {
        for (pos, history) in random_positions(name, 25, 5) {
            if pos.count_turns() > 3000 {
                continue;
            }
            let (wins, others) = immediate_wins(&pos);
            if wins == 0 || others == 0 {
                continue;
            }
            let r = Mcts::new(3).search_with(&pos, nodes(500), &stop, &history).unwrap();
            let after = pos.play(&r.best).unwrap();
            assert!(!after.has_legal_turn(), "{name}: {} does not win in {pos}", r.best);
            found += 1;
        }
    }
    assert!(found >= 5, "only {found} positions with an immediate win");
}

#[test]
fn avoids_a_turn_that_loses_at_once() {
    // Positions where some turns let the opponent win on his next turn and others do
    // not: with enough iterations the tree proves the losing ones and avoids them. No
    // bonus: the search reduces a bonus to a few policies, so with one it may not see the
    // turn that saves the game.
    let stop = AtomicBool::new(false);
    let mut checked = 0;
    for (pos, history) in random_positions("tsoro:8,bonus=0", 30, 8) {
        if pos.count_turns() > 200 {
            continue;
        }
        let loses = |q: &Position| q.turns().any(|(_, r)| !r.has_legal_turn());
        let (bad, good): (Vec<_>, Vec<_>) = pos.turns().map(|(_, q)| loses(&q)).partition(|&b| b);
        if bad.is_empty() || good.is_empty() {
            continue;
        }
        let r = Mcts::new(4).search_with(&pos, nodes(3000), &stop, &history).unwrap();
        assert!(!loses(&pos.play(&r.best).unwrap()), "{} lets the opponent win at once in {pos}", r.best);
        checked += 1;
    }
    assert!(checked >= 3, "only {checked} positions");
}
