//! `matombo loadtest`: many concurrent online games on loopback; turns per second and the
//! latency from a turn sent to the opponent receiving it.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use matombo_core::Ruleset;
use matombo_web::online::loadtest::{self, Config, Live};

/// Arguments of `matombo loadtest`.
#[derive(clap::Args)]
#[command(after_help = "Examples:\n  \
    matombo loadtest --rooms 500 --duration 60          # in-process server, fresh temporary database\n  \
    matombo loadtest --rooms 50 --duration 5 --json     # the CI size, machine-readable\n  \
    matombo loadtest --url http://127.0.0.1:8080 --rooms 10\n\n\
    Against a separate `matombo serve`, its per-address limits (20 rooms, 64 connections by default)\n\
    apply: the in-process server raises them for the test.")]
pub struct Args {
    /// Concurrent rooms, two clients each (1..5000).
    #[arg(long, default_value_t = 500)]
    pub rooms: usize,
    /// Seconds to measure, after the ramp.
    #[arg(long, default_value_t = 30.0)]
    pub duration: f64,
    /// Seconds over which rooms open and clients connect (not measured).
    #[arg(long, default_value_t = 10.0)]
    pub ramp: f64,
    /// Ruleset of every game.
    #[arg(long, default_value = "tsoro:8")]
    pub ruleset: String,
    /// Mean thinking time per turn in ms (each draw uniform in 0.5x..1.5x).
    #[arg(long, default_value_t = 500)]
    pub think_ms: u64,
    /// Server to test (loopback only); default: one started in this process.
    #[arg(long)]
    pub url: Option<String>,
    /// Seed of the random turns.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Print the report as JSON on stdout.
    #[arg(long)]
    pub json: bool,
    /// Exit with failure if any error occurred or the 99th percentile exceeds this (ms).
    #[arg(long)]
    pub max_p99_ms: Option<f64>,
}

/// Runs the subcommand.
pub fn run(args: Args) -> anyhow::Result<()> {
    let ruleset: Ruleset = args.ruleset.parse().with_context(|| format!("bad ruleset {:?}", args.ruleset))?;
    anyhow::ensure!(args.duration > 0.0 && args.duration <= 3600.0, "--duration: from 0 to 3600 seconds");
    anyhow::ensure!(args.ramp >= 0.0 && args.ramp <= 600.0, "--ramp: from 0 to 600 seconds");
    let config = Config {
        url: args.url.clone(),
        rooms: args.rooms,
        duration: Duration::from_secs_f64(args.duration),
        ramp: Duration::from_secs_f64(args.ramp),
        ruleset,
        think: Duration::from_millis(args.think_ms),
        seed: args.seed,
    };
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let live = Arc::new(Live::default());
    let total = args.duration + args.ramp;
    let bar = super::progress((total * 10.0) as u64, "{bar:30} {elapsed}/{duration} {msg}");
    let report = rt.block_on(async {
        let watcher = {
            let live = live.clone();
            let bar = bar.clone();
            tokio::spawn(async move {
                let start = Instant::now();
                loop {
                    tokio::time::sleep(Duration::from_millis(200)).await;
                    bar.set_position((start.elapsed().as_secs_f64() * 10.0) as u64);
                    bar.set_message(format!(
                        "{} clients, {} turns, {} errors",
                        live.connected.load(Ordering::Relaxed),
                        live.turns.load(Ordering::Relaxed),
                        live.errors.load(Ordering::Relaxed)
                    ));
                }
            })
        };
        let r = loadtest::run(config, live.clone()).await;
        watcher.abort();
        r
    });
    bar.finish_and_clear();
    let report = report.map_err(|e| anyhow::anyhow!(e))?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        println!(
            "{} rooms ({} clients), {} on {} server, think {} ms: {} turns in {:.1} s = {:.0} turns/s; \
             latency p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms; {} games finished; {} errors",
            report.rooms,
            report.clients,
            report.ruleset,
            report.server,
            report.think_ms,
            report.turns,
            report.seconds,
            report.turns_per_sec,
            report.p50_ms,
            report.p99_ms,
            report.max_ms,
            report.games_finished,
            report.errors
        );
    }
    anyhow::ensure!(report.errors == 0, "{} errors during the load test", report.errors);
    if let Some(max) = args.max_p99_ms {
        anyhow::ensure!(report.p99_ms <= max, "99th percentile {:.2} ms exceeds {max} ms", report.p99_ms);
    }
    Ok(())
}
