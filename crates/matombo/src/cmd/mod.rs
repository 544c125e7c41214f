//! One module per subcommand: its arguments (with help and an example) and `run`; and the
//! helpers several of them share (position arguments, progress bars); the worker pool,
//! match statistics and tuning steps are in `matombo_lab`.

pub mod analyse;
pub mod apply;
pub mod attack;
pub mod bench;
pub mod db;
pub mod egtb;
pub mod engine;
pub mod loadtest;
pub mod matches;
pub mod perft;
pub mod play;
pub mod puzzles;
pub mod review;
pub mod serve;
pub mod show;
pub mod site;
pub mod solve;
pub mod train;
pub mod tune;
pub mod turns;

use std::io::IsTerminal;

use anyhow::Context;
use indicatif::{ProgressBar, ProgressStyle};
use matombo_core::Position;

/// The engine's options that `analyse` and `engine` share.
#[derive(clap::Args)]
pub struct EngineOptions {
    /// Seed of the engine's random choices.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Size of the transposition table in MiB, rounded down to a power of two: a bigger
    /// table keeps more of a long search.
    #[arg(long, value_name = "MIB", default_value_t = matombo_ai::DEFAULT_HASH_MIB as u64,
          value_parser = clap::value_parser!(u64).range(1..=matombo_ai::MAX_HASH_MIB as u64))]
    pub hash: u64,
    /// Endgame tables built by `matombo egtb build` (the directory given there), read for
    /// the ruleset of the position: the search scores the positions they hold exactly.
    #[arg(long, value_name = "DIR")]
    pub egtb: Option<std::path::PathBuf>,
}

/// Parses a position argument: a position string or a ruleset name (its start position).
pub fn parse_position(s: &str) -> anyhow::Result<Position> {
    s.parse::<Position>().with_context(|| format!("bad position {s:?}"))
}

/// The endgame tables of `ruleset` in `dir` (as `matombo egtb build --dir` wrote them),
/// checked: a damaged file is an error, never used.
pub fn open_tables(
    dir: &std::path::Path,
    ruleset: matombo_core::Ruleset,
) -> anyhow::Result<std::sync::Arc<matombo_egtb::Tables>> {
    let tables = matombo_egtb::Tables::open(dir, ruleset)
        .with_context(|| format!("reading the endgame tables of {ruleset} (build them with `matombo egtb build {ruleset} --stones K --dir {}`)", dir.display()))?;
    Ok(std::sync::Arc::new(tables))
}

/// A progress bar of `len` steps on stderr in `template`'s style, hidden when stdout is not
/// a terminal (so that piped or `--json` output and logs are not interleaved with it).
pub fn progress(len: u64, template: &str) -> ProgressBar {
    if !std::io::stdout().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len);
    bar.set_style(ProgressStyle::with_template(template).expect("valid template"));
    bar
}
