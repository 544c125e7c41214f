//! Whole turns: resolving tokens, listing turns lazily, counting them in bulk, perft and
//! uniformly random play.

mod random;
mod sown;

pub use random::{random_playout, Playout};
pub use sown::Sown;

use crate::error::IllegalError;
use crate::hole::Side;
use crate::position::{Position, MAX_TRACK};
use crate::ruleset::GameKind;
use crate::sow::{SowEnd, Sower};
use crate::token::{Decision, Token};
use crate::turn::{candidate_starts, Phase, Turn};

impl Position {
    /// Turns a token into the decisions it stands for, checking every one against the
    /// position. The token must be in canonical form (picks in canonical order, each hole
    /// once); the error says why a token does not fit.
    ///
    /// ```
    /// use matombo_core::{Decision, Position};
    /// let p = Position::start("tsoro:8".parse().unwrap());
    /// let d = p.resolve(&"B2+".parse().unwrap()).unwrap();
    /// assert_eq!(d, vec![Decision::Sow("B2".parse().unwrap()), Decision::Continue]);
    /// assert!(p.resolve(&"B2".parse().unwrap()).is_err()); // the head choice is missing
    /// ```
    pub fn resolve(&self, token: &Token) -> Result<Vec<Decision>, IllegalError> {
        self.resolve_turn(token).map(|(d, _)| d)
    }

    /// Plays a whole turn given as a token and returns the resulting position.
    pub fn play(&self, token: &Token) -> Result<Position, IllegalError> {
        self.resolve_turn(token).map(|(_, t)| t.into_position().expect("resolved turns are complete"))
    }

    pub(crate) fn resolve_turn(&self, token: &Token) -> Result<(Vec<Decision>, Turn), IllegalError> {
        let fail = |reason: String| IllegalError::Token { token: token.to_string(), reason };
        let mut turn = self.begin_turn();
        let mut decisions = Vec::new();
        let first = Decision::Sow(token.start);
        if !turn.is_legal(first) {
            let starts: Vec<String> = turn.decisions().iter().map(|d| d.to_string()[4..].to_string()).collect();
            return Err(fail(format!(
                "{} cannot start a turn for {} (legal starts: {})",
                token.start,
                self.side,
                if starts.is_empty() { "none".to_string() } else { starts.join(" ") }
            )));
        }
        turn.apply_legal(first, &mut |_| {});
        decisions.push(first);
        let mut marks = token.marks.iter();
        let mut picks = token.picks.iter();
        let nsolo = self.ruleset.kind() == GameKind::Nsolo;
        loop {
            match turn.phase() {
                Phase::Complete => break,
                Phase::Start => unreachable!(),
                Phase::Head(h) => {
                    let m = marks.next().ok_or_else(|| {
                        fail(format!(
                            "the sowing ends on the occupied head {h}: '+' (continue) or '=' (stop) is needed"
                        ))
                    })?;
                    let d = if *m { Decision::Continue } else { Decision::Stop };
                    if !turn.is_legal(d) {
                        return Err(fail(format!(
                            "continuing at {h} is not allowed (the sowing would never end, or this head choice repeats)"
                        )));
                    }
                    turn.apply_legal(d, &mut |_| {});
                    decisions.push(d);
                }
                Phase::Bonus { left } => {
                    if marks.len() > 0 {
                        return Err(fail("more '+'/'=' marks than head choices".to_string()));
                    }
                    match picks.next() {
                        None if nsolo => {
                            return Err(fail(format!("{left} more stone(s) must be taken as the bonus")));
                        }
                        None => {
                            turn.apply_legal(Decision::Done, &mut |_| {});
                            decisions.push(Decision::Done);
                        }
                        Some(p) => {
                            if !nsolo && p.times != 1 {
                                return Err(fail(format!("a Tsoro bonus pick takes a whole hole: write x{}", p.hole)));
                            }
                            for _ in 0..p.times {
                                let d = Decision::Take(p.hole);
                                if !turn.is_legal(d) {
                                    return Err(fail(format!(
                                        "bonus pick x{} is not possible here (picks go in canonical order: the opponent's outer row 1..N, then inner row 1..N, each hole once, and only non-empty holes)",
                                        p.hole
                                    )));
                                }
                                turn.apply_legal(d, &mut |_| {});
                                decisions.push(d);
                                if turn.is_complete() {
                                    break;
                                }
                            }
                        }
                    }
                }
            }
        }
        if marks.len() > 0 {
            return Err(fail("more '+'/'=' marks than head choices".to_string()));
        }
        if picks.len() > 0 {
            return Err(fail(
                "more bonus picks than the turn allows, or picks out of canonical order (the opponent's outer row 1..N, then inner row 1..N)"
                    .to_string(),
            ));
        }
        let canonical = turn.token().expect("complete");
        if canonical != *token {
            return Err(fail(format!("not in canonical form; this turn is written {canonical}")));
        }
        Ok((decisions, turn))
    }

