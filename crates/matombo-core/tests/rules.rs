//! The worked examples and decisions of RULES.md, one test each.

mod common;

use matombo_core::{Decision, Game, GameKind, Hole, Phase, Position, Side, Termination, Token};

fn pos(s: &str) -> Position {
    s.parse().unwrap()
}

fn tok(s: &str) -> Token {
    s.parse().unwrap()
}

#[test]
fn b2_stop_and_continue_on_tsoro_8() {
    // RULES.md §6.3: B2= stops at the head B7; B2+ continues and ends in A7, facing the
    // empty a2, so nothing is captured.
    let start = Position::start("tsoro:8".parse().unwrap());
    let stop = start.play(&tok("B2=")).unwrap();
    assert_eq!(stop.to_string(), "tsoro:8 2*8/0*8/0*8/2,0,3,0,3*3,2 N");
    let cont = start.play(&tok("B2+")).unwrap();
    assert_eq!(cont.to_string(), "tsoro:8 2*8/0*8/0*6,1*2/2,0,3,0,3*2,0,3 N");
    assert_eq!(cont.total_stones(), 32);
    // Without the mark the token is incomplete; with two marks it has one too many.
    assert!(start.play(&tok("B2")).is_err());
    assert!(start.play(&tok("B2+=")).is_err());
}

#[test]
fn tsoro_8_first_turns_by_hand() {
    // Worked by hand from §2 and §3.2: B1, B4, B7, B8 end in an empty hole; B2, B3, B5, B6
    // reach an occupied head and offer continue or stop.
    let start = Position::start("tsoro:8".parse().unwrap());
    let tokens: Vec<String> = start.turns().map(|(t, _)| t.to_string()).collect();
    assert_eq!(tokens, ["B1", "B2+", "B2=", "B3+", "B3=", "B4", "B5+", "B5=", "B6+", "B6=", "B7", "B8"]);
    assert_eq!(start.count_turns(), 12);
}

#[test]
fn endless_nsolo_start_is_illegal() {
    // RULES.md §2.5: sowing from B8 repeats its lap ends every 320 laps and never stops.
    let p = pos("nsolo:8 2*8/2*8/0,1,0,3,2,0,1,2/1,2,1,0,1,0,1,2 S");
    let b8: Hole = "B8".parse().unwrap();
    let turn = p.begin_turn();
    assert!(!turn.is_legal(Decision::Sow(b8)));
    assert!(!turn.decisions().contains(&Decision::Sow(b8)));
    assert!(p.turns().all(|(t, _)| t.start != b8));
    let err = p.play(&tok("B8")).unwrap_err().to_string();
    assert!(err.contains("B8 cannot start"), "{err}");
    // B2 is an ordinary start in the same position.
    assert!(turn.is_legal(Decision::Sow("B2".parse().unwrap())));
    // An independent plain simulation of B8's relay: no lap ever ends in an empty hole,
    // and the lap-start states repeat with period 320.
    let mut track: Vec<u16> = p.track(Side::South).to_vec();
    let mut at = b8.track(8);
    let mut states = Vec::new();
    for _ in 0..1000 {
        states.push((at, track.clone()));
        let c = track[at] as usize;
        track[at] = 0;
        for i in 1..=c {
            track[(at + i) % 16] += 1;
        }
        at = (at + c) % 16;
        assert!(track[at] > 1, "a lap ended in an empty hole");
    }
    assert_eq!(states[600], states[600 + 320]);
    assert!((1..320).all(|d| states[600] != states[600 + d]));
}

#[test]
fn random_turns_skip_an_endless_start_and_leave_no_trace_of_it() {
    // The position of `endless_nsolo_start_is_illegal`: a random turn that draws B8 sows it
    // in place until the cycle is found, takes it back and draws again, so every random
    // turn must be one of the legal turns, played exactly as `play` plays its token.
    use rand::SeedableRng;
    let p = pos("nsolo:8 2*8/2*8/0,1,0,3,2,0,1,2/1,2,1,0,1,0,1,2 S");
    let legal: Vec<(String, Position)> = p.turns().map(|(t, q)| (t.to_string(), q)).collect();
    let mut starts = std::collections::BTreeSet::new();
    for seed in 0..200 {
        let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
        let mut turn = p.begin_turn();
        while !turn.is_complete() {
            assert!(turn.apply_random(&mut rng));
        }
        let token = turn.token().unwrap();
        starts.insert(token.start.to_string());
        let after = turn.into_position().unwrap();
        assert!(legal.contains(&(token.to_string(), after.clone())), "{token}");
        assert_eq!(after.hash(), after.full_hash());
    }
    assert!(!starts.contains("B8"));
}

