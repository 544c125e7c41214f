//! Positions at turn boundaries, the unchecked [`Setup`] they are validated from, the
//! position notation of RULES.md §6.2, and the position hash.

use core::fmt;
use core::str::FromStr;

use crate::error::ParsePositionError;
use crate::hole::{Hole, Row, Side};
use crate::ruleset::{GameKind, Ruleset};

/// Largest number of holes per row of any ruleset.
pub const MAX_N: usize = 36;
/// Largest sowing track (2N).
pub const MAX_TRACK: usize = 2 * MAX_N;

const fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// The hash is linear in the counts, `sum(count * key) + side key`, so that a lap of
/// sowing updates it in O(1) with prefix sums of the keys, however many stones it drops.
/// Keys are odd so that no count difference can vanish modulo 2^64 by a factor of two
/// alone.
const fn make_keys() -> [[u64; MAX_TRACK]; 2] {
    let mut keys = [[0u64; MAX_TRACK]; 2];
    let mut s = 0;
    while s < 2 {
        let mut t = 0;
        while t < MAX_TRACK {
            keys[s][t] = splitmix((s * MAX_TRACK + t + 1) as u64) | 1;
            t += 1;
        }
        s += 1;
    }
    keys
}

const fn make_prefix(keys: &[[u64; MAX_TRACK]; 2]) -> [[u64; MAX_TRACK + 1]; 2] {
    let mut p = [[0u64; MAX_TRACK + 1]; 2];
    let mut s = 0;
    while s < 2 {
        let mut t = 0;
        while t < MAX_TRACK {
            p[s][t + 1] = p[s][t].wrapping_add(keys[s][t]);
            t += 1;
        }
        s += 1;
    }
    p
}

pub(crate) const KEYS: [[u64; MAX_TRACK]; 2] = make_keys();
pub(crate) const KEY_PREFIX: [[u64; MAX_TRACK + 1]; 2] = make_prefix(&KEYS);
const NORTH_TO_MOVE: u64 = splitmix(0x6e73_6f6c_6f21);

/// A position at a turn boundary: ruleset, the count of every hole and the side to move.
///
/// Counts are kept per player in track order (RULES.md §1), so sowing walks an array.
/// Built from a [`Setup`] (checked) or parsed from the notation of RULES.md §6.2:
///
/// ```
/// use matombo_core::{Position, Ruleset, Side};
/// let p: Position = "nsolo:8 2*8/0,2*7/2*7,0/2*8 S".parse().unwrap();
/// assert_eq!(p, Position::start("nsolo".parse().unwrap()));
/// assert_eq!(p.stones(Side::South), 30);
/// assert_eq!(p.to_string(), "nsolo:8 2*8/0,2*7/2*7,0/2*8 S");
/// ```
#[derive(PartialEq, Eq)]
pub struct Position {
    pub(crate) ruleset: Ruleset,
    /// Holes past a track (`2 * size` and on) always hold 0: [`Clone::clone_from`] relies on it.
    pub(crate) counts: [[u16; MAX_TRACK]; 2],
    pub(crate) side: Side,
    pub(crate) hash: u64,
}

impl Clone for Position {
    fn clone(&self) -> Self {
        Position { ruleset: self.ruleset, counts: self.counts, side: self.side, hash: self.hash }
    }

    /// Copies only the holes in use by either position (the rest are 0 in both): on small
    /// boards most of the fixed-size array is unused, and searches copy positions often.
    fn clone_from(&mut self, source: &Self) {
        let len = 2 * self.ruleset.size().max(source.ruleset.size());
        for (to, from) in self.counts.iter_mut().zip(&source.counts) {
            to[..len].copy_from_slice(&from[..len]);
        }
        self.ruleset = source.ruleset;
        self.side = source.side;
        self.hash = source.hash;
        debug_assert!(self.counts == source.counts);
    }
}

impl core::hash::Hash for Position {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({self})")
    }
}

