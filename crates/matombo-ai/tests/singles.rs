//! The single-stone endgame set (tests/data/singles.txt, issue 38): the search converts the
//! clearly won positions. Node budgets, so the games do not depend on the machine's speed.

use std::sync::atomic::AtomicBool;

use matombo_ai::{Engine, Limits};
use matombo_core::{Game, Position, Side};

/// The set's positions with their comments (the stones of each side).
fn set() -> Vec<(Position, String)> {
    include_str!("data/singles.txt")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (pos, note) = l.split_once('#').unwrap_or((l, ""));
            (pos.trim().parse().unwrap_or_else(|e| panic!("{l}: {e}")), note.to_string())
        })
        .collect()
}

/// Self-play from `start` at `nodes` a turn: the winner and the number of turns, or None
/// if the game is still going after `max_turns`.
fn self_play(start: &Position, nodes: u64, max_turns: usize) -> Option<(Side, usize)> {
    let stop = AtomicBool::new(false);
    let mut engine = Engine::new(1);
    let mut game = Game::new(start.clone());
    while !game.is_over() && game.moves().len() < max_turns {
        let pos = game.position().clone();
        let history = game.positions()[..game.positions().len() - 1].to_vec();
        let limits = Limits { nodes: Some(nodes), ..Limits::default() };
        let r = engine.search_with(&pos, limits, &stop, &history, &[], &mut |_| {}).expect("a turn");
        game.play(&r.best).unwrap();
    }
    let outcome = game.outcome()?;
    Some((outcome.winner.expect("Tsoro has no draw"), game.moves().len()))
}

#[test]
fn the_set_is_single_stone_endgames_on_the_big_board() {
    let set = set();
    assert_eq!(set.len(), 21);
    for (pos, note) in &set {
        assert_eq!(pos.ruleset().to_string(), "tsoro:21,heads=0,bonus=0", "{note}");
        let stones = pos.total_stones();
        assert!((13..=16).contains(&stones), "{stones} stones: {note}");
        assert!(pos.turns().next().is_some(), "a legal turn: {note}");
    }
}

#[test]
fn ten_singles_against_three_are_converted() {
    // 3 against 10: North captures the last of South's stones well within 100 turns at a
    // modest budget (`matombo match nodes=2000 nodes=2000 --positions` on these seven:
    // 45 to 64 turns).
    let won: Vec<_> = set().into_iter().filter(|(_, note)| note.contains("South 3, North 10")).collect();
    assert_eq!(won.len(), 7);
    for (pos, note) in &won {
        let end = self_play(pos, 2000, 100);
        assert!(matches!(end, Some((Side::North, _))), "{note}: {end:?} from {pos}");
    }
}
