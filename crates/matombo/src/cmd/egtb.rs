//! `matombo egtb`: build, check and probe endgame tables (crate `matombo_egtb`).

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use matombo_core::Ruleset;
use matombo_egtb::{Budget, Tables, Value};
use serde::Serialize;

/// The subcommands of `matombo egtb`.
#[derive(clap::Subcommand)]
pub enum Command {
    /// Build (or resume building) the tables of a ruleset up to K stones on the board.
    #[command(after_help = "One file per layer (stone count) under DIR/<ruleset>/; a layer already \
                            there is checked and kept, so an interrupted build resumes.\n\n\
                            Examples:\n  matombo egtb build tsoro:6,heads=0,bonus=0 --stones 8\n  \
                            matombo egtb build nsolo:8 --stones 6 --dir /data/egtb --memory 8")]
    Build {
        /// Ruleset name, e.g. tsoro:6 or nsolo:8.
        ruleset: Ruleset,
        /// The most stones on the board.
        #[arg(long)]
        stones: u32,
        /// Directory of the tables.
        #[arg(long, default_value = "egtb")]
        dir: PathBuf,
        /// Worker threads (default: every core).
        #[arg(long)]
        threads: Option<usize>,
        /// Memory the build may use, in GiB; a layer that needs more stops before it starts.
        #[arg(long, default_value_t = 16.0)]
        memory: f64,
        /// One JSON object per layer instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Check every table file of a ruleset (checksums, headers) and summarise each layer.
    Info {
        /// Ruleset name.
        ruleset: Ruleset,
        /// Directory of the tables.
        #[arg(long, default_value = "egtb")]
        dir: PathBuf,
        /// One JSON object per layer instead of text.
        #[arg(long)]
        json: bool,
    },
    /// The exact value of a position and its best turns.
    #[command(after_help = "Example:\n  matombo egtb probe 'tsoro:6,heads=0,bonus=0 0*6/0*5,1/0*6/0*5,1 S'")]
    Probe {
        /// Position string.
        position: String,
        /// Directory of the tables.
        #[arg(long, default_value = "egtb")]
        dir: PathBuf,
        /// One JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Serialize)]
struct LayerOut {
    stones: u32,
    positions: u64,
    /// Same-layer turns (no capture); only for a layer built now.
    edges: Option<u64>,
    wins: u64,
    losses: u64,
    draws: u64,
    longest: u16,
    built: bool,
    seconds: f64,
}

/// Runs the subcommand.
pub fn run(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Build { ruleset, stones, dir, threads, memory, json } => {
            let threads = threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
            let budget = Budget { threads, memory: (memory * (1u64 << 30) as f64) as u64 };
            let bar = super::progress(0, "{spinner} layer {msg} [{bar:40}] {pos}/{len} positions ({eta})");
            let mut started = Instant::now();
            let progress = |k: u32, done: u64| {
                if bar.length() == Some(0) || bar.message() != k.to_string() {
                    if let Some(ix) = matombo_egtb::LayerIndex::new(ruleset, k) {
                        bar.set_length(ix.len());
                    }
                    bar.set_message(k.to_string());
                }
                bar.set_position(done);
            };
            Tables::build_in(&dir, ruleset, stones, budget, &progress, &mut |layer, edges| {
                let s = layer.summary();
                let out = LayerOut {
                    stones: layer.index.stones(),
                    positions: layer.index.len(),
                    edges,
                    wins: s.wins,
                    losses: s.losses,
                    draws: s.draws,
                    longest: s.longest,
                    built: edges.is_some(),
                    seconds: started.elapsed().as_secs_f64(),
                };
                bar.suspend(|| print_layer(&out, json));
                started = Instant::now();
            })
            .with_context(|| format!("building the tables of {ruleset} in {}", dir.display()))?;
            bar.finish_and_clear();
            Ok(())
        }
        Command::Info { ruleset, dir, json } => {
            let started = Instant::now();
            let tables = Tables::open(&dir, ruleset)?;
            for layer in tables.layers() {
                let s = layer.summary();
                print_layer(
                    &LayerOut {
                        stones: layer.index.stones(),
                        positions: layer.index.len(),
                        edges: None,
                        wins: s.wins,
                        losses: s.losses,
                        draws: s.draws,
                        longest: s.longest,
                        built: false,
                        seconds: 0.0,
                    },
                    json,
                );
            }
            let checked = started.elapsed().as_secs_f64();
            // Probe speed: positions spread over the top layer, made first, then probed.
            let top = tables.layers().last().expect("at least one layer");
            let step = (top.index.len() / 100_000).max(1);
            let sample: Vec<_> = (0..top.index.len()).step_by(step as usize).map(|i| top.index.unrank(i)).collect();
            let timer = Instant::now();
            let mut wins = 0u64;
            for _ in 0..10 {
                wins += sample.iter().filter(|p| matches!(tables.probe(p), Some(Value::Win(_)))).count() as u64;
            }
            let ns = timer.elapsed().as_secs_f64() * 1e9 / (10 * sample.len()) as f64;
            if json {
                println!(
                    "{}",
                    serde_json::json!({"layers": tables.layers().len(), "check_seconds": checked, "probe_ns": ns})
                );
            } else {
                println!(
                    "{} layers checked in {checked:.1} s; a probe takes {ns:.0} ns ({} probes, {wins} wins)",
                    tables.layers().len(),
                    10 * sample.len()
                );
            }
            Ok(())
        }
        Command::Probe { position, dir, json } => {
            let pos = super::parse_position(&position)?;
            let tables = Tables::open(&dir, pos.ruleset())?;
            let Some((value, best)) = tables.best_turns(&pos) else {
                anyhow::bail!(
                    "the position has {} stones; the tables of {} in {} hold at most {}",
                    pos.total_stones(),
                    pos.ruleset(),
                    dir.display(),
                    tables.max_stones()
                );
            };
            let best: Vec<String> = best.iter().map(|t| t.to_string()).collect();
            if json {
                #[derive(Serialize)]
                struct Out<'a> {
                    position: String,
                    value: &'static str,
                    distance: Option<u16>,
                    best: &'a [String],
                }
                let out =
                    Out { position: pos.to_string(), value: value.kind(), distance: value.distance(), best: &best };
                println!("{}", serde_json::to_string(&out)?);
            } else {
                println!("{value} for {}", pos.side_to_move());
                if !best.is_empty() {
                    println!("best: {}", best.join(" "));
                }
            }
            Ok(())
        }
    }
}

fn print_layer(out: &LayerOut, json: bool) {
    if json {
        println!("{}", serde_json::to_string(out).expect("serialisable"));
    } else {
        println!(
            "{:>3} stones {:>13} positions: {:>13} wins {:>13} losses {:>11} draws, longest {:>4}{}",
            out.stones,
            out.positions,
            out.wins,
            out.losses,
            out.draws,
            out.longest,
            if out.built { format!(", built in {:.1} s", out.seconds) } else { ", read".into() }
        );
    }
}