impl Position {
    /// The start position of a ruleset (RULES.md §3.1, §3.4, §4.1), South to move.
    pub fn start(ruleset: Ruleset) -> Position {
        let n = ruleset.size();
        let mut counts = [[0u16; MAX_TRACK]; 2];
        for side in counts.iter_mut() {
            match ruleset.kind() {
                GameKind::Tsoro => {
                    for c in side.iter_mut().take(n) {
                        *c = 2;
                    }
                    if ruleset.heads() == 1 {
                        side[n - 1] = 3;
                    }
                }
                GameKind::Nsolo => {
                    for c in side.iter_mut().take(2 * n) {
                        *c = 2;
                    }
                    // The rightmost inner hole as seen from the owner's seat is inner hole N,
                    // track position 2N - N = N.
                    side[n] = 0;
                }
            }
        }
        Position::from_parts(ruleset, counts, Side::South)
    }

    pub(crate) fn from_parts(ruleset: Ruleset, counts: [[u16; MAX_TRACK]; 2], side: Side) -> Position {
        debug_assert!(
            counts.iter().all(|s| s[2 * ruleset.size()..].iter().all(|&c| c == 0)),
            "holes past the track hold 0"
        );
        let mut p = Position { ruleset, counts, side, hash: 0 };
        p.hash = p.full_hash();
        p
    }

    /// The ruleset.
    pub fn ruleset(&self) -> Ruleset {
        self.ruleset
    }

    /// The side to move.
    pub fn side_to_move(&self) -> Side {
        self.side
    }

    /// Stones in a hole. Panics if the hole is not on this board.
    pub fn count(&self, hole: Hole) -> u16 {
        let n = self.ruleset.size();
        assert!(hole.number >= 1 && hole.number as usize <= n, "hole {hole} is not on a board of {n}");
        self.counts[hole.side.index()][hole.track(n)]
    }

    /// A player's counts in track order (`t = 0..2N`).
    pub fn track(&self, side: Side) -> &[u16] {
        &self.counts[side.index()][..2 * self.ruleset.size()]
    }

    /// Stones left on a player's side.
    pub fn stones(&self, side: Side) -> u32 {
        self.track(side).iter().map(|&c| c as u32).sum()
    }

    /// Stones on the board.
    pub fn total_stones(&self) -> u32 {
        self.stones(Side::South) + self.stones(Side::North)
    }

    /// The 64-bit position hash, maintained incrementally by every turn.
    #[inline]
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// The hash computed from scratch (for checking the incremental one).
    pub fn full_hash(&self) -> u64 {
        let mut h = if self.side == Side::North { NORTH_TO_MOVE } else { 0 };
        for s in 0..2 {
            for t in 0..2 * self.ruleset.size() {
                h = h.wrapping_add((self.counts[s][t] as u64).wrapping_mul(KEYS[s][t]));
            }
        }
        h
    }

    pub(crate) fn switch_side(&mut self) {
        self.side = self.side.opponent();
        self.hash = match self.side {
            Side::North => self.hash.wrapping_add(NORTH_TO_MOVE),
            Side::South => self.hash.wrapping_sub(NORTH_TO_MOVE),
        };
    }

    /// Sets one hole's count, keeping the hash right.
    pub(crate) fn set(&mut self, side: Side, t: usize, count: u16) {
        let s = side.index();
        let old = self.counts[s][t];
        self.hash = self.hash.wrapping_add((count as u64).wrapping_sub(old as u64).wrapping_mul(KEYS[s][t]));
        self.counts[s][t] = count;
    }

    /// The unchecked setup of this position.
    pub fn to_setup(&self) -> Setup {
        let n = self.ruleset.size();
        let row = |side: Side, row: Row, reversed: bool| -> Vec<u32> {
            let mut v: Vec<u32> = (1..=n as u8).map(|k| self.count(Hole::new(side, row, k)) as u32).collect();
            if reversed {
                v.reverse();
            }
            v
        };
        Setup {
            ruleset: self.ruleset,
            rows: [
                row(Side::North, Row::Outer, true),
                row(Side::North, Row::Inner, true),
                row(Side::South, Row::Inner, false),
                row(Side::South, Row::Outer, false),
            ],
            side: self.side,
        }
    }

