//! Which holes may start a turn, as a list and as a bit mask, and the canonical order
//! of a player's holes. Branch-free: this runs at every turn of every playout.

use core::ops::{BitAnd, BitOr, Not, Shl, Shr, Sub};

use crate::position::MAX_TRACK;

/// Canonical order of a player's holes: outer row 1..N, then inner row 1..N.
#[inline]
pub(crate) fn canonical_index(t: usize, n: usize) -> usize {
    if t < n {
        t
    } else {
        3 * n - 1 - t
    }
}

/// Inverse of [`canonical_index`].
#[inline]
pub(crate) fn canonical_track(i: usize, n: usize) -> usize {
    if i < n {
        i
    } else {
        3 * n - 1 - i
    }
}

/// The start holes open to the mover before the endless-sowing check, in canonical order:
/// holes of two or more, or when there are none, single stones before an empty hole.
/// Branch-free loops: this runs at every turn of every playout.
pub(crate) fn candidate_starts(track: &[u16], n: usize, out: &mut [usize; MAX_TRACK]) -> usize {
    let len = 2 * n;
    let track = &track[..len];
    let mut k = 0;
    // Canonical order: outer holes 1..N (t = 0..N), then inner holes 1..N (t = 2N-1 down to N).
    for t in 0..n {
        out[k] = t;
        k += (track[t] >= 2) as usize;
    }
    for t in (n..len).rev() {
        out[k] = t;
        k += (track[t] >= 2) as usize;
    }
    if k > 0 {
        return k;
    }
    let single = |t: usize| (track[t] == 1 && track[if t + 1 == len { 0 } else { t + 1 }] == 0) as usize;
    for t in 0..n {
        out[k] = t;
        k += single(t);
    }
    for t in (n..len).rev() {
        out[k] = t;
        k += single(t);
    }
    k
}

/// The candidate starts (see [`candidate_starts`]) as a bit set over track positions.
///
/// This runs at every start of every turn, so the bit sets are built many holes at a time,
/// over a number of holes fixed at compile time for each class of board: a loop whose
/// bound depends on the board is neither unrolled nor vectorised, and comparing all 72
/// holes of the largest board on a small one wastes most of the work. Tracks of up to 44
/// holes (every Tsoro board) go four holes to a 64-bit word; longer ones (large Nsolo
/// boards) eight at a time in vector compares.
#[inline]
pub(crate) fn candidate_mask(track: &[u16; MAX_TRACK], n: usize) -> u128 {
    let len = 2 * n;
    if len <= 16 {
        candidates_from(len, |k| words_at_least::<4>(track, len, k)) as u128
    } else if len <= 44 {
        candidates_from(len, |k| words_at_least::<11>(track, len, k)) as u128
    } else {
        candidates_from(len, |k| lanes_at_least(track, len, k))
    }
}

/// The candidate starts from `at_least(k)`, the set of holes holding `k` stones or more,
/// in a 64-bit set where the track fits (shifts of 128-bit sets take several instructions).
#[inline(always)]
fn candidates_from<M>(len: usize, at_least: impl Fn(u16) -> M) -> M
where
    M: Copy + PartialEq + From<u8> + Not<Output = M> + BitAnd<Output = M> + BitOr<Output = M>,
    M: Shl<usize, Output = M> + Shr<usize, Output = M> + Sub<Output = M>,
{
    let (zero, one) = (M::from(0), M::from(1));
    let big = at_least(2);
    if big != zero {
        return big;
    }
    // With no hole of two or more, every occupied hole holds a single stone.
    let single = at_least(1);
    let empty = !single & ((one << len) - one);
    // A single stone at t may move when t+1 (wrapping at the end of the track) is empty.
    let next_empty = (empty >> 1) | ((empty & one) << (len - 1));
    single & next_empty
}

