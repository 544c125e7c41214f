//! The shipped puzzles (`crates/matombo-web/assets/content/puzzles.jsonl`) re-proved by the
//! exact solver: a sample of the short ones here (fast in the debug profile); the whole set
//! with `matombo puzzles check` (docs/puzzles.md).

use matombo_lab::puzzles::{check, parse_jsonl, puzzle_id, THEMES};

fn shipped() -> Vec<matombo_lab::puzzles::Puzzle> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../matombo-web/assets/content/puzzles.jsonl");
    parse_jsonl(&std::fs::read_to_string(path).expect("the shipped puzzles")).expect("valid lines")
}

#[test]
fn every_shipped_puzzle_is_well_formed() {
    let all = shipped();
    assert!(!all.is_empty());
    let mut ids = std::collections::HashSet::new();
    for p in &all {
        assert!(ids.insert(p.id.clone()), "duplicate id {}", p.id);
        assert_eq!(p.id, puzzle_id(&p.position));
        let d = p.distance().expect("win in N");
        assert!((1..=9).contains(&d) && p.solution.len() == d as usize, "{}", p.id);
        assert!(p.themes.iter().all(|t| THEMES.contains(&t.as_str())), "{}", p.id);
        assert!(p.position.ends_with(" S"), "the solver is South: {}", p.id);
    }
}

#[test]
fn a_sample_of_the_short_shipped_puzzles_is_proved_again() {
    let all = shipped();
    // Every 7th of the wins in at most 3 turns on the small boards.
    let sample: Vec<_> = all
        .iter()
        .filter(|p| p.distance().is_some_and(|d| d <= 3) && !p.position.starts_with("tsoro:21"))
        .step_by(7)
        .take(25)
        .collect();
    assert!(sample.len() >= 3, "a sample of {}", sample.len());
    for p in sample {
        assert_eq!(check(p, None, 5_000_000), Ok(()), "{} {}", p.id, p.position);
    }
}
