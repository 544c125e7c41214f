//! A turn in progress, played one decision at a time (RULES.md §2–§4, §6.4).

mod starts;

pub(crate) use starts::{candidate_mask, candidate_starts, canonical_index, canonical_track, count_bits, select_bit};

use crate::error::IllegalError;
use crate::hole::{Hole, Side};
use crate::position::{Position, MAX_TRACK};
use crate::ruleset::GameKind;
use crate::sow::{SowEnd, Sower};
use crate::token::{Decision, Pick, Token};

/// Where a turn stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// The mover must choose a start hole.
    Start,
    /// A lap ended on this occupied head of the mover: continue or stop.
    Head(Hole),
    /// After a capture the mover picks bonus holes (Tsoro) or stones (Nsolo).
    Bonus {
        /// Tsoro: holes that may still be picked; Nsolo: stones that must still be taken.
        left: u16,
    },
    /// The turn is over; the position has the opponent to move.
    Complete,
}

/// Something that happened during a decision, for animation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// A lap: all `stones` lifted from `from` and sown one by one, the last into `last`.
    Lap {
        /// Hole the stones were lifted from.
        from: Hole,
        /// Stones lifted.
        stones: u16,
        /// Hole that received the last stone.
        last: Hole,
        /// Holes per row of the board, so that the lap gives its own path ([`Event::path`]).
        n: u8,
    },
    /// Stones captured from an opponent's hole (the capture itself, or a bonus pick).
    Capture {
        /// The opponent's hole.
        hole: Hole,
        /// Stones removed.
        stones: u16,
    },
}

impl Event {
    /// The holes a lap sowed into, one per stone in the order they fell (a hole more than
    /// once when the lap went round); empty for a capture.
    pub fn path(&self) -> Vec<Hole> {
        let Event::Lap { from, stones, n, .. } = *self else { return Vec::new() };
        let n = n as usize;
        let mut at = from;
        (0..stones)
            .map(|_| {
                at = at.next_on_track(n);
                at
            })
            .collect()
    }
}

/// The state of one head choice, for rule E2.
#[derive(Clone)]
struct SeenHead {
    t: usize,
    hash: u64,
    track: [u16; MAX_TRACK],
}

/// A turn in progress: the position as sowing has left it, the phase, and the token so
/// far. Start one with [`Position::begin_turn`].
///
/// ```
/// use matombo_core::{Decision, Phase, Position};
/// let p = Position::start("tsoro:8".parse().unwrap());
/// let mut turn = p.begin_turn();
/// turn.apply("sow B2".parse().unwrap()).unwrap();
/// assert_eq!(turn.phase(), Phase::Head("B7".parse().unwrap()));
/// assert_eq!(turn.decisions(), vec![Decision::Continue, Decision::Stop]);
/// turn.apply(Decision::Stop).unwrap();
/// assert_eq!(turn.token().unwrap().to_string(), "B2=");
/// ```
#[derive(Clone)]
pub struct Turn {
    pos: Position,
    mover: Side,
    phase: Phase,
    /// Smallest canonical index a bonus pick may still use.
    next_pick: usize,
    seen: Vec<SeenHead>,
    start: Option<Hole>,
    marks: Vec<bool>,
    picks: Vec<Pick>,
    captured: u32,
}

impl Position {
    /// Starts a turn for the side to move.
    pub fn begin_turn(&self) -> Turn {
        Turn {
            pos: self.clone(),
            mover: self.side,
            phase: Phase::Start,
            next_pick: 0,
            seen: Vec::new(),
            start: None,
            marks: Vec::new(),
            picks: Vec::new(),
            captured: 0,
        }
    }

    pub(crate) fn heads_from(&self) -> usize {
        self.ruleset.size() - self.ruleset.heads() as usize
    }

    /// Sows on a copy of `side`'s track from `from`; returns the end, the new track and hash.
    pub(crate) fn sow_copy(
        &self,
        side: Side,
        from: usize,
        on_lap: impl FnMut(usize, u16, usize),
    ) -> (SowEnd, [u16; MAX_TRACK], u64) {
        let mut track = self.counts[side.index()];
        let mut hash = self.hash;
        let n = self.ruleset.size();
        let end = Sower {
            track: &mut track,
            len: 2 * n,
            side: side.index(),
            heads_from: self.heads_from(),
            n,
            hash: &mut hash,
        }
        .sow(from, on_lap);
        (end, track, hash)
    }

