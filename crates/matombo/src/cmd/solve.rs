//! `matombo solve`: prove a position's value by exhaustive search (crate `matombo_egtb`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use matombo_egtb::{solve_pns, Answer, PnsLimits, PnsSolution, Solution, Solver};
use serde::Serialize;

/// Arguments of `matombo solve`.
#[derive(clap::Args)]
#[command(after_help = "--method pns (the default): depth-first proof-number search for each side (both at \
                        once on two threads, or in turn with --threads 1), with a transposition table of \
                        --memory MiB; a win is read back as a proof, checked \
                        independently, and its distance made exact by the depth-first solver (else given as \
                        a range). Repeated positions count as no win for either side, never cached as such; \
                        both sides disproved is a draw. --method deepen: depth-first deepening one turn at a \
                        time until a forced win or loss is proved; an unproved position is reported with the \
                        depth searched in full (no result is forced sooner). With --egtb the tables score the \
                        positions they hold.\n\n\
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
    /// Search method: `pns` (proof-number search) or `deepen` (depth-first deepening).
    #[arg(long, value_enum, default_value_t = Method::Pns)]
    pub method: Method,
    /// Transposition table of the proof-number search, in MiB.
    #[arg(long, value_name = "MIB", default_value_t = 1024, value_parser = clap::value_parser!(u64).range(1..=65536))]
    pub memory: u64,
    /// Node budget of the depth-first search that makes a proved distance exact
    /// (default: --nodes; 0 keeps the proof's range).
    #[arg(long, value_name = "N")]
    pub exact_nodes: Option<u64>,
    /// Threads of the proof-number search: 2 searches both attackers at once, each with
    /// half the table; 1 searches them in turn on one table.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..=2))]
    pub threads: u64,
}

/// How `matombo solve` searches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Method {
    /// Depth-first proof-number search (df-pn).
    Pns,
    /// Depth-first deepening alpha-beta (AND/OR) with a memo.
    Deepen,
}

#[derive(Serialize, Default)]
struct Out {
    position: String,
    method: &'static str,
    /// `win`, `loss` (for the side to move), `draw` (pns only) or `open` (not proved).
    value: &'static str,
    /// The exact distance, when known.
    distance: Option<u16>,
    /// For a win or loss whose distance is not exact: it lies in `distance_min..=distance_max`.
    distance_min: Option<u32>,
    distance_max: Option<u32>,
    line: Vec<String>,
    /// For `open` (deepen): every depth up to this was searched in full.
    searched_depth: Option<u32>,
    /// For `open` (pns): the root's proof and disproof numbers, the side to move attacking
    /// and the other side attacking (`null` for a side disproved).
    pns_mover: Option<[u32; 2]>,
    pns_other: Option<[u32; 2]>,
    /// Positions of the attacker in the proof checked by `Proof::verify`.
    proof_positions: Option<usize>,
    nodes: u64,
    /// Of `nodes` (pns): the proof-number search's (with the read-back), and the
    /// depth-first search's for the exact distance.
    pns_nodes: Option<u64>,
    exact_nodes: Option<u64>,
    seconds: f64,
    /// Seconds to the proof read back and checked, before the exact distance (pns).
    proof_seconds: Option<f64>,
    /// Bytes of the transposition table (pns).
    table_bytes: Option<usize>,
    /// Its slots taken over from another position (pns): what the memory bound cost.
    table_replaced: Option<u64>,
    /// Peak resident memory of the process, in bytes (Linux).
    peak_memory: Option<u64>,
}

