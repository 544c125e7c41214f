//! `matombo bench`: speed of random playouts, perft and search, per ruleset, and the
//! search's node-count signature (`matombo_ai::bench`).

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use matombo_ai::NetChoice;
use matombo_core::{random_playout, Position, Ruleset};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use serde::Serialize;

/// Arguments of `matombo bench`.
#[derive(clap::Args)]
#[command(
    after_help = "Examples:\n  matombo bench\n  matombo bench --seconds 3 --json\n  matombo bench --ruleset tsoro:8 --ruleset nsolo:36\n  matombo bench --signature\n  matombo bench --ruleset nsolo:8 --net none\n  matombo bench --net nsolo8.nnue"
)]
pub struct Args {
    /// Rulesets to measure (default: tsoro:8, tsoro:21, nsolo:8, nsolo:36).
    #[arg(long = "ruleset")]
    pub rulesets: Vec<String>,
    /// Seconds spent on each measurement.
    #[arg(long, default_value_t = 1.0)]
    pub seconds: f64,
    /// Turn cap for random playouts (games past it count as unfinished).
    #[arg(long, default_value_t = 5000)]
    pub max_turns: u32,
    /// Seed of the random playouts.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Only print the search's node-count signature (a fixed search's node total over a
    /// fixed position set; it changes exactly when what the search does changes).
    #[arg(long)]
    pub signature: bool,
    /// Search with the evaluation network of this file (as `matombo train net` writes it;
    /// the default rulesets become its board alone), or with `none` the weights alone
    /// instead of a board's built-in network.
    #[arg(long, value_name = "FILE|none", conflicts_with = "signature", value_parser = matombo_lab::arena::parse_net)]
    pub net: Option<NetChoice>,
}

/// The signature as `--signature --json` prints it.
#[derive(Serialize)]
struct SignatureJson {
    /// Node total.
    signature: u64,
    /// Nodes per position.
    nodes: Vec<u64>,
}

/// The figures for one ruleset.
#[derive(Serialize)]
pub struct Row {
    ruleset: String,
    playouts_per_s: f64,
    random_turns_per_s: f64,
    turns_per_playout: f64,
    unfinished_share: f64,
    perft_depth: u32,
    perft_count: String,
    perft_turns_per_s: f64,
    search_nodes_per_s: f64,
    search_depth: u32,
}

/// Perft depth per board so that one run takes a fraction of a second to a few seconds.
fn perft_depth(r: Ruleset) -> u32 {
    match (r.kind(), r.size()) {
        (matombo_core::GameKind::Tsoro, n) if n <= 8 => 5,
        (matombo_core::GameKind::Tsoro, n) if n <= 15 => 4,
        (matombo_core::GameKind::Tsoro, _) => 4,
        (matombo_core::GameKind::Nsolo, n) if n <= 12 => 3,
        // Big Nsolo captures have so many bonus sets that depth 2 takes many seconds.
        _ => 1,
    }
}

fn measure(r: Ruleset, args: &Args) -> Row {
    let start = Position::start(r);
    let budget = Duration::from_secs_f64(args.seconds);
    let mut rng = SmallRng::seed_from_u64(args.seed);
    let (mut playouts, mut turns, mut unfinished) = (0u64, 0u64, 0u64);
    let t0 = Instant::now();
    while t0.elapsed() < budget || playouts == 0 {
        let p = random_playout(&start, &mut rng, args.max_turns);
        playouts += 1;
        turns += p.turns as u64;
        unfinished += p.unfinished as u64;
    }
    let secs = t0.elapsed().as_secs_f64();
    let depth = perft_depth(r);
    let t1 = Instant::now();
    let count = start.perft(depth);
    let perft_secs = t1.elapsed().as_secs_f64();
    let t2 = Instant::now();
    let limits = matombo_ai::Limits { time: Some(budget), depth: None, nodes: None };
    let net = args.net.clone().unwrap_or(NetChoice::Builtin);
    let result = matombo_ai::Engine::new(args.seed).with_net(net).search(&start, limits, &AtomicBool::new(false));
    let search_secs = t2.elapsed().as_secs_f64();
    Row {
        ruleset: r.to_string(),
        playouts_per_s: playouts as f64 / secs,
        random_turns_per_s: turns as f64 / secs,
        turns_per_playout: turns as f64 / playouts as f64,
        unfinished_share: unfinished as f64 / playouts as f64,
        perft_depth: depth,
        perft_count: count.to_string(),
        perft_turns_per_s: count as f64 / perft_secs,
        search_nodes_per_s: result.as_ref().map_or(0.0, |r| r.nodes as f64 / search_secs),
        search_depth: result.map_or(0, |r| r.depth),
    }
}

/// Runs the subcommand.
pub fn run(args: Args) -> anyhow::Result<()> {
    if args.signature {
        let sig = matombo_ai::bench::signature();
        if args.json {
            println!("{}", serde_json::to_string_pretty(&SignatureJson { signature: sig.total(), nodes: sig.nodes })?);
        } else {
            println!("signature: {} nodes", sig.total());
        }
        return Ok(());
    }
    let names = if let (Some(NetChoice::Given(net)), true) = (&args.net, args.rulesets.is_empty()) {
        vec![net.ruleset().to_string()]
    } else if args.rulesets.is_empty() {
        vec!["tsoro:8".to_string(), "tsoro:21".into(), "nsolo:8".into(), "nsolo:36".into()]
    } else {
        args.rulesets.clone()
    };
    let rulesets: Vec<Ruleset> = names
        .iter()
        .map(|n| n.parse().map_err(|e| anyhow::anyhow!("bad ruleset {n:?}: {e}")))
        .collect::<Result<_, _>>()?;
    if let Some(net) = &args.net {
        for &r in &rulesets {
            matombo_lab::arena::check_net(net, r).map_err(anyhow::Error::msg)?;
        }
    }
    if !(args.seconds > 0.0 && args.seconds <= 600.0) {
        anyhow::bail!("--seconds must be between 0 and 600");
    }
    if cfg!(debug_assertions) {
        tracing::warn!("this is a debug build; measure with `cargo run --release -- bench`");
    }
    let bar = super::progress(rulesets.len() as u64, super::perft::PROGRESS);
    let mut rows = Vec::new();
    for r in rulesets {
        bar.set_message(r.to_string());
        rows.push(measure(r, &args));
        bar.inc(1);
    }
    bar.finish_and_clear();
    if args.json {
        println!("{}", serde_json::to_string_pretty(&rows)?);
        return Ok(());
    }
    println!(
        "{:<12} {:>12} {:>14} {:>10} {:>10} {:>6} {:>16} {:>14} {:>14}",
        "ruleset",
        "playouts/s",
        "random turn/s",
        "turns/game",
        "unfinished",
        "perft",
        "perft count",
        "perft turn/s",
        "search node/s"
    );
    for r in &rows {
        println!(
            "{:<12} {:>12.0} {:>14.0} {:>10.1} {:>9.1}% {:>6} {:>16} {:>14.0} {:>14.0}",
            r.ruleset,
            r.playouts_per_s,
            r.random_turns_per_s,
            r.turns_per_playout,
            100.0 * r.unfinished_share,
            r.perft_depth,
            r.perft_count,
            r.perft_turns_per_s,
            r.search_nodes_per_s
        );
    }
    println!("signature: {} nodes", matombo_ai::bench::signature().total());
    Ok(())
}
