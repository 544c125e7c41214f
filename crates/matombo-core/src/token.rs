//! Turn tokens (RULES.md §6.3) and single decisions (§6.4), parsed without context.

use core::fmt;
use core::str::FromStr;

use crate::error::{ParseDecisionError, ParseTokenError};
use crate::hole::Hole;

/// One bonus pick of a token: a hole and how many stones are taken there (always 1 for a
/// Tsoro pick, which takes the whole hole; `xb3:2` in Nsolo takes two).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Pick {
    /// The opponent's hole.
    pub hole: Hole,
    /// Stones removed there (Nsolo), or 1 (Tsoro).
    pub times: u16,
}

/// A whole turn as written in the notation: start, head marks, bonus picks.
///
/// Parsing checks only the syntax; [`crate::Position::resolve`] checks it against a
/// position.
///
/// ```
/// use matombo_core::Token;
/// let t: Token = "B2+=xb3:2xa1".parse().unwrap();
/// assert_eq!(t.start.to_string(), "B2");
/// assert_eq!(t.marks, vec![true, false]);
/// assert_eq!(t.picks.len(), 2);
/// assert_eq!(t.to_string(), "B2+=xb3:2xa1");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Token {
    /// The start hole.
    pub start: Hole,
    /// One mark per lap end on an occupied head: `true` = continue (`+`), `false` = stop (`=`).
    pub marks: Vec<bool>,
    /// Bonus picks in canonical order.
    pub picks: Vec<Pick>,
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.start)?;
        for &m in &self.marks {
            f.write_str(if m { "+" } else { "=" })?;
        }
        for p in &self.picks {
            write!(f, "x{}", p.hole)?;
            if p.times != 1 {
                write!(f, ":{}", p.times)?;
            }
        }
        Ok(())
    }
}

impl FromStr for Token {
    type Err = ParseTokenError;

    fn from_str(s: &str) -> Result<Token, ParseTokenError> {
        if s.is_empty() {
            return Err(ParseTokenError::Empty);
        }
        let err = |at: usize, expected: &'static str| ParseTokenError::Unexpected {
            token: s.to_string(),
            at,
            found: s[at..].chars().next().map(|c| c.to_string()).unwrap_or_else(|| "end".to_string()),
            expected,
        };
        let (start, mut i) = Hole::parse_prefix(s).ok_or_else(|| err(0, "a start hole like B7"))?;
        let bytes = s.as_bytes();
        let mut marks = Vec::new();
        while i < bytes.len() && (bytes[i] == b'+' || bytes[i] == b'=') {
            marks.push(bytes[i] == b'+');
            i += 1;
        }
        let mut picks = Vec::new();
        while i < bytes.len() {
            if bytes[i] != b'x' {
                return Err(err(
                    i,
                    if picks.is_empty() { "'+', '=' or a bonus pick 'x<hole>'" } else { "a bonus pick 'x<hole>'" },
                ));
            }
            i += 1;
            let (hole, used) = Hole::parse_prefix(&s[i..]).ok_or_else(|| err(i, "a hole after 'x'"))?;
            if hole.side == start.side {
                return Err(err(i, "an opponent's hole"));
            }
            i += used;
            let mut times = 1u16;
            if i < bytes.len() && bytes[i] == b':' {
                i += 1;
                let digits = bytes[i..].iter().take_while(|b| b.is_ascii_digit()).count();
                if digits == 0 || digits > 3 || bytes[i] == b'0' {
                    return Err(err(i, "a stone count 1..999 after ':'"));
                }
                times = s[i..i + digits].parse().map_err(|_| err(i, "a stone count"))?;
                if times == 1 {
                    return Err(err(i, "no ':1' (a single stone is written without a count)"));
                }
                i += digits;
            }
            picks.push(Pick { hole, times });
        }
        Ok(Token { start, marks, picks })
    }
}

/// One decision of a turn (RULES.md §6.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Decision {
    /// Start the turn from one of the mover's holes.
    Sow(Hole),
    /// At an occupied head: lift its stones and sow on.
    Continue,
    /// At an occupied head: end the turn.
    Stop,
    /// Bonus: take an opponent's hole (Tsoro) or one stone from it (Nsolo).
    Take(Hole),
    /// Tsoro: end the bonus early.
    Done,
}

impl fmt::Display for Decision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Decision::Sow(h) => write!(f, "sow {h}"),
            Decision::Continue => f.write_str("continue"),
            Decision::Stop => f.write_str("stop"),
            Decision::Take(h) => write!(f, "take {h}"),
            Decision::Done => f.write_str("done"),
        }
    }
}

impl FromStr for Decision {
    type Err = ParseDecisionError;

    fn from_str(s: &str) -> Result<Decision, ParseDecisionError> {
        let bad = || ParseDecisionError(s.to_string());
        let mut words = s.split_whitespace();
        let d = match (words.next(), words.next()) {
            (Some("sow"), Some(h)) => Decision::Sow(h.parse().map_err(|_| bad())?),
            (Some("take"), Some(h)) => Decision::Take(h.parse().map_err(|_| bad())?),
            (Some("continue"), None) => Decision::Continue,
            (Some("stop"), None) => Decision::Stop,
            (Some("done"), None) => Decision::Done,
            _ => return Err(bad()),
        };
        if words.next().is_some() {
            return Err(bad());
        }
        Ok(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        for t in ["B2=", "B2+", "a12", "B2+=+xb3xa7", "A5xb3:2xb4xa1:12", "b1xB3"] {
            assert_eq!(t.parse::<Token>().unwrap().to_string(), t);
        }
        for d in ["sow B7", "continue", "stop", "take a3", "done"] {
            assert_eq!(d.parse::<Decision>().unwrap().to_string(), d);
        }
    }

    #[test]
    fn rejects() {
        for t in
            ["", "B", "X2", "B2x", "B2xB3", "B2xb3:", "B2xb3:0", "B2xb3:1", "B2xb3=", "B2 ", "B2+x", "B0", "B2xb3:1000"]
        {
            assert!(t.parse::<Token>().is_err(), "{t}");
        }
        for d in ["", "sow", "sow Q1", "continue now", "take", "Stop"] {
            assert!(d.parse::<Decision>().is_err(), "{d}");
        }
    }
}
