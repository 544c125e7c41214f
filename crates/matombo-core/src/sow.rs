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
const CYCLE_CHECK_AFTER: usize = 24;

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
    /// sees every lap. On `Endless` the track and hash are as they were before: a random
    /// playout then tries another start without having copied the track beforehand, a copy
    /// that would cost more than the rest of a short sowing.
    #[inline]
    pub fn sow(&mut self, from: usize, mut on_lap: impl FnMut(usize, u16, usize)) -> SowEnd {
        let hash_before = *self.hash;
        // The stones each lap lifts, enough to take the laps back.
        let mut lifted = [0u16; CYCLE_CHECK_AFTER];
        let mut t = from;
        for l in &mut lifted {
            *l = self.track[t];
            match self.step(t, &mut on_lap) {
                Ok(next) => t = next,
                Err(end) => return end,
            }
        }
        let end = self.sow_long(t, on_lap);
        if end == SowEnd::Endless {
            self.undo(from, &lifted, hash_before);
        }
        end
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
    /// On `Endless` the track is back as it was when this was called.
    #[cold]
    #[inline(never)]
    fn sow_long(&mut self, mut t: usize, mut on_lap: impl FnMut(usize, u16, usize)) -> SowEnd {
        let entry = *self.track;
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
                *self.track = entry;
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

    /// Takes back the laps that lifted `lifted` stones in turn, the first from `from`, and
    /// restores the hash they started from.
    #[cold]
    fn undo(&mut self, from: usize, lifted: &[u16], hash: u64) {
        let len = self.len;
        // Each lap starts where the one before ended.
        let mut starts = [0usize; CYCLE_CHECK_AFTER];
        let mut t = from;
        for (s, &c) in starts.iter_mut().zip(lifted) {
            *s = t;
            t = (t + c as usize) % len;
        }
        for (&t, &c) in starts.iter().zip(lifted).rev() {
            // The lap emptied `t`, gave every hole c / len stones and the c % len holes
            // after `t` one more.
            let (q, r) = (c / len as u16, c as usize % len);
            for x in &mut self.track[..len] {
                *x -= q;
            }
            for i in 1..=r {
                self.track[(t + i) % len] -= 1;
            }
            self.track[t] = c;
        }
        *self.hash = hash;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sow(track: &mut [u16; MAX_TRACK], n: usize, heads_from: usize, from: usize, hash: &mut u64) -> SowEnd {
        Sower { track, len: 2 * n, side: 1, heads_from, n, hash }.sow(from, |_, _, _| {})
    }

    /// An endless sowing must leave the track and hash as they were: random playouts rely
    /// on it to try another start without a copy.
    #[test]
    fn endless_sowing_leaves_the_track_unchanged() {
        // South's track in the endless example of RULES.md §2.5 (nsolo:8, from B8), and
        // each of its rotations: without heads, sowing does not depend on where the track
        // is cut.
        let example = [1u16, 2, 1, 0, 1, 0, 1, 2, 2, 1, 0, 2, 3, 0, 1, 0];
        for k in 0..16 {
            let mut track = [0u16; MAX_TRACK];
            for (t, &c) in example.iter().enumerate() {
                track[(t + k) % 16] = c;
            }
            let before = track;
            let mut hash = 12345;
            assert_eq!(sow(&mut track, 8, 8, (7 + k) % 16, &mut hash), SowEnd::Endless);
            assert_eq!((track, hash), (before, 12345), "rotated by {k}");
        }
        // Random tracks: whatever the end, no stone is lost; the rare endless one is undone.
        let mut state = 7u64;
        let mut next = |m: u64| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (state >> 33) % m
        };
        for _ in 0..20_000 {
            let n = 6 + next(5) as usize;
            let heads_from = n - next(3) as usize;
            let mut track = [0u16; MAX_TRACK];
            for c in track.iter_mut().take(2 * n) {
                *c = [0, 1, 1, 2][next(4) as usize];
            }
            let from = next(2 * n as u64) as usize;
            if track[from] == 0 {
                continue;
            }
            let before = track;
            let mut hash = 12345;
            if sow(&mut track, n, heads_from, from, &mut hash) == SowEnd::Endless {
                assert_eq!((track, hash), (before, 12345));
            } else {
                assert_eq!(track.iter().sum::<u16>(), before.iter().sum::<u16>());
            }
        }
    }
}
