//! The search with endgame tables: exact where the tables know.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use matombo_ai::{Engine, Limits, MATE};
use matombo_egtb::{Tables, Value};

#[test]
fn the_search_plays_the_tables_value() {
    let ruleset = "tsoro:6,heads=0,bonus=0".parse().unwrap();
    let tables = Arc::new(Tables::build(ruleset, 5, 2).unwrap());
    let mut engine = Engine::new(1).with_tables(tables.clone());
    let stop = AtomicBool::new(false);
    let limits = Limits { depth: Some(2), ..Limits::default() };
    let (mut wins, mut losses, mut draws) = (0, 0, 0);
    for layer in &tables.layers()[1..] {
        for i in (0..layer.index.len()).step_by(211) {
            let pos = layer.index.unrank(i);
            let value = tables.probe(&pos).unwrap();
            let Some(r) = engine.search(&pos, limits, &stop) else {
                assert_eq!(value, Value::Loss(0), "{pos}");
                continue;
            };
            // A shallow search is exact: every child is scored by the tables.
            let child = pos.play(&r.best).unwrap();
            assert_eq!(tables.probe(&child).unwrap().back(), value, "{pos}: {}", r.best);
            match value {
                Value::Win(d) => {
                    assert_eq!(r.score, MATE - d as i32, "{pos}");
                    wins += 1;
                }
                Value::Loss(d) => {
                    assert_eq!(r.score, -MATE + d as i32, "{pos}");
                    losses += 1;
                }
                Value::Draw => {
                    assert_eq!(r.score, 0, "{pos}");
                    draws += 1;
                }
            }
        }
    }
    assert!(wins > 100 && losses > 100, "{wins} {losses} {draws}");
}

#[test]
fn other_rulesets_search_as_usual() {
    let tables = Arc::new(Tables::build("tsoro:6,heads=0,bonus=0".parse().unwrap(), 2, 1).unwrap());
    let pos = matombo_core::Position::start("tsoro:8".parse().unwrap());
    let limits = Limits { depth: Some(3), ..Limits::default() };
    let stop = AtomicBool::new(false);
    let with = Engine::new(1).with_tables(tables).search(&pos, limits, &stop).unwrap();
    let without = Engine::new(1).search(&pos, limits, &stop).unwrap();
    assert_eq!((with.best, with.score), (without.best, without.score));
}
