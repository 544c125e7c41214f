//! A turn built by a person: the decisions of [`Turn`], except that the bonus picks may be
//! made in any order and taken back one at a time. RULES.md §6.4 fixes one order of picks
//! so that each set has exactly one decision sequence; a person need not know it. The
//! builder keeps the picks as they were made and, once the bonus is complete, plays them
//! into the turn in canonical order, so the token is the canonical one.

use crate::error::IllegalError;
use crate::hole::{Hole, Row, Side};
use crate::position::Position;
use crate::ruleset::GameKind;
use crate::token::{Decision, Pick, Token};
use crate::turn::{canonical_index, Event, Phase, Turn};

/// A turn in progress whose bonus picks may come in any order. Start one with
/// [`Position::build_turn`].
///
/// ```
/// use matombo_core::{Decision, Phase, Position};
/// // South's B1 ends in A8, facing a1 (2 stones): two more stones to take, anywhere.
/// let p = Position::start("nsolo:8".parse().unwrap());
/// let mut turn = p.build_turn();
/// turn.apply("sow B1".parse().unwrap()).unwrap();
/// assert_eq!(turn.phase(), Phase::Bonus { left: 2 });
/// turn.apply("take a7".parse().unwrap()).unwrap(); // late in canonical order
/// turn.apply("take b3".parse().unwrap()).unwrap(); // then an earlier hole
/// assert!(turn.is_complete());
/// assert_eq!(turn.token().unwrap().to_string(), "B1xb3xa7");
/// ```
#[derive(Clone)]
pub struct TurnBuilder {
    /// Every decision but the pending bonus picks, in canonical form.
    turn: Turn,
    /// Bonus picks not yet played into `turn`, in the order made (Nsolo: one per stone).
    picks: Vec<Hole>,
    /// `turn`'s board with the picks taken.
    board: Position,
}

impl Position {
    /// Starts a turn for the side to move whose bonus picks may come in any order.
    pub fn build_turn(&self) -> TurnBuilder {
        TurnBuilder::new(self.begin_turn())
    }

    /// The decisions that play `token` through a [`TurnBuilder`]: those of
    /// [`Position::resolve`], with `done` added where the canonical order ends a Tsoro bonus
    /// on its last hole while earlier holes are still open (the builder, where picks may
    /// come in any order, waits for more picks or `done` there).
    pub fn resolve_for_builder(&self, token: &Token) -> Result<Vec<Decision>, IllegalError> {
        let mut decisions = self.resolve(token)?;
        let mut turn = self.build_turn();
        for &d in &decisions {
            turn.apply(d)?;
        }
        if !turn.is_complete() {
            turn.apply(Decision::Done)?;
            decisions.push(Decision::Done);
        }
        Ok(decisions)
    }
}

impl TurnBuilder {
    /// A builder that continues `turn` (for instance one replayed from decisions).
    pub fn new(turn: Turn) -> TurnBuilder {
        let board = turn.position().clone();
        TurnBuilder { turn, picks: Vec::new(), board }
    }

    /// The turn as far as it has been played into canonical decisions: everything but the
    /// bonus picks not yet complete.
    pub fn turn(&self) -> &Turn {
        &self.turn
    }

    /// The player making this turn.
    pub fn mover(&self) -> Side {
        self.turn.mover()
    }

    /// The phase; in the bonus, `left` counts what remains after the picks made so far.
    pub fn phase(&self) -> Phase {
        match self.turn.phase() {
            Phase::Bonus { left } => Phase::Bonus { left: left - self.picks.len() as u16 },
            p => p,
        }
    }

    /// Whether the turn is over.
    pub fn is_complete(&self) -> bool {
        self.turn.is_complete()
    }

    /// The board as the turn has left it, the picks made so far taken out.
    pub fn position(&self) -> &Position {
        &self.board
    }

    /// The bonus picks made and not yet played, in the order made (Nsolo: a hole once per
    /// stone). Empty once the turn is complete.
    pub fn picks(&self) -> &[Hole] {
        &self.picks
    }

    /// Stones captured so far, the picks included.
    pub fn captured(&self) -> u32 {
        let before = self.turn.position().stones(self.mover().opponent());
        self.turn.captured() + (before - self.board.stones(self.mover().opponent()))
    }

    /// The opponent's holes that may be picked now, in canonical order (his outer row
    /// 1..N, then his inner row 1..N): Tsoro, a hole not yet emptied; Nsolo, a hole with a
    /// stone left. Empty outside the bonus.
    pub fn pickable(&self) -> Vec<Hole> {
        let Phase::Bonus { left } = self.phase() else { return Vec::new() };
        if left == 0 {
            return Vec::new();
        }
        let n = self.board.ruleset().size() as u8;
        let opp = self.mover().opponent();
        [Row::Outer, Row::Inner]
            .into_iter()
            .flat_map(|row| (1..=n).map(move |k| Hole::new(opp, row, k)))
            .filter(|&h| self.board.count(h) > 0)
            .collect()
    }

