//! # matombo-lab
//!
//! The engine-testing library behind `matombo match` and `matombo tune`: the tally of a
//! match and its statistics (score, Elo with a 95% interval, the sequential probability
//! ratio test), openings (random and balanced), the SPSA tuning step, and a worker pool
//! that plays games on several threads; [`arena`] runs matches between engines and
//! [`tuning`] tunes the evaluation weights by self-play.
//!
//! ```
//! use matombo_lab::{elo_of, sprt, Tally, Verdict};
//!
//! let t = Tally { wins: 75, losses: 25, draws: 0, unfinished: 0 };
//! assert!((elo_of(0.75) - 190.85).abs() < 0.01);
//! assert_eq!(sprt(&t, 0.0, 50.0).verdict, Verdict::H1.as_str());
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod arena;
pub mod nnue;
mod openings;
mod pool;
pub mod puzzles;
mod spsa;
mod stats;
pub mod texel;
pub mod tuning;

pub use openings::{balance_score, balanced_opening, opening, random_opening, NoBalancedOpening, BALANCE_TRIES};
pub use pool::parallel;
pub use spsa::{gains, spsa_step, Gains};
pub use stats::{elo_of, expected_score, sprt, sprt_bounds, sprt_with, stats, Sprt, Stats, Tally, Verdict};
