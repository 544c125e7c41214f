//! The proof-number search against the tables and the depth-first solver: it never proves
//! what they refute, its distances are theirs, and its proofs check out independently.

use std::collections::HashMap;
use std::sync::atomic::AtomicBool;

use matombo_core::{Position, Ruleset};
use matombo_egtb::{solve_pns, Answer, Pns, PnsLimits, PnsSolution, Proof, Solution, Solver, Tables, Value};

const LIMITS: PnsLimits = PnsLimits { nodes: 2_000_000, memory: 16 << 20, exact_nodes: 5_000_000, threads: 1 };

/// Plays `line` from `p` and checks that the side that was to lose has no turn at its end.
fn check_line(p: &Position, v: Value, line: &[matombo_core::Token]) {
    let d = v.distance().unwrap() as usize;
    assert_eq!(line.len(), d, "{p}: {v}, line of {}", line.len());
    let mut q = p.clone();
    for t in line {
        q = q.play(t).unwrap();
    }
    assert_eq!(q.turns().count(), 0, "{p}");
}

/// Every `step`-th position of the layers `from..=to` of `ruleset`, solved by df-pn with the
/// tables of `below` stones at the leaves (or none), against the full tables.
fn agree(ruleset: &str, from: usize, to: usize, step: u64, below: Option<u32>) -> (u32, u32, u32) {
    let r: Ruleset = ruleset.parse().unwrap();
    let full = Tables::build(r, to as u32, 2).unwrap();
    let leaves = below.map(|k| Tables::build(r, k, 2).unwrap());
    let stop = AtomicBool::new(false);
    let (mut proved, mut draws, mut open) = (0, 0, 0);
    for layer in &full.layers()[from..=to] {
        for i in (0..layer.index.len()).step_by(step as usize) {
            let p = layer.index.unrank(i);
            let v = full.probe(&p).unwrap();
            let (sol, _) = solve_pns(&p, leaves.as_ref(), LIMITS, &stop, &mut |_, _, _| {}).unwrap();
            match sol {
                PnsSolution::Proved { value, exact, lower, upper, line } => {
                    assert!(exact, "{p}: {value} not exact ({lower}..{upper})");
                    assert_eq!(value, v, "{p}");
                    check_line(&p, v, &line);
                    proved += 1;
                }
                PnsSolution::Draw => {
                    assert_eq!(v, Value::Draw, "{p}");
                    draws += 1;
                }
                PnsSolution::Open { .. } => open += 1,
            }
        }
    }
    eprintln!("{ruleset} {from}..={to} stones: {proved} proved, {draws} draws, {open} open");
    (proved, draws, open)
}

/// df-pn against the full tables: more than `proved` positions proved and none left open.
fn agrees(ruleset: &str, from: usize, to: usize, step: u64, below: Option<u32>, proved: u32) {
    let (got, _, open) = agree(ruleset, from, to, step, below);
    assert!(got > proved && open == 0, "{ruleset} {from}..={to}: {got} proved, {open} open");
}

#[test]
fn tsoro_basic_game_agrees_with_the_tables() {
    agrees("tsoro:6,heads=0,bonus=0", 1, 6, 997, None, 100);
    agrees("tsoro:6,heads=0,bonus=0", 6, 6, 4001, Some(3), 50);
}

#[test]
fn tsoro_heads_and_bonus_agree_with_the_tables() {
    agrees("tsoro:6", 2, 5, 211, None, 100);
    agrees("tsoro:6,heads=1,bonus=3", 2, 5, 211, Some(2), 100);
}

#[test]
fn nsolo_agrees_with_the_tables() {
    agrees("nsolo:8", 2, 4, 97, None, 100);
}