    /// The legal decisions now: those of [`Turn::decisions`], except that in the bonus
    /// every pickable hole is offered (then `done` in Tsoro).
    pub fn decisions(&self) -> Vec<Decision> {
        if !matches!(self.turn.phase(), Phase::Bonus { .. }) {
            return self.turn.decisions();
        }
        let mut v: Vec<Decision> = self.pickable().into_iter().map(Decision::Take).collect();
        if self.board.ruleset().kind() == GameKind::Tsoro {
            v.push(Decision::Done);
        }
        v
    }

    /// Whether a decision is legal now.
    pub fn is_legal(&self, d: Decision) -> bool {
        match (self.turn.phase(), d) {
            (Phase::Bonus { .. }, Decision::Take(h)) => self.pickable().contains(&h),
            (Phase::Bonus { .. }, Decision::Done) => self.board.ruleset().kind() == GameKind::Tsoro,
            (Phase::Bonus { .. }, _) => false,
            _ => self.turn.is_legal(d),
        }
    }

    /// Applies a decision; an illegal one is refused and changes nothing.
    pub fn apply(&mut self, d: Decision) -> Result<(), IllegalError> {
        self.apply_with(d, &mut |_| {})
    }

    /// Applies a decision and reports what happened, for animation. A pick reports its
    /// capture when it is made; completing the bonus reports nothing more.
    pub fn apply_with(&mut self, d: Decision, events: &mut impl FnMut(Event)) -> Result<(), IllegalError> {
        if !matches!(self.turn.phase(), Phase::Bonus { .. }) {
            self.turn.apply_with(d, events)?;
            self.board = self.turn.position().clone();
            return Ok(());
        }
        if !self.is_legal(d) {
            let legal: Vec<String> = self.decisions().iter().map(|d| d.to_string()).collect();
            return Err(IllegalError::Decision { decision: d.to_string(), legal: legal.join(", ") });
        }
        match d {
            Decision::Take(h) => {
                let t = h.track(self.board.ruleset().size());
                let count = self.board.count(h);
                let stones = match self.board.ruleset().kind() {
                    GameKind::Tsoro => count,
                    GameKind::Nsolo => 1,
                };
                self.board.set(h.side, t, count - stones);
                self.picks.push(h);
                events(Event::Capture { hole: h, stones });
                let Phase::Bonus { left } = self.phase() else { unreachable!("still in the bonus") };
                if left == 0 || self.board.stones(h.side) == 0 {
                    self.finish();
                }
            }
            _ => self.finish(),
        }
        Ok(())
    }

    /// Takes back the last pick not yet played; `None` when there is none.
    pub fn undo_pick(&mut self) -> Option<Hole> {
        let h = self.picks.pop()?;
        let t = h.track(self.board.ruleset().size());
        let restored = match self.board.ruleset().kind() {
            GameKind::Tsoro => self.turn.position().count(h),
            GameKind::Nsolo => self.board.count(h) + 1,
        };
        self.board.set(h.side, t, restored);
        Some(h)
    }

    /// The picks made so far as decisions in canonical order.
    fn canonical_picks(&self) -> Vec<Decision> {
        let n = self.board.ruleset().size();
        let mut picks = self.picks.clone();
        picks.sort_by_key(|h| canonical_index(h.track(n), n));
        picks.into_iter().map(Decision::Take).collect()
    }

    /// Ends the bonus: plays the picks into the turn in canonical order, then `done` if the
    /// turn still asks for more (Tsoro's bonus ended early).
    fn finish(&mut self) {
        for d in self.canonical_picks() {
            // A set of picks the builder allowed is legal in canonical order (see the
            // property tests); the turn would refuse anything else.
            self.turn.apply(d).expect("canonical order of allowed picks is legal");
        }
        if !self.turn.is_complete() {
            self.turn.apply(Decision::Done).expect("a Tsoro bonus may end early");
        }
        self.picks.clear();
        self.board = self.turn.position().clone();
    }

    /// The canonical token of the turn, once it is complete.
    pub fn token(&self) -> Option<Token> {
        self.turn.token()
    }

    /// The token so far, the picks made written in canonical order.
    pub fn partial_token(&self) -> Option<Token> {
        let mut token = self.turn.partial_token()?;
        for d in self.canonical_picks() {
            let Decision::Take(h) = d else { continue };
            match token.picks.last_mut() {
                Some(p) if p.hole == h => p.times += 1,
                _ => token.picks.push(Pick { hole: h, times: 1 }),
            }
        }
        Some(token)
    }

    /// The completed turn, once complete.
    pub fn into_turn(self) -> Option<Turn> {
        self.turn.is_complete().then_some(self.turn)
    }
}