    /// The same position seen from the other side: the players swap their stones and the
    /// side to move. Both games are symmetric, so this changes nothing but colours.
    pub fn mirrored(&self) -> Position {
        let mut counts = self.counts;
        counts.swap(0, 1);
        Position::from_parts(self.ruleset, counts, self.side.opponent())
    }
}

/// An unchecked position: four rows of counts as written in RULES.md §6.2 (top to
/// bottom as South sees the board, each row left to right as South sees it).
///
/// Parsing a setup checks only the syntax; [`Position::from_setup`] checks that it fits
/// the ruleset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    /// The ruleset.
    pub ruleset: Ruleset,
    /// Rows `b`, `a`, `A`, `B`, each as South sees it (North's rows read `bN..b1`, `aN..a1`).
    pub rows: [Vec<u32>; 4],
    /// Side to move.
    pub side: Side,
}

const ROW_LETTERS: [char; 4] = ['b', 'a', 'A', 'B'];

impl FromStr for Setup {
    type Err = ParsePositionError;

    fn from_str(s: &str) -> Result<Setup, ParsePositionError> {
        let parts: Vec<&str> = s.split_whitespace().collect();
        if parts.len() != 3 {
            return Err(ParsePositionError::Shape(s.to_string()));
        }
        let ruleset: Ruleset = parts[0].parse()?;
        let rows_text: Vec<&str> = parts[1].split('/').collect();
        if rows_text.len() != 4 {
            return Err(ParsePositionError::RowCount(rows_text.len()));
        }
        let max = ruleset.total_stones();
        let mut rows: [Vec<u32>; 4] = Default::default();
        for (i, text) in rows_text.iter().enumerate() {
            let letter = ROW_LETTERS[i];
            for (item, piece) in text.split(',').enumerate() {
                let bad = || ParsePositionError::BadCount { row: letter, item: item + 1, text: piece.to_string() };
                let (count, times) = match piece.split_once('*') {
                    Some((c, t)) => (parse_number(c).ok_or_else(bad)?, parse_number(t).ok_or_else(bad)?),
                    None => (parse_number(piece).ok_or_else(bad)?, 1),
                };
                if times == 0 || times > MAX_N as u64 || rows[i].len() as u64 + times > MAX_N as u64 {
                    return Err(ParsePositionError::RowLength {
                        row: letter,
                        found: (rows[i].len() as u64 + times) as usize,
                        expected: ruleset.size(),
                        ruleset: ruleset.to_string(),
                    });
                }
                if count > max as u64 {
                    return Err(ParsePositionError::TooManyStones { found: count, max, ruleset: ruleset.to_string() });
                }
                rows[i].extend(core::iter::repeat_n(count as u32, times as usize));
            }
        }
        let side = match parts[2] {
            "S" => Side::South,
            "N" => Side::North,
            other => return Err(ParsePositionError::BadSide(other.to_string())),
        };
        Ok(Setup { ruleset, rows, side })
    }
}

fn parse_number(s: &str) -> Option<u64> {
    if s.is_empty() || s.len() > 6 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

impl fmt::Display for Setup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ", self.ruleset)?;
        for (i, row) in self.rows.iter().enumerate() {
            if i > 0 {
                f.write_str("/")?;
            }
            let mut first = true;
            let mut j = 0;
            while j < row.len() {
                let mut k = j;
                while k < row.len() && row[k] == row[j] {
                    k += 1;
                }
                if !first {
                    f.write_str(",")?;
                }
                first = false;
                if k - j >= 2 {
                    write!(f, "{}*{}", row[j], k - j)?;
                } else {
                    write!(f, "{}", row[j])?;
                }
                j = k;
            }
        }
        write!(f, " {}", self.side.letter())
    }
}

