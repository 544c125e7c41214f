//! `matombo play`: the full-screen terminal board.

use std::path::PathBuf;

use anyhow::Context;
use matombo_ai::Level;
use matombo_core::Side;
use matombo_tui::{Options, Player};

/// Arguments of `matombo play`.
#[derive(clap::Args)]
#[command(
    after_help = "Examples:\n  matombo play tsoro:8 --vs easy\n  matombo play nsolo --hotseat --record game.txt\n  \
                  matombo play tsoro --vs hard --side N\n\nPress ? in the game for the keys."
)]
pub struct Args {
    /// Ruleset name (its start position) or a position string.
    #[arg(default_value = "tsoro")]
    pub ruleset: String,
    /// Play against the AI at this level: beginner, easy, medium, hard or max.
    #[arg(long, value_name = "LEVEL", default_value = "medium", conflicts_with = "hotseat")]
    pub vs: Level,
    /// Two people at one keyboard, no AI.
    #[arg(long)]
    pub hotseat: bool,
    /// Your side against the AI: S (South, moves first) or N.
    #[arg(long, value_name = "S|N", default_value = "S", value_parser = parse_side)]
    pub side: Side,
    /// Save the game record to FILE on request (w) and always on exit.
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// Seed of the AI's random choices (default: from the clock).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Milliseconds per lap of the sowing animation; 0 turns it off.
    #[arg(long, value_name = "MS", default_value_t = 300)]
    pub lap_ms: u64,
}

fn parse_side(s: &str) -> Result<Side, String> {
    match s {
        "S" | "s" | "south" | "South" => Ok(Side::South),
        "N" | "n" | "north" | "North" => Ok(Side::North),
        _ => Err(format!("expected S or N, not {s:?}")),
    }
}

/// Runs the subcommand.
pub fn run(args: Args) -> anyhow::Result<()> {
    let start = super::parse_position(&args.ruleset)?;
    let players = if args.hotseat {
        [Player::Human, Player::Human]
    } else {
        let mut p = [Player::Ai(args.vs); 2];
        p[args.side.index()] = Player::Human;
        p
    };
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64)
    });
    tracing::info!(position = %start, ?players, seed, "starting the terminal board");
    let saved = matombo_tui::run(Options { start, players, seed, lap_ms: args.lap_ms, record: args.record.clone() })
        .context("terminal board")?;
    if let Some(path) = saved {
        eprintln!("record saved to {}", path.display());
    }
    Ok(())
}
