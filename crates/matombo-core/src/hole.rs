//! Sides, rows and hole labels (RULES.md §1).

use core::fmt;
use core::str::FromStr;

use crate::error::ParseHoleError;

/// A player: South moves first and sits below the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Side {
    /// The first player, owner of rows `A` and `B`.
    South,
    /// The second player, owner of rows `a` and `b`.
    North,
}

impl Side {
    /// The other side.
    #[inline]
    pub fn opponent(self) -> Side {
        match self {
            Side::South => Side::North,
            Side::North => Side::South,
        }
    }

    /// 0 for South, 1 for North.
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    /// `S` or `N`.
    pub fn letter(self) -> char {
        match self {
            Side::South => 'S',
            Side::North => 'N',
        }
    }

    /// Both sides, South first.
    pub const BOTH: [Side; 2] = [Side::South, Side::North];
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::South => "South",
            Side::North => "North",
        })
    }
}

/// One of a player's two rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Row {
    /// The outer row, nearest its owner (`B` for South, `b` for North).
    Outer,
    /// The inner row, facing the opponent (`A` for South, `a` for North).
    Inner,
}

/// A hole: owner, row and number 1..=N counted from the owner's own left.
///
/// Labels are `B7` (South's outer row), `A3` (South's inner row), `b7`, `a3` (North's).
///
/// ```
/// use matombo_core::{Hole, Row, Side};
/// let h: Hole = "a12".parse().unwrap();
/// assert_eq!((h.side, h.row, h.number), (Side::North, Row::Inner, 12));
/// assert_eq!(h.track(21), 42 - 12);
/// assert_eq!(Hole::from_track(Side::North, 30, 21), h);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Hole {
    /// The owner.
    pub side: Side,
    /// Outer or inner row.
    pub row: Row,
    /// 1-based number from the owner's left.
    pub number: u8,
}

impl Hole {
    /// A hole from its parts; `number` is not checked against a board size.
    pub fn new(side: Side, row: Row, number: u8) -> Hole {
        Hole { side, row, number }
    }

    /// Position on the owner's sowing track: outer `k` is `k-1`, inner `k` is `2N-k`.
    #[inline]
    pub fn track(self, n: usize) -> usize {
        match self.row {
            Row::Outer => self.number as usize - 1,
            Row::Inner => 2 * n - self.number as usize,
        }
    }

    /// The hole at track position `t` (`0..2N`) of `side`.
    #[inline]
    pub fn from_track(side: Side, t: usize, n: usize) -> Hole {
        if t < n {
            Hole { side, row: Row::Outer, number: (t + 1) as u8 }
        } else {
            Hole { side, row: Row::Inner, number: (2 * n - t) as u8 }
        }
    }

    /// The next hole on the owner's track (RULES.md §1): `B1 → … → BN → AN → … → A1 → B1`.
    pub fn next_on_track(self, n: usize) -> Hole {
        let t = self.track(n) + 1;
        Hole::from_track(self.side, if t == 2 * n { 0 } else { t }, n)
    }

    /// The row letter: `B`, `A`, `b` or `a`.
    pub fn letter(self) -> char {
        match (self.side, self.row) {
            (Side::South, Row::Outer) => 'B',
            (Side::South, Row::Inner) => 'A',
            (Side::North, Row::Outer) => 'b',
            (Side::North, Row::Inner) => 'a',
        }
    }

    /// Checks the number against a board of `n` holes per row.
    pub fn check(self, n: usize) -> Result<Hole, ParseHoleError> {
        if self.number == 0 || self.number as usize > n {
            Err(ParseHoleError::OutOfRange { label: self.to_string(), n })
        } else {
            Ok(self)
        }
    }

    /// Parses a label at the start of `s`, returning the hole and the bytes used.
    pub(crate) fn parse_prefix(s: &str) -> Option<(Hole, usize)> {
        let bytes = s.as_bytes();
        let (side, row) = match *bytes.first()? {
            b'B' => (Side::South, Row::Outer),
            b'A' => (Side::South, Row::Inner),
            b'b' => (Side::North, Row::Outer),
            b'a' => (Side::North, Row::Inner),
            _ => return None,
        };
        let digits = bytes[1..].iter().take_while(|b| b.is_ascii_digit()).count();
        if digits == 0 || digits > 2 || bytes[1] == b'0' {
            return None;
        }
        let number: u8 = s[1..1 + digits].parse().ok()?;
        Some((Hole { side, row, number }, 1 + digits))
    }
}

impl fmt::Display for Hole {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.letter(), self.number)
    }
}

impl FromStr for Hole {
    type Err = ParseHoleError;

    fn from_str(s: &str) -> Result<Hole, ParseHoleError> {
        match Hole::parse_prefix(s) {
            Some((h, used)) if used == s.len() => Ok(h),
            _ => Err(ParseHoleError::Syntax(s.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn track_round_trip() {
        for n in [6usize, 8, 21, 36] {
            for side in Side::BOTH {
                for t in 0..2 * n {
                    let h = Hole::from_track(side, t, n);
                    assert_eq!(h.track(n), t);
                    assert_eq!(h.to_string().parse::<Hole>().unwrap(), h);
                    assert!(h.check(n).is_ok());
                }
            }
        }
    }

    #[test]
    fn track_order_matches_rules() {
        // South: B1 .. BN, AN .. A1.
        let n = 8;
        let labels: Vec<String> = (0..16).map(|t| Hole::from_track(Side::South, t, n).to_string()).collect();
        assert_eq!(labels.join(" "), "B1 B2 B3 B4 B5 B6 B7 B8 A8 A7 A6 A5 A4 A3 A2 A1");
    }

    #[test]
    fn next_on_track_wraps_round_the_owner_rows() {
        let n = 6;
        let mut h: Hole = "B1".parse().unwrap();
        let mut seen = Vec::new();
        for _ in 0..13 {
            seen.push(h.to_string());
            h = h.next_on_track(n);
        }
        assert_eq!(seen.join(" "), "B1 B2 B3 B4 B5 B6 A6 A5 A4 A3 A2 A1 B1");
        assert_eq!("a1".parse::<Hole>().unwrap().next_on_track(n).to_string(), "b1");
    }

    #[test]
    fn bad_labels() {
        for bad in ["", "B", "C3", "B0", "B03", "B123", "b-1", "B7x", " B7"] {
            assert!(bad.parse::<Hole>().is_err(), "{bad}");
        }
        assert!("B9".parse::<Hole>().unwrap().check(8).is_err());
    }
}
