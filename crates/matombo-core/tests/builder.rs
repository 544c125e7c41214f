//! The turn builder (bonus picks in any order) against the canonical resolution of tokens:
//! every order of a turn's picks gives that turn's token and position, and no sequence of
//! the picks it offers, with take-backs, ever makes a turn the rules refuse.

mod common;

use common::{random_position, RULESETS};
use matombo_core::{Decision, GameKind, Hole, Phase, Position, Token};
use proptest::prelude::*;
use rand::rngs::SmallRng;
use rand::seq::{IndexedRandom, SliceRandom};
use rand::{Rng, SeedableRng};

fn any_position() -> impl Strategy<Value = Position> {
    (0..RULESETS.len(), any::<u64>(), 0u32..120).prop_map(|(r, seed, turns)| random_position(RULESETS[r], seed, turns))
}

/// A token's picks as single picks (Nsolo's `xb3:2` is two picks of `b3`).
fn single_picks(token: &Token) -> Vec<Hole> {
    token.picks.iter().flat_map(|p| std::iter::repeat_n(p.hole, p.times as usize)).collect()
}

/// The decisions of a token before its bonus picks.
fn before_picks(pos: &Position, token: &Token) -> Vec<Decision> {
    pos.resolve(token).unwrap().into_iter().filter(|d| !matches!(d, Decision::Take(_) | Decision::Done)).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 160, ..ProptestConfig::default() })]

    /// Every listed turn with picks, its picks made in a shuffled order (and reversed):
    /// the same canonical token and the same position.
    #[test]
    fn every_order_of_picks_gives_the_canonical_token(pos in any_position(), seed in any::<u64>()) {
        let mut rng = SmallRng::seed_from_u64(seed);
        for (token, after) in pos.turns().filter(|(t, _)| !t.picks.is_empty()).take(200) {
            let mut picks = single_picks(&token);
            for order in 0..2 {
                if order == 0 { picks.shuffle(&mut rng) } else { picks.reverse() }
                let mut b = pos.build_turn();
                for d in before_picks(&pos, &token) {
                    b.apply(d).unwrap();
                }
                for (i, &h) in picks.iter().enumerate() {
                    prop_assert!(!b.is_complete(), "{token}: complete after {i} picks");
                    prop_assert!(b.pickable().contains(&h), "{token}: {h} not offered after {:?}", b.picks());
                    b.apply(Decision::Take(h)).unwrap();
                }
                if !b.is_complete() {
                    // Only a Tsoro bonus ended early asks for `done`.
                    prop_assert_eq!(pos.ruleset().kind(), GameKind::Tsoro);
                    b.apply(Decision::Done).unwrap();
                }
                prop_assert_eq!(b.token(), Some(token.clone()));
                prop_assert_eq!(b.position(), &after);
            }
        }
    }

    /// Every listed turn played through a builder with `resolve_for_builder`'s decisions
    /// (what the AI's answer and a whole token apply on the board page): the turn completes
    /// with its own token and position.
    #[test]
    fn resolve_for_builder_completes_every_turn(pos in any_position()) {
        for (token, after) in pos.turns().take(300) {
            let mut b = pos.build_turn();
            for d in pos.resolve_for_builder(&token).unwrap() {
                b.apply(d).unwrap();
            }
            prop_assert!(b.is_complete(), "{}: the builder still waits", token);
            prop_assert_eq!(b.token(), Some(token.clone()));
            prop_assert_eq!(b.position(), &after);
        }
    }

    /// Random picks among those offered, with take-backs and Tsoro's early `done`: the
    /// result is always a legal turn, the board shown is the board the token gives, and
    /// the partial token is the canonical token of the picks made.
    #[test]
    fn offered_picks_never_make_an_illegal_turn(pos in any_position(), seed in any::<u64>()) {
        let mut rng = SmallRng::seed_from_u64(seed);
        let with_bonus: Vec<Token> = pos.turns().filter(|(t, _)| !t.picks.is_empty()).map(|(t, _)| t).take(50).collect();
        prop_assume!(!with_bonus.is_empty());
        let legal: std::collections::HashSet<Token> = if pos.count_turns() <= 5000 {
            pos.turns().map(|(t, _)| t).collect()
        } else {
            Default::default()
        };
        let opp = pos.side_to_move().opponent();
        for token in with_bonus.iter().take(10) {
            let mut b = pos.build_turn();
            for d in before_picks(&pos, token) {
                b.apply(d).unwrap();
            }
            let Phase::Bonus { left } = b.phase() else { panic!("{token}: no bonus") };
            let before = b.position().stones(opp);
            let mut steps = 0;
            while !b.is_complete() {
                steps += 1;
                prop_assert!(steps < 1000);
                let offered = b.decisions();
                // Every pickable hole holds a stone, and nothing else is offered but `done`.
                for d in &offered {
                    match d {
                        Decision::Take(h) => prop_assert!(h.side == opp && b.position().count(*h) > 0),
                        Decision::Done => prop_assert_eq!(pos.ruleset().kind(), GameKind::Tsoro),
                        other => prop_assert!(false, "{other} offered in the bonus"),
                    }
                }
                let made = b.picks().len();
                if made > 0 && rng.random_ratio(1, 4) {
                    let shown = b.position().clone();
                    let h = b.undo_pick().unwrap();
                    prop_assert_eq!(b.picks().len(), made - 1);
                    prop_assert!(b.position().count(h) > shown.count(h));
                    continue;
                }
                let d = *offered.choose(&mut rng).unwrap();
                let partial_before = b.partial_token();
                b.apply(d).unwrap();
                if !b.is_complete() {
                    // The partial token lists the picks in canonical order; it resolves as far as it goes.
                    let partial = b.partial_token().unwrap();
                    prop_assert_eq!(single_picks(&partial).len(), b.picks().len());
                    prop_assert_ne!(Some(partial), partial_before);
                }
            }
            let t = b.token().unwrap();
            let after = pos.play(&t).unwrap();
            prop_assert_eq!(b.position(), &after);
            let bonus = single_picks(&t);
            if pos.ruleset().kind() == GameKind::Tsoro {
                // At most K holes, each once.
                prop_assert!(bonus.len() <= left as usize && t.picks.iter().all(|p| p.times == 1));
            } else {
                // Exactly the stones owed.
                prop_assert_eq!(bonus.len(), left as usize);
            }
            prop_assert!(before > after.stones(opp) || bonus.is_empty());
            if !legal.is_empty() {
                prop_assert!(legal.contains(&t), "{t} is not a listed turn");
            }
        }
    }

    /// A pick of a hole not offered is refused and changes nothing.
    #[test]
    fn picks_not_offered_are_refused(pos in any_position()) {
        let Some((token, _)) = pos.turns().find(|(t, _)| !t.picks.is_empty()) else { return Ok(()) };
        let mut b = pos.build_turn();
        for d in before_picks(&pos, &token) {
            b.apply(d).unwrap();
        }
        let n = pos.ruleset().size();
        let offered = b.pickable();
        let shown = b.position().clone();
        for side in [pos.side_to_move(), pos.side_to_move().opponent()] {
            for t in 0..2 * n {
                let h = Hole::from_track(side, t, n);
                if !offered.contains(&h) {
                    prop_assert!(b.apply(Decision::Take(h)).is_err());
                    prop_assert_eq!(b.position(), &shown);
                    prop_assert!(b.picks().is_empty());
                }
            }
        }
        prop_assert!(b.apply(Decision::Continue).is_err());
    }
}

