//! The tables against an independent exhaustive search, and their files against damage.

use std::collections::HashMap;

use matombo_core::{Position, Ruleset};
use matombo_egtb::{file, Budget, Tables, Value};

const BUDGET: Budget = Budget { threads: 2, memory: 1 << 30 };

/// What a search to a fixed depth proves: the side to move wins / loses within `d` turns.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Proof {
    Win,
    Loss,
    Open,
}

/// Plain depth-limited minimax over every legal turn, memoised: no layers, no retrograde.
struct Search {
    memo: HashMap<(u64, u32), Proof>,
}

impl Search {
    fn prove(&mut self, p: &Position, d: u32) -> Proof {
        if let Some(&v) = self.memo.get(&(p.full_hash(), d)) {
            return v;
        }
        let mut children = Vec::new();
        p.for_each_child(&mut |c| children.push(c.clone()));
        let v = if children.is_empty() {
            Proof::Loss
        } else if d == 0 {
            Proof::Open
        } else {
            let mut all_won = true;
            let mut any_lost = false;
            for c in &children {
                match self.prove(c, d - 1) {
                    Proof::Loss => any_lost = true,
                    Proof::Win => {}
                    Proof::Open => all_won = false,
                }
                if any_lost {
                    break;
                }
            }
            if any_lost {
                Proof::Win
            } else if all_won {
                Proof::Loss
            } else {
                Proof::Open
            }
        };
        self.memo.insert((p.full_hash(), d), v);
        v
    }

    /// The value a search finds, looking `horizon` turns ahead at most.
    fn value(&mut self, p: &Position, horizon: u32) -> Value {
        for d in 0..=horizon {
            match self.prove(p, d) {
                Proof::Win => return Value::Win(d as u16),
                Proof::Loss => return Value::Loss(d as u16),
                Proof::Open => {}
            }
        }
        Value::Draw
    }
}

fn longest(tables: &Tables) -> u32 {
    let mut max = 0;
    for layer in tables.layers() {
        for &c in &layer.codes {
            match Value::from_code(c).unwrap() {
                Value::Win(d) | Value::Loss(d) => max = max.max(d as u32),
                Value::Draw => {}
            }
        }
    }
    max
}

/// Every position of every layer up to `stones` (or every `step`-th of the big layers, and
/// the first `draws` drawn positions of each): the search agrees, and the table's best
/// turns lead one step closer.
fn check(ruleset: &str, stones: u32, step: u64, draws_checked: usize) {
    let ruleset: Ruleset = ruleset.parse().unwrap();
    let tables = Tables::build(ruleset, stones, 2).unwrap();
    let horizon = longest(&tables) + 2;
    let mut search = Search { memo: HashMap::new() };
    let (mut wins, mut losses, mut draws) = (0, 0, 0);
    for layer in tables.layers() {
        let step = if layer.index.len() > 5_000 { step } else { 1 };
        let sampled = (0..layer.index.len()).step_by(step as usize);
        let drawn = (0..layer.index.len()).filter(|&i| layer.codes[i as usize] == 0).take(draws_checked);
        for i in sampled.chain(drawn) {
            let p = layer.index.unrank(i);
            let v = tables.probe(&p).unwrap();
            assert_eq!(v, search.value(&p, horizon), "{p}");
            match v {
                Value::Win(_) => wins += 1,
                Value::Loss(_) => losses += 1,
                Value::Draw => draws += 1,
            }
            // Children: a win has a child lost one step sooner; a loss has only won children,
            // one of them one step sooner; a draw has no lost child and some drawn one.
            let kids: Vec<Value> = p.turns().map(|(_, c)| tables.probe(&c).unwrap()).collect();
            match v {
                Value::Win(d) => {
                    assert!(kids.contains(&Value::Loss(d - 1)), "{p}");
                    assert!(kids.iter().all(|k| !matches!(k, Value::Loss(e) if *e + 1 < d)), "{p}");
                }
                Value::Loss(0) => assert!(kids.is_empty(), "{p}"),
                Value::Loss(d) => {
                    assert!(kids.iter().all(|k| matches!(k, Value::Win(e) if *e < d)), "{p}");
                    assert!(kids.contains(&Value::Win(d - 1)), "{p}");
                }
                Value::Draw => {
                    assert!(kids.iter().all(|k| !matches!(k, Value::Loss(_))), "{p}");
                    assert!(kids.contains(&Value::Draw), "{p}");
                }
            }
            if let Some((bv, best)) = tables.best_turns(&p) {
                assert_eq!(bv, v);
                assert_eq!(best.is_empty(), v == Value::Loss(0), "{p}");
            }
        }
    }
    // The check means something only if every kind of value occurs.
    assert!(
        wins > 0 && losses > 0 && (draws > 0 || draws_checked == 0),
        "{ruleset}: {wins} wins, {losses} losses, {draws} draws"
    );
    eprintln!("{ruleset} up to {stones}: {wins} wins, {losses} losses, {draws} draws, longest {}", horizon - 2);
}

#[test]
fn tsoro_basic_game_agrees_with_search() {
    check("tsoro:6,heads=0,bonus=0", 7, 4001, 2);
}