    /// Every legal turn with its token and resulting position, generated lazily in
    /// canonical order (an Nsolo capture can have more bonus sets than fit in memory).
    pub fn turns(&self) -> Turns {
        let turn = self.begin_turn();
        let decisions = turn.decisions();
        Turns { stack: vec![(turn, decisions, 0)] }
    }

    /// The number of legal turns (RULES.md §7), counted without listing bonus sets.
    /// Saturates at `u128::MAX`.
    pub fn count_turns(&self) -> u128 {
        let n = self.ruleset.size();
        let mover = self.side;
        let mut cands = [0usize; MAX_TRACK];
        let k = candidate_starts(self.track(mover), n, &mut cands);
        let mut seen = Vec::new();
        let mut total = 0u128;
        for &t in &cands[..k] {
            let (end, track, hash) = self.sow_copy(mover, t, |_, _, _| {});
            total = total.saturating_add(self.count_after(end, track, hash, &mut seen));
        }
        total
    }

    fn count_after(
        &self,
        end: SowEnd,
        track: [u16; MAX_TRACK],
        hash: u64,
        seen: &mut Vec<(usize, u64, [u16; MAX_TRACK])>,
    ) -> u128 {
        let n = self.ruleset.size();
        match end {
            SowEnd::Endless => 0,
            SowEnd::Empty(t) if t >= n => self.count_captures(t),
            SowEnd::Empty(_) => 1,
            SowEnd::Head(t) => {
                let len = 2 * n;
                let repeated = seen.iter().any(|s| s.0 == t && s.1 == hash && s.2[..len] == track[..len]);
                if repeated {
                    return 1;
                }
                let mut next = track;
                let mut h = hash;
                let e = Sower {
                    track: &mut next,
                    len,
                    side: self.side.index(),
                    heads_from: self.heads_from(),
                    n,
                    hash: &mut h,
                }
                .sow(t, |_, _, _| {});
                if e == SowEnd::Endless {
                    return 1;
                }
                seen.push((t, hash, track));
                let c = self.count_after(e, next, h, seen);
                seen.pop();
                c.saturating_add(1)
            }
        }
    }

    /// Turns that end with the sowing in the mover's inner hole `t`: 1 without a capture,
    /// else the number of bonus choices.
    fn count_captures(&self, t: usize) -> u128 {
        let n = self.ruleset.size();
        let opp = &self.counts[self.side.opponent().index()];
        let facing = 3 * n - 1 - t;
        let k = opp[facing] as u32;
        if k == 0 {
            return 1;
        }
        match self.ruleset.kind() {
            GameKind::Tsoro => {
                let outer = 2 * n - 1 - facing;
                let m = (0..2 * n).filter(|&i| i != facing && i != outer && opp[i] > 0).count() as u128;
                let kmax = (self.ruleset.bonus() as u128).min(m);
                // Sum of C(m, j) for j = 0..=kmax.
                let mut total = 0u128;
                let mut c = 1u128;
                for j in 0..=kmax {
                    total += c;
                    c = c * (m - j) / (j + 1);
                }
                total
            }
            GameKind::Nsolo => {
                let caps: Vec<u32> =
                    (0..2 * n).filter(|&i| i != facing).map(|i| opp[i] as u32).filter(|&c| c > 0).collect();
                let remaining: u32 = caps.iter().sum();
                let r = k.min(remaining);
                bounded_compositions(&caps, r)
            }
        }
    }

    /// perft (RULES.md §7): the number of turn sequences of length `depth`; the last ply
    /// is counted in bulk. Saturates at `u128::MAX`.
    ///
    /// ```
    /// use matombo_core::Position;
    /// let p = Position::start("tsoro:8".parse().unwrap());
    /// assert_eq!(p.perft(0), 1);
    /// assert_eq!(p.perft(1), p.turns().count() as u128);
    /// ```
    pub fn perft(&self, depth: u32) -> u128 {
        match depth {
            0 => 1,
            1 => self.count_turns(),
            _ => {
                let mut total = 0u128;
                self.for_each_child(&mut |p| total = total.saturating_add(p.perft(depth - 1)));
                total
            }
        }
    }

    /// Calls `f` with the position after every legal turn, in the order of [`Position::turns`],
    /// without building tokens: the inner loop of perft.
    pub fn for_each_child(&self, f: &mut impl FnMut(&Position)) {
        let kind = self.ruleset.kind();
        let opp = self.side.opponent();
        let n = self.ruleset.size();
        self.sowings(&mut |child, _captured, bonus| {
            if bonus == 0 {
                return f(child);
            }
            match kind {
                GameKind::Tsoro => tsoro_bonus(child, opp, 0, bonus as u8, f),
                GameKind::Nsolo => {
                    let mut suffix = [0u32; MAX_TRACK + 1];
                    for i in (0..2 * n).rev() {
                        suffix[i] =
                            suffix[i + 1] + child.counts[opp.index()][crate::turn::canonical_track(i, n)] as u32;
                    }
                    nsolo_bonus(child, opp, 0, bonus, &mut suffix, f);
                }
            }
        });
    }

