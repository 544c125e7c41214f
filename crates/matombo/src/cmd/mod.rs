//! One module per subcommand: its arguments (with help and an example) and `run`.

pub mod analyse;
pub mod apply;
pub mod bench;
pub mod engine;
pub mod loadtest;
pub mod matches;
pub mod perft;
pub mod play;
pub mod serve;
pub mod show;
pub mod tune;
pub mod turns;

use anyhow::Context;
use matombo_core::Position;

/// Parses a position argument: a position string or a ruleset name (its start position).
pub fn parse_position(s: &str) -> anyhow::Result<Position> {
    s.parse::<Position>().with_context(|| format!("bad position {s:?}"))
}
