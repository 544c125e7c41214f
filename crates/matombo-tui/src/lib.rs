//! # matombo-tui
//!
//! The full-screen terminal board behind `matombo play`: Tsoro and Nsolo against the AI
//! or between two people at one keyboard, drawn with ratatui on crossterm.
//!
//! The crate is split so that everything but the terminal itself is testable:
//! - [`app`]: the game state and key handling, a pure state machine that returns
//!   [`app::Effect`]s (think, save, quit) for the loop to carry out;
//! - [`ui`]: drawing, a pure function of the [`app::App`] state;
//! - [`run`]: the terminal loop, the AI thread and saving.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod app;
pub mod ui;

mod term;

pub use app::{App, Effect, Player};
pub use term::{run, Error, Options};