impl Position {
    /// Validates a setup: four rows of exactly N holes and no more stones than the
    /// ruleset starts with.
    pub fn from_setup(setup: &Setup) -> Result<Position, ParsePositionError> {
        let r = setup.ruleset;
        let n = r.size();
        let mut total: u64 = 0;
        for (i, row) in setup.rows.iter().enumerate() {
            if row.len() != n {
                return Err(ParsePositionError::RowLength {
                    row: ROW_LETTERS[i],
                    found: row.len(),
                    expected: n,
                    ruleset: r.to_string(),
                });
            }
            total += row.iter().map(|&c| c as u64).sum::<u64>();
        }
        if total > r.total_stones() as u64 {
            return Err(ParsePositionError::TooManyStones {
                found: total,
                max: r.total_stones(),
                ruleset: r.to_string(),
            });
        }
        let mut counts = [[0u16; MAX_TRACK]; 2];
        for k in 1..=n {
            // Row b and a are written from hole N down to 1.
            counts[1][Hole::new(Side::North, Row::Outer, k as u8).track(n)] = setup.rows[0][n - k] as u16;
            counts[1][Hole::new(Side::North, Row::Inner, k as u8).track(n)] = setup.rows[1][n - k] as u16;
            counts[0][Hole::new(Side::South, Row::Inner, k as u8).track(n)] = setup.rows[2][k - 1] as u16;
            counts[0][Hole::new(Side::South, Row::Outer, k as u8).track(n)] = setup.rows[3][k - 1] as u16;
        }
        Ok(Position::from_parts(r, counts, setup.side))
    }
}

impl FromStr for Position {
    type Err = ParsePositionError;

    /// Parses a position string, or a bare ruleset name meaning its start position.
    fn from_str(s: &str) -> Result<Position, ParsePositionError> {
        let s = s.trim();
        // One word can only be a ruleset name, so its own error says best what is wrong
        // (`tsoro:5`: the size), not the shape of a position string.
        if !s.is_empty() && !s.contains(char::is_whitespace) {
            return Ok(Position::start(s.parse::<Ruleset>()?));
        }
        Position::from_setup(&s.parse()?)
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.to_setup().fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_positions_match_rules() {
        for (name, text) in [
            ("tsoro:21", "tsoro:21 2*21/0*21/0*21/2*21 S"),
            ("tsoro:8,heads=1", "tsoro:8,heads=1 3,2*7/0*8/0*8/2*7,3 S"),
            ("nsolo:8", "nsolo:8 2*8/0,2*7/2*7,0/2*8 S"),
        ] {
            let p = Position::start(name.parse().unwrap());
            assert_eq!(p.to_string(), text);
            assert_eq!(text.parse::<Position>().unwrap(), p);
            assert_eq!(p.total_stones(), p.ruleset().total_stones());
        }
    }

    #[test]
    fn errors_name_the_problem() {
        let cases = [
            ("tsoro:8 2*8/0*8/0*8 S", "4 rows"),
            ("tsoro:8 2*8/0*7/0*8/2*8 S", "row a has 7 holes"),
            ("tsoro:8 2*8/0*8/0*8/2*8 X", "S or N"),
            ("tsoro:8 2*8/0*8/0*8/2*7,-1 S", "row B, item 2"),
            ("tsoro:8 2*8/0*8/0*8/2*7,3 S", "33 stones"),
            ("tsoro:8 2*8/0*8/0*8/2*7,99999999 S", "row B, item 2"),
            ("tsoro:99 2*8/0*8/0*8/2*8 S", "ruleset"),
            ("tsoro:8 2*8/0*8/0*8/2*0 S", "row B"),
            ("tsoro:8 2*8/0*8/0*8/2*8", "expected"),
        ];
        for (text, needle) in cases {
            let err = text.parse::<Position>().unwrap_err().to_string();
            assert!(err.contains(needle), "{text}: {err}");
        }
    }

    #[test]
    fn hash_distinguishes_side() {
        let p = Position::start("tsoro:8".parse().unwrap());
        let mut q = p.clone();
        q.switch_side();
        assert_ne!(p.hash(), q.hash());
        assert_eq!(q.hash(), q.full_hash());
    }
}