#[test]
fn tsoro_picks_in_any_order_then_done() {
    // A turn with two picks: the later one first, taken back, made again, then `done`.
    let (pos, token) = (0..500)
        .map(|seed| random_position("tsoro:8", seed, 12))
        .find_map(|p| p.turns().find(|(t, _)| t.picks.len() == 2).map(|(t, _)| (p, t)))
        .expect("a turn with two picks");
    let picks = single_picks(&token);
    let mut b = pos.build_turn();
    for d in before_picks(&pos, &token) {
        b.apply(d).unwrap();
    }
    assert_eq!(b.phase(), Phase::Bonus { left: 2 });
    b.apply(Decision::Take(picks[1])).unwrap();
    assert_eq!(b.phase(), Phase::Bonus { left: 1 });
    assert!(!b.pickable().contains(&picks[1]), "a Tsoro hole is taken once");
    assert_eq!(b.undo_pick(), Some(picks[1]));
    assert_eq!(b.undo_pick(), None);
    assert_eq!(b.phase(), Phase::Bonus { left: 2 });
    b.apply(Decision::Take(picks[1])).unwrap();
    b.apply(Decision::Done).unwrap();
    let one: Token = format!("{}x{}", token.to_string().split('x').next().unwrap(), picks[1]).parse().unwrap();
    assert_eq!(b.token(), Some(one.clone()));
    assert_eq!(b.position(), &pos.play(&one).unwrap());
}

#[test]
fn a_lap_event_carries_its_path() {
    let pos = Position::start("tsoro:8".parse().unwrap());
    let mut turn = pos.begin_turn();
    let mut events = Vec::new();
    turn.apply_with("sow B7".parse().unwrap(), &mut |e| events.push(e)).unwrap();
    let path: Vec<String> = events[0].path().iter().map(|h| h.to_string()).collect();
    assert_eq!(path, ["B8", "A8"]);
}