    /// Whether the side to move has at least one legal turn.
    pub fn has_legal_turn(&self) -> bool {
        let n = self.ruleset.size();
        let mut cands = [0usize; MAX_TRACK];
        let k = candidate_starts(self.track(self.side), n, &mut cands);
        cands[..k].iter().any(|&t| self.sow_copy(self.side, t, |_, _, _| {}).0 != SowEnd::Endless)
    }
}

impl Turn {
    /// The phase.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The player making this turn.
    pub fn mover(&self) -> Side {
        self.mover
    }

    /// The board as the turn has left it so far. Its side to move is the mover until the
    /// turn is complete, then the opponent.
    pub fn position(&self) -> &Position {
        &self.pos
    }

    /// Whether the turn is over.
    pub fn is_complete(&self) -> bool {
        self.phase == Phase::Complete
    }

    /// Stones captured so far in this turn.
    pub fn captured(&self) -> u32 {
        self.captured
    }

    /// The resulting position, once the turn is complete.
    pub fn into_position(self) -> Option<Position> {
        self.is_complete().then_some(self.pos)
    }

    /// The token of the turn, once it is complete.
    pub fn token(&self) -> Option<Token> {
        if !self.is_complete() {
            return None;
        }
        Some(Token { start: self.start?, marks: self.marks.clone(), picks: self.picks.clone() })
    }

    /// The token written so far (start, marks, picks), even if the turn is not complete.
    pub fn partial_token(&self) -> Option<Token> {
        Some(Token { start: self.start?, marks: self.marks.clone(), picks: self.picks.clone() })
    }

    fn n(&self) -> usize {
        self.pos.ruleset.size()
    }

    /// Whether the current head choice repeats an earlier one of this turn (E2).
    pub(crate) fn head_repeated(&self) -> bool {
        let len = 2 * self.n();
        let current = self.seen.last().expect("a head phase records its state");
        self.seen[..self.seen.len() - 1]
            .iter()
            .any(|s| s.t == current.t && s.hash == current.hash && s.track[..len] == current.track[..len])
    }

    /// Whether `continue` is legal at the current head (E2, then E1).
    fn continue_is_legal(&self, t: usize) -> bool {
        !self.head_repeated() && self.pos.sow_copy(self.mover, t, |_, _, _| {}).0 != SowEnd::Endless
    }

    pub(crate) fn set_start(&mut self, h: Hole) {
        self.start = Some(h);
    }

    pub(crate) fn push_mark(&mut self, continued: bool) {
        self.marks.push(continued);
    }

    /// Starts the next turn from the completed one, keeping allocated buffers.
    pub(crate) fn next_turn(&mut self) {
        debug_assert!(self.is_complete());
        self.mover = self.pos.side;
        self.phase = Phase::Start;
        self.next_pick = 0;
        self.seen.clear();
        self.start = None;
        self.marks.clear();
        self.picks.clear();
        self.captured = 0;
    }

    /// The opponent's holes a bonus pick may take now, as a bit set over canonical indices
    /// (bit `i` for canonical index `i`).
    pub(crate) fn pick_mask(&self) -> u128 {
        let Phase::Bonus { left } = self.phase else { return 0 };
        let n = self.n();
        let opp = &self.pos.counts[self.mover.opponent().index()];
        // Non-empty holes in canonical order: outer t = 0..N, then inner t = 2N-1 down to N.
        let mut nonempty = 0u128;
        for t in 0..n {
            nonempty |= ((opp[t] > 0) as u128) << t;
        }
        for t in n..2 * n {
            nonempty |= ((opp[t] > 0) as u128) << (3 * n - 1 - t);
        }
        let mut end = 2 * n;
        if self.pos.ruleset.kind() == GameKind::Nsolo {
            // A pick is offered only if enough stones remain at or after it: the holes from
            // `next_pick` up to the last one whose suffix still holds `left` stones.
            let mut suffix = 0u32;
            end = self.next_pick;
            for i in (self.next_pick..2 * n).rev() {
                suffix += opp[canonical_track(i, n)] as u32;
                if suffix >= left as u32 {
                    end = i + 1;
                    break;
                }
            }
        }
        let range = ((1u128 << end) - 1) & !((1u128 << self.next_pick) - 1);
        nonempty & range
    }