#[test]
fn single_stones_only_into_empty_holes() {
    // South has only single stones: B1 (next hole B2 occupied) may not move, B2 may
    // (B3 empty), A1 may (its next hole B1 is occupied, so no), A3 may (next A2 empty).
    let p = pos("tsoro:8 2*8/0*8/1,0,1,0*5/1,1,0*6 S");
    let starts: Vec<String> = p.turns().map(|(t, _)| t.start.to_string()).collect();
    assert_eq!(starts, ["B2", "A3"]);
    // A hole of two anywhere forbids single-stone starts.
    let q = pos("tsoro:8 2*8/0*8/1,0,1,0*5/1,1,0*5,2 S");
    let starts: Vec<String> = q.turns().map(|(t, _)| t.start.to_string()).collect();
    assert_eq!(starts, ["B8"]);
}

#[test]
fn start_hole_is_not_skipped() {
    // 17 stones in B1 on tsoro:8 (a track of 16): the 16th stone falls back into B1 itself
    // and the 17th into B2, which held one already, so the relay goes on from B2:
    // B2 (2) -> B3, B4; B4 (2) -> B5, B6; B6 (2) -> B7, B8, an occupied head.
    let p = pos("tsoro:8 0*8/0*8/0*8/17,0*7 S");
    let mut turn = p.begin_turn();
    let mut laps = Vec::new();
    turn.apply_with(Decision::Sow("B1".parse().unwrap()), &mut |e| {
        if let matombo_core::Event::Lap { from, stones, last, .. } = e {
            laps.push(format!("{from}:{stones}>{last}"));
        }
    })
    .unwrap();
    assert_eq!(laps, ["B1:17>B2", "B2:2>B4", "B4:2>B6", "B6:2>B8"]);
    assert_eq!(turn.phase(), Phase::Head("B8".parse().unwrap()));
    turn.apply(Decision::Stop).unwrap();
    assert_eq!(turn.into_position().unwrap().to_string(), "tsoro:8 0*8/0*8/1*8/1,0,2,0,2,0,2*2 N");
}

#[test]
fn tsoro_capture_takes_inner_and_outer_then_bonus() {
    // South sows A2 (2 stones): A1, then B1... use a direct case: B8 has 1 stone, A8 empty;
    // construct: South's single A3 moves into A2 (empty), facing a7.
    let p = pos("tsoro:8 0,3,0*6/0,4,0*6/0,0,1,0*5/0*8 S");
    // A2 faces a(8+1-2) = a7, which holds 4; the outer hole of that file is b7 with 3.
    assert_eq!(p.count("a7".parse().unwrap()), 4);
    assert_eq!(p.count("b7".parse().unwrap()), 3);
    let turns: Vec<(String, String)> = p.turns().map(|(t, q)| (t.to_string(), q.to_string())).collect();
    // After capturing a7 and b7, North has nothing left: no bonus phase.
    assert_eq!(turns, [("A3".to_string(), "tsoro:8 0*8/0*8/0,1,0*6/0*8 N".to_string())]);
    let g = {
        let mut g = Game::new(p.clone());
        g.play(&tok("A3")).unwrap();
        g
    };
    let o = g.outcome().unwrap();
    assert_eq!((o.winner, o.termination), (Some(Side::South), Termination::NoLegalMove));
}

#[test]
fn tsoro_bonus_is_optional_up_to_k_holes() {
    // Same capture with North keeping stones in b1, b2 and a1: the bonus may take 0, 1 or 2
    // of them (K = 2): 1 + 3 + 3 = 7 turns.
    let p = pos("tsoro:8 0,3,0*4,1,1/0,4,0*5,1/0,0,1,0*5/0*8 S");
    let tokens: Vec<String> = p.turns().map(|(t, _)| t.to_string()).collect();
    assert_eq!(tokens, ["A3xb1xb2", "A3xb1xa1", "A3xb1", "A3xb2xa1", "A3xb2", "A3xa1", "A3"]);
    assert_eq!(p.count_turns(), 7);
    // K = 3 adds the set of all three; K = 0 leaves only the plain capture.
    let p3 = pos("tsoro:8,bonus=3 0,3,0*4,1,1/0,4,0*5,1/0,0,1,0*5/0*8 S");
    assert_eq!(p3.count_turns(), 8);
    let p0 = pos("tsoro:8,bonus=0 0,3,0*4,1,1/0,4,0*5,1/0,0,1,0*5/0*8 S");
    assert_eq!(p0.turns().map(|(t, _)| t.to_string()).collect::<Vec<_>>(), ["A3"]);
    // Picks out of canonical order are refused with the canonical spelling named.
    let err = p.play(&tok("A3xa1xb1")).unwrap_err().to_string();
    assert!(err.contains("canonical"), "{err}");
}

