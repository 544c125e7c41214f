//! Error types. Every message says what is wrong and where.

use thiserror::Error;

use crate::ruleset::GameKind;

/// A ruleset name that could not be parsed (RULES.md §6.1).
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ParseRulesetError {
    /// The game name is neither `tsoro` nor `nsolo`.
    #[error("unknown game {0:?} (expected \"tsoro\" or \"nsolo\")")]
    UnknownGame(String),
    /// The size after `:` is not a number.
    #[error("board size {0:?} is not a number")]
    BadSize(String),
    /// The size is outside the game's range.
    #[error("{} has {}..{} holes per row, not {n}", kind.name(), kind.size_range().0, kind.size_range().1)]
    SizeOutOfRange {
        /// The game.
        kind: GameKind,
        /// The size given.
        n: u32,
    },
    /// An option that is unknown, repeated, out of order or out of range.
    #[error("bad ruleset option {0}")]
    BadOption(String),
}

/// A hole label (`B7`, `a12`) that could not be parsed.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ParseHoleError {
    /// Not a row letter followed by a number.
    #[error("{0:?} is not a hole (expected a row letter b, a, A or B and a number, like B7)")]
    Syntax(String),
    /// The number is outside 1..=N.
    #[error("hole {label} does not exist on a board of {n} holes per row")]
    OutOfRange {
        /// The label given.
        label: String,
        /// Holes per row.
        n: usize,
    },
}

/// A position string that could not be parsed or describes an impossible position.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ParsePositionError {
    /// Wrong overall shape: `<ruleset> <rows> <side>`.
    #[error("expected \"<ruleset> <row b>/<row a>/<row A>/<row B> <S|N>\", got {0:?}")]
    Shape(String),
    /// The ruleset part is wrong.
    #[error("in the ruleset: {0}")]
    Ruleset(ParseRulesetError),
    /// Not four rows.
    #[error("expected 4 rows separated by '/', found {0}")]
    RowCount(usize),
    /// A count that is not a number or a malformed run `c*n`.
    #[error("row {row}, item {item}: {text:?} is not a stone count (expected a number or a run like 2*7)")]
    BadCount {
        /// Row letter (`b`, `a`, `A`, `B`).
        row: char,
        /// 1-based item in the row as written.
        item: usize,
        /// The text.
        text: String,
    },
    /// A row with the wrong number of holes.
    #[error("row {row} has {found} holes, but {ruleset} has {expected} per row")]
    RowLength {
        /// Row letter.
        row: char,
        /// Holes found.
        found: usize,
        /// Holes expected.
        expected: usize,
        /// Ruleset name.
        ruleset: String,
    },
    /// More stones than the ruleset's start position has.
    #[error("the position has {found} stones, more than the {max} that {ruleset} starts with")]
    TooManyStones {
        /// Stones found.
        found: u64,
        /// Stones at the start.
        max: u32,
        /// Ruleset name.
        ruleset: String,
    },
    /// Side to move is not `S` or `N`.
    #[error("side to move must be S or N, not {0:?}")]
    BadSide(String),
}

/// A turn token (RULES.md §6.3) that is malformed on its own, before any position is known.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ParseTokenError {
    /// Empty token.
    #[error("empty turn token")]
    Empty,
    /// Something unexpected at a byte offset.
    #[error("turn token {token:?}: unexpected {found:?} at position {at} ({expected})")]
    Unexpected {
        /// The whole token.
        token: String,
        /// Byte offset.
        at: usize,
        /// What was found.
        found: String,
        /// What was expected.
        expected: &'static str,
    },
}

/// A decision (RULES.md §6.4) that could not be parsed.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("{0:?} is not a decision (expected: sow <hole>, continue, stop, take <hole>, done)")]
pub struct ParseDecisionError(pub String);

/// A decision or turn that is not legal in the position.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum IllegalError {
    /// The decision is not among the legal ones now.
    #[error("{decision} is not legal here; legal: {legal}")]
    Decision {
        /// The decision tried, as text.
        decision: String,
        /// The legal decisions, comma separated.
        legal: String,
    },
    /// A turn token does not fit the position.
    #[error("turn {token} is not legal: {reason}")]
    Token {
        /// The token, as written.
        token: String,
        /// Why.
        reason: String,
    },
    /// A bonus that the capture does not allow.
    #[error("illegal bonus: {0}")]
    Bonus(String),
    /// The game is over.
    #[error("the game is over ({0}); no more turns can be played")]
    GameOver(String),
    /// The turn is already complete.
    #[error("the turn is already complete")]
    TurnComplete,
}

// Not `#[from]`: that would make the ruleset error the source as well, and a report of the
// error chain would say it twice.
impl From<ParseRulesetError> for ParsePositionError {
    fn from(e: ParseRulesetError) -> ParsePositionError {
        ParsePositionError::Ruleset(e)
    }
}
