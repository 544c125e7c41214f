//! Ruleset names (RULES.md §6.1): which game, board size and Tsoro options.

use core::fmt;
use core::str::FromStr;

use crate::error::ParseRulesetError;

/// The two games.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum GameKind {
    /// Tsoro of Zimbabwe (RULES.md §3).
    Tsoro,
    /// Nsolo of Malawi and Zambia (RULES.md §4).
    Nsolo,
}

impl GameKind {
    /// The lower-case name used in ruleset names: `tsoro` or `nsolo`.
    pub fn name(self) -> &'static str {
        match self {
            GameKind::Tsoro => "tsoro",
            GameKind::Nsolo => "nsolo",
        }
    }

    /// Allowed holes per row, inclusive.
    pub fn size_range(self) -> (u8, u8) {
        match self {
            GameKind::Tsoro => (6, 21),
            GameKind::Nsolo => (8, 36),
        }
    }

    /// The standard (traditional full-size) number of holes per row.
    pub fn default_size(self) -> u8 {
        match self {
            GameKind::Tsoro => 21,
            GameKind::Nsolo => 8,
        }
    }
}

/// A complete ruleset: game, holes per row and (Tsoro only) heads and bonus holes.
///
/// ```
/// use matombo_core::Ruleset;
/// let r: Ruleset = "tsoro:8,heads=1,bonus=3".parse().unwrap();
/// assert_eq!(r.size(), 8);
/// assert_eq!(r.to_string(), "tsoro:8,heads=1,bonus=3");
/// assert_eq!("tsoro".parse::<Ruleset>().unwrap().to_string(), "tsoro:21");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ruleset {
    kind: GameKind,
    n: u8,
    heads: u8,
    bonus: u8,
}

impl Ruleset {
    /// Tsoro with `n` holes per row, `heads` (0, 1 or 2) and `bonus` holes (0..=3).
    pub fn tsoro(n: u8, heads: u8, bonus: u8) -> Result<Ruleset, ParseRulesetError> {
        let (lo, hi) = GameKind::Tsoro.size_range();
        if !(lo..=hi).contains(&n) {
            return Err(ParseRulesetError::SizeOutOfRange { kind: GameKind::Tsoro, n: n as u32 });
        }
        if heads > 2 {
            return Err(ParseRulesetError::BadOption(format!("heads={heads} (allowed: 0, 1, 2)")));
        }
        if bonus > 3 {
            return Err(ParseRulesetError::BadOption(format!("bonus={bonus} (allowed: 0..3)")));
        }
        Ok(Ruleset { kind: GameKind::Tsoro, n, heads, bonus })
    }

    /// Nsolo with `n` holes per row (8..=36).
    pub fn nsolo(n: u8) -> Result<Ruleset, ParseRulesetError> {
        let (lo, hi) = GameKind::Nsolo.size_range();
        if !(lo..=hi).contains(&n) {
            return Err(ParseRulesetError::SizeOutOfRange { kind: GameKind::Nsolo, n: n as u32 });
        }
        Ok(Ruleset { kind: GameKind::Nsolo, n, heads: 0, bonus: 0 })
    }

    /// The game's standard ruleset: `tsoro:21` or `nsolo:8`.
    pub fn standard(kind: GameKind) -> Ruleset {
        match kind {
            GameKind::Tsoro => Ruleset { kind, n: 21, heads: 2, bonus: 2 },
            GameKind::Nsolo => Ruleset { kind, n: 8, heads: 0, bonus: 0 },
        }
    }

    /// Which game.
    pub fn kind(self) -> GameKind {
        self.kind
    }

    /// Holes per row, N.
    pub fn size(self) -> usize {
        self.n as usize
    }

    /// Number of heads per player (Tsoro: 0, 1 or 2; Nsolo: 0).
    pub fn heads(self) -> u8 {
        self.heads
    }

    /// Number of Tsoro bonus holes K (Nsolo: 0; its bonus is counted in stones).
    pub fn bonus(self) -> u8 {
        self.bonus
    }

    /// Total stones in the start position (RULES.md §3.1, §3.4, §4.1).
    pub fn total_stones(self) -> u32 {
        let n = self.n as u32;
        match self.kind {
            GameKind::Tsoro => 4 * n + if self.heads == 1 { 2 } else { 0 },
            GameKind::Nsolo => 8 * n - 4,
        }
    }

    /// Whether track position `t` (0-based, see RULES.md §1) is a head of its owner.
    pub fn is_head_track(self, t: usize) -> bool {
        let n = self.size();
        match self.heads {
            2 => t == n - 1 || t == n - 2,
            1 => t == n - 1,
            _ => false,
        }
    }

    /// Every ruleset, for exhaustive tests and menus: every Tsoro size and option,
    /// every Nsolo size.
    pub fn all() -> impl Iterator<Item = Ruleset> {
        let tsoro = (6..=21u8).flat_map(|n| {
            (0..=2u8)
                .flat_map(move |h| (0..=3u8).map(move |b| Ruleset { kind: GameKind::Tsoro, n, heads: h, bonus: b }))
        });
        let nsolo = (8..=36u8).map(|n| Ruleset { kind: GameKind::Nsolo, n, heads: 0, bonus: 0 });
        tsoro.chain(nsolo)
    }
}

