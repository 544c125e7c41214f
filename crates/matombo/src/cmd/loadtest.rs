//! `matombo loadtest`: many concurrent online games on loopback; turns per second and the
//! latency from a turn sent to the opponent receiving it; with `--lobby`, players who meet
//! through the lobby first, and the time from a challenge accepted to both in the room.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use matombo_core::Ruleset;
use matombo_harness::loadtest::{self, Config, Live};

/// Arguments of `matombo loadtest`.
#[derive(clap::Args)]
#[command(after_help = "Examples:\n  \
    matombo loadtest --rooms 500 --duration 60          # in-process server, fresh temporary database\n  \
    matombo loadtest --rooms 50 --duration 5 --json     # the CI size, machine-readable\n  \
    matombo loadtest --url http://127.0.0.1:8080 --rooms 10\n  \
    matombo loadtest --lobby --players 500 --duration 60 # players meet in the lobby, then play\n\n\
    Against a separate `matombo serve`, its per-address limits (20 rooms, 64 connections, 10 new\n\
    player identities an hour, one challenge a second per lobby connection by default) apply:\n\
    the in-process server raises them for the test.")]
pub struct Args {
    /// Concurrent rooms, two clients each (1..5000).
    #[arg(long, default_value_t = 500)]
    pub rooms: usize,
    /// Lobby traffic: players with their own identities meet through the lobby's
    /// WebSocket (half post open challenges, the others accept one of those listed), play
    /// the game in its room, and meet again; measures accept to both players in the room.
    #[arg(long)]
    pub lobby: bool,
    /// Lobby mode: players (an even number, 2..10000); `--rooms` is then half of it.
    #[arg(long, requires = "lobby", conflicts_with = "rooms")]
    pub players: Option<usize>,
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
    /// Server to test (loopback only); default: one started in this process. Repeated:
    /// the nodes of one cluster, clients spread over them (each game's players on two).
    #[arg(long)]
    pub url: Vec<String>,
    /// Clients whose connection closes (a node restarting, `1012`) connect again, as the
    /// pages do, and a room's state behind a turn already seen counts as an error (`lost
    /// acknowledged turn`); failed room creations and claims are tried again. For rolling
    /// restarts behind a balancer.
    #[arg(long, conflicts_with = "lobby")]
    pub reconnect: bool,
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
    let rooms = match args.players {
        Some(p) => {
            anyhow::ensure!((2..=10_000).contains(&p) && p % 2 == 0, "--players: an even number from 2 to 10000");
            p / 2
        }
        None => args.rooms,
    };
    let config = Config {
        urls: args.url.clone(),
        rooms,
        duration: Duration::from_secs_f64(args.duration),
        ramp: Duration::from_secs_f64(args.ramp),
        ruleset,
        think: Duration::from_millis(args.think_ms),
        seed: args.seed,
        lobby: args.lobby,
        reconnect: args.reconnect,
    };
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let live = Arc::new(Live::default());
    let total = args.duration + args.ramp;
    let bar = super::progress((total * 10.0) as u64, "{bar:30} {elapsed}/{duration} {msg}");
    let report = rt.block_on(async {
        let watcher = {
            let live = live.clone();
            let bar = bar.clone();
            let lobby = args.lobby;
            tokio::spawn(async move {
                let start = Instant::now();
                loop {
                    tokio::time::sleep(Duration::from_millis(200)).await;
                    bar.set_position((start.elapsed().as_secs_f64() * 10.0) as u64);
                    let met = if lobby {
                        format!("{} pairs met, ", live.matched.load(Ordering::Relaxed))
                    } else {
                        String::new()
                    };
                    bar.set_message(format!(
                        "{} clients, {met}{} turns, {} errors",
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
        if let Some(l) = &report.lobby {
            println!(
                "lobby: {} players, {} pairs met ({} accepts lost to another player); accepted to both in the room \
                 ({} pairs): p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
                l.players, l.pairs_met, l.accepts_lost, l.joined, l.join_p50_ms, l.join_p99_ms, l.join_max_ms
            );
        }
        if report.reconnects > 0 {
            println!("{} connections made again after a close", report.reconnects);
        }
        if !report.error_kinds.is_empty() {
            println!("errors by kind: {:?}", report.error_kinds);
        }
    }
    anyhow::ensure!(report.errors == 0, "{} errors during the load test", report.errors);
    if let Some(max) = args.max_p99_ms {
        anyhow::ensure!(report.p99_ms <= max, "99th percentile {:.2} ms exceeds {max} ms", report.p99_ms);
    }
    Ok(())
}