/// Bit `t` set where `track[t] >= k`, for `t < len <= 4 * W <= 64`, four holes to a word.
#[inline(always)]
fn words_at_least<const W: usize>(track: &[u16; MAX_TRACK], len: usize, k: u16) -> u64 {
    // Adding 0x8000 - k to a count sets its bit 15 exactly when it is at least k; a count
    // is at most the ruleset's stones (a few hundred), so no lane carries into the next.
    let add = (0x8000 - k as u64) * 0x0001_0001_0001_0001;
    let mut m = 0u64;
    for (i, holes) in track[..4 * W].chunks_exact(4).enumerate() {
        let mut word = 0u64;
        for (j, &c) in holes.iter().enumerate() {
            word |= (c as u64) << (16 * j);
        }
        let top = ((word + add) >> 15) & 0x0001_0001_0001_0001;
        // Lane j's bit (bit 16j) times 2^(48-15j) lands on bit 48+j; every other product
        // falls on a distinct bit below 48 or past 63, so nothing carries into them.
        let bits = (top.wrapping_mul(0x0001_0002_0004_0008) >> 48) & 0xf;
        m |= bits << (4 * i);
    }
    m & ((1u64 << len) - 1)
}

/// Bit `t` set where `track[t] >= k`, for `t < len`, over the whole array: a flag byte per
/// hole first (a loop the compiler turns into a few wide compares), then eight flags at a
/// time gathered into eight bits by one multiply. Building the bits directly in the
/// compare loop makes the compiler shuffle lanes around instead, at several times the cost.
#[inline(always)]
fn lanes_at_least(track: &[u16; MAX_TRACK], len: usize, k: u16) -> u128 {
    let mut flags = [0u8; MAX_TRACK];
    for (f, &c) in flags.iter_mut().zip(track) {
        *f = (c >= k) as u8;
    }
    let mut m = 0u128;
    for (i, chunk) in flags.chunks_exact(8).enumerate() {
        let bytes = u64::from_le_bytes(chunk.try_into().expect("chunks of eight"));
        // Byte j (0 or 1) times byte 7-j of the multiplier (2^(7-j)) lands on bit 56+j;
        // every other product falls on a distinct lower bit or past bit 63, so nothing
        // carries into the top byte.
        let bits = bytes.wrapping_mul(0x0102_0408_1020_4080) >> 56;
        m |= (bits as u128) << (8 * i);
    }
    m & ((1u128 << len) - 1)
}

/// The number of set bits of `m`. Counting bits is a dozen instructions a word on
/// processors without a count instruction (the portable x86-64 baseline), and tracks of
/// up to 64 holes, all of Tsoro's, leave the high word empty.
#[inline]
pub(crate) fn count_bits(m: u128) -> u32 {
    let high = (m >> 64) as u64;
    if high == 0 {
        (m as u64).count_ones()
    } else {
        m.count_ones()
    }
}

/// The index of the `r`-th set bit of `m` (0-based).
#[inline]
pub(crate) fn select_bit(m: u128, r: u32) -> usize {
    let (low, high) = (m as u64, (m >> 64) as u64);
    let (mut word, mut r, base) = if high == 0 {
        (low, r, 0)
    } else {
        let c = low.count_ones();
        if r < c {
            (low, r, 0)
        } else {
            (high, r - c, 64)
        }
    };
    while r > 0 {
        word &= word - 1;
        r -= 1;
    }
    base + word.trailing_zeros() as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mask_matches_candidate_list() {
        let mut state = 12345u64;
        for _ in 0..2000 {
            let n = 6 + (state % 31) as usize;
            let mut track = [0u16; MAX_TRACK];
            for c in track.iter_mut().take(2 * n) {
                state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                *c = [0, 0, 1, 1, 1, 2, 3][(state >> 33) as usize % 7];
            }
            let mut out = [0usize; MAX_TRACK];
            let k = candidate_starts(&track, n, &mut out);
            let m = candidate_mask(&track, n);
            assert_eq!(m.count_ones() as usize, k);
            assert_eq!(count_bits(m), m.count_ones());
            let mut listed: Vec<usize> = out[..k].to_vec();
            listed.sort();
            let from_mask: Vec<usize> = (0..k as u32).map(|r| select_bit(m, r)).collect();
            assert_eq!(listed, from_mask);
        }
    }
}