/// Drawn positions (the first draws are at 7 stones in the basic game): df-pn proves no
/// win there, and finds the draw, repetitions handled.
#[test]
fn draws_are_never_proved_wins() {
    let r: Ruleset = "tsoro:6,heads=0,bonus=0".parse().unwrap();
    let full = Tables::build(r, 7, 2).unwrap();
    let leaves = Tables::build(r, 6, 2).unwrap();
    let stop = AtomicBool::new(false);
    let layer = &full.layers()[7];
    let drawn: Vec<u64> =
        (0..layer.index.len()).filter(|&i| layer.codes[i as usize] == 0).step_by(97).take(12).collect();
    assert!(drawn.len() >= 10);
    let mut found = 0;
    for i in drawn {
        let p = layer.index.unrank(i);
        match solve_pns(&p, Some(&leaves), LIMITS, &stop, &mut |_, _, _| {}).unwrap().0 {
            PnsSolution::Draw => found += 1,
            PnsSolution::Open { .. } => {}
            s => panic!("{p}: df-pn {s:?}, tables draw"),
        }
    }
    assert!(found >= 6, "{found}");
}

/// df-pn and the depth-first deepening solver agree wherever both decide.
#[test]
fn agrees_with_the_deepening_solver() {
    let stop = AtomicBool::new(false);
    let mut both = 0;
    for ruleset in ["tsoro:6,heads=0,bonus=3", "tsoro:6,heads=2,bonus=1", "nsolo:8"] {
        let r: Ruleset = ruleset.parse().unwrap();
        let full = Tables::build(r, 5, 2).unwrap();
        let layer = &full.layers()[5];
        for i in (0..layer.index.len()).step_by(layer.index.len() as usize / 25) {
            let p = layer.index.unrank(i);
            let mut solver = Solver::new(None, 2_000_000, &stop);
            let deep = solver.solve(&p, 40, &mut |_, _| {});
            let (pns, _) = solve_pns(&p, None, LIMITS, &stop, &mut |_, _, _| {}).unwrap();
            match (&deep, &pns) {
                (Solution::Proved(a, _), PnsSolution::Proved { value, .. }) => {
                    assert_eq!(a, value, "{p}");
                    both += 1;
                }
                (Solution::Proved(a, _), PnsSolution::Draw) => panic!("{p}: solver {a}, df-pn draw"),
                (Solution::Open { depth }, PnsSolution::Proved { value, .. }) => {
                    assert!(value.distance().unwrap() as u32 > *depth, "{p}: {value} but none within {depth}")
                }
                _ => {}
            }
        }
    }
    assert!(both > 40, "{both}");
}

/// A proof read back from the search verifies; the same proof with one attacker's turn
/// changed, or one removed, does not.
#[test]
fn proofs_verify_and_broken_ones_do_not() {
    let p: Position = "tsoro:6,heads=0,bonus=3".parse::<Ruleset>().map(Position::start).unwrap();
    let stop = AtomicBool::new(false);
    let mut pns = Pns::new(None, 64 << 20, 10_000_000, &stop);
    let me = p.side_to_move();
    let Answer::Proved(bound) = pns.prove(&p, me) else { panic!("the start of tsoro:6,heads=0,bonus=3 is won") };
    let proof: Proof = pns.proof(&p, me).unwrap();
    let checked = proof.verify(None).unwrap();
    assert!(checked >= 15 && checked <= bound.max(checked), "{checked} {bound}");
    // The line along the proof ends with the loser unable to move.
    let line = proof.line(None);
    let mut q = p.clone();
    for t in &line {
        q = q.play(t).unwrap();
    }
    assert_eq!(q.turns().count(), 0);
    // Remove the root's turn.
    let mut broken = proof.clone();
    broken.moves.remove(&p.hash());
    assert!(broken.verify(None).is_err());
    // Give some attacker position a turn that does not win (one the proof does not reach
    // a win with): every such replacement must be caught, and at least one exists.
    let mut caught = 0;
    let keys: Vec<u64> = proof.moves.keys().copied().take(200).collect();
    let positions: HashMap<u64, Position> = reachable(&proof, &keys);
    for (h, pos) in positions {
        for (t, _) in pos.turns() {
            if Some(&t) == proof.moves.get(&h) {
                continue;
            }
            let mut b = proof.clone();
            b.moves.insert(h, t.clone());
            if b.verify(None).is_err() {
                caught += 1;
            }
            break;
        }
    }
    assert!(caught > 0);
    // The South win is no North win.
    let wrong = Proof { root: p.clone(), attacker: me.opponent(), moves: proof.moves.clone() };
    assert!(wrong.verify(None).is_err());
}