#[test]
fn tsoro_heads_and_bonus_agree_with_search() {
    check("tsoro:6", 3, 1, 0);
    check("tsoro:6,heads=1,bonus=3", 3, 1, 0);
}

#[test]
fn nsolo_agrees_with_search() {
    check("nsolo:8", 3, 3, 0);
}

#[test]
fn files_round_trip_and_damage_is_refused() {
    let dir = std::env::temp_dir().join(format!("matombo-egtb-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let ruleset: Ruleset = "tsoro:6,heads=0,bonus=0".parse().unwrap();
    let mut built = Vec::new();
    let tables =
        Tables::build_in(&dir, ruleset, 3, BUDGET, &|_, _| {}, &mut |l, b| built.push((l.index.stones(), b.is_some())))
            .unwrap();
    assert_eq!(built, vec![(0, true), (1, true), (2, true), (3, true)]);
    // A second build reads what is there (resuming) and builds only what is missing.
    let mut again = Vec::new();
    Tables::build_in(&dir, ruleset, 4, BUDGET, &|_, _| {}, &mut |l, b| again.push((l.index.stones(), b.is_some())))
        .unwrap();
    assert_eq!(again, vec![(0, false), (1, false), (2, false), (3, false), (4, true)]);
    let opened = Tables::open(&dir, ruleset).unwrap();
    assert_eq!(opened.max_stones(), 4);
    for (a, b) in tables.layers().iter().zip(opened.layers()) {
        assert_eq!(a.codes, b.codes);
    }

    let path = file::layer_path(&dir, ruleset, 2);
    let good = std::fs::read(&path).unwrap();
    // One flipped bit in the codes.
    let mut bad = good.clone();
    let at = bad.len() - 40;
    bad[at] ^= 1;
    std::fs::write(&path, &bad).unwrap();
    let e = Tables::open(&dir, ruleset).unwrap_err().to_string();
    assert!(e.contains("checksum"), "{e}");
    // Cut short.
    std::fs::write(&path, &good[..good.len() / 2]).unwrap();
    assert!(Tables::open(&dir, ruleset).unwrap_err().to_string().contains("corrupt"));
    // Another ruleset's file in its place.
    let other: Ruleset = "tsoro:6,heads=0,bonus=1".parse().unwrap();
    let t2 = Tables::build(other, 2, 1).unwrap();
    std::fs::write(&path, file::encode(other, &t2.layers()[2])).unwrap();
    let e = Tables::open(&dir, ruleset).unwrap_err().to_string();
    assert!(e.contains("not tsoro:6,heads=0,bonus=0"), "{e}");
    // A damaged file is never trusted by a resumed build either.
    assert!(Tables::build_in(&dir, ruleset, 4, BUDGET, &|_, _| {}, &mut |_, _| {}).is_err());
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(matches!(Tables::open(&dir, ruleset), Err(matombo_egtb::Error::Missing(..))));
}

#[test]
fn too_many_stones_are_refused() {
    let r: Ruleset = "tsoro:6".parse().unwrap();
    assert!(Tables::build(r, 25, 1).unwrap_err().to_string().contains("starts with 24 stones"));
}

#[test]
fn the_memory_bound_is_kept() {
    let dir = std::env::temp_dir().join(format!("matombo-egtb-mem-{}", std::process::id()));
    let r: Ruleset = "tsoro:6".parse().unwrap();
    let tight = Budget { threads: 2, memory: 200_000 };
    let e = Tables::build_in(&dir, r, 4, tight, &|_, _| {}, &mut |_, _| {}).unwrap_err();
    assert!(matches!(e, matombo_egtb::Error::Memory { stones: 3 | 4, .. }), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_solver_agrees_with_the_tables() {
    use matombo_egtb::{Solution, Solver};
    use std::sync::atomic::AtomicBool;
    let ruleset: Ruleset = "tsoro:6,heads=0,bonus=0".parse().unwrap();
    let full = Tables::build(ruleset, 6, 2).unwrap();
    let small = Tables::build(ruleset, 4, 2).unwrap();
    let stop = AtomicBool::new(false);
    let mut proved = 0;
    for (stones, tables) in [(4, None), (6, Some(&small))] {
        let layer = &full.layers()[stones];
        for i in (0..layer.index.len()).step_by(if stones == 4 { 97 } else { 9973 }) {
            let p = layer.index.unrank(i);
            let v = full.probe(&p).unwrap();
            let mut solver = Solver::new(tables, 20_000_000, &stop);
            match (solver.solve(&p, 30, &mut |_, _| {}), v) {
                (Solution::Proved(sv, line), Value::Win(d) | Value::Loss(d)) => {
                    assert_eq!(sv, v, "{p}");
                    // The line is played to its end: the loser has no turn left.
                    assert_eq!(line.len(), d as usize, "{p}");
                    let mut q = p.clone();
                    for t in &line {
                        q = q.play(t).unwrap();
                    }
                    assert_eq!(q.turns().count(), 0, "{p}");
                    proved += 1;
                }
                (Solution::Open { depth }, Value::Win(d) | Value::Loss(d)) => assert!(depth < d as u32, "{p}"),
                (Solution::Open { .. }, Value::Draw) => {}
                (s, v) => panic!("{p}: solver {s:?}, tables {v}"),
            }
        }
    }
    assert!(proved > 100, "{proved}");
}
