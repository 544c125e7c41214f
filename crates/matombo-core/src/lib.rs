//! # matombo-core
//!
//! The rules of the four-row mancala games **Tsoro** (Zimbabwe) and **Nsolo** (Malawi,
//! Zambia), exactly as the project's `RULES.md` states them: positions, turns played one
//! decision at a time or whole, the notation for rulesets, positions, turns and game
//! records, position hashing, perft and uniformly random playouts.
//!
//! The crate is pure: no I/O, no threads, no clock and no global mutable state, so it
//! builds for `wasm32-unknown-unknown` too.
//!
//! ```
//! use matombo_core::{Position, Ruleset};
//!
//! let ruleset: Ruleset = "tsoro:8".parse()?;
//! let start = Position::start(ruleset);
//! // Whole turns with their tokens and the positions they lead to:
//! let (token, after) = start.turns().find(|(t, _)| t.to_string() == "B2+").unwrap();
//! assert_eq!(after.to_string(), "tsoro:8 2*8/0*8/0*6,1*2/2,0,3,0,3*2,0,3 N");
//! assert_eq!(start.play(&token)?, after);
//! assert_eq!(start.perft(2), 144);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]
// Board code indexes parallel arrays by track position; index loops say that most plainly.
#![allow(clippy::needless_range_loop)]

mod builder;
mod error;
mod game;
mod hole;
mod movegen;
mod position;
mod record;
mod ruleset;
mod sow;
mod token;
mod turn;

// The notation types travel in serde as their notation string: written with `Display`,
// read back with `FromStr` (so JSON holds `"B2+"`, not a struct).
#[cfg(feature = "serde")]
macro_rules! serde_as_notation {
    ($($t:ty),*) => {$(
        impl serde::Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }

        impl<'de> serde::Deserialize<'de> for $t {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<$t, D::Error> {
                let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
                s.parse().map_err(serde::de::Error::custom)
            }
        }
    )*};
}

#[cfg(feature = "serde")]
serde_as_notation!(Hole, Position, Ruleset, Token, Decision);

pub use builder::TurnBuilder;
pub use error::{
    IllegalError, ParseDecisionError, ParseHoleError, ParsePositionError, ParseRulesetError, ParseTokenError,
};
pub use game::{Game, Outcome, Termination};
pub use hole::{Hole, Row, Side};
pub use movegen::{random_playout, Playout, Sown, Turns};
pub use position::{Position, Setup, MAX_N, MAX_TRACK};
pub use record::{civil_date, date_tag, Annotation, Comment, Eval, Quality, Record, RecordError};
pub use ruleset::{GameKind, Ruleset};
pub use token::{Decision, Pick, Token};
pub use turn::{Event, Phase, Turn};

// The README's Rust examples are compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
struct ReadmeDoctests;
