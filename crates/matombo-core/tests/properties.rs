//! Property tests over positions reached by seeded random play in every ruleset family:
//! turn listing, bulk counting and choice-by-choice play agree; turns replay; stones are
//! conserved; notation round-trips; the incremental hash equals a full recomputation;
//! the two sides are symmetric.

mod common;

use common::{random_position, RULESETS};
use matombo_core::{Game, GameKind, Hole, Position, Record, Setup, Side, Token};
use proptest::prelude::*;

fn any_position() -> impl Strategy<Value = Position> {
    (0..RULESETS.len(), any::<u64>(), 0u32..120).prop_map(|(r, seed, turns)| random_position(RULESETS[r], seed, turns))
}

/// Swaps the owner of a token's holes (South's `B2` becomes North's `b2`).
fn mirror_token(t: &str) -> String {
    t.chars()
        .map(|c| match c {
            'a' => 'A',
            'b' => 'B',
            'A' => 'a',
            'B' => 'b',
            c => c,
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 160, ..ProptestConfig::default() })]

    #[test]
    fn listed_turns_replay_conserve_stones_and_round_trip(pos in any_position()) {
        let mover = pos.side_to_move();
        for (token, after) in pos.turns().take(400) {
            let text = token.to_string();
            prop_assert_eq!(&text.parse::<Token>().unwrap(), &token);
            prop_assert_eq!(&pos.play(&token).unwrap(), &after);
            prop_assert_eq!(after.side_to_move(), mover.opponent());
            prop_assert_eq!(after.hash(), after.full_hash());
            prop_assert_eq!(&after.to_string().parse::<Position>().unwrap(), &after);
            // Sowing moves the mover's stones around his own track; only captures change
            // the count, and only on the opponent's side.
            prop_assert_eq!(after.stones(mover), pos.stones(mover));
            prop_assert!(after.stones(mover.opponent()) <= pos.stones(mover.opponent()));
            let captured = pos.stones(mover.opponent()) - after.stones(mover.opponent());
            if !token.picks.is_empty() {
                prop_assert!(captured > 0);
            }
        }
    }

    #[test]
    fn counting_listing_and_decisions_agree(pos in any_position()) {
        let count = pos.count_turns();
        prop_assume!(count <= 3000);
        prop_assert_eq!(pos.turns().count() as u128, count);
        prop_assert_eq!(pos.perft_by_decisions(1), count);
        let mut children = Vec::new();
        pos.for_each_child(&mut |c| children.push(c.clone()));
        let listed: Vec<Position> = pos.turns().map(|(_, p)| p).collect();
        prop_assert_eq!(children, listed);
        prop_assert_eq!(count == 0, !pos.has_legal_turn());
    }

    /// Every sowing with a legal bonus is a listed turn; every listed turn is some sowing
    /// with some bonus; bonuses the capture does not allow are refused.
    #[test]
    fn sowings_with_bonus_are_the_turns(pos in any_position(), pick in any::<u64>()) {
        prop_assume!(pos.count_turns() <= 3000);
        let listed: std::collections::HashSet<Position> = pos.turns().map(|(_, p)| p).collect();
        let opp = pos.side_to_move().opponent();
        let n = pos.ruleset().size();
        let tsoro = pos.ruleset().kind() == GameKind::Tsoro;
        let mut sowings = 0u128;
        let mut rng = pick;
        let mut next = |m: u64| { rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407); (rng >> 33) % m };
        pos.for_each_sown(&mut |s| {
            sowings += 1;
            let p = s.position();
            let holes: Vec<(Hole, u16)> = (0..2 * n)
                .map(|t| Hole::from_track(opp, t, n))
                .filter(|&h| p.count(h) > 0)
                .map(|h| (h, p.count(h)))
                .collect();
            // One random legal bonus.
            let mut takes: Vec<(Hole, u16)> = Vec::new();
            if tsoro {
                for &h in &holes {
                    if takes.len() < s.bonus() as usize && next(2) == 0 {
                        takes.push(h);
                    }
                }
            } else {
                let mut left = s.bonus();
                for &(h, c) in &holes {
                    let k = left.min(c);
                    if k > 0 {
                        takes.push((h, k));
                        left -= k;
                    }
                }
            }
            let child = s.with_bonus(&takes).expect("a legal bonus");
            assert!(listed.contains(&child), "{pos}: {child} is not a listed turn");
            assert_eq!(child.hash(), child.full_hash());
            // Illegal: a hole of the mover, too many stones, a partial Tsoro hole, a short Nsolo bonus.
            let own = Hole::from_track(opp.opponent(), 0, n);
            assert!(s.with_bonus(&[(own, 1)]).is_err());
            // Written into a kept position, even one of another size, the result is the
            // same; a refused bonus leaves the position before the bonus there.
            let mut into = Position::start(if n == 36 { "tsoro:8" } else { "nsolo:36" }.parse().unwrap());
            s.with_bonus_into(&takes, &mut into).expect("a legal bonus");
            assert_eq!(&into, &child);
            assert!(s.with_bonus_into(&[(own, 1)], &mut into).is_err());
            assert_eq!(&into, s.position());
            if let Some(&(h, c)) = holes.first() {
                assert!(s.with_bonus(&[(h, c + 1)]).is_err());
                if tsoro && c > 1 {
                    assert!(s.with_bonus(&[(h, c - 1)]).is_err());
                }
            }
            if !tsoro && s.bonus() > 0 {
                assert!(s.with_bonus(&[]).is_err());
            }
            if tsoro && holes.len() > s.bonus() as usize {
                assert!(s.with_bonus(&holes[..=s.bonus() as usize]).is_err());
            }
        });
        // Without the bonus sets, the sowings are the turns' distinct ways to sow.
        let distinct_sowings = pos.turns().map(|(t, _)| (t.start, t.marks.clone())).collect::<std::collections::HashSet<_>>().len();
        prop_assert_eq!(sowings, distinct_sowings as u128);
    }

    #[test]
    fn clone_from_copies_whatever_the_sizes(a in any_position(), b in any_position()) {
        let mut c = b.clone();
        c.clone_from(&a);
        prop_assert_eq!(&c, &a);
        prop_assert_eq!(c.to_string(), a.to_string());
        prop_assert_eq!(c.hash(), a.full_hash());
        c.clone_from(&b);
        prop_assert_eq!(&c, &b);
    }

    #[test]
    fn perft_two_fast_equals_slow(pos in any_position()) {
        prop_assume!(pos.count_turns() <= 60);
        let fast = pos.perft(2);
        prop_assume!(fast <= 4000);
        prop_assert_eq!(fast, pos.perft_by_decisions(2));
    }

    #[test]
    fn sides_are_symmetric(pos in any_position()) {
        prop_assume!(pos.count_turns() <= 2000);
        let m = pos.mirrored();
        prop_assert_eq!(m.mirrored(), pos.clone());
        let mut a: Vec<String> = pos.turns().map(|(t, _)| mirror_token(&t.to_string())).collect();
        let mut b: Vec<String> = m.turns().map(|(t, _)| t.to_string()).collect();
        a.sort();
        b.sort();
        prop_assert_eq!(a, b);
    }

    #[test]
    fn incremental_hash_along_random_games(r in 0..RULESETS.len(), seed in any::<u64>()) {
        for turns in [0u32, 5, 30, 90] {
            let p = random_position(RULESETS[r], seed, turns);
            prop_assert_eq!(p.hash(), p.full_hash());
            prop_assert_eq!(p.total_stones() <= p.ruleset().total_stones(), true);
        }
    }

    #[test]
    fn records_round_trip(r in 0..RULESETS.len(), seed in any::<u64>(), turns in 0u32..60) {
        let end = random_position(RULESETS[r], seed, turns);
        // Replay the same random game through `Game` to have its tokens.
        let mut game = Game::new(Position::start(end.ruleset()));
        let mut rng_pos = Position::start(end.ruleset());
        let mut rng = <rand::rngs::SmallRng as rand::SeedableRng>::seed_from_u64(seed);
        for _ in 0..turns {
            if game.is_over() { break; }
            let mut t = rng_pos.begin_turn();
            if !t.apply_random(&mut rng) { break; }
            while !t.is_complete() { t.apply_random(&mut rng); }
            let token = t.token().unwrap();
            rng_pos = t.into_position().unwrap();
            game.play(&token).unwrap();
        }
        let mut rec = Record::new(game.clone());
        rec.set_tag("South", "Tendai \"T\" M.");
        let text = rec.to_string();
        let back: Record = text.parse().map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(back.game.moves(), game.moves());
        prop_assert_eq!(back.game.position(), game.position());
        prop_assert_eq!(back.game.outcome(), game.outcome());
        prop_assert_eq!(back.tag("South"), Some("Tendai \"T\" M."));
        prop_assert_eq!(back.to_string(), text);
    }

    #[test]
    fn position_parser_never_panics(s in "\\PC{0,60}") {
        if let Ok(p) = s.parse::<Position>() {
            prop_assert_eq!(p.to_string().parse::<Position>().unwrap(), p);
        }
        let _ = s.parse::<Setup>();
    }

    #[test]
    fn position_like_strings_round_trip(
        r in 0..RULESETS.len(),
        counts in proptest::collection::vec(0u32..6, 4 * 36),
        north in any::<bool>(),
    ) {
        let ruleset: matombo_core::Ruleset = RULESETS[r].parse().unwrap();
        let n = ruleset.size();
        let rows: Vec<String> = (0..4)
            .map(|i| counts[i * 36..i * 36 + n].iter().map(|c| c.to_string()).collect::<Vec<_>>().join(","))
            .collect();
        let text = format!("{} {} {}", ruleset, rows.join("/"), if north { "N" } else { "S" });
        let total: u32 = (0..4).map(|i| counts[i * 36..i * 36 + n].iter().sum::<u32>()).sum();
        match text.parse::<Position>() {
            Ok(p) => {
                prop_assert!(total <= ruleset.total_stones());
                prop_assert_eq!(p.total_stones(), total);
                let canon = p.to_string();
                prop_assert_eq!(&canon.parse::<Position>().unwrap(), &p);
                prop_assert_eq!(p.side_to_move(), if north { Side::North } else { Side::South });
            }
            Err(e) => {
                prop_assert!(total > ruleset.total_stones(), "{}", e);
                prop_assert!(e.to_string().contains("stones"));
            }
        }
    }

    #[test]
    fn token_parser_never_panics(s in "[abAB0-9+=x:]{0,16}") {
        if let Ok(t) = s.parse::<Token>() {
            prop_assert_eq!(t.to_string(), s);
        }
    }
}
