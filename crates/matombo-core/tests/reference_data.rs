//! Checks the engine against data produced by an independent implementation of RULES.md
//! (`tools/reference/`, written in Python from the rules text alone): perft counts and
//! complete turn lists for start and mid-game positions of many rulesets.

use std::collections::BTreeSet;

use matombo_core::Position;

const PERFT: &str = include_str!("data/perft.txt");
const TURNS: &str = include_str!("data/turns.txt");

#[test]
fn perft_counts_match_the_reference() {
    let mut checked = 0;
    let mut slow_checked = 0;
    for (i, line) in PERFT.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let parts: Vec<&str> = line.split(';').map(str::trim).collect();
        assert_eq!(parts.len(), 3, "perft.txt line {}: {line}", i + 1);
        let pos: Position = parts[0].parse().unwrap_or_else(|e| panic!("perft.txt line {}: {e}", i + 1));
        assert_eq!(pos.to_string(), parts[0], "perft.txt line {}: not canonical", i + 1);
        let depth: u32 = parts[1].parse().unwrap();
        let expected: u128 = parts[2].parse().unwrap();
        assert_eq!(pos.perft(depth), expected, "perft({}, {depth})", parts[0]);
        // The choice-by-choice path must agree too where it is quick enough.
        if expected <= 20_000 {
            assert_eq!(pos.perft_by_decisions(depth), expected, "perft_by_decisions({}, {depth})", parts[0]);
            slow_checked += 1;
        }
        checked += 1;
    }
    assert!(checked >= 40, "only {checked} perft lines");
    assert!(slow_checked >= 20, "only {slow_checked} perft lines checked choice by choice");
}

#[test]
fn turn_lists_match_the_reference() {
    let mut blocks = 0;
    let mut current: Option<(Position, BTreeSet<(String, String)>)> = None;
    let mut check = |block: Option<(Position, BTreeSet<(String, String)>)>| {
        if let Some((pos, expected)) = block {
            let ours: BTreeSet<(String, String)> = pos.turns().map(|(t, p)| (t.to_string(), p.to_string())).collect();
            let missing: Vec<_> = expected.difference(&ours).take(5).collect();
            let extra: Vec<_> = ours.difference(&expected).take(5).collect();
            assert!(missing.is_empty() && extra.is_empty(), "{pos}: missing {missing:?}, extra {extra:?}");
            assert_eq!(pos.count_turns(), expected.len() as u128, "{pos}");
            blocks += 1;
        }
    };
    for line in TURNS.lines() {
        let line = line.trim();
        if line.starts_with('#') {
            continue;
        }
        if let Some(p) = line.strip_prefix("position:") {
            check(current.take());
            current = Some((p.trim().parse().expect("position line"), BTreeSet::new()));
        } else if !line.is_empty() {
            let (token, after) = line.split_once(' ').expect("<token> <position>");
            let set = &mut current.as_mut().expect("a position line first").1;
            set.insert((token.to_string(), after.trim().to_string()));
        }
    }
    check(current.take());
    assert!(blocks >= 40, "only {blocks} turn lists");
}