#[test]
fn no_capture_when_facing_inner_hole_is_empty() {
    // The sowing ends in A2 facing a7, which is empty; b7 holds stones but is not taken.
    let p = pos("tsoro:8 0,3,0*6/0*7,1/0,0,1,0*5/0*8 S");
    let after = p.play(&tok("A3")).unwrap();
    assert_eq!(after.stones(Side::North), 4);
}

#[test]
fn nsolo_capture_and_stone_by_stone_bonus() {
    // Nsolo start: B1 sows B2, B3; B3 relays 3 stones to B4, B5, B6; relay from B6 (3) to
    // B7, B8, A8 — A8 was empty: the sowing ends in the inner row facing a1 with 2 stones.
    let start = Position::start("nsolo".parse().unwrap());
    let turns: Vec<(Token, Position)> = start.turns().filter(|(t, _)| t.start.to_string() == "B1").collect();
    // k = 2: the capture takes a1's two stones, then two more stones from anywhere on
    // North's side, as any multiset of size 2 over his 14 non-empty holes (b1..b8, a2..a7):
    // C(14 + 1, 2) = 105.
    assert_eq!(turns.len(), 105);
    assert!(turns.iter().any(|(t, _)| t.to_string() == "B1xb3:2"));
    assert!(turns.iter().any(|(t, _)| t.to_string() == "B1xb1xa7"));
    for (_, after) in &turns {
        assert_eq!(after.stones(Side::North), 30 - 4);
        assert_eq!(after.count("a1".parse().unwrap()), 0);
    }
    // The outer hole of the file (b8, facing the same column) is not taken unless picked.
    let (_, plain) = turns.iter().find(|(t, _)| t.to_string() == "B1xb1:2").unwrap();
    assert_eq!(plain.count("b8".parse().unwrap()), 2);
    // Choice by choice: after the capture the bonus is pending with two stones to take.
    let mut turn = start.begin_turn();
    turn.apply("sow B1".parse().unwrap()).unwrap();
    assert_eq!(turn.phase(), Phase::Bonus { left: 2 });
    assert!(!turn.decisions().contains(&Decision::Done));
    turn.apply("take b3".parse().unwrap()).unwrap();
    // Picks go in canonical order: b1 comes before b3, so it is no longer offered.
    assert!(turn.apply("take b1".parse().unwrap()).is_err());
    turn.apply("take b3".parse().unwrap()).unwrap();
    assert_eq!(turn.token().unwrap().to_string(), "B1xb3:2");
}

#[test]
fn nsolo_bonus_takes_everything_when_opponent_has_too_few() {
    // North keeps 3 stones: 2 in a1 (captured) and 1 in b5; k = 2 but only 1 is left.
    let p = pos("nsolo:8 0*3,1,0*4/0*7,2/2*7,0/2*8 S");
    let listed: Vec<String> =
        p.turns().filter(|(t, _)| t.start.to_string() == "B1").map(|(t, _)| t.to_string()).collect();
    assert_eq!(listed, ["B1xb5"]);
    let after = p.play(&tok("B1xb5")).unwrap();
    assert_eq!(after.stones(Side::North), 0);
    assert!(!after.has_legal_turn());
}

#[test]
fn heads_single_variant() {
    // heads=1: only BN is a head; it starts with 3 stones.
    let start = Position::start("tsoro:8,heads=1".parse().unwrap());
    assert_eq!(start.count("B8".parse().unwrap()), 3);
    assert_eq!(start.count("b8".parse().unwrap()), 3);
    assert_eq!(start.total_stones(), 34);
    // B5 (2) ends on B7, which is not a head here: it relays on.
    assert!(start.turns().all(|(t, _)| t.start.to_string() != "B5" || t.marks.is_empty()));
    // heads=0: no head choices at all.
    let basic = Position::start("tsoro:8,heads=0,bonus=0".parse().unwrap());
    assert!(basic.turns().all(|(t, _)| t.marks.is_empty()));
}

