//! The value of a position for the side to move, and its 16-bit code in the tables.

use std::fmt;

/// The exact value of a position for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// The side to move wins in this many turns (both sides' turns counted, at least 1):
    /// the winner plays the fastest win.
    Win(u16),
    /// The side to move loses in this many turns (0: it has no legal turn now): the loser
    /// plays the slowest loss.
    Loss(u16),
    /// Neither side can force a win (Nsolo: repetition decides; Tsoro: play never ends).
    Draw,
}

/// The longest distance a code can hold.
pub const MAX_DISTANCE: u16 = 32_766;

impl Value {
    /// The 16-bit code: 0 draw, `2d - 1` win in `d`, `2d + 2` loss in `d`.
    pub fn code(self) -> u16 {
        match self {
            Value::Draw => 0,
            Value::Win(d) => 2 * d - 1,
            Value::Loss(d) => 2 * d + 2,
        }
    }

    /// The value of a code; `None` for a code no value has (`u16::MAX`, or a win in 0).
    pub fn from_code(code: u16) -> Option<Value> {
        match code {
            0 => Some(Value::Draw),
            u16::MAX => None,
            c if c % 2 == 1 => Some(Value::Win(c.div_ceil(2))),
            c => Some(Value::Loss((c - 2) / 2)),
        }
    }

    /// `"win"`, `"loss"` or `"draw"`: the word JSON output uses.
    pub fn kind(self) -> &'static str {
        match self {
            Value::Win(_) => "win",
            Value::Loss(_) => "loss",
            Value::Draw => "draw",
        }
    }

    /// Turns to the end for a win or a loss; `None` for a draw.
    pub fn distance(self) -> Option<u16> {
        match self {
            Value::Win(d) | Value::Loss(d) => Some(d),
            Value::Draw => None,
        }
    }

    /// The value one turn earlier, for the other side: a loss in `d` makes a win in `d + 1`.
    pub fn back(self) -> Value {
        match self {
            Value::Draw => Value::Draw,
            Value::Win(d) => Value::Loss(d + 1),
            Value::Loss(d) => Value::Win(d + 1),
        }
    }

    /// Whether `self` is better for the side to move than `other` (faster wins, slower losses).
    pub fn better_than(self, other: Value) -> bool {
        self.order() > other.order()
    }

    fn order(self) -> i32 {
        match self {
            Value::Win(d) => 100_000 - d as i32,
            Value::Draw => 0,
            Value::Loss(d) => -100_000 + d as i32,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Win(d) => write!(f, "win in {d}"),
            Value::Loss(d) => write!(f, "loss in {d}"),
            Value::Draw => f.write_str("draw"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip() {
        for v in [Value::Draw, Value::Win(1), Value::Win(MAX_DISTANCE), Value::Loss(0), Value::Loss(MAX_DISTANCE)] {
            assert_eq!(Value::from_code(v.code()), Some(v));
        }
        assert_eq!(Value::from_code(u16::MAX), None);
        assert!(Value::Win(3).better_than(Value::Win(5)));
        assert!(Value::Loss(5).better_than(Value::Loss(3)));
        assert!(Value::Draw.better_than(Value::Loss(40)));
        assert_eq!(Value::Loss(0).back(), Value::Win(1));
        assert_eq!((Value::Win(3).kind(), Value::Win(3).distance()), ("win", Some(3)));
        assert_eq!((Value::Draw.kind(), Value::Draw.distance()), ("draw", None));
    }
}