/// The attacker's positions of the proof among `keys`, found by walking it.
fn reachable(proof: &Proof, keys: &[u64]) -> HashMap<u64, Position> {
    let mut out = HashMap::new();
    let mut seen = std::collections::HashSet::new();
    let mut stack = vec![proof.root.clone()];
    while let Some(p) = stack.pop() {
        if !seen.insert(p.hash()) || p.turns().count() == 0 {
            continue;
        }
        if p.side_to_move() == proof.attacker {
            if keys.contains(&p.hash()) {
                out.insert(p.hash(), p.clone());
            }
            stack.push(p.play(&proof.moves[&p.hash()]).unwrap());
        } else {
            p.for_each_child(&mut |c| stack.push(c.clone()));
        }
    }
    out
}

#[test]
fn the_start_of_the_bonus_3_game_is_won_in_15() {
    let p = Position::start("tsoro:6,heads=0,bonus=3".parse().unwrap());
    let stop = AtomicBool::new(false);
    let limits = PnsLimits { nodes: 20_000_000, memory: 64 << 20, exact_nodes: 50_000_000, threads: 2 };
    let (sol, stats) = solve_pns(&p, None, limits, &stop, &mut |_, _, _| {}).unwrap();
    let PnsSolution::Proved { value, exact, line, .. } = sol else { panic!("{sol:?}") };
    assert_eq!((value, exact), (Value::Win(15), true));
    check_line(&p, value, &line);
    assert!(stats.proof_positions > 0);
}

/// With a table far too small for the search (every slot taken over many times), a win
/// found is still read back, re-proved around its line where slots were lost, and the
/// proof verifies; the value is the tables'. (Before the read-back re-proved around its
/// line, such wins came back as errors.)
#[test]
fn proofs_read_back_from_a_tiny_table() {
    let r: Ruleset = "tsoro:6,heads=0,bonus=0".parse().unwrap();
    let full = Tables::build(r, 7, 2).unwrap();
    let leaves = Tables::build(r, 3, 2).unwrap();
    let stop = AtomicBool::new(false);
    let tiny =
        PnsLimits { nodes: 2_000_000, memory: 256 * matombo_egtb::ENTRY_BYTES, exact_nodes: 5_000_000, threads: 1 };
    let layer = &full.layers()[7];
    let (mut proved, mut replaced) = (0, 0);
    for i in (0..layer.index.len()).step_by(layer.index.len() as usize / 40) {
        let p = layer.index.unrank(i);
        let v = full.probe(&p).unwrap();
        let (sol, stats) =
            solve_pns(&p, Some(&leaves), tiny, &stop, &mut |_, _, _| {}).unwrap_or_else(|e| panic!("{p} ({v}): {e}"));
        match sol {
            PnsSolution::Proved { value, exact, lower, upper, .. } => {
                assert_eq!(value.kind(), v.kind(), "{p}");
                let d = v.distance().unwrap() as u32;
                assert!(if exact { value == v } else { lower <= d && d <= upper }, "{p}: {value}, tables {v}");
                proved += 1;
                replaced += (stats.replaced > 1000) as u32;
            }
            PnsSolution::Draw => assert_eq!(v, Value::Draw, "{p}"),
            PnsSolution::Open { .. } => {}
        }
    }
    eprintln!("{proved} proved, {replaced} of them with over 1000 slots replaced");
    assert!(replaced >= 10, "{proved} proved, {replaced} with slots replaced");
}
