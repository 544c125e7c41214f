//! `matombo perft`: count turn sequences (RULES.md §7).

use std::time::Instant;

/// The style of the progress bar of `perft --divide` and `bench`.
pub const PROGRESS: &str = "{spinner} {msg} [{bar:40}] {pos}/{len} ({eta})";

/// Arguments of `matombo perft`.
#[derive(clap::Args)]
#[command(
    after_help = "Examples:\n  matombo perft tsoro:8 4\n  matombo perft 'nsolo:8 2*8/0,2*7/2*7,0/2*8 S' 3 --divide"
)]
pub struct Args {
    /// Position string, or a ruleset name for its start position.
    pub position: String,
    /// Depth in turns.
    pub depth: u32,
    /// First print `<token> <count>` for each legal turn.
    #[arg(long)]
    pub divide: bool,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Runs the subcommand.
pub fn run(args: Args) -> anyhow::Result<()> {
    let pos = super::parse_position(&args.position)?;
    let started = Instant::now();
    let mut divide = Vec::new();
    let total: u128 = if args.divide && args.depth > 0 {
        let bar = super::progress(pos.count_turns().min(u64::MAX as u128) as u64, PROGRESS);
        let mut total = 0u128;
        for (token, after) in pos.turns() {
            let c = after.perft(args.depth - 1);
            total = total.saturating_add(c);
            divide.push((token.to_string(), c));
            bar.inc(1);
        }
        bar.finish_and_clear();
        total
    } else {
        pos.perft(args.depth)
    };
    let secs = started.elapsed().as_secs_f64();
    tracing::info!(depth = args.depth, total = %total, seconds = secs, "perft done");
    if args.json {
        let divide: Vec<_> =
            divide.iter().map(|(t, c)| serde_json::json!({"turn": t, "count": c.to_string()})).collect();
        let out = serde_json::json!({
            "position": pos.to_string(),
            "depth": args.depth,
            "count": total.to_string(),
            "divide": divide,
            "seconds": secs,
        });
        println!("{out}");
    } else {
        for (t, c) in &divide {
            println!("{t} {c}");
        }
        println!("{total}");
    }
    Ok(())
}
