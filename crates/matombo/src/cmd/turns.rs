//! `matombo turns`: every legal turn and the position it leads to.

use std::io::Write;

/// Arguments of `matombo turns`.
#[derive(clap::Args)]
#[command(
    after_help = "Examples:\n  matombo turns tsoro:8\n  matombo turns 'tsoro:8 2*8/0*8/0*6,1*2/2,0,3,0,3*2,0,3 N' --json"
)]
pub struct Args {
    /// Position string, or a ruleset name for its start position.
    pub position: String,
    /// Print one JSON object per line: {"turn": …, "position": …}.
    #[arg(long)]
    pub json: bool,
    /// List at most this many turns (an Nsolo capture can have astronomically many).
    #[arg(long)]
    pub limit: Option<u64>,
}

/// Runs the subcommand.
pub fn run(args: Args) -> anyhow::Result<()> {
    let pos = super::parse_position(&args.position)?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let limit = args.limit.unwrap_or(u64::MAX);
    for (token, after) in pos.turns().take(limit.min(usize::MAX as u64) as usize) {
        let r = if args.json {
            writeln!(out, "{}", serde_json::json!({"turn": token.to_string(), "position": after.to_string()}))
        } else {
            writeln!(out, "{token} {after}")
        };
        // A closed pipe (`| head`) ends the listing quietly.
        if r.is_err() {
            return Ok(());
        }
    }
    out.flush().ok();
    Ok(())
}
