//! `matombo solve`: prove a position's value by exhaustive search (crate `matombo_egtb`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use matombo_egtb::{Solution, Solver};
use serde::Serialize;

/// Arguments of `matombo solve`.
#[derive(clap::Args)]
#[command(after_help = "Deepens one turn at a time until a forced win or loss is proved or the budget \
                        runs out; with --egtb the tables score the positions they hold. A draw cannot be \
                        proved by search: an unproved position is reported with the depth searched in \
                        full (no result is forced sooner).\n\n\
                        Examples:\n  matombo solve 'tsoro:6,heads=0,bonus=0 0*6/0*4,1,1/0*6/0*4,1,1 S'\n  \
                        matombo solve tsoro:6,heads=0,bonus=0 --egtb egtb --time 60000")]
pub struct Args {
    /// Position string, or a ruleset name for its start position.
    pub position: String,
    /// Endgame tables (the directory `matombo egtb build --dir` wrote).
    #[arg(long, value_name = "DIR")]
    pub egtb: Option<std::path::PathBuf>,
    /// Node budget.
    #[arg(long, default_value_t = 100_000_000)]
    pub nodes: u64,
    /// Time budget in milliseconds (none by default).
    #[arg(long, value_name = "MS")]
    pub time: Option<u64>,
    /// Deepest search, in turns.
    #[arg(long, default_value_t = 500)]
    pub depth: u32,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Serialize)]
struct Out {
    position: String,
    /// `win`, `loss` (for the side to move) or `open` (not proved).
    value: &'static str,
    distance: Option<u16>,
    line: Vec<String>,
    /// For `open`: every depth up to this was searched in full.
    searched_depth: Option<u32>,
    nodes: u64,
    seconds: f64,
}

/// Runs the subcommand.
pub fn run(args: Args) -> anyhow::Result<()> {
    let pos = super::parse_position(&args.position)?;
    let tables = args.egtb.as_deref().map(|d| super::open_tables(d, pos.ruleset())).transpose()?;
    let stop = AtomicBool::new(false);
    let started = Instant::now();
    let bar = super::progress(0, "{spinner} {msg} ({elapsed})");
    let solution = std::thread::scope(|s| {
        if let Some(ms) = args.time {
            let stop = &stop;
            s.spawn(move || {
                let end = started + Duration::from_millis(ms);
                while !stop.load(Ordering::Relaxed) {
                    let now = Instant::now();
                    if now >= end {
                        stop.store(true, Ordering::Relaxed);
                        break;
                    }
                    std::thread::sleep((end - now).min(Duration::from_millis(50)));
                }
            });
        }
        let mut solver = Solver::new(tables.as_deref(), args.nodes, &stop);
        let solution = solver.solve(&pos, args.depth, &mut |d, nodes| {
            bar.set_message(format!("no forced result within {d} turns; {nodes} nodes"));
            bar.tick();
        });
        stop.store(true, Ordering::Relaxed);
        (solution, solver.nodes())
    });
    bar.finish_and_clear();
    let (solution, nodes) = solution;
    let out = match &solution {
        Solution::Proved(v, line) => Out {
            position: pos.to_string(),
            value: v.kind(),
            distance: v.distance(),
            line: line.iter().map(|t| t.to_string()).collect(),
            searched_depth: None,
            nodes,
            seconds: started.elapsed().as_secs_f64(),
        },
        Solution::Open { depth } => Out {
            position: pos.to_string(),
            value: "open",
            distance: None,
            line: Vec::new(),
            searched_depth: Some(*depth),
            nodes,
            seconds: started.elapsed().as_secs_f64(),
        },
    };
    if args.json {
        println!("{}", serde_json::to_string(&out)?);
        return Ok(());
    }
    match solution {
        Solution::Proved(v, _) => {
            println!("{v} for {} (proved, {nodes} nodes, {:.1} s)", pos.side_to_move(), out.seconds);
            println!("line: {}", out.line.join(" "));
        }
        Solution::Open { depth } => println!(
            "not proved within the budget: no forced result within {depth} turns ({nodes} nodes, {:.1} s)",
            out.seconds
        ),
    }
    Ok(())
}
