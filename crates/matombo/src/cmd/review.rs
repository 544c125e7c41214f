//! `matombo review`: scores every position of a recorded game and writes it back
//! annotated (the review itself is `matombo_ai::review`; its JSON is `matombo_api`'s).

use std::io::Read;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use anyhow::Context;
use matombo_ai::review::{self, SideSummary};
use matombo_ai::Limits;
use matombo_core::{Record, Side};

/// Arguments of `matombo review`.
#[derive(clap::Args)]
#[command(after_help = "Examples:
  matombo review game.txt > reviewed.txt
  matombo review game.txt --nodes 200000 --out reviewed.txt
  matombo review - --json < game.txt

Each turn is classed by what it lost against the engine's best, in stones: an
inaccuracy (?!) from 1, a mistake (?) from 3, a blunder (??) from 6. A side's accuracy is
the mean over its turns of 100 x (1 - loss / 6), at least 0 a turn. See docs/review.md.")]
pub struct Args {
    /// The game record (RULES.md §6.5), or `-` to read it from stdin.
    pub record: String,
    /// Node budget per position (the default: 1,000,000 when no budget is given).
    #[arg(long, value_name = "N", conflicts_with = "time", value_parser = clap::value_parser!(u64).range(1..))]
    pub nodes: Option<u64>,
    /// Time budget per position in milliseconds.
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..))]
    pub time: Option<u64>,
    /// Print the review as JSON on stdout (every position and turn, and the summary).
    #[arg(long)]
    pub json: bool,
    /// Write the annotated record to this file instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Endgame tables built by `matombo egtb build` (the directory given there): positions
    /// they hold are scored exactly (win or loss in N, draw), and the search probes them.
    #[arg(long, value_name = "DIR")]
    pub egtb: Option<PathBuf>,
}

fn read_record(name: &str) -> anyhow::Result<Record> {
    let text = if name == "-" {
        let mut s = String::new();
        std::io::stdin().read_to_string(&mut s).context("reading the record from stdin")?;
        s
    } else {
        std::fs::read_to_string(name).with_context(|| format!("reading {name}"))?
    };
    let games = text.lines().filter(|l| l.trim_start().starts_with("[Ruleset ")).count();
    anyhow::ensure!(games <= 1, "{name} holds {games} games: matombo review reviews one record at a time");
    text.parse::<Record>().with_context(|| format!("{name} is not a valid record"))
}

fn summary_line(side: Side, name: Option<&str>, s: &SideSummary) -> String {
    let who = match name {
        Some(n) if n != "?" => format!("{side} ({n})"),
        _ => side.to_string(),
    };
    let plural = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    format!(
        "{who}: accuracy {}, {}, {}, {}, average loss {} stones over {}",
        s.accuracy.map_or("-".into(), |a| format!("{a:.1}%")),
        plural(s.inaccuracies, "inaccuracy", "inaccuracies"),
        plural(s.mistakes, "mistake", "mistakes"),
        plural(s.blunders, "blunder", "blunders"),
        s.average_loss.map_or("-".into(), |l| format!("{:.2}", l / 100.0)),
        plural(s.turns, "turn", "turns"),
    )
}

/// Runs the subcommand.
pub fn run(args: Args) -> anyhow::Result<()> {
    let record = read_record(&args.record)?;
    let limits = match args.time {
        Some(ms) => Limits { time: Some(Duration::from_millis(ms)), ..Limits::default() },
        None => Limits { nodes: Some(args.nodes.unwrap_or(review::DEFAULT_NODES)), ..Limits::default() },
    };
    let game = &record.game;
    let tables = args.egtb.as_deref().map(|dir| super::open_tables(dir, game.start().ruleset())).transpose()?;
    let bar =
        super::progress(game.positions().len() as u64, "{bar:40} {pos}/{len} positions  {elapsed_precise} (eta {eta})");
    let scores = review::score_game(game, limits, tables.as_ref(), &AtomicBool::new(false), &mut |done, _| {
        bar.set_position(done as u64)
    });
    bar.finish_and_clear();
    let r = review::classify(game, &scores);
    let mut annotated = record.clone();
    review::annotate(&mut annotated, &r);
    let text = annotated.to_string();
    if let Some(out) = &args.out {
        std::fs::write(out, &text).with_context(|| format!("writing {}", out.display()))?;
    }
    if args.json {
        let answer = matombo_api::review::answer(game, &scores, &r);
        println!("{}", serde_json::to_string_pretty(&answer).context("writing JSON")?);
        return Ok(());
    }
    if args.out.is_none() {
        print!("{text}");
    }
    eprintln!("{}", summary_line(Side::South, record.tag("South"), &r.south_summary));
    eprintln!("{}", summary_line(Side::North, record.tag("North"), &r.north_summary));
    Ok(())
}