    /// The legal decisions now, in canonical order: starts by canonical hole order
    /// (outer row 1..N, inner row 1..N), `continue` before `stop`, picks by canonical
    /// order and then `done`.
    pub fn decisions(&self) -> Vec<Decision> {
        let n = self.n();
        match self.phase {
            Phase::Start => {
                let mut cands = [0usize; MAX_TRACK];
                let k = candidate_starts(self.pos.track(self.mover), n, &mut cands);
                cands[..k]
                    .iter()
                    .filter(|&&t| self.pos.sow_copy(self.mover, t, |_, _, _| {}).0 != SowEnd::Endless)
                    .map(|&t| Decision::Sow(Hole::from_track(self.mover, t, n)))
                    .collect()
            }
            Phase::Head(h) => {
                let mut v = Vec::with_capacity(2);
                if self.continue_is_legal(h.track(n)) {
                    v.push(Decision::Continue);
                }
                v.push(Decision::Stop);
                v
            }
            Phase::Bonus { .. } => {
                let opp = self.mover.opponent();
                let mask = self.pick_mask();
                let mut v: Vec<Decision> = (0..2 * n)
                    .filter(|&i| mask >> i & 1 == 1)
                    .map(|i| Decision::Take(Hole::from_track(opp, canonical_track(i, n), n)))
                    .collect();
                if self.pos.ruleset.kind() == GameKind::Tsoro {
                    v.push(Decision::Done);
                }
                v
            }
            Phase::Complete => Vec::new(),
        }
    }

    /// Whether a decision is legal now.
    pub fn is_legal(&self, d: Decision) -> bool {
        let n = self.n();
        match (self.phase, d) {
            (Phase::Start, Decision::Sow(h)) => {
                if h.side != self.mover || h.number == 0 || h.number as usize > n {
                    return false;
                }
                let mut cands = [0usize; MAX_TRACK];
                let k = candidate_starts(self.pos.track(self.mover), n, &mut cands);
                let t = h.track(n);
                cands[..k].contains(&t) && self.pos.sow_copy(self.mover, t, |_, _, _| {}).0 != SowEnd::Endless
            }
            (Phase::Head(h), Decision::Continue) => self.continue_is_legal(h.track(n)),
            (Phase::Head(_), Decision::Stop) => true,
            (Phase::Bonus { .. }, Decision::Take(h)) => {
                if h.side != self.mover.opponent() || h.number == 0 || h.number as usize > n {
                    return false;
                }
                let i = canonical_index(h.track(n), n);
                self.pick_mask() >> i & 1 == 1
            }
            (Phase::Bonus { .. }, Decision::Done) => self.pos.ruleset.kind() == GameKind::Tsoro,
            _ => false,
        }
    }

    fn illegal(&self, d: Decision) -> IllegalError {
        if self.is_complete() {
            return IllegalError::TurnComplete;
        }
        let legal: Vec<String> = self.decisions().iter().map(|d| d.to_string()).collect();
        IllegalError::Decision { decision: d.to_string(), legal: legal.join(", ") }
    }

    /// Applies a decision; an illegal one is refused and changes nothing.
    pub fn apply(&mut self, d: Decision) -> Result<(), IllegalError> {
        self.apply_with(d, &mut |_| {})
    }

    /// Applies a decision and reports what happened, lap by lap, for animation.
    pub fn apply_with(&mut self, d: Decision, events: &mut impl FnMut(Event)) -> Result<(), IllegalError> {
        if !self.is_legal(d) {
            return Err(self.illegal(d));
        }
        self.apply_legal(d, events);
        Ok(())
    }

    /// Applies a decision known to be legal.
    pub(crate) fn apply_legal(&mut self, d: Decision, events: &mut impl FnMut(Event)) {
        let n = self.n();
        match d {
            Decision::Sow(h) => {
                self.start = Some(h);
                self.sow_from(h.track(n), events);
            }
            Decision::Continue => {
                let Phase::Head(h) = self.phase else { unreachable!() };
                self.marks.push(true);
                self.sow_from(h.track(n), events);
            }
            Decision::Stop => {
                self.marks.push(false);
                self.finish();
            }
            Decision::Take(h) => self.take(h, events),
            Decision::Done => self.finish(),
        }
    }