/// The peak resident memory of this process, from /proc (Linux only).
fn peak_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Runs the subcommand.
pub fn run(args: Args) -> anyhow::Result<()> {
    let pos = super::parse_position(&args.position)?;
    if pos.turns().next().is_none() {
        anyhow::bail!("{pos}: the game is over (the side to move has no legal turn)");
    }
    let tables = args.egtb.as_deref().map(|d| super::open_tables(d, pos.ruleset())).transpose()?;
    let stop = AtomicBool::new(false);
    let started = Instant::now();
    let bar = super::progress(0, "{spinner} {msg} ({elapsed})");
    let out = std::thread::scope(|s| {
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
        let search = Search { args: &args, pos: &pos, tables: tables.as_deref(), stop: &stop, bar: &bar };
        let out = match args.method {
            Method::Deepen => search.deepen(),
            Method::Pns => search.pns(),
        };
        stop.store(true, Ordering::Relaxed);
        out
    });
    bar.finish_and_clear();
    let mut out = out?;
    out.seconds = started.elapsed().as_secs_f64();
    out.peak_memory = peak_memory();
    if args.json {
        println!("{}", serde_json::to_string(&out)?);
        return Ok(());
    }
    let mem = out.peak_memory.map(|b| format!(", peak {} MiB", b >> 20)).unwrap_or_default();
    match out.value {
        "win" | "loss" => {
            let what = match out.distance {
                Some(d) => format!("{} in {d} for {} (proved", out.value, pos.side_to_move()),
                None => format!(
                    "{} for {} in {} to {} turns (proved; the distance not narrowed further",
                    out.value,
                    pos.side_to_move(),
                    out.distance_min.unwrap_or(0),
                    out.distance_max.unwrap_or(0)
                ),
            };
            let proof = out.proof_seconds.map(|t| format!(", the proof checked after {t:.1} s")).unwrap_or_default();
            println!("{what}; {} nodes, {:.1} s{proof}{mem})", out.nodes, out.seconds);
            println!("line: {}", out.line.join(" "));
        }
        "draw" => println!(
            "draw: neither side can force a win (proved, {} nodes, {:.1} s{mem})",
            out.nodes, out.seconds
        ),
        _ => match out.searched_depth {
            Some(depth) => println!(
                "not proved within the budget: no forced result within {depth} turns ({} nodes, {:.1} s{mem})",
                out.nodes, out.seconds
            ),
            None => println!(
                "not proved within the budget (proof/disproof numbers: {} to move {:?}, other side {:?}; {} nodes, {:.1} s{mem})",
                pos.side_to_move(),
                out.pns_mover,
                out.pns_other,
                out.nodes,
                out.seconds
            ),
        },
    }
    Ok(())
}

/// One solve: what either method searches with.
#[derive(Clone, Copy)]
struct Search<'a> {
    args: &'a Args,
    pos: &'a matombo_core::Position,
    tables: Option<&'a matombo_egtb::Tables>,
    stop: &'a AtomicBool,
    bar: &'a indicatif::ProgressBar,
}

impl Search<'_> {
    fn deepen(self) -> anyhow::Result<Out> {
        let Search { args, pos, tables, stop, bar } = self;
        let mut solver = Solver::new(tables, args.nodes, stop);
        let solution = solver.solve(pos, args.depth, &mut |d, nodes| {
            bar.set_message(format!("no forced result within {d} turns; {nodes} nodes"));
            bar.tick();
        });
        let mut out = Out { position: pos.to_string(), method: "deepen", nodes: solver.nodes(), ..Out::default() };
        match solution {
            Solution::Proved(v, line) => {
                out.value = v.kind();
                out.distance = v.distance();
                out.line = line.iter().map(|t| t.to_string()).collect();
            }
            Solution::Open { depth } => {
                out.value = "open";
                out.searched_depth = Some(depth);
            }
        }
        Ok(out)
    }

    fn pns(self) -> anyhow::Result<Out> {
        let Search { args, pos, tables, stop, bar } = self;
        let limits = PnsLimits {
            nodes: args.nodes,
            memory: (args.memory << 20) as usize,
            exact_nodes: args.exact_nodes.unwrap_or(args.nodes),
            threads: args.threads as usize,
        };
        let show = |a: Answer| match a {
            Answer::Proved(d) => format!("proved ({d})"),
            Answer::Disproved => "disproved".into(),
            Answer::Open { pn, dn } => format!("pn {pn} dn {dn}"),
        };
        let bar2 = bar.clone();
        let (sol, stats) = solve_pns(pos, tables, limits, stop, &mut move |nodes, a, b| {
            bar2.set_message(format!("{nodes} nodes; to move: {}, other: {}", show(a), show(b)));
            bar2.tick();
        })
        .map_err(|e| anyhow::anyhow!("the proof found does not check out: {e}"))?;
        let nums = |a: Answer| match a {
            Answer::Open { pn, dn } => Some([pn, dn]),
            _ => None,
        };
        let mut out = Out {
            position: pos.to_string(),
            method: "pns",
            nodes: stats.nodes + stats.exact_nodes,
            pns_nodes: Some(stats.nodes),
            exact_nodes: Some(stats.exact_nodes),
            proof_seconds: Some(stats.proof_seconds),
            table_bytes: Some(stats.memory),
            table_replaced: Some(stats.replaced),
            ..Out::default()
        };
        match sol {
            PnsSolution::Proved { value, exact, lower, upper, line } => {
                out.value = value.kind();
                if exact {
                    out.distance = value.distance();
                } else {
                    out.distance_min = Some(lower);
                    out.distance_max = Some(upper);
                }
                out.line = line.iter().map(|t| t.to_string()).collect();
                out.proof_positions = Some(stats.proof_positions);
            }
            PnsSolution::Draw => out.value = "draw",
            PnsSolution::Open { mover, other } => {
                out.value = "open";
                out.pns_mover = nums(mover);
                out.pns_other = nums(other);
            }
        }
        Ok(out)
    }
}