impl fmt::Display for Ruleset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.kind.name(), self.n)?;
        if self.kind == GameKind::Tsoro {
            if self.heads != 2 {
                write!(f, ",heads={}", self.heads)?;
            }
            if self.bonus != 2 {
                write!(f, ",bonus={}", self.bonus)?;
            }
        }
        Ok(())
    }
}

impl FromStr for Ruleset {
    type Err = ParseRulesetError;

    fn from_str(s: &str) -> Result<Ruleset, ParseRulesetError> {
        let mut parts = s.split(',');
        let head = parts.next().unwrap_or("");
        let (name, size) = match head.split_once(':') {
            Some((name, size)) => (name, Some(size)),
            None => (head, None),
        };
        let kind = match name {
            "tsoro" => GameKind::Tsoro,
            "nsolo" => GameKind::Nsolo,
            _ => return Err(ParseRulesetError::UnknownGame(name.to_string())),
        };
        let n = match size {
            None => kind.default_size() as u32,
            Some(sz) => {
                if sz.is_empty() || !sz.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(ParseRulesetError::BadSize(sz.to_string()));
                }
                sz.parse::<u32>().map_err(|_| ParseRulesetError::BadSize(sz.to_string()))?
            }
        };
        let (lo, hi) = kind.size_range();
        if n < lo as u32 || n > hi as u32 {
            return Err(ParseRulesetError::SizeOutOfRange { kind, n });
        }
        let mut heads = 2u8;
        let mut bonus = 2u8;
        let mut seen_heads = false;
        let mut seen_bonus = false;
        for opt in parts {
            if kind == GameKind::Nsolo {
                return Err(ParseRulesetError::BadOption(format!("{opt} (nsolo takes no options)")));
            }
            let (key, value) = opt.split_once('=').ok_or_else(|| ParseRulesetError::BadOption(opt.to_string()))?;
            let v: u8 = match value {
                "0" => 0,
                "1" => 1,
                "2" => 2,
                "3" => 3,
                _ => return Err(ParseRulesetError::BadOption(opt.to_string())),
            };
            match key {
                "heads" if !seen_heads && !seen_bonus && v <= 2 => {
                    heads = v;
                    seen_heads = true;
                }
                "bonus" if !seen_bonus => {
                    bonus = v;
                    seen_bonus = true;
                }
                _ => {
                    return Err(ParseRulesetError::BadOption(format!(
                        "{opt} (expected heads=0..2 then bonus=0..3, each at most once, in that order)"
                    )))
                }
            }
        }
        match kind {
            GameKind::Tsoro => Ruleset::tsoro(n as u8, heads, bonus),
            GameKind::Nsolo => Ruleset::nsolo(n as u8),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_names() {
        for (input, canon) in [
            ("tsoro", "tsoro:21"),
            ("nsolo", "nsolo:8"),
            ("tsoro:8,heads=1,bonus=3", "tsoro:8,heads=1,bonus=3"),
            ("tsoro:8,heads=2,bonus=2", "tsoro:8"),
            ("tsoro:6,bonus=0", "tsoro:6,bonus=0"),
            ("tsoro:21,heads=0,bonus=0", "tsoro:21,heads=0,bonus=0"),
            ("nsolo:36", "nsolo:36"),
        ] {
            assert_eq!(input.parse::<Ruleset>().unwrap().to_string(), canon, "{input}");
        }
        let nsolo: Ruleset = "nsolo".parse().unwrap();
        assert_eq!(nsolo, Ruleset::nsolo(8).unwrap());
        assert_eq!((nsolo.heads(), nsolo.bonus()), (0, 0));
        assert_eq!("tsoro:8".parse::<Ruleset>().unwrap(), Ruleset::tsoro(8, 2, 2).unwrap());
    }

    #[test]
    fn rejects_bad_names() {
        for bad in [
            "",
            "chess",
            "tsoro:5",
            "tsoro:22",
            "nsolo:7",
            "nsolo:37",
            "tsoro:",
            "tsoro:x",
            "tsoro:8,heads=3",
            "tsoro:8,bonus=4",
            "tsoro:8,bonus=1,heads=1",
            "tsoro:8,heads=1,heads=1",
            "nsolo:8,heads=1",
            "tsoro:8,",
            "tsoro:+8",
            "tsoro:99999999999",
        ] {
            assert!(bad.parse::<Ruleset>().is_err(), "{bad} should be rejected");
        }
    }

    #[test]
    fn totals() {
        assert_eq!("tsoro".parse::<Ruleset>().unwrap().total_stones(), 84);
        assert_eq!("nsolo:36".parse::<Ruleset>().unwrap().total_stones(), 284);
        assert_eq!("tsoro:8,heads=1".parse::<Ruleset>().unwrap().total_stones(), 34);
        assert_eq!(Ruleset::all().count(), 16 * 12 + 29);
    }
}