    fn sow_from(&mut self, from: usize, events: &mut impl FnMut(Event)) {
        let n = self.n();
        let mover = self.mover;
        let end = self.sow_in_place(from, |f, stones, last| {
            events(Event::Lap {
                from: Hole::from_track(mover, f, n),
                stones,
                last: Hole::from_track(mover, last, n),
                n: n as u8,
            })
        });
        self.after_sowing(end, events);
    }

    /// Sows on the turn's own board. An endless sowing leaves the board unchanged.
    pub(crate) fn sow_in_place(&mut self, from: usize, on_lap: impl FnMut(usize, u16, usize)) -> SowEnd {
        // During a turn the board's side to move is the mover.
        self.pos.sow_own(from, on_lap)
    }

    pub(crate) fn after_sowing(&mut self, end: SowEnd, events: &mut impl FnMut(Event)) {
        let n = self.n();
        match end {
            SowEnd::Head(t) => {
                self.seen.push(SeenHead { t, hash: self.pos.hash, track: self.pos.counts[self.mover.index()] });
                self.phase = Phase::Head(Hole::from_track(self.mover, t, n));
            }
            SowEnd::Empty(t) if t >= n => self.capture(t, events),
            SowEnd::Empty(_) => self.finish(),
            SowEnd::Endless => unreachable!("endless sowing is never legal"),
        }
    }

    fn capture(&mut self, t: usize, events: &mut impl FnMut(Event)) {
        let n = self.n();
        let opp = self.mover.opponent();
        let facing = 3 * n - 1 - t;
        let k = self.pos.counts[opp.index()][facing];
        if k == 0 {
            self.finish();
            return;
        }
        self.remove(facing, k, events);
        match self.pos.ruleset.kind() {
            GameKind::Tsoro => {
                let outer = 2 * n - 1 - facing;
                let o = self.pos.counts[opp.index()][outer];
                if o > 0 {
                    self.remove(outer, o, events);
                }
                let k = self.pos.ruleset.bonus() as u16;
                if k > 0 && self.pos.stones(opp) > 0 {
                    self.phase = Phase::Bonus { left: k };
                } else {
                    self.finish();
                }
            }
            GameKind::Nsolo => {
                let left = (k as u32).min(self.pos.stones(opp)) as u16;
                if left > 0 {
                    self.phase = Phase::Bonus { left };
                } else {
                    self.finish();
                }
            }
        }
    }

    fn remove(&mut self, t: usize, stones: u16, events: &mut impl FnMut(Event)) {
        let n = self.n();
        let opp = self.mover.opponent();
        let c = self.pos.counts[opp.index()][t];
        self.pos.set(opp, t, c - stones);
        self.captured += stones as u32;
        events(Event::Capture { hole: Hole::from_track(opp, t, n), stones });
    }

    fn take(&mut self, h: Hole, events: &mut impl FnMut(Event)) {
        let n = self.n();
        let t = h.track(n);
        let Phase::Bonus { left } = self.phase else { unreachable!() };
        let i = canonical_index(t, n);
        match self.pos.ruleset.kind() {
            GameKind::Tsoro => {
                let c = self.pos.counts[h.side.index()][t];
                self.remove(t, c, events);
                self.picks.push(Pick { hole: h, times: 1 });
                self.next_pick = i + 1;
                self.phase = Phase::Bonus { left: left - 1 };
                if left == 1 || self.pick_mask() == 0 {
                    self.finish();
                }
            }
            GameKind::Nsolo => {
                self.remove(t, 1, events);
                match self.picks.last_mut() {
                    Some(p) if p.hole == h => p.times += 1,
                    _ => self.picks.push(Pick { hole: h, times: 1 }),
                }
                self.next_pick = i;
                self.phase = Phase::Bonus { left: left - 1 };
                if left == 1 {
                    self.finish();
                }
            }
        }
    }

    fn finish(&mut self) {
        self.phase = Phase::Complete;
        self.pos.switch_side();
    }
}
