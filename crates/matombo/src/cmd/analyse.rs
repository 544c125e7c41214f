//! `matombo analyse`: the AI's view of a position.

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use anyhow::Context;
use matombo_ai::{mate_in, unproven_in, Engine, Limits, SearchResult};
use serde::Serialize;

/// Arguments of `matombo analyse`.
#[derive(clap::Args)]
#[command(after_help = "Examples:
  matombo analyse tsoro:8 --depth 6
  matombo analyse 'nsolo:8 2*8/0,2*7/2*7,0/2*8 S' --time 2000 --multipv 3 --json

Scores are in hundredths of a stone for the side to move; \"win in N\"/\"loss in N\" count
turns (plies) to the end of the game. With --egtb, a position the tables hold is
answered with its exact value.")]
pub struct Args {
    /// Position (RULES.md §6.2) or a ruleset name for its start position.
    pub position: String,
    /// Time budget in milliseconds (default 1000 when no limit is given).
    #[arg(long, value_name = "MS")]
    pub time: Option<u64>,
    /// Depth in turns.
    #[arg(long, value_name = "D")]
    pub depth: Option<u32>,
    /// Node budget.
    #[arg(long, value_name = "N")]
    pub nodes: Option<u64>,
    /// Rank the K best turns, all from one search at one depth (K above the number of
    /// legal turns ranks them all).
    #[arg(long, value_name = "K", default_value_t = 1)]
    pub multipv: usize,
    #[command(flatten)]
    pub engine: super::EngineOptions,
    /// Print JSON on stdout.
    #[arg(long)]
    pub json: bool,
}

/// What the endgame tables say of the analysed position.
#[derive(Serialize)]
struct Exact {
    /// `win`, `loss` or `draw` for the side to move.
    value: &'static str,
    /// Turns to the end (wins and losses).
    distance: Option<u16>,
    /// Every turn that keeps the value.
    best: Vec<String>,
    text: String,
}

#[derive(Serialize)]
struct Line {
    best: String,
    score: i32,
    score_text: String,
    pv: Vec<String>,
    depth: u32,
    nodes: u64,
    time_ms: f64,
    nps: u64,
}

/// Human form of a score: stones with two decimals, or a proven forced result. A forced
/// result the search found without proving it (a bonus cut to a few candidates on the
/// way) stays an evaluation, with what the search saw in brackets.
pub fn score_text(score: i32) -> String {
    // `n` turns to the end, positive for a win of the side to move.
    let in_turns = |n: i32| format!("{} in {}", if n > 0 { "win" } else { "loss" }, n.abs());
    if let Some(n) = mate_in(score) {
        in_turns(n)
    } else if let Some(n) = unproven_in(score) {
        format!("{:+.2} (unproven {})", score as f64 / 100.0, in_turns(n))
    } else {
        format!("{:+.2}", score as f64 / 100.0)
    }
}

fn line(r: &SearchResult) -> Line {
    let secs = r.elapsed.as_secs_f64();
    Line {
        best: r.best.to_string(),
        score: r.score,
        score_text: score_text(r.score),
        pv: r.pv.iter().map(|t| t.to_string()).collect(),
        depth: r.depth,
        nodes: r.nodes,
        time_ms: secs * 1000.0,
        nps: if secs > 0.0 { (r.nodes as f64 / secs) as u64 } else { 0 },
    }
}

/// Runs the subcommand.
pub fn run(args: Args) -> anyhow::Result<()> {
    let pos = super::parse_position(&args.position)?;
    anyhow::ensure!(args.multipv >= 1, "--multipv must be at least 1");
    anyhow::ensure!(args.depth != Some(0), "--depth must be at least 1");
    let limits = Limits { time: args.time.map(Duration::from_millis), depth: args.depth, nodes: args.nodes };
    let stop = AtomicBool::new(false);
    let mut engine = Engine::new(args.engine.seed).with_hash_mib(args.engine.hash as usize);
    if let Some(dir) = &args.engine.egtb {
        engine = engine.with_tables(super::open_tables(dir, pos.ruleset())?);
    }
    let exact = engine.tables().and_then(|t| t.best_turns(&pos)).map(|(v, best)| Exact {
        value: v.kind(),
        distance: v.distance(),
        best: best.iter().map(|t| t.to_string()).collect(),
        text: v.to_string(),
    });
    let results = engine.search_multipv(&pos, limits, &stop, args.multipv);
    let lines: Vec<Line> = results.iter().map(line).collect();
    if args.json {
        #[derive(Serialize)]
        struct Out<'a> {
            position: String,
            side_to_move: String,
            legal: bool,
            /// The one search's nodes (every line repeats it: do not sum them).
            nodes: u64,
            lines: &'a [Line],
            /// The endgame tables' value, when they hold the position.
            #[serde(skip_serializing_if = "Option::is_none")]
            tables: Option<Exact>,
        }
        let out = Out {
            position: pos.to_string(),
            side_to_move: pos.side_to_move().to_string(),
            legal: !lines.is_empty(),
            nodes: lines.first().map_or(0, |l| l.nodes),
            lines: &lines,
            tables: exact,
        };
        println!("{}", serde_json::to_string_pretty(&out).context("writing JSON")?);
        return Ok(());
    }
    if lines.is_empty() {
        println!("{} has no legal turn: the game is lost for the side to move.", pos);
        return Ok(());
    }
    println!("position {pos}");
    if let Some(e) = &exact {
        println!("tables: {} (best: {})", e.text, e.best.join(" "));
    }
    if lines.len() > 1 {
        // One search ranked every line: its figures once, then the lines.
        let l = &lines[0];
        println!("depth {}  nodes {}  time {:.0} ms  nodes/s {}", l.depth, l.nodes, l.time_ms, l.nps);
        for (i, l) in lines.iter().enumerate() {
            println!("{}. best {}  score {}", i + 1, l.best, l.score_text);
            println!("   pv {}", l.pv.join(" "));
        }
        return Ok(());
    }
    for l in &lines {
        println!(
            "best {}  score {}  depth {}  nodes {}  time {:.0} ms  nodes/s {}",
            l.best, l.score_text, l.depth, l.nodes, l.time_ms, l.nps
        );
        println!("   pv {}", l.pv.join(" "));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::score_text;
    use matombo_ai::{DECISIVE, MATE};

    #[test]
    fn scores_read_as_proofs_only_when_proved() {
        assert_eq!(score_text(MATE - 3), "win in 3");
        assert_eq!(score_text(-(MATE - 4)), "loss in 4");
        assert_eq!(score_text(DECISIVE - 11), "+999.89 (unproven win in 11)");
        assert_eq!(score_text(-(DECISIVE - 2)), "-999.98 (unproven loss in 2)");
        assert_eq!(score_text(250), "+2.50");
    }
}
