//! Multi-PV: the K best root turns from one search, at one depth.

use std::collections::HashSet;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use matombo_ai::{Engine, Limits, SearchOptions};
use matombo_core::Position;

const POSITIONS: [&str; 4] =
    ["tsoro:8", "nsolo:8 2*8/0,2*7/2*7,0/2*8 S", "tsoro:8 2*8/0*8/0*6,1*2/2,0,3,0,3*2,0,3 N", "tsoro:21"];

fn depth(d: u32) -> Limits {
    Limits { depth: Some(d), ..Limits::default() }
}

#[test]
fn lines_are_sorted_distinct_legal_and_of_one_depth() {
    for pos in POSITIONS {
        let p: Position = pos.parse().unwrap();
        let lines = Engine::new(1).search_multipv(&p, depth(4), &AtomicBool::new(false), 4);
        let legal = p.turns().count();
        assert_eq!(lines.len(), legal.min(4), "{pos}");
        assert!(lines.windows(2).all(|w| w[0].score >= w[1].score), "{pos}: not sorted");
        let firsts: HashSet<String> = lines.iter().map(|r| r.best.to_string()).collect();
        assert_eq!(firsts.len(), lines.len(), "{pos}: a turn twice");
        for r in &lines {
            assert_eq!(r.depth, 4, "{pos}");
            assert_eq!(r.pv[0], r.best);
            assert_eq!(r.nodes, lines[0].nodes, "{pos}: one search, one node count");
            let mut q = p.clone();
            for t in &r.pv {
                q = q.play(t).unwrap_or_else(|e| panic!("{pos}: {t} in the pv: {e}"));
            }
        }
    }
}

#[test]
fn the_first_line_is_the_single_line_search() {
    for pos in POSITIONS {
        let p: Position = pos.parse().unwrap();
        for d in 1..=5 {
            let single = Engine::new(1).search(&p, depth(d), &AtomicBool::new(false)).unwrap();
            let lines = Engine::new(1).search_multipv(&p, depth(d), &AtomicBool::new(false), 3);
            assert_eq!(lines[0].score, single.score, "{pos} depth {d}");
        }
    }
}

/// Every line's score is the turn's own score at that depth: searching the position after
/// the turn one turn less deep gives its negation.
#[test]
fn each_line_scores_its_turn() {
    let p: Position = "nsolo:8 2*8/0,2*7/2*7,0/2*8 S".parse().unwrap();
    let lines = Engine::new(1).search_multipv(&p, depth(4), &AtomicBool::new(false), 3);
    for r in &lines {
        let after = p.play(&r.best).unwrap();
        let reply = Engine::new(1).search(&after, depth(3), &AtomicBool::new(false)).unwrap();
        assert_eq!(r.score, -reply.score, "{}", r.best);
    }
}

/// A huge K is clamped to the legal turns (it used to divide the time by K), and ranks
/// them all within the time given.
#[test]
fn a_huge_k_ranks_every_turn_in_one_budget() {
    let p = Position::start("tsoro:8".parse().unwrap());
    let limits = Limits { time: Some(Duration::from_millis(100)), ..Limits::default() };
    let started = std::time::Instant::now();
    let lines = Engine::new(1).search_multipv(&p, limits, &AtomicBool::new(false), 4_294_967_296);
    assert!(started.elapsed() < Duration::from_secs(2));
    assert_eq!(lines.len(), p.turns().count());
    assert!(lines.iter().all(|r| r.depth == lines[0].depth && r.depth >= 1));
    let options = SearchOptions { lines: usize::MAX, ..SearchOptions::default() };
    let all = Engine::new(1).search_lines(&p, depth(2), &AtomicBool::new(false), &[], options, &mut |_| {});
    assert_eq!(all.len(), p.turns().count());
}