    /// Calls `f` with every way the side to move can sow a turn (every start and head
    /// choice, in the order of [`Position::turns`]) with the capture made and the bonus
    /// left open: a search builds its children from these without listing every bonus
    /// set, which on a big Nsolo board cannot be done.
    ///
    /// ```
    /// use matombo_core::Position;
    /// let p = Position::start("tsoro:8".parse().unwrap());
    /// let mut n = 0;
    /// p.for_each_sown(&mut |s| {
    ///     assert_eq!(s.bonus(), 0); // no capture from the start
    ///     n += 1;
    /// });
    /// assert_eq!(n as u128, p.count_turns());
    /// ```
    pub fn for_each_sown(&self, f: &mut impl FnMut(&Sown<'_>)) {
        self.sowings(&mut |child, captured, bonus| f(&Sown { pos: child, captured, bonus }));
    }

    /// The engine of [`Position::for_each_child`] and [`Position::for_each_sown`]: `f` gets
    /// the position after the sowing and capture (opponent to move), the stones captured
    /// and the bonus (Tsoro: holes that may be emptied; Nsolo: stones that must be taken).
    fn sowings(&self, f: &mut impl FnMut(&mut Position, u32, u16)) {
        let n = self.ruleset.size();
        let mover = self.side;
        let mut cands = [0usize; MAX_TRACK];
        let k = candidate_starts(self.track(mover), n, &mut cands);
        let mut seen = Vec::new();
        // One child, reset before each start (`clone_from` copies the tracks alone).
        let mut child = self.clone();
        for (j, &t) in cands[..k].iter().enumerate() {
            if j > 0 {
                child.clone_from(self);
            }
            let end = child.sow_own(t, |_, _, _| {});
            self.sowings_after(end, &mut child, &mut seen, f);
        }
    }

    /// Sows on this position's own board for the side to move.
    pub(crate) fn sow_own(&mut self, from: usize, on_lap: impl FnMut(usize, u16, usize)) -> SowEnd {
        let n = self.ruleset.size();
        let heads_from = self.heads_from();
        let s = self.side.index();
        let Position { counts, hash, .. } = self;
        Sower { track: &mut counts[s], len: 2 * n, side: s, heads_from, n, hash }.sow(from, on_lap)
    }

    fn sowings_after(
        &self,
        end: SowEnd,
        child: &mut Position,
        seen: &mut Vec<(usize, u64, [u16; MAX_TRACK])>,
        f: &mut impl FnMut(&mut Position, u32, u16),
    ) {
        let n = self.ruleset.size();
        let s = self.side.index();
        match end {
            SowEnd::Endless => {}
            SowEnd::Empty(t) if t >= n => self.capture(t, child, f),
            SowEnd::Empty(_) => {
                child.switch_side();
                f(child, 0, 0);
            }
            SowEnd::Head(t) => {
                let len = 2 * n;
                let repeated =
                    seen.iter().any(|x| x.0 == t && x.1 == child.hash && x.2[..len] == child.counts[s][..len]);
                if !repeated {
                    let mut cont = child.clone();
                    let e = cont.sow_own(t, |_, _, _| {});
                    if e != SowEnd::Endless {
                        seen.push((t, child.hash, child.counts[s]));
                        self.sowings_after(e, &mut cont, seen, f);
                        seen.pop();
                    }
                }
                // `continue` (+) sorts before `stop` (=) in the listing.
                child.switch_side();
                f(child, 0, 0);
            }
        }
    }

    fn capture(&self, t: usize, child: &mut Position, f: &mut impl FnMut(&mut Position, u32, u16)) {
        let n = self.ruleset.size();
        let opp = self.side.opponent();
        let facing = 3 * n - 1 - t;
        let k = child.counts[opp.index()][facing];
        child.switch_side();
        if k == 0 {
            return f(child, 0, 0);
        }
        child.set(opp, facing, 0);
        match self.ruleset.kind() {
            GameKind::Tsoro => {
                let outer = 2 * n - 1 - facing;
                let captured = k as u32 + child.counts[opp.index()][outer] as u32;
                child.set(opp, outer, 0);
                let bonus = if child.stones(opp) == 0 { 0 } else { self.ruleset.bonus() as u16 };
                f(child, captured, bonus)
            }
            GameKind::Nsolo => {
                let bonus = (k as u32).min(child.stones(opp)) as u16;
                f(child, k as u32, bonus)
            }
        }
    }

    /// perft through the choice-by-choice interface only ([`Turn::decisions`] and
    /// [`Turn::apply`]), without bulk counting: slow, for checking the fast paths.
    pub fn perft_by_decisions(&self, depth: u32) -> u128 {
        fn walk(turn: Turn, depth: u32) -> u128 {
            if turn.is_complete() {
                let p = turn.into_position().expect("complete");
                return p.perft_by_decisions(depth - 1);
            }
            turn.decisions()
                .into_iter()
                .map(|d| {
                    let mut t = turn.clone();
                    t.apply(d).expect("listed decisions are legal");
                    walk(t, depth)
                })
                .fold(0u128, |a, b| a.saturating_add(b))
        }
        if depth == 0 {
            return 1;
        }
        walk(self.begin_turn(), depth)
    }

    /// The `perft` of each legal turn at `depth - 1`, in canonical order.
    pub fn divide(&self, depth: u32) -> impl Iterator<Item = (Token, u128)> + '_ {
        self.turns().map(move |(t, p)| (t, if depth == 0 { 0 } else { p.perft(depth - 1) }))
    }
}

