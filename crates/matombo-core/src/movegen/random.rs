//! Uniformly random play: one decision, or a whole game to its end.

use rand::Rng;

use crate::hole::Side;
use crate::position::Position;
use crate::ruleset::GameKind;
use crate::sow::SowEnd;
use crate::token::Decision;
use crate::turn::{candidate_mask, count_bits, select_bit, Phase, Turn};

impl Turn {
    /// Applies one decision chosen uniformly at random among the legal ones. Returns
    /// `false` (and changes nothing) when there is none: at the start of a turn, that
    /// means the mover has no legal move.
    pub fn apply_random<R: Rng + ?Sized>(&mut self, rng: &mut R) -> bool {
        let n = self.position().ruleset.size();
        let mover = self.mover();
        match self.phase() {
            Phase::Complete => false,
            Phase::Start => {
                // Rejection sampling over the candidate starts: endless ones (rare) are
                // dropped and another is drawn, which keeps the choice uniform over the
                // legal starts while sowing only the one chosen.
                let mut cands = candidate_mask(&self.position().counts[mover.index()], n);
                while cands != 0 {
                    let t = select_bit(cands, rng.random_range(0..count_bits(cands)));
                    // An endless sowing leaves the board as it was.
                    let end = self.sow_in_place(t, |_, _, _| {});
                    if end == SowEnd::Endless {
                        cands &= !(1u128 << t);
                        continue;
                    }
                    self.set_start(crate::hole::Hole::from_track(mover, t, n));
                    self.after_sowing(end, &mut |_| {});
                    return true;
                }
                false
            }
            Phase::Head(h) => {
                // A fair coin between continue and stop; when continue turns out to be
                // illegal (E2, or endless by E1) the turn stops, as it must.
                if !self.head_repeated() && rng.random_bool(0.5) {
                    // An endless sowing leaves the board as it was.
                    let end = self.sow_in_place(h.track(n), |_, _, _| {});
                    if end != SowEnd::Endless {
                        self.push_mark(true);
                        self.after_sowing(end, &mut |_| {});
                        return true;
                    }
                }
                self.apply_legal(Decision::Stop, &mut |_| {});
                true
            }
            Phase::Bonus { .. } => {
                let picks = self.pick_mask();
                let k = count_bits(picks);
                let tsoro = self.position().ruleset.kind() == GameKind::Tsoro;
                // Tsoro offers `done` after the picks.
                let choice = rng.random_range(0..k + tsoro as u32);
                let d = if choice == k {
                    Decision::Done
                } else {
                    let t = crate::turn::canonical_track(select_bit(picks, choice), n);
                    Decision::Take(crate::hole::Hole::from_track(mover.opponent(), t, n))
                };
                self.apply_legal(d, &mut |_| {});
                true
            }
        }
    }
}

/// How a random playout ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Playout {
    /// The winner, or `None` for a draw or an unfinished game.
    pub winner: Option<Side>,
    /// Whether the game stopped at the turn cap, unfinished.
    pub unfinished: bool,
    /// Turns played.
    pub turns: u32,
}

/// Plays uniformly random decisions from `pos` until the game ends (a player without a
/// legal move loses; Nsolo's repetition draw applies) or `max_turns` turns have been
/// played (unfinished).
pub fn random_playout<R: Rng + ?Sized>(pos: &Position, rng: &mut R, max_turns: u32) -> Playout {
    let mut turn = pos.begin_turn();
    let nsolo = pos.ruleset.kind() == GameKind::Nsolo;
    // Positions since the last capture, for the repetition rule.
    let mut history: Vec<Position> = Vec::new();
    let mut turns = 0;
    loop {
        if nsolo {
            let p = turn.position();
            if history.iter().any(|q| q.hash == p.hash && q == p) {
                return Playout { winner: None, unfinished: false, turns };
            }
            history.push(p.clone());
        }
        if turns >= max_turns {
            return Playout { winner: None, unfinished: true, turns };
        }
        if !turn.apply_random(rng) {
            return Playout { winner: Some(turn.mover().opponent()), unfinished: false, turns };
        }
        while !turn.is_complete() {
            turn.apply_random(rng);
        }
        if turn.captured() > 0 {
            history.clear();
        }
        turns += 1;
        turn.next_turn();
    }
}