#[test]
fn head_choice_at_every_lap_end() {
    // Found by random search: B5 reaches occupied heads three times in one turn, and each
    // time the mover chooses.
    let p = pos("tsoro:8 1*2,0,1*3,0*2/0*8/0*3,3,0,1,2,0/1,0,2,1,2,0,2*2 S");
    let tokens: Vec<String> = p.turns().map(|(t, _)| t.to_string()).filter(|t| t.starts_with("B5")).collect();
    assert!(tokens.contains(&"B5+++".to_string()) || tokens.iter().any(|t| t.starts_with("B5+++")), "{tokens:?}");
    assert!(tokens.contains(&"B5=".to_string()));
    assert!(tokens.contains(&"B5+=".to_string()));
    assert!(tokens.contains(&"B5++=".to_string()));
}

#[test]
fn repeated_head_choice_forbids_continue() {
    // Found by random search: from A2 the relay keeps coming back to heads; after twelve
    // continues the head choice repeats an earlier state of this turn, so (E2) only stop
    // is left, and the turn is finite.
    let p = pos("tsoro:6 2,0*5/1,0*5/0,2,1,0,1,0/1,0,2,1,0,1 S");
    let a2: Vec<String> = p.turns().map(|(t, _)| t.to_string()).filter(|t| t.starts_with("A2")).collect();
    let longest = a2.iter().map(|t| t.matches('+').count()).max().unwrap();
    assert_eq!(longest, 12, "{a2:?}");
    assert!(a2.contains(&format!("A2{}=", "+".repeat(12))));
    let mut turn = p.begin_turn();
    turn.apply("sow A2".parse().unwrap()).unwrap();
    for _ in 0..12 {
        turn.apply(Decision::Continue).unwrap();
    }
    assert_eq!(turn.decisions(), vec![Decision::Stop]);
    assert!(turn.apply(Decision::Continue).is_err());
    let err = p.play(&tok(&format!("A2{}", "+".repeat(13)))).unwrap_err().to_string();
    assert!(err.contains("not allowed"), "{err}");
}

#[test]
fn finished_game_accepts_no_move_and_resignation() {
    let mut g = Game::new(Position::start("tsoro:8".parse().unwrap()));
    g.play(&tok("B1")).unwrap();
    g.resign(Side::North).unwrap();
    let o = g.outcome().unwrap();
    assert_eq!((o.winner, o.termination), (Some(Side::South), Termination::Resignation));
    let before = g.position().clone();
    let err = g.play(&tok("b1")).unwrap_err().to_string();
    assert!(err.contains("game is over"), "{err}");
    assert_eq!(*g.position(), before);
    assert!(g.resign(Side::South).is_err());
    // Undo takes back the last turn and the end with it.
    assert_eq!(g.undo().unwrap().to_string(), "B1");
    assert!(g.outcome().is_none());
}

#[test]
fn player_without_stones_loses() {
    let p = pos("tsoro:8 0*8/0*8/0*8/2,0*7 N");
    assert!(!p.has_legal_turn());
    assert_eq!(p.count_turns(), 0);
    assert_eq!(p.perft(1), 0);
    let g = Game::new(p);
    assert_eq!(g.outcome().unwrap().winner, Some(Side::South));
}

#[test]
fn nsolo_repetition_is_a_draw() {
    // One single stone each, far apart: every turn has exactly one legal move, the stones
    // chase round their tracks and the position comes back without a capture.
    let mut g = Game::new(pos("nsolo:8 0*7,1/0*8/0*8/1,0*7 S"));
    let mut plies = 0;
    while g.outcome().is_none() && plies < 200 {
        let (t, _) = g.position().turns().next().expect("a legal turn");
        assert_eq!(g.position().count_turns(), 1);
        g.play(&t).unwrap();
        plies += 1;
    }
    let o = g.outcome().expect("the game ends");
    let last = g.position();
    if o.termination == Termination::Repetition {
        assert_eq!(o.winner, None);
        let earlier = &g.positions()[..g.positions().len() - 1];
        assert!(earlier.iter().any(|q| q == last));
    } else {
        // A capture ended it instead; then no earlier position equals the final one.
        assert_eq!(o.termination, Termination::NoLegalMove);
    }
    assert!(plies > 2);
    assert_eq!(last.ruleset().kind(), GameKind::Nsolo);
}