/// Every set of at most `left` more holes taken from `opp` at canonical indices from
/// `from` on, in listing order (further picks before `done`).
fn tsoro_bonus(pos: &mut Position, opp: Side, from: usize, left: u8, f: &mut impl FnMut(&Position)) {
    let n = pos.ruleset.size();
    if left > 0 {
        for i in from..2 * n {
            let t = crate::turn::canonical_track(i, n);
            let c = pos.counts[opp.index()][t];
            if c > 0 {
                pos.set(opp, t, 0);
                tsoro_bonus(pos, opp, i + 1, left - 1, f);
                pos.set(opp, t, c);
            }
        }
    }
    f(pos);
}

/// Every multiset of exactly `left` stones taken from `opp` at canonical indices from
/// `from` on; `suffix[i]` holds the stones at indices `i..`.
fn nsolo_bonus(
    pos: &mut Position,
    opp: Side,
    from: usize,
    left: u16,
    suffix: &mut [u32; MAX_TRACK + 1],
    f: &mut impl FnMut(&Position),
) {
    if left == 0 {
        f(pos);
        return;
    }
    let n = pos.ruleset.size();
    for i in from..2 * n {
        if suffix[i] < left as u32 {
            break;
        }
        let t = crate::turn::canonical_track(i, n);
        let c = pos.counts[opp.index()][t];
        if c > 0 {
            pos.set(opp, t, c - 1);
            // Stones at indices after i are unchanged; the suffix at i itself drops by one.
            suffix[i] -= 1;
            nsolo_bonus(pos, opp, i, left - 1, suffix, f);
            suffix[i] += 1;
            pos.set(opp, t, c);
        }
    }
}

/// Ways to take exactly `r` stones from holes with the given capacities (how many
/// multisets of size `r` the holes allow). Saturates at `u128::MAX`.
pub(crate) fn bounded_compositions(caps: &[u32], r: u32) -> u128 {
    let r = r as usize;
    let mut ways = vec![0u128; r + 1];
    ways[0] = 1;
    let mut next = vec![0u128; r + 1];
    for &c in caps {
        let c = c as usize;
        // next[s] = sum of ways[s - x] for x in 0..=min(c, s), by a sliding window.
        let mut window = 0u128;
        for s in 0..=r {
            window = window.saturating_add(ways[s]);
            if s > c {
                window = window.saturating_sub(ways[s - c - 1]);
            }
            next[s] = window;
        }
        core::mem::swap(&mut ways, &mut next);
    }
    ways[r]
}

/// Lazy iterator over the legal turns of a position; see [`Position::turns`].
pub struct Turns {
    stack: Vec<(Turn, Vec<Decision>, usize)>,
}

impl Iterator for Turns {
    type Item = (Token, Position);

    fn next(&mut self) -> Option<(Token, Position)> {
        loop {
            let (turn, decisions, i) = self.stack.last_mut()?;
            if *i == decisions.len() {
                self.stack.pop();
                continue;
            }
            let d = decisions[*i];
            *i += 1;
            let mut t = turn.clone();
            t.apply_legal(d, &mut |_| {});
            if t.is_complete() {
                let token = t.token().expect("complete");
                return Some((token, t.into_position().expect("complete")));
            }
            let ds = t.decisions();
            self.stack.push((t, ds, 0));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compositions_small() {
        assert_eq!(bounded_compositions(&[1, 1, 1], 2), 3);
        assert_eq!(bounded_compositions(&[2, 3], 3), 3); // (0,3) (1,2) (2,1)
        assert_eq!(bounded_compositions(&[5], 5), 1);
        assert_eq!(bounded_compositions(&[], 0), 1);
        assert_eq!(bounded_compositions(&[2, 2], 0), 1);
    }
}
