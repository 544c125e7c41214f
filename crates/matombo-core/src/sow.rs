//! Relay sowing on one player's track, with exact detection of endless sowing (E1).

use crate::position::{KEYS, KEY_PREFIX, MAX_TRACK};

/// How a sowing ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SowEnd {
    /// The last stone of a lap fell into an empty hole at this track position.
    Empty(usize),
    /// A lap ended on an occupied head of the mover (Tsoro): a choice point.
    Head(usize),
    /// The sowing repeats a state and never ends (RULES.md §2.5, E1).
    Endless,
}

/// Laps of plain relay before cycle detection starts: almost every sowing ends sooner,
/// and Brent's method finds a cycle exactly whenever it starts.
const CYCLE_CHECK_AFTER: u32 = 24;

/// One player's track under sowing, with that player's share of the position hash.
pub(crate) struct Sower<'a> {
    pub track: &'a mut [u16; MAX_TRACK],
    /// 2N.
    pub len: usize,
    /// Player index, for the hash keys.
    pub side: usize,
    /// Track positions `heads_from..N` are heads (empty range without heads).
    pub heads_from: usize,
    /// N.
    pub n: usize,
    /// The position hash, updated as stones move.
    pub hash: &'a mut u64,
}

impl Sower<'_> {
    /// Lifts all stones at `t` and drops them one by one on the following holes.
    /// Returns the track position of the last stone.
    #[inline]
    fn lap(&mut self, t: usize) -> usize {
        let len = self.len;
        let keys = &KEY_PREFIX[self.side];
        let c = self.track[t] as usize;
        self.track[t] = 0;
        let mut h = self.hash.wrapping_sub((c as u64).wrapping_mul(KEYS[self.side][t]));
        let q = c / len;
        let r = c % len;
        if q > 0 {
            for x in &mut self.track[..len] {
                *x += q as u16;
            }
            h = h.wrapping_add((q as u64).wrapping_mul(keys[len]));
        }
        let end = t + r;
        if end < len {
            for x in &mut self.track[t + 1..=end] {
                *x += 1;
            }
            h = h.wrapping_add(keys[end + 1].wrapping_sub(keys[t + 1]));
        } else {
            for x in &mut self.track[t + 1..len] {
                *x += 1;
            }
            for x in &mut self.track[..=end - len] {
                *x += 1;
            }
            h = h.wrapping_add(keys[len].wrapping_sub(keys[t + 1])).wrapping_add(keys[end - len + 1]);
        }
        *self.hash = h;
        (t + c) % len
    }

    /// Sows from `from` (its stones are lifted) until a lap ends in an empty hole or on an
    /// occupied head, or the sowing is found to be endless. `on_lap(from, stones, last)`
    /// sees every lap. On `Endless` the track is left in some state of the cycle.
    #[inline]
    pub fn sow(&mut self, from: usize, mut on_lap: impl FnMut(usize, u16, usize)) -> SowEnd {
        let mut t = from;
        for _ in 0..CYCLE_CHECK_AFTER {
            match self.step(t, &mut on_lap) {
                Ok(next) => t = next,
                Err(end) => return end,
            }
        }
        self.sow_long(t, on_lap)
    }

    /// One lap from `t`: `Ok(next lap start)` for a relay, `Err(end)` when the sowing stops.
    #[inline(always)]
    fn step(&mut self, t: usize, on_lap: &mut impl FnMut(usize, u16, usize)) -> Result<usize, SowEnd> {
        let stones = self.track[t];
        let last = self.lap(t);
        on_lap(t, stones, last);
        if self.track[last] == 1 {
            Err(SowEnd::Empty(last))
        } else if last >= self.heads_from && last < self.n {
            Err(SowEnd::Head(last))
        } else {
            Ok(last)
        }
    }

    /// The rare long sowing, with Brent's cycle detection over the state (track, lap start).
    #[cold]
    #[inline(never)]
    fn sow_long(&mut self, mut t: usize, mut on_lap: impl FnMut(usize, u16, usize)) -> SowEnd {
        let mut saved = [0u16; MAX_TRACK];
        saved[..self.len].copy_from_slice(&self.track[..self.len]);
        let mut saved_t = t;
        let mut saved_hash = *self.hash;
        let mut power = 1u32;
        let mut lam = 0u32;
        loop {
            match self.step(t, &mut on_lap) {
                Ok(next) => t = next,
                Err(end) => return end,
            }
            if saved_t == t && saved_hash == *self.hash && saved[..self.len] == self.track[..self.len] {
                return SowEnd::Endless;
            }
            lam += 1;
            if lam == power {
                saved[..self.len].copy_from_slice(&self.track[..self.len]);
                saved_t = t;
                saved_hash = *self.hash;
                power = power.saturating_mul(2);
                lam = 0;
            }
        }
    }
}
