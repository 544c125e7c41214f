//! Plays a game choice by choice driven by the fuzzer's bytes and checks the invariants:
//! only listed decisions are accepted, stones are conserved, the incremental hash equals
//! the full one, and every completed turn replays from its token.
#![no_main]
use libfuzzer_sys::fuzz_target;
use matombo_core::{Position, Ruleset};

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else { return };
    let rulesets: Vec<Ruleset> = Ruleset::all().collect();
    let ruleset = rulesets[first as usize % rulesets.len()];
    let mut pos = Position::start(ruleset);
    let mut turn = pos.begin_turn();
    for &b in rest {
        let ds = turn.decisions();
        if ds.is_empty() {
            return;
        }
        let d = ds[b as usize % ds.len()];
        let before = turn.position().total_stones();
        turn.apply(d).unwrap();
        assert!(turn.position().total_stones() <= before);
        assert_eq!(turn.position().hash(), turn.position().full_hash());
        if turn.is_complete() {
            let token = turn.token().unwrap();
            let next = turn.into_position().unwrap();
            assert_eq!(pos.play(&token).unwrap(), next);
            pos = next;
            turn = pos.begin_turn();
        }
    }
});
